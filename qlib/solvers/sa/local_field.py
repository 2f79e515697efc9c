"""Local fields and cached deltas: the two fast ways :mod:`qlib.solvers.sa.kernel` reads a flip's energy change.

A model whose energy is ``constant + sum_i h_i x_i + sum_{i<j} J_ij x_i x_j``
(no constraint rows, no term of degree 3 or more: every plain QUBO or BQM)
keeps, per replica, each variable's *local field* ``f_i = h_i + sum_j J_ij x_j``.
Flipping ``x_i`` then changes the energy by ``(1 - 2 x_i) f_i``, read in O(1);
only an accepted flip costs O(degree), to update its neighbours' fields
(:func:`flip_fields`).  The neighbours are one contiguous CSR array (both
directions of each coupling), each variable's run padded with zero couplings
to a multiple of :data:`GROUP` entries whose columns are the spare fields
``N .. N + GROUP - 1``: the update loop runs in whole groups, so its exit is
mispredicted once per group instead of once per neighbour.  A dense model (a
quarter of all pairs coupled, up to 2048 variables) keeps its couplings as a
matrix instead, so that a flip updates the fields with one contiguous,
vectorised row (:func:`flip_dense`).  :func:`quadratic_arrays` builds the flat arrays in Python;
models it does not fit (rows, higher degree) return None.

A model of higher degree without constraint rows (a HUBO) caches each
variable's flip delta in the same field array (:func:`fill_deltas`) and keeps
it current from the terms' counts of false literals (:func:`flip_cached`), so
a rejected move costs O(1) and an accepted one touches only the terms whose
count passes 0 or 1.  Models with rows read each delta from its terms and rows
(:mod:`qlib.solvers.core`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..core import flip_delta, init_state

__all__ = ["GROUP", "field_width", "QuadArrays", "quadratic_arrays", "in_sweep_order", "ising_beta_range",
           "has_rows", "fill_fields", "flip_fields", "flip_dense", "fill_deltas", "flip_cached"]

#: The most variables, and the least share of coupled pairs, for the matrix layout.
DENSE_MAX_VARS, DENSE_MIN_SHARE = 2048, 0.25
#: Neighbour entries per group: each variable's run of neighbours is padded to a multiple of it.
GROUP = 4
_1, _2, _3, _GROUP = np.uintp(1), np.uintp(2), np.uintp(3), np.uintp(GROUP)   # unsigned offsets for the kernels


def field_width(var_count: int) -> int:
    """The length of a replica's field array: one per variable, and the :data:`GROUP` spare ones."""
    return var_count + GROUP


class QuadArrays(NamedTuple):
    """A quadratic model in the variables' own (un-negated) form, neighbours as CSR."""

    constant: float          # the energy of the all-zero state, without the model's offset
    linear: np.ndarray       # float64 (N,): h
    ptr: np.ndarray          # int64 (N + 1,): the neighbours of i are nbr[ptr[i]:ptr[i + 1]], a multiple of GROUP
    nbr: np.ndarray          # int32: neighbour columns, both directions of each coupling; padding: N + its slot
    coupling: np.ndarray     # float64: J of each neighbour entry; padding: 0
    dense: np.ndarray        # float64 (N, N): J as a matrix for a dense model, else (0, 0)


def quadratic_arrays(compiled) -> QuadArrays | None:
    """The :class:`QuadArrays` of ``compiled``, or None when it has constraint rows or a term of degree > 2."""
    if compiled.num_rows or compiled.term_count != compiled.num_objective_terms:
        return None
    t = compiled.num_objective_terms
    sizes = np.diff(compiled.term_ptr[:t + 1])
    if t and sizes.max() > 2:
        return None
    n = compiled.var_count
    coef = compiled.term_coef[:t]
    first = compiled.term_ptr[:t]
    one, two = sizes == 1, sizes == 2
    linear = np.zeros(n, dtype=np.float64)
    constant = 0.0
    # degree 1: c*x, or c*(1 - x) = c - c*x
    v, neg, c = compiled.term_vars[first[one]], compiled.term_negs[first[one]], coef[one]
    np.add.at(linear, v, np.where(neg == 1, -c, c))
    constant += float(c[neg == 1].sum())
    # degree 2: l_i l_j with l = x or 1 - x, expanded into J x_i x_j + h terms + a constant
    i, j = compiled.term_vars[first[two]], compiled.term_vars[first[two] + 1]
    ni, nj, c = compiled.term_negs[first[two]], compiled.term_negs[first[two] + 1], coef[two]
    if np.any(i == j):
        return None
    sign_i, sign_j = np.where(ni == 1, -1.0, 1.0), np.where(nj == 1, -1.0, 1.0)
    # (a + s_i x_i)(b + s_j x_j) with a = n_i, b = n_j: c*(a b + a s_j x_j + b s_i x_i + s_i s_j x_i x_j)
    constant += float((c * ni * nj).sum())
    np.add.at(linear, j, c * ni * sign_j)
    np.add.at(linear, i, c * nj * sign_i)
    J = c * sign_i * sign_j
    lo, hi = np.minimum(i, j).astype(np.int64), np.maximum(i, j).astype(np.int64)
    keys, inverse = np.unique(lo * n + hi, return_inverse=True)
    weights = np.zeros(len(keys), dtype=np.float64)
    np.add.at(weights, inverse, J)
    keep = weights != 0.0
    keys, weights = keys[keep], weights[keep]
    a, b = keys // n, keys % n
    rows = np.concatenate([a, b])
    order = np.argsort(rows, kind="stable")
    ptr, nbr, coupling = _padded(n, rows[order], np.concatenate([b, a])[order], np.concatenate([weights, weights])[order])
    dense = np.zeros((0, 0))
    if 1 < n <= DENSE_MAX_VARS and len(keys) >= DENSE_MIN_SHARE * n * (n - 1) / 2:
        dense = np.zeros((n, n))
        dense[a, b] = weights
        dense[b, a] = weights
    return QuadArrays(constant, linear, ptr, nbr, coupling, dense)


