"""qlib with dimod: models to BQMs and binary polynomials, samplesets to Solutions, and a dimod sampler.

Needs the optional dependency ``dimod`` (``pip install 'qlib-puzzles[dimod]'``); ``import
qlib`` alone never imports it.

* :func:`to_bqm` / :func:`to_polynomial`: a qlib model (constraints expanded,
  negated literals written out) as a ``dimod.BinaryQuadraticModel`` (through
  :func:`qlib.to_qubo`) or a ``dimod.BinaryPolynomial`` (the higher-order model);
  variables keep their qlib labels (``'h[0][1]'``) and the constant is kept.
* :func:`from_bqm` / :func:`from_polynomial`: the way back, an :class:`~qlib.Expr`
  (SPIN models are converted to BINARY first).  A string label is the qlib
  label; any other hashable label ``v`` (``1``, ``(0, 1)``) becomes the qlib
  label ``"#" + repr(v)`` and comes back from :func:`to_bqm` as ``v`` itself,
  with its type, so ``1`` and ``'1'`` are two variables.
* :func:`from_sampleset`: the rows of any dimod sampleset as :class:`~qlib.Solution` objects,
  evaluated by qlib (energy with the constraint distances, violations).
* :class:`QlibSampler`: qlib's CPU solver behind dimod's ``Sampler`` and
  ``PolySampler`` APIs.
"""

from __future__ import annotations

import ast
import copy
import math
import time
import warnings

import dimod
import numpy as np

from .compile import CompiledModel, compile
from .constraints import as_model
from .expand import expand_cons, to_qubo
from .expr import Expr, Var, check_finite, label_of
from .result import Solution, make_sampleset

__all__ = ["to_bqm", "to_polynomial", "from_bqm", "from_polynomial", "from_sampleset", "decode", "QlibSampler"]


#: What starts the qlib label of a dimod label that is not a string.
MARK = "#"
_OBJECT_LABELS: dict = {}   # qlib label -> a dimod label that repr() cannot rebuild (this process only)


def qlib_label(label) -> str:
    """The qlib label of a dimod label: a string as it is, anything else ``"#" + repr(label)``."""
    if isinstance(label, str):
        if label.startswith(MARK):
            raise ValueError(f"dimod label {label!r} starts with {MARK!r}, which marks the labels of qlib "
                             "variables that are not strings; rename it")
        return label
    if type(label) is int:   # the common case, without a parse
        return MARK + str(label)
    text = MARK + repr(label)
    try:
        rebuilt = ast.literal_eval(text[1:])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        rebuilt = None
    if type(rebuilt) is not type(label) or rebuilt != label:
        _OBJECT_LABELS[text] = label
    return text


def dimod_label(text: str):
    """The dimod label a qlib label stands for (the inverse of :func:`qlib_label`)."""
    if not text.startswith(MARK):
        return text
    if text in _OBJECT_LABELS:
        return _OBJECT_LABELS[text]
    digits = text[2:] if text[1:2] == "-" else text[1:]
    if digits.isdigit() and digits.isascii() and (digits == "0" or digits[0] != "0"):
        return int(text[1:])
    try:
        return ast.literal_eval(text[1:])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _model_labels(model) -> list:
    return [dimod_label(label_of(v)) for v in model.var_ids]


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
        labels = [dimod_label(label_of(lit >> 1)) for lit in term]
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
        poly[tuple(dimod_label(label_of(lit >> 1)) for lit in term)] = float(coef)
    return dimod.BinaryPolynomial(poly, dimod.BINARY)


def _labels_to_literals(labels) -> dict:
    """``{dimod label: qlib literal}`` over :func:`qlib_label`."""
    return {v: 2 * Var(qlib_label(v)).id for v in labels}


def from_bqm(bqm) -> Expr:
    """A ``dimod.BinaryQuadraticModel`` as a qlib expression over ``qlib.var(qlib_label(label))``."""
    _check_biases(bqm)
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
    """A ``dimod.BinaryPolynomial`` as a qlib expression over ``qlib.var(qlib_label(label))``."""
    _check_terms(poly)
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


