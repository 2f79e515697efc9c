"""Peer samplers wrapped as qlib backends, so the same drivers can run them.

Each wrapper takes a compiled qlib model, hands the sampler the form it accepts
(a QUBO from :func:`qlib.to_qubo`, or for OpenJij's HUBO sampler the polynomial
from :func:`qlib.expand_cons`), calls it again and again with fresh seeds until
a state reaches the target energy or the time runs out, and maps the best state
back to the model's variables (auxiliaries are dropped).

``num_reads`` and ``num_sweeps`` are the samplers' own settings; None (the
default here) passes nothing, so the sampler uses its own defaults.  The
benchmark tries a grid of them per workload (:data:`GRID`) and reports each
peer at its best setting.  Every other sampler parameter (the beta schedule
above all) is left at the sampler's default.
"""

from __future__ import annotations

import time

import numpy as np

import qlib
from qlib.expr import label_of

#: The settings the benchmark tries for every peer: num_reads x num_sweeps, plus the sampler's defaults ({}).
GRID = [dict(num_reads=r, num_sweeps=s) for r in (1, 4, 16) for s in (100, 1000, 10000)] + [{}]


def setting_label(setting: dict) -> str:
    """``reads=4, sweeps=1000``, or ``defaults`` for the sampler's own."""
    if not setting:
        return "defaults"
    names = dict(num_reads="reads", num_sweeps="sweeps")
    return ", ".join(f"{names.get(k, k)}={v}" for k, v in setting.items())


def _plain_terms(expr):
    """{tuple of labels: coefficient} and the constant of a plain-variable polynomial."""
    terms, offset = {}, 0.0
    for t, c in expr.terms.items():
        if not t:
            offset += c
        else:
            terms[tuple(label_of(lit >> 1) for lit in t)] = float(c)
    return terms, offset


def _settings(num_reads, num_sweeps) -> dict:
    return {k: v for k, v in (("num_reads", num_reads), ("num_sweeps", num_sweeps)) if v is not None}


def _loop(compiled, sample_once, seed, time_limit, target_energy):
    """Call ``sample_once`` with fresh seeds until the target energy or the time limit.

    A further call is not started when the last one says it would end after
    the limit (its answer could not count): a long call overruns the cap by at
    most one call.
    """
    start = time.perf_counter()
    best_state, best_energy, calls, last_call = None, np.inf, 0, 0.0
    labels = compiled.labels
    while True:
        t0 = time.perf_counter()
        samples = sample_once(int(seed) + calls)
        last_call = time.perf_counter() - t0
        calls += 1
        for sample in samples:
            state = np.array([int(sample.get(lab, 0)) for lab in labels], dtype=np.uint8)
            energy = compiled.energy(state)
            if energy < best_energy:
                best_state, best_energy = state, energy
        if target_energy is not None and best_energy <= target_energy + 1e-9:
            return best_state, dict(calls=calls, stop_reason="target_energy")
        elapsed = time.perf_counter() - start
        if time_limit is not None and elapsed + last_call >= time_limit:
            return best_state, dict(calls=calls, stop_reason="time_limit")


def dwave_sa(compiled, *, seed, time_limit, target_energy, initial_state, num_reads=None, num_sweeps=None):
    """dwave-samplers' SimulatedAnnealingSampler on the QUBO of the model."""
    import dimod
    from dwave.samplers import SimulatedAnnealingSampler

    qubo = qlib.to_qubo(compiled.model).objective
    terms, offset = _plain_terms(qubo)
    linear = {t[0]: c for t, c in terms.items() if len(t) == 1}
    quadratic = {t: c for t, c in terms.items() if len(t) == 2}
    bqm = dimod.BinaryQuadraticModel(linear, quadratic, offset, dimod.BINARY)
    sampler = SimulatedAnnealingSampler()
    options = _settings(num_reads, num_sweeps)

    def once(s):
        result = sampler.sample(bqm, seed=s % (2**32), **options)
        return [dict(zip(result.variables, row)) for row in result.record.sample]

    state, info = _loop(compiled, once, seed, time_limit, target_energy)
    info.update(backend="dwave-sa", qubo_vars=len(bqm.variables))
    return state, info


dwave_sa.name = "dwave-sa"


def openjij_sa(compiled, *, seed, time_limit, target_energy, initial_state, num_reads=None, num_sweeps=None):
    """OpenJij's SASampler on the QUBO of the model."""
    import openjij as oj

    qubo = qlib.to_qubo(compiled.model).objective
    terms, offset = _plain_terms(qubo)
    Q = {(t[0], t[0]) if len(t) == 1 else t: c for t, c in terms.items()}
    sampler = oj.SASampler()
    options = _settings(num_reads, num_sweeps)

    def once(s):
        result = sampler.sample_qubo(Q, seed=s % (2**31), **options)
        return [dict(zip(result.variables, row)) for row in result.record.sample]

    state, info = _loop(compiled, once, seed, time_limit, target_energy)
    info.update(backend="openjij-sa", qubo_vars=len({v for t in terms for v in t}))
    return state, info


openjij_sa.name = "openjij-sa"


def openjij_hubo(compiled, *, seed, time_limit, target_energy, initial_state, num_reads=None, num_sweeps=None):
    """OpenJij's HUBO annealer on the expanded polynomial (high-degree terms kept)."""
    import openjij as oj

    poly = qlib.expand_cons(compiled.model).objective
    terms, offset = _plain_terms(poly)
    sampler = oj.SASampler()
    options = _settings(num_reads, num_sweeps)

    def once(s):
        result = sampler.sample_hubo(terms, vartype="BINARY", seed=s % (2**31), **options)
        return [dict(zip(result.variables, row)) for row in result.record.sample]

    state, info = _loop(compiled, once, seed, time_limit, target_energy)
    info.update(backend="openjij-hubo")
    return state, info


openjij_hubo.name = "openjij-hubo"

PEERS = {"dwave-sa": dwave_sa, "openjij-sa": openjij_sa, "openjij-hubo": openjij_hubo}


def available() -> str | None:
    """None when both peer packages import, else why not."""
    try:
        import dwave.samplers  # noqa: F401
        import openjij  # noqa: F401
    except ImportError as exc:
        return f"peer samplers not installed ({exc}); run `make bench-deps`"
    return None
