"""The quadratic fast path of annealing: local fields against the compiled energy and the exact minimum."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

import qlib
from qlib.compile import compile
from qlib.solvers.sa import driver as sa
from qlib.solvers.sa import kernel as anneal
from qlib.solvers.sa import local_field as lf
from qlib.solvers.core import accept, rng_uniform


def random_qubo(n, seed, negated=True):
    """A QUBO with mixed signs, linear terms and (with ``negated``) terms on negated literals."""
    rng = np.random.default_rng(seed)
    x = qlib.var(f"q{seed}_", n)
    f = qlib.Expr()
    for i in range(n):
        f = f + float(rng.integers(-3, 4)) * (~x[i] if negated and rng.random() < 0.3 else x[i])
        for j in range(i + 1, n):
            if rng.random() < 0.4:
                a = ~x[i] if negated and rng.random() < 0.3 else x[i]
                b = ~x[j] if negated and rng.random() < 0.3 else x[j]
                f = f + float(rng.integers(-4, 5)) * a * b
    return f


def field_energy(q, x):
    """The energy the fast path tracks (without the offset), from scratch."""
    f = np.concatenate([q.linear, np.zeros(lf.GROUP)])   # the padding's spare fields
    for i in np.flatnonzero(x):
        f[q.nbr[q.ptr[i]:q.ptr[i + 1]]] += q.coupling[q.ptr[i]:q.ptr[i + 1]]
    return q.constant + sum(0.5 * (q.linear[i] + f[i]) for i in np.flatnonzero(x))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 12), st.integers(0, 10_000))
def test_the_fields_give_the_compiled_energy_of_every_state(n, seed):
    compiled = compile(random_qubo(n, seed))
    q = lf.quadratic_arrays(compiled)
    assert q is not None
    rng = np.random.default_rng(seed)
    for x in rng.integers(0, 2, size=(8, compiled.var_count), dtype=np.uint8):
        assert compiled.offset + field_energy(q, x) == pytest.approx(compiled.energy(x), abs=1e-9)


def test_models_with_rows_or_higher_degree_take_the_general_kernel():
    x = qlib.var("g", 4)
    assert lf.quadratic_arrays(compile(x[0] * x[1] * x[2] + x[3])) is None
    assert lf.quadratic_arrays(compile(x[0] * x[1] + qlib.cons(qlib.sum(x) == 2))) is None
    hubo = qlib.solve(x[0] * x[1] * x[2] - x[3], seed=0, algorithm="sa", num_sweeps=10)
    assert hubo.info["kernel"] == "cached_delta"
    rows = qlib.solve(x[0] * x[1] + qlib.cons(qlib.sum(x) == 2), seed=0, algorithm="sa", num_sweeps=10)
    assert rows.info["kernel"] == "terms"
    assert qlib.solve(random_qubo(6, 1), seed=0, algorithm="sa", num_sweeps=10).info["kernel"] == "local_field"


def sparse_qubo(n, seed):
    """A ring with a few chords: under a quarter of the pairs coupled, so the neighbour lists are used."""
    rng = np.random.default_rng(seed)
    x = qlib.var(f"r{seed}_", n)
    f = sum((float(rng.integers(-3, 4)) * x[i] * ~x[(i + 1) % n] for i in range(n)), qlib.Expr())
    for _ in range(n // 2):
        i, j = rng.choice(n, size=2, replace=False)
        f = f + float(rng.integers(-3, 4)) * x[int(i)] * x[int(j)] + float(rng.integers(-2, 3)) * x[int(i)]
    return f


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_the_layout_follows_the_share_of_coupled_pairs(layout):
    model = random_qubo(14, 0) if layout == "dense" else sparse_qubo(20, 0)
    q = lf.quadratic_arrays(compile(model))
    assert (q.dense.shape[0] > 0) == (layout == "dense")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("make", [random_qubo, sparse_qubo], ids=["dense", "sparse"])
def test_annealing_on_fields_reaches_the_exhaustive_minimum(seed, make):
    model = make(14 if make is random_qubo else 20, seed)
    exact = qlib.solve(model, backend="exhaustive")
    sol = qlib.solve(model, seed=seed, algorithm="sa", target_energy=exact.energy, time_limit=10)
    assert sol.info["kernel"] == "local_field" and sol.info["stop_reason"] == "target_energy"
    assert sol.energy == pytest.approx(exact.energy) == sol.compiled.energy(sol.state)


def test_the_returned_energy_is_the_state_energy_and_threads_do_not_change_it():
    model = random_qubo(60, 7)
    one = qlib.solve(model, seed=5, algorithm="sa", num_sweeps=200, num_replicas=4, num_threads=1)
    two = qlib.solve(model, seed=5, algorithm="sa", num_sweeps=200, num_replicas=4, num_threads=2)
    assert np.array_equal(one.state, two.state) and one.energy == two.energy
    assert one.energy == pytest.approx(one.compiled.energy(one.state))
    for state, energy in zip(one.info["replica_states"], one.info["replica_energies"]):
        assert energy == pytest.approx(one.compiled.energy(state))


def test_the_beta_range_is_dwave_samplers_default():
    # a 4-cycle of antiferromagnetic couplings J = 1 (spins) with h = 0.5 on one spin, as a QUBO:
    # the largest field sum is 2.5 (hot = ln 2 / 5), the smallest bias 0.5 on one spin (cold = ln 100 / 1)
    s = qlib.var("cyc", 4)
    spin = [2 * v - 1 for v in s]
    model = sum((spin[i] * spin[(i + 1) % 4] for i in range(4)), qlib.Expr()) + 0.5 * spin[0]
    hot, cold = lf.ising_beta_range(lf.quadratic_arrays(compile(model)))
    assert hot == pytest.approx(math.log(2) / 5) and cold == pytest.approx(math.log(100) / 1)
    dimod = pytest.importorskip("dimod")
    samplers = pytest.importorskip("dwave.samplers.sa.sampler")
    bqm = dimod.generators.ran_r(3, 40, seed=2)
    ours = lf.ising_beta_range(lf.quadratic_arrays(compile(qlib.from_bqm(bqm))))
    assert ours == pytest.approx(tuple(samplers.default_beta_range(bqm)))


@njit
def _decisions(state, ys):
    """accept(u, y) and the plain ``u < exp(-y)`` on the same draw ``u``, for each ``y``."""
    out = np.empty((ys.shape[0], 2), dtype=np.bool_)
    for k in range(ys.shape[0]):
        before = state[0]
        out[k, 0] = accept(rng_uniform(state, 0), ys[k])
        after = state[0]
        state[0] = before
        out[k, 1] = rng_uniform(state, 0) < math.exp(-ys[k])
        if state[0] != after:
            raise AssertionError("one draw each")
    return out


def test_the_acceptance_bounds_decide_exactly_as_the_exponential():
    ys = np.concatenate([np.linspace(-5, 0, 2_000), np.linspace(1e-6, 2, 20_000), np.linspace(2, 40, 20_000),
                         np.linspace(40, 800, 200), [np.inf]])
    got = _decisions(np.array([88172645463325252], dtype=np.uint64), ys)
    assert np.array_equal(got[:, 0], got[:, 1])
    assert 100 < got[:, 0].sum() < len(ys) - 100


def test_each_neighbour_run_is_padded_to_whole_groups_of_spare_fields():
    compiled = compile(random_qubo(11, 4))
    q = lf.quadratic_arrays(compiled)
    n = compiled.var_count
    sizes = np.diff(q.ptr)
    assert np.all(sizes % lf.GROUP == 0)
    J = np.zeros((n + lf.GROUP, n + lf.GROUP))
    for i in range(n):
        cols, w = q.nbr[q.ptr[i]:q.ptr[i + 1]], q.coupling[q.ptr[i]:q.ptr[i + 1]]
        pad = cols >= n
        assert np.all(w[pad] == 0.0) and len(set(cols[~pad])) == np.count_nonzero(~pad)   # each neighbour once
        for g in range(0, len(cols), lf.GROUP):
            assert len(set(cols[g:g + lf.GROUP])) == lf.GROUP                   # no column twice in a group
        assert set(cols[pad]) <= set(range(n, n + lf.GROUP))
        J[i, cols] = w
    assert np.array_equal(J, J.T) and not J[n:].any()
    x = np.random.default_rng(0).integers(0, 2, n)
    assert compiled.offset + q.constant + q.linear @ x + x @ J[:n, :n] @ x / 2 == pytest.approx(compiled.energy(x))


def ring_qubo(n, seed):
    """A ring and a few chords on ``n`` variables, mixed signs: a model under the matrix layout's density."""
    rng = np.random.default_rng(seed)
    x = qlib.var(f"sp{seed}_", n)
    f = qlib.sum(float(rng.integers(-3, 4)) * x[i] for i in range(n))
    f = f + qlib.sum(float(rng.integers(-4, 5)) * x[i] * x[(i + 1) % n] for i in range(n))
    return f + qlib.sum(float(rng.integers(-4, 5)) * x[i] * x[(i + 7) % n] for i in range(0, n, 3))


