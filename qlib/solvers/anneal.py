"""Simulated annealing on the CPU: replicas in parallel, incremental deltas.

Every replica sweeps the variables in order and accepts a flip with the
Metropolis rule at the sweep's inverse temperature; a replica stops as soon as
its energy reaches the target (checked after every accepted flip).  Replicas
run on all cores with ``prange`` and each has its own random stream, so the
result does not depend on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .kernel import apply_flip, flip_delta, init_state, rng_uniform


@njit(cache=True, parallel=True)
def anneal_round(m, states, betas, rng, target, num_terms, num_rows, best_states, best_energies, flips, hit):
    """One annealing run per replica from ``states`` (modified in place)."""
    num_replicas, n = states.shape
    for rep in prange(num_replicas):
        x = states[rep]
        fc = np.empty(num_terms, dtype=np.int32)
        lhs = np.empty(num_rows, dtype=np.float64)
        scratch = np.zeros(num_rows, dtype=np.float64)
        energy = init_state(x, fc, lhs, m)
        best = energy
        best_states[rep, :] = x
        count = 0
        reached = energy <= target
        for s in range(betas.shape[0]):
            if reached:
                break
            beta = betas[s]
            for v in range(n):
                d = flip_delta(v, x, fc, lhs, scratch, m)
                if d <= 0.0 or rng_uniform(rng, rep) < np.exp(-beta * d):
                    apply_flip(v, x, fc, lhs, m)
                    energy += d
                    count += 1
                    if energy <= target:
                        reached = True
                        break
            if energy < best:
                best = energy
                best_states[rep, :] = x
        if reached:
            best = energy
            best_states[rep, :] = x
        best_energies[rep] = best
        flips[rep] += count
        hit[rep] = reached


@njit(cache=True)
def sample_deltas(m, states, num_terms, num_rows):
    """|delta| of every single flip from each of ``states``: the model's energy scale."""
    num_states, n = states.shape
    out = np.empty((num_states, n), dtype=np.float64)
    for s in range(num_states):
        x = states[s].copy()
        fc = np.empty(num_terms, dtype=np.int32)
        lhs = np.empty(num_rows, dtype=np.float64)
        scratch = np.zeros(num_rows, dtype=np.float64)
        init_state(x, fc, lhs, m)
        for v in range(n):
            out[s, v] = abs(flip_delta(v, x, fc, lhs, scratch, m))
    return out