def from_sampleset(model, sampleset) -> list[Solution]:
    """One :class:`~qlib.Solution` per row of ``sampleset``, in its order (the way back of
    :meth:`Solution.to_sampleset <qlib.Solution.to_sampleset>`).

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
        columns.setdefault(qlib_label(v), k)
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


def decode(model, sampleset) -> list[Solution]:
    """Deprecated: the old name of :func:`from_sampleset` (``decode`` now only means reading a model state as
    a puzzle's answer); it warns and will go in the next release."""
    warnings.warn("qlib.decode(model, sampleset) is now qlib.from_sampleset(model, sampleset); the old name "
                  "will go in the next release", DeprecationWarning, stacklevel=2)
    return from_sampleset(model, sampleset)


# -- the sampler ------------------------------------------------------------------------------

#: dimod's names that QlibSampler takes, and qlib's own that it passes to :func:`qlib.solve` as they are.
_DIMOD_PARAMETERS = ("num_reads", "initial_states", "initial_states_generator", "seed", "beta_schedule_type",
                     "num_sweeps_per_beta")
_QLIB_PARAMETERS = ("time_limit", "target_energy", "num_replicas", "num_threads", "num_sweeps", "beta_range",
                    "algorithm")
_PARAMETERS = _DIMOD_PARAMETERS + _QLIB_PARAMETERS
_GENERATORS = ("none", "tile", "random")
#: The time limit of a run with no limit (dimod's samplers have none): about 30 years, finite for the clock.
_NO_TIME_LIMIT = 1e9
#: The label prefix of the sampler's own variables: the k-th variable of the model sampled is
#: ``_POSITION + str(k)``, so that no label is read (two labels that print alike stay two variables).
_POSITION = "_dimod_position_"


def _finite(values, name) -> None:
    """``ValueError`` naming the first bias of ``values`` that is nan or infinite (``name(k)`` says whose)."""
    bad = np.flatnonzero(~np.isfinite(np.asarray(values, dtype=float)))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{name(k)} of the dimod model is {values[k]}: expected a finite number")


def _check_biases(bqm, variables=None) -> tuple:
    """``bqm``'s NumPy vectors in the order of ``variables``, every bias checked finite by its labels."""
    variables = list(bqm.variables) if variables is None else variables
    linear, (row, col, quadratic), offset = bqm.to_numpy_vectors(variable_order=variables)
    _finite(linear, lambda k: f"the linear bias of {variables[k]!r}")
    _finite(quadratic, lambda k: f"the quadratic bias of ({variables[row[k]]!r}, {variables[col[k]]!r})")
    _finite([offset], lambda k: "the offset")
    return linear, (row, col, quadratic), offset


def _check_terms(poly) -> None:
    for term, bias in poly.items():
        _finite([bias], lambda k: f"the bias of the term {tuple(term)!r}")


def _positions(count: int) -> np.ndarray:
    """The qlib literals of the sampler's positional variables 0 .. count - 1."""
    return np.array([2 * Var(_POSITION + str(k)).id for k in range(count)], dtype=np.int64)


def _positional_bqm(bqm, variables) -> Expr:
    """``bqm`` as an expression over positional variables (its NumPy vectors, no label read)."""
    linear, (row, col, quadratic), offset = _check_biases(bqm, variables)   # named as the caller wrote them
    if bqm.vartype is dimod.SPIN:
        binary = bqm.change_vartype(dimod.BINARY, inplace=False)
        linear, (row, col, quadratic), offset = binary.to_numpy_vectors(variable_order=variables)
    lit = _positions(len(variables))
    terms: dict[tuple, float] = {(): float(offset)} if offset else {}
    for k in np.flatnonzero(linear).tolist():
        terms[(int(lit[k]),)] = float(linear[k])
    a, b = lit[row], lit[col]
    for u, v, w in zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist(), quadratic.tolist()):
        if w:
            terms[(u, v)] = terms.get((u, v), 0.0) + w
    check_finite(terms, "a dimod model")
    return Expr(terms)   # compile() simplifies it


def _positional_polynomial(poly, variables) -> Expr:
    """``poly`` as an expression over positional variables."""
    _check_terms(poly)
    if poly.vartype is dimod.SPIN:
        poly = poly.to_binary(copy=True)
    lit = dict(zip(variables, _positions(len(variables)).tolist()))
    terms: dict[tuple, float] = {}
    for term, bias in poly.items():
        if bias:
            key = tuple(sorted(lit[v] for v in term))
            terms[key] = terms.get(key, 0.0) + float(bias)
    check_finite(terms, "a dimod polynomial")
    return Expr(terms).simplify_as_binary()