def mixed_qubo(n, seed):
    """A ring with 2n random chords: degrees from 2 to about 12, so the neighbour runs differ in length."""
    rng = np.random.default_rng(seed)
    x = qlib.var(f"mx{seed}_", n)
    f = qlib.sum(float(rng.integers(-3, 4)) * x[i] * x[(i + 1) % n] for i in range(n))
    for _ in range(2 * n):
        i, j = rng.choice(n, size=2, replace=False)
        f = f + float(rng.integers(-3, 4)) * x[int(i)] * ~x[int(j)]
    return f


def test_the_sweep_order_groups_equal_neighbour_runs_and_keeps_every_energy():
    compiled = compile(mixed_qubo(40, 3))
    q = lf.quadratic_arrays(compiled)
    swept, order = lf.in_sweep_order(q)
    n = compiled.var_count
    assert order is not None and sorted(order) == list(range(n))
    runs = np.diff(swept.ptr)
    assert np.all(np.diff(runs) >= 0) and np.array_equal(runs, np.diff(q.ptr)[order])
    for size in set(runs):                                   # among equals, the model's own order
        assert np.all(np.diff(order[runs == size]) > 0)
    assert set(swept.nbr[swept.coupling == 0]) <= set(range(n, n + lf.GROUP)) | set(range(n))
    for x in np.random.default_rng(1).integers(0, 2, size=(8, n), dtype=np.uint8):
        assert field_energy(swept, x[order]) == pytest.approx(field_energy(q, x), abs=1e-9)
    lattice = lf.quadratic_arrays(compile(qlib.sum(qlib.var("lat", 12)[i] * qlib.var("lat", 12)[(i + 1) % 12]
                                                   for i in range(12))))
    assert lf.in_sweep_order(lattice) == (lattice, None)   # every run the same length: nothing to reorder


