"""Property tests: symbolic, compiled and incremental energies agree, and the
transformations keep the zero-energy set (checked by enumeration)."""

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import qlib
from qlib.solvers import core as kernel
from strategies import models

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def all_states(n):
    return np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.uint8).reshape(2**n, n)


def symbolic_energy(model, comp, state):
    values = defaultdict(int, {int(v): int(b) for v, b in zip(comp.var_ids, state)})  # vanished vars: any value
    total = model.objective.evaluate(values)
    for con in model.constraints:
        total += con.energy(con.lhs.evaluate(values))
    return total


@SETTINGS
@given(models(integer=False))
def test_symbolic_equals_compiled(model):
    comp = qlib.compile(model)
    states = all_states(comp.var_count)
    batch = comp.energy(states)
    for state, e in zip(states, np.atleast_1d(batch)):
        assert symbolic_energy(model, comp, state) == pytest.approx(e, abs=1e-9)


@SETTINGS
@given(models(integer=False), st.data())
def test_incremental_flip_matches_full_energy(model, data):
    comp = qlib.compile(model)
    n = comp.var_count
    assume(n > 0)
    m = comp.kernel_arrays()
    x = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.uint8)
    fc = np.zeros(comp.term_count, dtype=np.int32)
    lhs = np.zeros(comp.num_rows)
    scratch = np.zeros(comp.num_rows)
    e = kernel.init_state(x, fc, lhs, m) + comp.offset
    assert e == pytest.approx(comp.energy(x), abs=1e-9)
    for v in data.draw(st.lists(st.integers(0, n - 1), max_size=8)):
        d = kernel.flip_delta(v, x, fc, lhs, scratch, m)
        assert not scratch.any()  # scratch is left clean
        kernel.apply_flip(v, x, fc, lhs, m)
        e += d
        assert e == pytest.approx(comp.energy(x), abs=1e-9)
        fc2, lhs2 = np.zeros_like(fc), np.zeros_like(lhs)
        kernel.init_state(x, fc2, lhs2, m)
        assert (fc2 == fc).all() and np.allclose(lhs2, lhs)


def min_over_aux(orig: qlib.CompiledModel, new: qlib.CompiledModel):
    """For every state of the original variables, the minimum energy of ``new``
    over its extra (auxiliary) variables."""
    states = all_states(new.var_count)
    energies = np.atleast_1d(new.energy(states))
    orig_cols = [new.index_by_id(int(v)) if v in set(new.var_ids.tolist()) else None for v in orig.var_ids]
    best = {}
    for s, e in zip(states, energies):
        key = tuple(int(s[c]) if c is not None else 0 for c in orig_cols)
        best[key] = min(best.get(key, np.inf), e)
    # original variables that vanished from the new model are free: take their min too
    result = np.full(2 ** orig.var_count, np.inf)
    for k, state in enumerate(all_states(orig.var_count)):
        key = tuple(int(b) if c is not None else 0 for b, c in zip(state, orig_cols))
        result[k] = best[key]
    return result


def exact_penalty(con) -> bool:
    """Whether expand_cons promises min over slack == weight * distance**2 for ``con``:
    equalities, and intervals with integer (or no) bounds on an integer left-hand side.
    (Non-integer bounds are rounded inward and finite sets keep only the values the
    left-hand side can reach: the same zero states, a penalty at least the distance.)"""
    if con.allowed.is_finite_set:
        return len(con.allowed.values) == 1
    integer_lhs = all(float(c).is_integer() for c in con.lhs.terms.values())
    return integer_lhs and all(math.isinf(b) or float(b).is_integer() for b in (con.allowed.lo, con.allowed.hi))


@SETTINGS
@given(models(objective=False))
def test_expand_cons_min_over_slack_equals_native_energy(model):
    orig = qlib.compile(model)
    expanded = qlib.compile(qlib.expand_cons(model))
    assume(expanded.var_count <= 14)   # brute force over every state
    native = np.atleast_1d(orig.energy(all_states(orig.var_count)))
    best = min_over_aux(orig, expanded)
    assert ((best < 1e-9) == (native < 1e-9)).all()  # the same zero-energy states
    assert (best >= -1e-9).all()
    if all(len(c.allowed.values) <= 1 for c in model.constraints):
        # equalities and intervals (non-integer bounds rounded inward): never below the native penalty
        assert (best >= native - 1e-9).all()
    if all(exact_penalty(c) for c in model.constraints):
        # equalities and integer intervals: the minimum over slack is exactly weight * distance**2
        assert np.allclose(best, native)


