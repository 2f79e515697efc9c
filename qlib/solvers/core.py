"""Incremental energy bookkeeping shared by every numba solver.

A replica's search state is the assignment ``x`` (uint8, N), ``false_count``
(int32, T: how many literals of each term are currently false; a term is on
exactly when its count is 0) and ``lhs`` (float64, R: the value of each
constraint row's left-hand side).  Flipping a variable touches only its
incident terms and rows, so a flip's energy change costs O(incident terms +
incident rows).  The arrays are those of :meth:`CompiledModel.kernel_arrays <qlib.CompiledModel.kernel_arrays>`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

U64 = np.uint64
_1 = np.uintp(1)


@njit(cache=True, inline="always")
def xorshift_step(s):
    """The generator's next state after ``s`` (xorshift64); a kernel may keep its state in a local."""
    s ^= s >> U64(12)
    s ^= s << U64(25)
    s ^= s >> U64(27)
    return s


@njit(cache=True, inline="always")
def uniform_of(s):
    """The uniform float in [0, 1) (53 bits) that state ``s`` draws: the high bits of the xorshift64* output."""
    return float((s * U64(2685821657736338717)) >> U64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def rng_step(rng, i):
    """Advance the generator state ``rng[i]``; return the new state."""
    s = xorshift_step(rng[i])
    rng[i] = s
    return s


@njit(cache=True, inline="always")
def rng_next(rng, i):
    """xorshift64* step on ``rng[i]``: the same generator on every backend."""
    return rng_step(rng, i) * U64(2685821657736338717)


@njit(cache=True, inline="always")
def rng_uniform(rng, i):
    """A uniform float in [0, 1) from ``rng[i]`` (53 bits)."""
    return uniform_of(rng_step(rng, i))


@njit(cache=True)
def random_bits(out, rng, i):
    """Fill the uint8 array ``out`` (2-D) with uniform bits from the generator state ``rng[i]``: restart
    states at the cost of one generator step a variable."""
    s = rng[i]
    for r in range(out.shape[0]):
        for c in range(out.shape[1]):
            s = xorshift_step(s)
            out[r, c] = np.uint8((s * U64(2685821657736338717)) >> U64(63))
    rng[i] = s


@njit(cache=True, inline="always")
def rng_below(rng, i, n):
    """A uniform int in [0, n) from ``rng[i]``."""
    return int((rng_next(rng, i) >> U64(33)) % U64(n))


@njit(cache=True, inline="always")
def accept(u, y):
    """The Metropolis rule for a draw ``u`` in [0, 1) and ``y = beta * delta`` (any sign): ``u < exp(-y)``.

    Two exact bounds settle most draws without the exponential:
    ``exp(-y) >= 1 - y`` accepts (every downhill move), ``exp(y) >= 1 + y + y**2/2 + y**3/6`` rejects.
    """
    if u < 1.0 - y:
        return True
    if u * (1.0 + y * (1.0 + y * (0.5 + y * (1.0 / 6.0)))) >= 1.0:
        return False
    return u < math.exp(-y)


@njit(cache=True, inline="always")
def row_penalty(r, value, row_weight, row_iv_ptr, row_iv_lo, row_iv_hi):
    """weight * distance(value, allowed set of row r)**2."""
    best = np.inf
    for k in range(row_iv_ptr[r], row_iv_ptr[r + 1]):
        d = max(row_iv_lo[k] - value, 0.0, value - row_iv_hi[k])
        if d < best:
            best = d
    return row_weight[r] * best * best


@njit(cache=True)
def init_state(x, false_count, lhs, m):
    """Fill ``false_count`` and ``lhs`` for ``x``; return the energy without the offset."""
    term_ptr, term_vars, term_negs, term_coef = m.terms.ptr, m.terms.vars, m.terms.negs, m.terms.coef
    term_row, row_const, row_weight, row_iv_ptr = m.terms.row, m.rows.const, m.rows.weight, m.rows.iv_ptr
    row_iv_lo, row_iv_hi = m.rows.iv_lo, m.rows.iv_hi
    energy = 0.0
    for r in range(row_const.shape[0]):
        lhs[r] = row_const[r]
    for t in range(term_coef.shape[0]):
        c = 0
        for k in range(term_ptr[t], term_ptr[t + 1]):
            if (x[term_vars[k]] ^ term_negs[k]) == 0:
                c += 1
        false_count[t] = c
        if c == 0:
            r = term_row[t]
            if r < 0:
                energy += term_coef[t]
            else:
                lhs[r] += term_coef[t]
    for r in range(row_const.shape[0]):
        energy += row_penalty(r, lhs[r], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi)
    return energy


@njit(cache=True, inline="always")
def flip_delta(v, x, false_count, lhs, row_delta, m):
    """Energy change if ``x[v]`` were flipped.  ``row_delta`` is zeroed scratch (R)."""
    term_coef, term_row, var_term_ptr, var_terms = m.terms.coef, m.terms.row, m.by_var.term_ptr, m.by_var.terms
    var_term_negs, var_row_ptr, var_rows = m.by_var.term_negs, m.by_var.row_ptr, m.by_var.rows
    row_weight, row_iv_ptr, row_iv_lo, row_iv_hi = m.rows.weight, m.rows.iv_ptr, m.rows.iv_lo, m.rows.iv_hi
    # unsigned indices: numba checks a signed index for a negative (wrap-around) value
    xv = x[v]
    delta = 0.0
    k, end = np.uintp(var_term_ptr[v]), np.uintp(var_term_ptr[v + 1])
    while k < end:
        t = np.uintp(var_terms[k])
        c = false_count[t]
        neg = var_term_negs[k]
        k += _1
        if (xv ^ neg) != 0:
            if c != 0:
                continue
            change = -term_coef[t]
        else:
            if c != 1:
                continue
            change = term_coef[t]
        r = term_row[t]
        if r < 0:
            delta += change
        else:
            row_delta[np.uintp(r)] += change
    for k in range(var_row_ptr[v], var_row_ptr[v + 1]):
        r = var_rows[k]
        d = row_delta[r]
        if d != 0.0:
            delta += (row_penalty(r, lhs[r] + d, row_weight, row_iv_ptr, row_iv_lo, row_iv_hi)
                      - row_penalty(r, lhs[r], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi))
            row_delta[r] = 0.0
    return delta


@njit(cache=True)
def apply_flip(v, x, false_count, lhs, m):
    """Flip ``x[v]`` and update the term counts and row values."""
    term_coef, term_row, var_term_ptr, var_terms = m.terms.coef, m.terms.row, m.by_var.term_ptr, m.by_var.terms
    var_term_negs = m.by_var.term_negs
    xv = x[v]
    k, end = np.uintp(var_term_ptr[v]), np.uintp(var_term_ptr[v + 1])   # unsigned, as in flip_delta
    while k < end:
        t = np.uintp(var_terms[k])
        if (xv ^ var_term_negs[k]) != 0:
            # literal becomes false
            if false_count[t] == 0:
                r = term_row[t]
                if r >= 0:
                    lhs[np.uintp(r)] -= term_coef[t]
            false_count[t] += 1
        else:
            false_count[t] -= 1
            if false_count[t] == 0:
                r = term_row[t]
                if r >= 0:
                    lhs[np.uintp(r)] += term_coef[t]
        k += _1
    x[v] = 1 - xv