def test_states_go_into_the_sweep_order_and_come_back_in_the_models():
    model = mixed_qubo(60, 7)
    compiled = compile(model)
    assert sa.sweep_order(compiled, "local_field") is not None
    good_state = qlib.solve(model, seed=0, algorithm="sa", num_sweeps=2000, num_replicas=4).state
    target = compiled.energy(good_state)
    again = qlib.solve(model, seed=1, algorithm="sa", initial_state=good_state, target_energy=target)
    assert again.info["stop_reason"] == "target_energy" and np.array_equal(again.state, good_state)
    sol = qlib.solve(model, seed=5, algorithm="sa", num_sweeps=50, num_replicas=3)
    assert sol.energy == pytest.approx(compiled.energy(sol.state))
    for state, energy in zip(sol.info["replica_states"], sol.info["replica_energies"]):
        assert energy == pytest.approx(compiled.energy(state))


@pytest.mark.parametrize("layout", ["csr", "dense"])
def test_the_local_fields_stay_the_fields_after_sweeps(layout):
    from qlib.solvers.sa import new_arrays
    from qlib.solvers.seeding import seed_sequence

    compiled = compile(ring_qubo(30, 5) if layout == "csr" else random_qubo(30, 5))
    q = lf.quadratic_arrays(compiled)
    assert bool(q.dense.shape[0]) == (layout == "dense")
    states = np.random.default_rng(2).integers(0, 2, size=(3, compiled.var_count), dtype=np.uint8)
    a = new_arrays(compiled, seed_sequence(4, 4), states, fields=True)
    betas = np.geomspace(0.05, 3.0, 40)
    anneal.anneal_round(q, None, None, a, betas[:20], 0, -np.inf)
    anneal.anneal_serial(q, None, None, a, betas[20:], 20, -np.inf)
    n = compiled.var_count
    for rep in range(3):
        x = a.x[rep]
        expect = q.linear.copy()
        for i in np.flatnonzero(x):
            expect[q.nbr[q.ptr[i]:q.ptr[i + 1]][q.nbr[q.ptr[i]:q.ptr[i + 1]] < n]] += \
                q.coupling[q.ptr[i]:q.ptr[i + 1]][q.nbr[q.ptr[i]:q.ptr[i + 1]] < n]
        assert np.allclose(a.field[rep][:n], expect) and not a.field[rep][n:].any()
        assert compiled.offset + a.energy[rep] == pytest.approx(compiled.energy(x))
        assert a.flips[rep] > 0