def _padded(n, rows, cols, weights):
    """CSR arrays of the sorted entries (``rows``, ``cols``, ``weights``), each row padded to a multiple of
    :data:`GROUP` with zero weights in the spare columns ``n + slot``."""
    degree = np.bincount(rows, minlength=n)
    sizes = -(-degree // GROUP) * GROUP
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(sizes)
    nbr = n + (np.arange(ptr[-1]) - np.repeat(ptr[:-1], sizes)) % GROUP     # padding: the slot's spare field
    coupling = np.zeros(ptr[-1])
    at = np.repeat(ptr[:-1], degree) + (np.arange(len(rows)) - np.repeat(np.cumsum(degree) - degree, degree))
    nbr[at] = cols
    coupling[at] = weights
    return ptr, nbr.astype(np.int32), coupling


def in_sweep_order(q: QuadArrays) -> tuple[QuadArrays, np.ndarray | None]:
    """``q`` renumbered so that a sweep meets the variables by their count of neighbour groups (stable: in
    their own order among equals), and the order: position ``k`` of the sweep holds variable ``order[k]``.

    The update loop of an accepted flip runs once per group; with runs of equal counts its exit is
    predicted, which on a model of mixed degrees (a random graph) is worth about 10 % of a sweep.  Where
    every variable has the same count (a lattice), or the model is dense, ``q`` is returned as it is, with
    ``order`` None.
    """
    n = len(q.linear)
    sizes = np.diff(q.ptr)
    order = np.argsort(sizes, kind="stable")
    if q.dense.shape[0] or np.array_equal(order, np.arange(n)):
        return q, None
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(sizes[order])
    take = np.repeat(q.ptr[order] - ptr[:-1], sizes[order]) + np.arange(ptr[-1])   # old entry of each new one
    old = q.nbr[take].astype(np.int64)
    nbr = np.where(old < n, position[np.minimum(old, n - 1)], old)   # padding keeps its spare field
    return QuadArrays(q.constant, q.linear[order], ptr, nbr.astype(np.int32), q.coupling[take], q.dense), order


def ising_beta_range(q: QuadArrays) -> tuple[float, float]:
    """dwave-samplers' default (hot, cold) inverse temperatures, from the model's Ising form.

    Hot: a flip against the largest possible field is accepted with probability
    1/2.  Cold: ``ln(m / 0.01) / (2 * b)``, ``b`` the smallest non-zero bias and
    ``m`` the number of spins whose smallest bias it is, so that the last sweep
    excites a spin with probability about 1/100 whatever the size.
    """
    n = len(q.linear)
    rows = np.repeat(np.arange(n), np.diff(q.ptr))
    spin_j = np.abs(q.coupling) / 4.0                        # x = (1 + s) / 2
    spin_h = np.abs(q.linear / 2.0 + np.bincount(rows, weights=q.coupling, minlength=n) / 4.0)
    total = spin_h + np.bincount(rows, weights=spin_j, minlength=n)
    if not total.any():
        return 0.1, 1.0
    smallest = np.where(spin_h > 0, spin_h, np.inf)
    np.minimum.at(smallest, rows, np.where(spin_j > 0, spin_j, np.inf))
    smallest = smallest[np.isfinite(smallest)]
    low = smallest.min()
    hot = math.log(2.0) / (2.0 * total.max())
    return float(hot), float(max(hot, math.log(np.count_nonzero(smallest == low) / 0.01) / (2.0 * low)))


@njit(cache=True)
def fill_fields(q, x, f):
    """Fill the fields ``f`` (its spare entries 0) for state ``x``; return the energy without the offset."""
    n = x.shape[0]
    for i in range(n):
        f[i] = q.linear[i]
    for i in range(n, f.shape[0]):
        f[i] = 0.0                                 # the spare fields of the padding
    for i in range(n):
        if x[i]:
            for k in range(q.ptr[i], q.ptr[i + 1]):
                f[q.nbr[k]] += q.coupling[k]
    energy = q.constant
    for i in range(n):
        if x[i]:
            energy += 0.5 * (q.linear[i] + f[i])   # h_i + half of the couplings, each counted from both ends
    return energy


@njit(cache=True, inline="always")
def flip_fields(v, q, x, f):
    """Flip ``x[v]`` and move its neighbours' fields by its couplings (the CSR layout).  Inlined into the
    sweep: as a call, code tuned for AMD Zen 3/4 (numba's default on those hosts) swept at two thirds of the
    speed that code tuned for x86-64-v4 reached, and the inlined sweep runs at full speed under both."""
    xv = x[v]
    step = 1.0 - 2.0 * xv                          # +1 when x_v turns on, -1 when it turns off
    x[v] = xv ^ 1
    nbr, coupling = q.nbr, q.coupling
    # Unsigned indices throughout: numba checks a signed index for a negative (wrap-around) value, and on a
    # degree-13 model those checks took a quarter of the sweep.
    k, end = np.uintp(q.ptr[v]), np.uintp(q.ptr[v + 1])
    while k < end:                                 # whole groups; the padding adds 0 to a spare field
        f[np.uintp(nbr[k])] += step * coupling[k]
        f[np.uintp(nbr[k + _1])] += step * coupling[k + _1]
        f[np.uintp(nbr[k + _2])] += step * coupling[k + _2]
        f[np.uintp(nbr[k + _3])] += step * coupling[k + _3]
        k += _GROUP


@njit(cache=True)
def flip_dense(v, q, x, f):
    """:func:`flip_fields` for the matrix layout: one contiguous row.  (A function of its own: with both
    loops in one function the sparse update ran at a third of its speed.)"""
    xv = x[v]
    step = 1.0 - 2.0 * xv
    x[v] = xv ^ 1
    row = q.dense[v]
    for j in range(x.shape[0]):
        f[j] += step * row[j]


def has_rows(compiled) -> bool:
    """Whether ``compiled`` has constraint rows (then only the general kernel anneals it)."""
    return compiled.num_rows > 0


@njit(cache=True)
def flip_cached(v, x, fc, g, m):
    """Flip ``x[v]``: update the terms' false counts and the cached deltas ``g`` of their variables.
    (Unsigned indices, as in :func:`flip_fields`.)"""
    term_ptr, term_vars, term_negs, term_coef = m.terms.ptr, m.terms.vars, m.terms.negs, m.terms.coef
    var_term_ptr, var_terms, var_term_negs = m.by_var.term_ptr, m.by_var.terms, m.by_var.term_negs
    v = np.uintp(v)
    xv = x[v]
    k, end = np.uintp(var_term_ptr[v]), np.uintp(var_term_ptr[v + _1])
    while k < end:
        t = np.uintp(var_terms[k])
        before = fc[t]
        after = before + 1 if (xv ^ var_term_negs[k]) != 0 else before - 1
        fc[t] = after
        k += _1
        if min(before, after) > 1:          # the term stays off whichever other literal flips
            continue
        c = term_coef[t]
        kk, last = np.uintp(term_ptr[t]), np.uintp(term_ptr[t + _1])
        while kk < last:
            u = np.uintp(term_vars[kk])
            if u != v:
                if (x[u] ^ term_negs[kk]) != 0:   # u's literal is true: flipping it turns an on term off
                    g[u] += (-c if after == 0 else 0.0) - (-c if before == 0 else 0.0)
                else:                              # false: flipping it turns the term on if it is the last one
                    g[u] += (c if after == 1 else 0.0) - (c if before == 1 else 0.0)
            kk += _1
    x[v] = 1 - xv
    g[v] = -g[v]


@njit(cache=True)
def fill_deltas(m, x, g, fc, lhs, scratch):
    """Fill the false counts ``fc`` and every variable's flip delta ``g`` for state ``x`` (a model
    without rows); return the energy without the offset."""
    energy = init_state(x, fc, lhs, m)
    for v in range(x.shape[0]):
        g[v] = flip_delta(v, x, fc, lhs, scratch, m)      # inlined (numba inline="always")
    return energy
