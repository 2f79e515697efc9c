"""Exact minimum by enumerating every state in Gray-code order.

Each step flips one variable, so a step costs one incremental delta.  This is
the oracle the tests compare every other solver against.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernel import apply_flip, flip_delta, init_state

MAX_VARS = 24


@njit(cache=True)
def _enumerate(num_vars, m, num_rows, num_terms, tol, keep):
    x = np.zeros(num_vars, dtype=np.uint8)
    fc = np.zeros(num_terms, dtype=np.int32)
    lhs = np.zeros(num_rows, dtype=np.float64)
    scratch = np.zeros(num_rows, dtype=np.float64)
    energy = init_state(x, fc, lhs, m)
    best = energy
    count = 1
    ground = np.zeros((keep, num_vars), dtype=np.uint8)
    ground[0, :] = x
    total = 1 << num_vars
    for i in range(1, total):
        v = 0
        while not (i >> v) & 1:
            v += 1
        energy += flip_delta(v, x, fc, lhs, scratch, m)
        apply_flip(v, x, fc, lhs, m)
        if energy < best - tol:
            best = energy
            count = 1
            ground[0, :] = x
        elif energy <= best + tol:
            if count < keep:
                ground[count, :] = x
            count += 1
    return best, count, ground


def enumerate_minimum(compiled, max_vars: int = MAX_VARS, keep: int = 16):
    """(minimum energy, number of minimum states, up to ``keep`` of them)."""
    n = compiled.num_vars
    if n > max_vars:
        raise ValueError(
            f"the exhaustive solver enumerates 2**n states and accepts at most {max_vars} "
            f"variables; this model has {n}. Use backend='cpu' instead."
        )
    scale = max(1.0, float(np.abs(compiled.term_coef).sum()) + float(compiled.row_weight.sum()))
    best, count, ground = _enumerate(
        n, compiled.kernel_arrays(), compiled.num_rows, compiled.num_terms, 1e-9 * scale, keep
    )
    return best + compiled.offset, int(count), ground[: min(count, keep)].copy()
