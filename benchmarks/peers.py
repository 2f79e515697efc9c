"""Peer samplers wrapped as qlib backends, so the same drivers can run them.

Each wrapper takes a compiled qlib model, hands the sampler the form it accepts
(a QUBO from :func:`qlib.to_qubo`, or for OpenJij's HUBO sampler the polynomial
from :func:`qlib.expand_cons`), calls it again and again with fresh seeds until
a state reaches the target energy or the time runs out, and maps the best state
back to the model's variables (auxiliaries are dropped).  This is how a new user
would use them: default schedules, a batch of reads per call.
"""

from __future__ import annotations

import time

import numpy as np

import qlib
from qlib.expr import label_of


def _plain_terms(expr):
    """{tuple of labels: coefficient} and the constant of a plain-variable polynomial."""
    terms, offset = {}, 0.0
    for t, c in expr.terms.items():
        if not t:
            offset += c
        else:
            terms[tuple(label_of(lit >> 1) for lit in t)] = float(c)
    return terms, offset


def _loop(compiled, sample_once, seed, time_limit, target_energy):
    start = time.perf_counter()
    best_state, best_energy, calls = None, np.inf, 0
    labels = compiled.labels
    while True:
        samples = sample_once(int(seed) + calls)
        calls += 1
        for sample in samples:
            state = np.array([int(sample.get(lab, 0)) for lab in labels], dtype=np.uint8)
            energy = compiled.energy(state)
            if energy < best_energy:
                best_state, best_energy = state, energy
        if target_energy is not None and best_energy <= target_energy + 1e-9:
            return best_state, dict(calls=calls, stop_reason="target_energy")
        if time.perf_counter() - start >= time_limit:
            return best_state, dict(calls=calls, stop_reason="time_limit")


def dwave_sa(compiled, *, seed, time_limit, target_energy, initial_state, num_reads=16, num_sweeps=1000):
    """dwave-samplers' SimulatedAnnealingSampler on the QUBO of the model."""
    import dimod
    from dwave.samplers import SimulatedAnnealingSampler

    qubo = qlib.to_qubo(compiled.model).objective
    terms, offset = _plain_terms(qubo)
    linear = {t[0]: c for t, c in terms.items() if len(t) == 1}
    quadratic = {t: c for t, c in terms.items() if len(t) == 2}
    bqm = dimod.BinaryQuadraticModel(linear, quadratic, offset, dimod.BINARY)
    sampler = SimulatedAnnealingSampler()

    def once(s):
        result = sampler.sample(bqm, num_reads=num_reads, num_sweeps=num_sweeps, seed=s % (2**32))
        return [dict(zip(result.variables, row)) for row in result.record.sample]

    state, info = _loop(compiled, once, seed, time_limit, target_energy)
    info.update(backend="dwave-sa", qubo_vars=len(bqm.variables))
    return state, info


dwave_sa.name = "dwave-sa"


def openjij_sa(compiled, *, seed, time_limit, target_energy, initial_state, num_reads=16, num_sweeps=1000):
    """OpenJij's SASampler on the QUBO of the model."""
    import openjij as oj

    qubo = qlib.to_qubo(compiled.model).objective
    terms, offset = _plain_terms(qubo)
    Q = {(t[0], t[0]) if len(t) == 1 else t: c for t, c in terms.items()}
    sampler = oj.SASampler()

    def once(s):
        result = sampler.sample_qubo(Q, num_reads=num_reads, num_sweeps=num_sweeps, seed=s % (2**31))
        return [dict(zip(result.variables, row)) for row in result.record.sample]

    state, info = _loop(compiled, once, seed, time_limit, target_energy)
    info.update(backend="openjij-sa", qubo_vars=len({v for t in terms for v in t}))
    return state, info


openjij_sa.name = "openjij-sa"


def openjij_hubo(compiled, *, seed, time_limit, target_energy, initial_state, num_reads=16, num_sweeps=1000):
    """OpenJij's HUBO annealer on the expanded polynomial (high-degree terms kept)."""
    import openjij as oj

    poly = qlib.expand_cons(compiled.model).objective
    terms, offset = _plain_terms(poly)
    sampler = oj.SASampler()

    def once(s):
        result = sampler.sample_hubo(terms, vartype="BINARY", num_reads=num_reads, num_sweeps=num_sweeps,
                                     seed=s % (2**31))
        return [dict(zip(result.variables, row)) for row in result.record.sample]

    state, info = _loop(compiled, once, seed, time_limit, target_energy)
    info.update(backend="openjij-hubo")
    return state, info


openjij_hubo.name = "openjij-hubo"

PEERS = {"dwave-sa": dwave_sa, "openjij-sa": openjij_sa, "openjij-hubo": openjij_hubo}
