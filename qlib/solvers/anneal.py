"""Simulated annealing: one replica's run, shared by the CPU and GPU backends.

Every replica sweeps the variables in order and accepts a flip with the
Metropolis rule at the sweep's inverse temperature; a replica stops as soon as
its energy reaches the target (checked after every accepted flip) and records
when: ``hit[rep]`` is 0 while it has not, 1 if its start state was already
there, else ``2 + sweep * N + variable``.  Each replica has its own random
stream, and the driver takes the replica that got there first (then the lowest
index), so results depend only on the seed, not on how the sweeps were chunked.

:func:`anneal_replica` is the whole per-replica search.  The CPU backend calls
it from a ``prange`` loop (:func:`anneal_round`); the GPU backend calls the same
function from a CUDA kernel, one thread per replica (:mod:`qlib.solvers.gpu`).
It allocates nothing: per-replica state and scratch come in as rows of the
2-D arrays of an :class:`AnnealArrays`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .kernel import apply_flip, flip_delta, init_state, metropolis


class AnnealArrays(NamedTuple):
    """Every replica's annealing state, one row (or entry) per replica; the kernels write into it."""

    states: np.ndarray         # uint8 (P, N): the current assignments
    rng: np.ndarray            # uint64 (P, 8): each replica's generator state in column 0 (a cache line each)
    false_count: np.ndarray    # int32 (P, T): false literals per term
    lhs: np.ndarray            # float64 (P, R): each row's left-hand side
    row_delta: np.ndarray      # float64 (P, R): zeroed scratch of :func:`~qlib.solvers.kernel.flip_delta`
    energies: np.ndarray       # float64 (P,): current energies (without the offset)
    best_states: np.ndarray    # uint8 (P, N): each replica's best state so far
    best_energies: np.ndarray  # float64 (P,)
    flips: np.ndarray          # int64 (P,): accepted flips
    hit: np.ndarray            # int64 (P,): when the target was reached (see the module docstring)
    field: np.ndarray          # float64 (P, N): local fields of the quadratic path (P, 0) otherwise


@njit(cache=True)
def anneal_replica(rep, m, a, betas, lo, hi, target):
    """Sweeps ``lo`` to ``hi`` of replica ``rep``'s annealing run (``lo == 0`` starts it from ``a.states[rep]``);
    ``betas[k]`` is the inverse temperature of sweep ``lo + k``.

    The run's state persists in the arrays ``a`` (:class:`AnnealArrays`) between
    calls, so the driver can read the clock between chunks of sweeps.
    """
    energies, best_states, best_energies, hit = a.energies, a.best_states, a.best_energies, a.hit
    x = a.states[rep]
    fc = a.false_count[rep]
    lhs = a.lhs[rep]
    scratch = a.row_delta[rep]
    rg = a.rng[rep]
    n = x.shape[0]
    if lo == 0:
        for r in range(scratch.shape[0]):
            scratch[r] = 0.0
        energies[rep] = init_state(x, fc, lhs, m)
        best_energies[rep] = energies[rep]
        for i in range(n):
            best_states[rep, i] = x[i]
        hit[rep] = 1 if energies[rep] <= target else 0
    if hit[rep]:
        return
    energy = energies[rep]
    best = best_energies[rep]
    count = 0
    reached = False
    when = 0
    for s in range(lo, hi):
        beta = betas[s - lo]
        for v in range(n):
            d = flip_delta(v, x, fc, lhs, scratch, m)
            if d <= 0.0 or metropolis(rg, 0, beta * d):
                apply_flip(v, x, fc, lhs, m)
                energy += d
                count += 1
                if energy <= target:
                    reached = True
                    when = 2 + s * n + v
                    break
        if reached:
            break
        if energy < best:
            best = energy
            for i in range(n):
                best_states[rep, i] = x[i]
    if reached:
        best = energy
        for i in range(n):
            best_states[rep, i] = x[i]
    energies[rep] = energy
    best_energies[rep] = best
    a.flips[rep] += count
    hit[rep] = when


@njit(cache=True, parallel=True)
def anneal_round(m, a, betas, lo, hi, target):
    """Sweeps ``lo`` to ``hi`` of every replica's annealing run, in parallel on the CPU cores."""
    for rep in prange(a.states.shape[0]):
        anneal_replica(rep, m, a, betas, lo, hi, target)


@njit(cache=True)
def anneal_serial(m, a, betas, lo, hi, target):
    """:func:`anneal_round` on one thread: no parallel launch, for one replica or one thread."""
    for rep in range(a.states.shape[0]):
        anneal_replica(rep, m, a, betas, lo, hi, target)


@njit(cache=True)
def sample_deltas(m, states, term_count, num_rows):
    """``|delta|`` of every single flip from each of ``states``: the model's energy scale."""
    num_states, n = states.shape
    out = np.empty((num_states, n), dtype=np.float64)
    for s in range(num_states):
        x = states[s].copy()
        fc = np.empty(term_count, dtype=np.int32)
        lhs = np.empty(num_rows, dtype=np.float64)
        scratch = np.zeros(num_rows, dtype=np.float64)
        init_state(x, fc, lhs, m)
        for v in range(n):
            out[s, v] = abs(flip_delta(v, x, fc, lhs, scratch, m))
    return out