def _start_states(compiled, lit, vartype, initial_states, generator, num_reads, seed):
    """dimod's ``initial_states`` as qlib start states (one per read, in ``compiled``'s columns), filled
    as dwave-samplers does: ``"random"`` (the default) draws the missing ones, ``"tile"`` repeats the
    given ones, ``"none"`` takes exactly ``num_reads`` states."""
    given, labels = dimod.as_samples(initial_states)
    given = np.atleast_2d(np.asarray(given))
    if vartype is dimod.SPIN:
        if not np.isin(given, (-1, 1)).all():
            raise ValueError("initial_states of a SPIN model take the values -1 and +1")
        given = (given + 1) // 2
    elif not np.isin(given, (0, 1)).all():
        raise ValueError("initial_states of a BINARY model take the values 0 and 1")
    where = {lit[v] >> 1: k for k, v in enumerate(labels) if v in lit}
    columns = [where.get(int(vid)) for vid in compiled.var_ids]
    if any(c is None for c in columns) and len(given):
        missing = [label_of(int(vid)) for vid, c in zip(compiled.var_ids, columns) if c is None]
        raise ValueError(f"initial_states have no value for {len(missing)} variable(s): {missing[:5]}")
    states = given[:, columns].astype(np.uint8) if len(given) else np.zeros((0, compiled.var_count), np.uint8)
    if num_reads is None:
        num_reads = max(len(states), 1)
    if len(states) >= num_reads:
        return states[:num_reads], num_reads
    if generator == "none":
        raise ValueError(f"initial_states_generator='none' needs {num_reads} initial states, got {len(states)}")
    if generator == "tile" and len(states):
        return np.resize(states, (num_reads, compiled.var_count)), num_reads
    fill = np.random.default_rng(seed).integers(0, 2, size=(num_reads - len(states), compiled.var_count))
    return np.concatenate([states, fill.astype(np.uint8)]), num_reads


