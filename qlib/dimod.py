"""qlib with dimod: models to BQMs and binary polynomials, samplesets to Solutions, and a dimod sampler.

Needs the optional dependency ``dimod`` (``pip install qlib[dimod]``); ``import
qlib`` alone never imports it.

* :func:`to_bqm` / :func:`to_polynomial`: a qlib model (constraints expanded,
  negated literals written out) as a ``dimod.BinaryQuadraticModel`` (through
  :func:`qlib.to_qubo`) or a ``dimod.BinaryPolynomial`` (the higher-order model);
  variables keep their qlib labels (``'h[0][1]'``) and the constant is kept.
* :func:`from_bqm` / :func:`from_polynomial`: the way back, an :class:`~qlib.Expr`
  over ``qlib.var(str(label))`` (SPIN models are converted to BINARY first).
* :func:`decode`: the rows of any dimod sampleset as :class:`~qlib.Solution` objects,
  evaluated by qlib (energy with the constraint distances, violations).
* :class:`QlibSampler`: qlib's CPU solver behind dimod's ``Sampler`` and
  ``PolySampler`` APIs.
"""

from __future__ import annotations

import copy
import time

import dimod
import numpy as np

from .compile import CompiledModel, compile
from .constraints import as_model
from .expand import expand_cons, to_qubo
from .expr import Expr, Var, check_finite, label_of
from .result import Solution

__all__ = ["to_bqm", "to_polynomial", "from_bqm", "from_polynomial", "decode", "QlibSampler"]


def _model_labels(model) -> list[str]:
    return [label_of(v) for v in model.var_ids]


def to_bqm(model, **to_qubo_options) -> dimod.BinaryQuadraticModel:
    """``model`` as a BINARY ``dimod.BinaryQuadraticModel`` through :func:`qlib.to_qubo`.

    Constraints become penalties (slack variables ``_aux_slack...``), terms of
    degree > 2 are reduced (auxiliaries ``_aux_pair...``), ``~x`` becomes ``1 - x``;
    the constant goes to ``bqm.offset``.  Every variable of ``model`` is a
    variable of the BQM, even one whose terms cancelled.  ``to_qubo_options``
    go to :func:`qlib.to_qubo` (``strength``).
    """
    model = as_model(model)
    qubo = to_qubo(model, **to_qubo_options).objective
    bqm = dimod.BinaryQuadraticModel(dimod.BINARY)
    bqm.add_variables_from((label, 0.0) for label in _model_labels(model))
    for term, coef in qubo.terms.items():
        labels = [label_of(lit >> 1) for lit in term]
        if len(labels) == 0:
            bqm.offset += float(coef)
        elif len(labels) == 1:
            bqm.add_linear(labels[0], float(coef))
        elif len(labels) == 2:
            bqm.add_quadratic(labels[0], labels[1], float(coef))
        else:  # pragma: no cover - to_qubo leaves degree <= 2
            raise AssertionError(f"to_qubo left a term of degree {len(labels)}")
    return bqm


def to_polynomial(model) -> dimod.BinaryPolynomial:
    """``model`` as a BINARY ``dimod.BinaryPolynomial`` of any degree (no reduction).

    Constraints become penalties (:func:`qlib.expand_cons`) and ``~x`` becomes
    ``1 - x``; labels are kept; the constant is the term ``()``.
    """
    expr = expand_cons(as_model(model)).objective.expand_negations()
    poly = {}
    for term, coef in expr.terms.items():
        poly[tuple(label_of(lit >> 1) for lit in term)] = float(coef)
    return dimod.BinaryPolynomial(poly, dimod.BINARY)


def _labels_to_literals(labels) -> dict:
    """``{dimod label: qlib literal}`` over ``str(label)``; two labels with one text raise."""
    lits, seen = {}, {}
    for v in labels:
        text = str(v)
        if text in seen and seen[text] != v:
            raise ValueError(f"dimod labels {seen[text]!r} and {v!r} both read {text!r}: qlib labels are strings")
        seen[text] = v
        lits[v] = 2 * Var(text).id
    return lits


def from_bqm(bqm) -> Expr:
    """A ``dimod.BinaryQuadraticModel`` as a qlib expression over ``qlib.var(str(label))``."""
    if bqm.vartype is dimod.SPIN:
        bqm = bqm.change_vartype(dimod.BINARY, inplace=False)
    lit = _labels_to_literals(bqm.variables)
    terms: dict[tuple, float] = {}
    if bqm.offset:
        terms[()] = float(bqm.offset)
    for v, bias in bqm.iter_linear():
        if bias:
            terms[(lit[v],)] = float(bias)
    for u, v, bias in bqm.iter_quadratic():
        if bias:
            key = tuple(sorted((lit[u], lit[v])))
            terms[key] = terms.get(key, 0.0) + float(bias)
    check_finite(terms, "a dimod model")
    return Expr(terms).simplify_as_binary()


def from_polynomial(poly) -> Expr:
    """A ``dimod.BinaryPolynomial`` as a qlib expression over ``qlib.var(str(label))``."""
    if poly.vartype is dimod.SPIN:
        poly = poly.to_binary(copy=True)
    lit = _labels_to_literals(poly.variables)
    terms: dict[tuple, float] = {}
    for term, bias in poly.items():
        if bias:
            key = tuple(sorted(lit[v] for v in term))
            terms[key] = terms.get(key, 0.0) + float(bias)
    check_finite(terms, "a dimod polynomial")
    return Expr(terms).simplify_as_binary()


def _binary_rows(sampleset) -> np.ndarray:
    rows = np.asarray(sampleset.record.sample)
    if sampleset.vartype is dimod.SPIN:
        rows = (rows + 1) // 2
    return rows