def random_hubo(n, seed):
    """Terms of degree 1 to 4 on plain and negated literals, mixed signs."""
    rng = np.random.default_rng(seed)
    x = qlib.var(f"hb{seed}_", n)
    f = qlib.Expr()
    for _ in range(3 * n):
        term = qlib.Expr.constant(float(rng.integers(-4, 5)))
        for v in rng.choice(n, size=int(rng.integers(1, 5)), replace=False):
            term = term * (~x[v] if rng.random() < 0.3 else x[v])
        f = f + term
    return f


@pytest.mark.parametrize("seed", range(6))
def test_cached_deltas_reach_the_exhaustive_minimum_of_a_hubo(seed):
    model = random_hubo(13, seed)
    exact = qlib.solve(model, backend="exhaustive")
    sol = qlib.solve(model, seed=seed, algorithm="sa", target_energy=exact.energy, time_limit=10)
    assert sol.info["kernel"] == "cached_delta" and sol.info["stop_reason"] == "target_energy"
    assert sol.energy == pytest.approx(exact.energy) == sol.compiled.energy(sol.state)


def test_the_cached_deltas_stay_the_flip_deltas():
    from qlib.solvers.core import flip_delta
    from qlib.solvers.sa import new_arrays
    from qlib.solvers.seeding import seed_sequence

    compiled = compile(random_hubo(30, 11))
    m = compiled.kernel_arrays()
    states = np.random.default_rng(1).integers(0, 2, size=(2, compiled.var_count), dtype=np.uint8)
    a = new_arrays(compiled, seed_sequence(3, 3), states, fields=True)
    betas = np.geomspace(0.05, 3.0, 40)
    anneal.anneal_round(None, m, None, a, betas, 0, -np.inf)
    for rep in range(2):
        x = a.x[rep]
        expect = [flip_delta(v, x, a.false_count[rep], a.lhs[rep], a.row_delta[rep], m) for v in range(len(x))]
        assert np.allclose(a.field[rep][:len(x)], expect)
        assert compiled.offset + a.energy[rep] == pytest.approx(compiled.energy(x))
        assert a.flips[rep] > 0