def test_expand_keeps_the_zero_states_in_every_branch():
    """One fixed case per branch of expand.py's penalties (the random models above reach
    them too, but not on every run), with the zero states written out where they matter."""
    a, b, c = qlib.var("nb", 3)
    cases = [
        # (relation, zero states over (a, b, c) or None to compare with the native energy only)
        (a + b == qlib.between(0.5, 0.7), []),                       # no integer inside: never holds
        (a + b == qlib.between(0.5, 1.5), [(1, 0), (0, 1)]),         # one integer inside: lhs == 1
        (2 * a + b <= 1.5, [(0, 0), (0, 1)]),                        # bound rounded down to 1
        (a + b >= 0.5, [(1, 0), (0, 1), (1, 1)]),
        (a + b <= 5, None),                                          # always holds: no penalty
        (a + b >= 3, []),                                            # above the range
        (a + b <= -1, []),                                           # below the range
        (a + b + c == qlib.between(1, 2), None),                     # a counter over 0..1
        (a + 0.5 * b == qlib.between(0.4, 1.2), [(0, 1), (1, 0)]),   # scaled by 2
        (0.5 * a + b == 0.5, [(1, 0)]),                              # equality, non-integer side
        (0.5 * a + 0.25 * b == qlib.one_of(0.25, 0.75, 2), [(0, 1), (1, 1)]),
        (0.5 * a + 0.5 * b == qlib.one_of(0.25, 0.75), []),           # scaled values not integers
        (0.785 * a - 1.41 * b == qlib.one_of(-1.41, 0.785, 3.1), [(1, 0), (0, 1)]),  # one-hot, reals
        (a + b == qlib.one_of(-3, 5, 7), []),                        # values on both sides of 0..2
        (a + b == qlib.one_of(4, 5), []),                            # every value above
        (a + b == qlib.one_of(-2, -1), []),                          # every value below
        (a + b + c == qlib.one_of(0, 2, 9), None),                   # in range 0, 2: progression
        (a + b + c == qlib.one_of(0, 1, 3), None),                   # not a progression: one-hot
        (a + b + c == qlib.one_of(1, 5), None),                      # one value in range
    ]
    for relation, zeros in cases:
        model = qlib.cons(relation)
        orig = qlib.compile(model)
        n = orig.var_count
        expanded = qlib.compile(qlib.expand_cons(model))
        native = np.atleast_1d(orig.energy(all_states(n)))
        best = min_over_aux(orig, expanded)
        found = sorted(tuple(s) for s, e in zip(all_states(n).tolist(), best) if e < 1e-9)
        assert found == sorted(tuple(s) for s, e in zip(all_states(n).tolist(), native) if e < 1e-9), relation
        if zeros is not None:
            assert found == sorted(zeros), relation
        if not model.allowed.is_finite_set:
            assert (best >= native - 1e-9).all()


def test_expand_interval_over_irrational_coefficients_is_refused():
    a, b = qlib.var("ir", 2)
    with pytest.raises(ValueError, match="common denominator"):
        qlib.expand_cons(qlib.cons(math.pi * a + b <= 2))
    with pytest.raises(ValueError, match="common denominator"):   # each 1/n is fine, together too fine
        qlib.expand_cons(qlib.cons(a / 7 + b / 9973 == qlib.between(0.1, 0.2)))
    # an equality and a finite set over the same left-hand side expand
    assert qlib.expand_cons(qlib.cons(math.pi * a + b == qlib.one_of(1, math.pi))).report["slack_vars"]


def test_expand_and_qubo_refuse_labels_they_would_reuse():
    a = qlib.var("lb", 3)
    clash = qlib.var("_aux_slack0[0]")
    with pytest.raises(ValueError, match="auxiliary label"):
        qlib.expand_cons(qlib.cons(a[0] + a[1] + clash <= 1))
    pair = qlib.var("_aux_pair0")
    with pytest.raises(ValueError, match="auxiliary label"):
        qlib.to_qubo(a[0] * a[1] * a[2] + pair)
    # an expanded model with slack passes through to_qubo, and a chosen strength is used
    q = qlib.to_qubo(qlib.cons(a[0] + a[1] + a[2] <= 1) + a[0] * a[1] * a[2], strength=7.5)
    assert q.report["aux_strengths"] and set(q.report["aux_strengths"]) == {7.5}


@SETTINGS
@given(models())
def test_to_qubo_min_over_aux_equals_energy(model):
    orig = qlib.compile(model)
    expanded_model = qlib.expand_cons(model)
    qubo_model = qlib.to_qubo(expanded_model)
    assert qubo_model.objective.degree <= 2
    assert not any(lit & 1 for t in qubo_model.objective.terms for lit in t)  # plain variables
    expanded, qubo = qlib.compile(expanded_model), qlib.compile(qubo_model)
    assume(qubo.var_count <= 14)   # brute force over every state
    # the reduction keeps every energy of the expanded model (minimised over its auxiliaries) ...
    exp_energies = np.atleast_1d(expanded.energy(all_states(expanded.var_count)))
    assert np.allclose(min_over_aux(expanded, qubo), exp_energies)
    # ... and so the zero-energy states of the original constraints
    if not model.objective.simplify_as_binary().terms:
        native = np.atleast_1d(orig.energy(all_states(orig.var_count)))
        assert ((min_over_aux(orig, qubo) < 1e-9) == (native < 1e-9)).all()


@SETTINGS
@given(models(var_count=6, integer=False))
def test_exhaustive_matches_brute_force(model):
    comp = qlib.compile(model)
    energies = np.atleast_1d(comp.energy(all_states(comp.var_count)))
    sol = qlib.solve(comp, backend="exhaustive")
    assert sol.energy == pytest.approx(energies.min(), abs=1e-9)
    assert sol.info["num_ground_states"] == int(np.sum(energies <= energies.min() + 1e-9))