class QlibSampler(dimod.Sampler, dimod.PolySampler):
    """qlib's CPU solver (:func:`qlib.solve`, ``backend="cpu"``) as a dimod sampler.

    ``sample(bqm)``, ``sample_qubo``, ``sample_ising``, ``sample_poly``,
    ``sample_hubo`` and ``sample_hising`` return a ``dimod.SampleSet`` with
    exactly ``num_reads`` rows, one per replica: each replica's best state
    seen (not its final state, as dwave-samplers returns), where the
    solver's returned state, when it came from an earlier restart, replaces
    the worst row.  A variable with no bias takes a random value (from
    ``seed``).  Rows are not aggregated (``num_occurrences`` 1 each;
    ``sampleset.aggregate()`` merges equal rows).  Energies are dimod's own.
    Variables are matched by position, never by label, so any hashable
    labels work, two labels that print alike included.

    dimod's names: ``num_reads`` (qlib's ``num_replicas``: one replica per
    read; default 2, or the number of ``initial_states``), ``initial_states``
    (any dimod samples-like) with ``initial_states_generator`` ("random", the
    default, "tile" or "none", as in dwave-samplers), ``seed``, and
    dwave-samplers' ``beta_schedule_type`` and ``num_sweeps_per_beta`` where
    they name qlib's schedule ("geometric", 1 sweep per beta; others raise
    ``ValueError``).  qlib's own options go to :func:`qlib.solve` as they
    are: ``time_limit``, ``target_energy``, ``num_threads``, ``num_sweeps``,
    ``beta_range``, ``algorithm``.  Annealing without ``target_energy`` has
    no time limit unless one is given (all its sweeps run); a focused search
    or a search for a target keeps :func:`qlib.solve`'s default limit.  Any other keyword is ignored with a
    ``dimod.exceptions.SamplerUnknownArgWarning``, as dimod's samplers do.
    ``info`` holds ``timing`` (dwave-samplers' ``preprocessing_ns``,
    ``sampling_ns`` and ``postprocessing_ns``; the kernels' first load is
    none of them but ``jit_seconds``), ``stop_reason``, ``seed``,
    ``algorithm``, ``flips``, and for annealing ``num_sweeps`` and
    ``beta_range``.

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

    def _check(self, kwargs) -> dict:
        """``kwargs`` less the unknown ones (each warned of, as dimod's samplers do), checked."""
        kwargs = self.remove_unknown_kwargs(**kwargs)
        schedule = kwargs.pop("beta_schedule_type", None)
        if schedule not in (None, "geometric"):
            raise ValueError(f"beta_schedule_type={schedule!r}: qlib anneals on a geometric schedule only "
                             "(beta_schedule_type='geometric'; beta_range sets its ends)")
        per_beta = kwargs.pop("num_sweeps_per_beta", None)
        if per_beta is not None and (isinstance(per_beta, bool) or per_beta != 1):
            raise ValueError(f"num_sweeps_per_beta={per_beta!r}: qlib's schedule takes one sweep per beta (1)")
        if kwargs.get("num_reads") is not None and kwargs.get("num_replicas") is not None:
            raise TypeError("num_reads and num_replicas name the same thing (one replica per read); pass one")
        generator = kwargs.get("initial_states_generator", "random")
        if generator not in _GENERATORS:
            raise ValueError(f"initial_states_generator must be one of {', '.join(map(repr, _GENERATORS))}, "
                             f"got {generator!r}")
        limit = kwargs.get("time_limit")
        if limit is None or (isinstance(limit, (int, float)) and math.isinf(limit) and limit > 0):
            # annealing without a target ends after its sweeps: it runs them all, as dimod's samplers do
            if kwargs.get("target_energy") is None and kwargs.get("algorithm", "auto") in ("auto", "sa"):
                kwargs["time_limit"] = _NO_TIME_LIMIT
            elif limit is not None:
                raise ValueError("time_limit=inf: a focused search, or a search for target_energy, may never end; "
                                 "give a finite time_limit")
            else:
                kwargs.pop("time_limit", None)   # qlib.solve's default limit
        return kwargs

    def _run(self, positional, model, variables, vartype, energies, kwargs) -> dimod.SampleSet:
        """Sample ``model`` (a BQM or polynomial over ``variables``), as ``positional(model, variables)``
        makes it a qlib expression."""
        from . import validate
        from .solvers import solve
        from .solvers.seeding import draw_seed

        start = time.perf_counter()
        kwargs = self._check(kwargs)
        options = {k: v for k, v in kwargs.items() if k in _QLIB_PARAMETERS and v is not None}
        seed = validate.seed(kwargs.get("seed"))
        seed = draw_seed() if seed is None else seed
        num_reads = kwargs.get("num_reads", kwargs.get("num_replicas"))
        variables = list(variables)
        lit = dict(zip(variables, _positions(len(variables)).tolist()))
        compiled = compile(positional(model, variables))
        if kwargs.get("initial_states") is not None:
            states, num_reads = _start_states(compiled, lit, vartype, kwargs["initial_states"],
                                              kwargs.get("initial_states_generator", "random"), num_reads, seed)
            options["initial_state"] = states
        if num_reads is not None:
            options["num_replicas"] = num_reads
        reads = validate.integer("num_reads", options.get("num_replicas", 2), minimum=1)
        sampling = time.perf_counter()
        sol = solve(compiled, backend="cpu", seed=seed, **options)
        post = time.perf_counter()
        rows = _rows(sol, reads)
        # a variable with no term: any value (the energy does not depend on it), drawn from the seed
        samples = np.random.default_rng(seed).integers(0, 2, size=(reads, len(variables)), dtype=np.int8)
        for j, v in enumerate(variables):
            try:
                samples[:, j] = rows[:, sol.compiled.index_by_id(lit[v] >> 1)]
            except KeyError:
                pass
        if vartype is dimod.SPIN:
            samples = 2 * samples - 1
        sampleset = make_sampleset(samples, variables, vartype, energies((samples, variables)))
        end = time.perf_counter()
        jit = sol.info.get("jit_seconds") or 0.0
        solving = sol.info.get("seconds", post - sampling - jit)   # the search alone, the kernels' load apart
        sampleset.info.update(
            timing=dict(preprocessing_ns=int((sampling - start) * 1e9), sampling_ns=int(solving * 1e9),
                        postprocessing_ns=int((end - post) * 1e9), seconds=sol.info.get("seconds"),
                        jit_seconds=jit, total_seconds=end - start - jit),
            stop_reason=sol.info.get("stop_reason"), seed=sol.info.get("seed"),
            algorithm=sol.info.get("algorithm"), flips=sol.info.get("flips"),
            **{k: sol.info[k] for k in ("num_sweeps", "beta_range") if k in sol.info})
        return sampleset

    def sample(self, bqm, **kwargs) -> dimod.SampleSet:
        """Minimise a ``dimod.BinaryQuadraticModel`` (BINARY or SPIN) with :func:`qlib.solve`."""
        return self._run(_positional_bqm, bqm, bqm.variables, bqm.vartype, bqm.energies, kwargs)

    def sample_poly(self, polynomial, **kwargs) -> dimod.SampleSet:
        """Minimise a ``dimod.BinaryPolynomial`` (BINARY or SPIN) of any degree with :func:`qlib.solve`."""
        return self._run(_positional_polynomial, polynomial, _ordered(polynomial.variables), polynomial.vartype,
                         polynomial.energies, kwargs)


def _ordered(variables) -> list:
    """A polynomial's variables (a set, in an order that changes with the process's hash seed) in a
    fixed order, so that a seed gives the same rows in every process: by type name, then repr."""
    return sorted(variables, key=lambda v: (type(v).__name__, repr(v)))


def _rows(sol, reads: int) -> np.ndarray:
    """``reads`` rows of states from ``sol``: each replica's best state, the returned state in place of
    the worst row when no replica holds it; the one state, repeated, when there was nothing to search."""
    found = sol.samples
    rows = np.array([state for state, _, _ in found], dtype=np.int8).reshape(len(found), sol.compiled.var_count)
    if len(rows) > reads:   # the returned state came last, from an earlier restart
        energies = np.array([energy for _, energy, _ in found[:reads]])
        rows[int(np.argmax(energies))] = rows[-1]
    return np.resize(rows, (reads, rows.shape[1]))
