"""Simulated annealing: one replica's run, shared by every kernel and by the CPU and GPU backends.

Every replica sweeps the variables in order (the local fields' model comes
renumbered in its sweep order, :func:`~qlib.solvers.sa.local_field.in_sweep_order`)
and accepts a flip with the Metropolis rule at the sweep's inverse temperature
(one uniform draw a visit, :func:`~qlib.solvers.core.accept`, with the
generator state in a local for the whole call); a replica stops as soon as its
energy reaches the target (checked after every accepted flip) and records
when: ``hit[rep]`` is 0 while it has not, 1 if its start state was already
there, else ``2 + sweep * N + position`` (the flipped variable's place in the
sweep).  Each replica has its own random stream, and the driver takes the
replica that got there first (then the lowest index), so results depend only on
the seed, not on how the sweeps were chunked.

:func:`anneal_replica` is the whole per-replica search, for the three ways of
reading a flip's energy change; exactly one of its model arguments is given,
the others are None, and numba compiles one version per combination, pruning
the branches of the absent ones:

- ``quad`` (:class:`~qlib.solvers.sa.local_field.QuadArrays`, a plain QUBO): local
  fields, :func:`~qlib.solvers.sa.local_field.fill_fields` and
  :func:`~qlib.solvers.sa.local_field.flip_fields` (or ``flip_dense``);
- ``cached`` (the kernel arrays of a model without rows, a HUBO): cached flip
  deltas, :func:`~qlib.solvers.sa.local_field.fill_deltas` and
  :func:`~qlib.solvers.sa.local_field.flip_cached`;
- ``terms`` (the kernel arrays of any model): each delta from the incident terms
  and rows, :func:`~qlib.solvers.core.flip_delta` and
  :func:`~qlib.solvers.core.apply_flip`.

The CPU backend calls it from a ``prange`` loop (:func:`anneal_round`); the GPU
backend calls the same function from a CUDA kernel, one thread per replica
(:mod:`qlib.solvers.gpu`).  It allocates nothing: per-replica state and scratch
come in as rows of the 2-D arrays of an :class:`AnnealArrays`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...compile import KernelArrays
from ..core import accept, apply_flip, flip_delta, init_state, uniform_of, xorshift_step
from .local_field import fill_deltas, fill_fields, flip_cached, flip_dense, flip_fields


class AnnealArrays(NamedTuple):
    """Every replica's annealing state, one row (or entry) per replica; the kernels write into it."""

    x: np.ndarray              # uint8 (P, N): the current assignments
    rng: np.ndarray            # uint64 (P, 8): each replica's generator state in column 0 (a cache line each)
    false_count: np.ndarray    # int32 (P, T): false literals per term
    lhs: np.ndarray            # float64 (P, R): each row's left-hand side
    row_delta: np.ndarray      # float64 (P, R): zeroed scratch of :func:`~qlib.solvers.core.flip_delta`
    energy: np.ndarray         # float64 (P,): current energies (without the offset)
    best_x: np.ndarray         # uint8 (P, N): each replica's best state so far
    best_energy: np.ndarray    # float64 (P,)
    flips: np.ndarray          # int64 (P,): accepted flips
    hit: np.ndarray            # int64 (P,): when the target was reached (see the module docstring)
    field: np.ndarray          # float64 (P, N): local fields of the quadratic path (P, 0) otherwise

    #: How the fields move between the host and the device between chunks (:class:`qlib.solvers.sa.gpu.AnnealRoundGPU`):
    #: written by the host at sweep 0 (a restart's random states), sent then; read by the host after every
    #: chunk (one entry per replica), fetched then; read by the driver at the end of a round, fetched then.
    #: The rest (generator, term counts, rows, fields) is the kernel's own: it goes up once.
    SENT_AT_START = frozenset(("x",))
    FETCHED = frozenset(("energy", "best_energy", "flips", "hit"))
    AT_END = ("best_x",)


@njit(cache=True)
def _keep(rep, a, x):
    """Copy ``x`` into replica ``rep``'s best state."""
    for i in range(x.shape[0]):
        a.best_x[rep, i] = x[i]