def decode(model, sampleset) -> list[Solution]:
    """One :class:`~qlib.Solution` per row of ``sampleset``, in its order.

    ``sampleset`` may come from any dimod sampler run on :func:`to_bqm` or
    :func:`to_polynomial` of ``model`` (or on anything whose variables include
    the model's labels): columns the model does not have (auxiliaries) are
    ignored, a model variable with no column raises ``ValueError``.  Energy and
    violations are qlib's own (constraint distances, not penalty values);
    ``info`` holds the row's dimod energy and num_occurrences.
    """
    compiled = model if isinstance(model, CompiledModel) else compile(model)
    columns = {}
    for k, v in enumerate(sampleset.variables):
        columns.setdefault(str(v), k)
    labels = compiled.labels
    missing = [label for label in labels if label not in columns]
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise ValueError(f"the sampleset has no column for {len(missing)} model variable(s): {shown}")
    rows = _binary_rows(sampleset)
    if rows.ndim != 2:
        rows = rows.reshape(len(sampleset), -1)
    states = rows[:, [columns[label] for label in labels]] if labels else np.zeros((len(rows), 0), np.uint8)
    if not len(states):
        return []
    states = compiled.as_states(states)          # validated once, not once per row
    qlib_energies = np.atleast_1d(compiled.energy(states))
    infos = [dict(backend="dimod", dimod_energy=float(e), num_occurrences=int(n))
             for e, n in zip(sampleset.record.energy, sampleset.record.num_occurrences)]
    # One Solution is built the ordinary way; the others are copies of it with their own state,
    # energy and info, so that a sampleset of many rows costs one batched energy evaluation.
    template = Solution(compiled, states[0], infos[0])
    solutions = [template]
    for state, energy, info in zip(states[1:], qlib_energies[1:], infos[1:]):
        sol = copy.copy(template)
        sol.state = state.copy()
        sol.energy = float(energy)
        for key, value in template.info.items():
            info.setdefault(key, value)
        sol.info = info
        solutions.append(sol)
    return solutions


# -- the sampler ------------------------------------------------------------------------------

_PARAMETERS = ("seed", "time_limit", "target_energy", "num_replicas", "num_threads", "num_sweeps", "algorithm")


class QlibSampler(dimod.Sampler, dimod.PolySampler):
    """qlib's CPU solver (:func:`qlib.solve`, ``backend="cpu"``) as a dimod sampler.

    ``sample(bqm)``, ``sample_qubo``, ``sample_ising``, ``sample_poly``,
    ``sample_hubo`` and ``sample_hising`` return a ``dimod.SampleSet`` with one
    row per replica (each replica's best state; the solver's returned state is
    added when it is none of them, found in an earlier restart), energies from
    dimod's own ``energies``, and ``info`` with ``timing``, ``stop_reason``,
    ``seed``, ``algorithm`` and ``flips``.  Keyword arguments: see
    ``parameters``; any other raises ``TypeError``, as :func:`qlib.solve` does.

    >>> import dimod, qlib.dimod
    >>> ss = qlib.dimod.QlibSampler().sample_qubo({("a", "b"): -1}, seed=1)
    >>> ss.first.energy
    -1.0
    """

    @property
    def parameters(self) -> dict:
        """The keyword arguments ``sample*`` take (dimod's ``Sampler.parameters``)."""
        return {name: [] for name in _PARAMETERS}

    @property
    def properties(self) -> dict:
        """What the sampler is (dimod's ``Sampler.properties``)."""
        return {"backend": "cpu", "description": "qlib simulated annealing / focused search (numba)"}

    def _check(self, kwargs):
        unknown = sorted(set(kwargs) - set(_PARAMETERS))
        if unknown:
            raise TypeError(f"unknown option(s) {', '.join(unknown)} for QlibSampler; it accepts "
                            f"{', '.join(_PARAMETERS)}")

    def _run(self, expr: Expr, variables, vartype, energies, kwargs) -> dimod.SampleSet:
        from .solvers import solve

        self._check(kwargs)
        start = time.perf_counter()
        variables = list(variables)
        lit = _labels_to_literals(variables)
        sol = solve(expr, backend="cpu", **kwargs)
        found = sol.samples
        rows = np.array([state for state, _, _ in found], dtype=np.int8).reshape(len(found), sol.compiled.num_vars)
        samples = np.zeros((len(rows), len(variables)), dtype=np.int8)
        for j, v in enumerate(variables):
            try:
                samples[:, j] = rows[:, sol.compiled.index_by_id(lit[v] >> 1)]
            except KeyError:   # a variable with no term: any value, the energy does not depend on it
                pass
        if vartype is dimod.SPIN:
            samples = 2 * samples - 1
        info = dict(timing=dict(seconds=sol.info.get("seconds"), jit_seconds=sol.info.get("jit_seconds"),
                                total_seconds=time.perf_counter() - start),
                    stop_reason=sol.info.get("stop_reason"), seed=sol.info.get("seed"),
                    algorithm=sol.info.get("algorithm"), flips=sol.info.get("flips"))
        return dimod.SampleSet.from_samples((samples, variables), vartype, energy=energies((samples, variables)),
                                            info=info)

    def sample(self, bqm, **kwargs) -> dimod.SampleSet:
        """Minimise a ``dimod.BinaryQuadraticModel`` (BINARY or SPIN) with :func:`qlib.solve`."""
        return self._run(from_bqm(bqm), bqm.variables, bqm.vartype, bqm.energies, kwargs)

    def sample_poly(self, polynomial, **kwargs) -> dimod.SampleSet:
        """Minimise a ``dimod.BinaryPolynomial`` (BINARY or SPIN) of any degree with :func:`qlib.solve`."""
        return self._run(from_polynomial(polynomial), polynomial.variables, polynomial.vartype,
                         polynomial.energies, kwargs)
