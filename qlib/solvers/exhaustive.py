"""Exact minimum by enumerating every state in Gray-code order.

Each step flips one variable, so a step costs one incremental delta.  This is
the oracle the tests compare every other solver against.

The enumeration runs in chunks of steps, each a short numba call: between
chunks Python reads the clock (``time_limit``: the best state so far comes
back with ``stop_reason="time_limit"``) and handles signals, so Ctrl-C stops
it at once.  Each chunk starts from an energy computed afresh, so rounding
does not pile up over 2**24 incremental steps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..stop import StopReason
from ..expr import NumericOverflowError
from .core import apply_flip, flip_delta, init_state

MAX_VARS = 24
CHUNK_SECONDS = 0.02          # aim of one numba call: the clock and Ctrl-C are seen this often
_FIRST_CHUNK = 1 << 10
_MAX_CHUNK = 1 << 22


class Walk(NamedTuple):
    """The enumeration's state between chunks: the current state ``x`` with its term counts,
    row values and zeroed scratch, and the best energy, its count and the ground states so far."""

    x: np.ndarray             # uint8 (N,)
    false_count: np.ndarray   # int32 (T,)
    lhs: np.ndarray           # float64 (R,)
    row_delta: np.ndarray     # float64 (R,), zeroed scratch
    best: np.ndarray          # float64 (1,): the minimum energy without the offset
    count: np.ndarray         # int64 (1,): how many states reach it
    ground: np.ndarray        # uint8 (keep, N): the first of them


@njit(cache=True)
def _enumerate_chunk(start, stop, w, m, tol):
    """Gray-code steps ``start .. stop-1`` from state ``w.x`` (the state after step ``start-1``).

    Step ``i`` flips the lowest set bit of ``i``.  ``w.best[0]`` / ``w.count[0]``
    (the minimum energy without the offset, and how many states reach it) and
    ``w.ground`` (the first of them) carry over from call to call.
    """
    x, fc, lhs, scratch = w.x, w.false_count, w.lhs, w.row_delta
    best, count, ground = w.best, w.count, w.ground
    keep = ground.shape[0]
    var_count = x.shape[0]
    energy = init_state(x, fc, lhs, m)
    b = best[0]
    c = count[0]
    for i in range(start, stop):
        v = 0
        while not (i >> v) & 1:
            v += 1
        energy += flip_delta(v, x, fc, lhs, scratch, m)      # inlined (numba inline="always")
        apply_flip(v, x, fc, lhs, m)
        if energy < b - tol:
            b = energy
            c = 1
            for k in range(var_count):
                ground[0, k] = x[k]
        elif energy <= b + tol:
            if c < keep:
                for k in range(var_count):
                    ground[c, k] = x[k]
            c += 1
    best[0] = b
    count[0] = c


@dataclass
class Enumeration:
    """What :func:`search` found: ``energy`` (with the offset) is the minimum over the
    ``steps`` states enumerated, ``count`` how many of them reach it, ``ground`` up to
    ``keep`` of them; ``complete`` says whether every state was enumerated."""

    energy: float
    count: int
    ground: np.ndarray
    steps: int
    total: int
    complete: bool


def search(compiled, max_vars: int = MAX_VARS, keep: int = 16, time_limit: float | None = None) -> Enumeration:
    """Enumerate the states of ``compiled`` in Gray-code order, within ``time_limit`` seconds.

    Without a time limit (None) every state is visited.  With one, the search
    stops at the first chunk boundary after the limit (chunks last about
    ``CHUNK_SECONDS``) and reports the best state among those visited.
    """
    start_clock = time.perf_counter()
    n = compiled.var_count
    if n > max_vars:
        raise ValueError(
            f"the exhaustive solver enumerates 2**n states and accepts at most {max_vars} "
            f"variables; this model has {n}. Use backend='cpu' instead."
        )
    m = compiled.kernel_arrays()
    scale = max(1.0, float(np.abs(compiled.term_coef).sum()) + float(compiled.row_weight.sum()))
    tol = 1e-9 * scale
    x = np.zeros(n, dtype=np.uint8)
    fc = np.zeros(compiled.term_count, dtype=np.int32)
    lhs = np.zeros(compiled.num_rows, dtype=np.float64)
    scratch = np.zeros(compiled.num_rows, dtype=np.float64)
    ground = np.zeros((keep, n), dtype=np.uint8)
    best = np.array([init_state(x, fc, lhs, m)])
    count = np.ones(1, dtype=np.int64)
    walk = Walk(x, fc, lhs, scratch, best, count, ground)
    total = 1 << n
    deadline = None if time_limit is None else start_clock + float(time_limit)
    step, chunk = 1, _FIRST_CHUNK
    while step < total:
        now = time.perf_counter()
        if deadline is not None and now >= deadline:
            break
        stop = min(total, step + chunk)
        _enumerate_chunk(step, stop, walk, m, tol)
        elapsed = time.perf_counter() - now
        done, step = stop - step, stop
        # size the next chunk to last about CHUNK_SECONDS, and not much past the deadline
        aim = CHUNK_SECONDS if deadline is None else min(CHUNK_SECONDS, max(deadline - time.perf_counter(), 1e-3))
        rate = done / max(elapsed, 1e-6)
        chunk = int(min(_MAX_CHUNK, max(64, rate * aim)))
    energy = float(best[0]) + compiled.offset
    if not np.isfinite(energy):
        raise NumericOverflowError(f"the minimum energy found is {energy}: the model's energies overflow float64")
    c = int(count[0])
    return Enumeration(energy=energy, count=c, ground=ground[: min(c, keep)].copy(), steps=step,
                       total=total, complete=step >= total)


def run_exhaustive(compiled, options, common):
    """The exhaustive backend (:class:`~qlib.solvers.options.ExhaustiveOptions`): every state in
    Gray-code order; ``common.time_limit`` stops it early with the best state so far
    (``stop_reason="time_limit"``; ``num_ground_states`` then counts the states visited)."""
    found = search(compiled, max_vars=options.max_vars, time_limit=common.time_limit)
    info = dict(backend="exhaustive", num_ground_states=found.count, ground_states=found.ground,
                flips=found.steps, stop_reason=StopReason.COMPLETE if found.complete else StopReason.TIME_LIMIT)
    return found.ground[0], info