@njit(cache=True)
def anneal_replica(rep, quad, cached, terms, a, betas, lo, target):
    """Sweeps ``lo`` to ``lo + len(betas)`` of replica ``rep``'s annealing run (``lo == 0`` starts it from ``a.x[rep]``);
    ``betas[k]`` is the inverse temperature of sweep ``lo + k``; one of ``quad``, ``cached``, ``terms`` is the model.

    The run's state persists in the arrays ``a`` (:class:`AnnealArrays`) between
    calls, so the driver can read the clock between chunks of sweeps.
    """
    x, f, fc, lhs, scratch = a.x[rep], a.field[rep], a.false_count[rep], a.lhs[rep], a.row_delta[rep]
    n = x.shape[0]
    if lo == 0:
        if quad is not None:
            energy = fill_fields(quad, x, f)
        if cached is not None:
            energy = fill_deltas(cached, x, f, fc, lhs, scratch)
        if terms is not None:
            for r in range(scratch.shape[0]):
                scratch[r] = 0.0
            energy = init_state(x, fc, lhs, terms)
        a.energy[rep] = energy
        a.best_energy[rep] = energy
        _keep(rep, a, x)
        a.hit[rep] = 1 if energy <= target else 0
    if a.hit[rep]:
        return
    energy = a.energy[rep]
    best = a.best_energy[rep]
    state = a.rng[rep, 0]                          # the generator, in a local until the call ends
    count = 0
    when = 0
    for s in range(lo, lo + betas.shape[0]):
        beta = betas[s - lo]
        for v in range(n):
            if quad is not None:
                d = (1.0 - 2.0 * x[v]) * f[v]      # the field, signed by the flip's direction
            if cached is not None:
                d = f[v]
            if terms is not None:
                d = flip_delta(v, x, fc, lhs, scratch, terms)      # inlined (numba inline="always")
            state = xorshift_step(state)
            if not accept(uniform_of(state), beta * d):
                continue
            if quad is not None:
                if quad.dense.shape[0]:
                    flip_dense(v, quad, x, f)
                else:
                    flip_fields(v, quad, x, f)     # inlined here (numba inline="always")
            if cached is not None:
                flip_cached(v, x, fc, f, cached)
            if terms is not None:
                apply_flip(v, x, fc, lhs, terms)
            energy += d
            count += 1
            if energy <= target:
                when = 2 + s * n + v
                break
        if when:
            break
        if energy < best:
            best = energy
            _keep(rep, a, x)
    a.rng[rep, 0] = state
    if when:
        best = energy
        _keep(rep, a, x)
    a.energy[rep] = energy
    a.best_energy[rep] = best
    a.flips[rep] += count
    a.hit[rep] = when


@njit(cache=True)
def anneal_round(quad, cached, terms, a, betas, lo, target):
    """Sweeps ``lo`` to ``lo + len(betas)`` of every replica's annealing run, in parallel on the CPU cores.

    A prange takes no named tuple of named tuples (numba's parallel loop flattens one level), so a
    :class:`~qlib.compile.KernelArrays` goes to the parallel loop by its parts, and each replica puts it
    back together."""
    if quad is not None:
        _round_quad(quad, a, betas, lo, target)
    elif cached is not None:
        _round_parts(cached.terms, cached.by_var, cached.rows, True, a, betas, lo, target)
    elif terms is not None:
        _round_parts(terms.terms, terms.by_var, terms.rows, False, a, betas, lo, target)


@njit(cache=True, parallel=True)
def _round_quad(quad, a, betas, lo, target):
    for rep in prange(a.x.shape[0]):
        anneal_replica(rep, quad, None, None, a, betas, lo, target)


@njit(cache=True, parallel=True)
def _round_parts(t, by_var, rows, cached, a, betas, lo, target):
    for rep in prange(a.x.shape[0]):
        m = KernelArrays(terms=t, by_var=by_var, rows=rows)
        if cached:
            anneal_replica(rep, None, m, None, a, betas, lo, target)
        else:
            anneal_replica(rep, None, None, m, a, betas, lo, target)


@njit(cache=True)
def anneal_serial(quad, cached, terms, a, betas, lo, target):
    """:func:`anneal_round` on one thread: no parallel launch, for one replica or one thread."""
    for rep in range(a.x.shape[0]):
        anneal_replica(rep, quad, cached, terms, a, betas, lo, target)


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
