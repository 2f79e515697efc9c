"""Simulated annealing on a quadratic model with cached local fields: the fast path of ``algorithm="sa"``.

A model whose energy is ``constant + sum_i h_i x_i + sum_{i<j} J_ij x_i x_j``
(no constraint rows, no term of degree 3 or more: every plain QUBO or BQM)
keeps, per replica, each variable's *local field* ``f_i = h_i + sum_j J_ij x_j``.
Flipping ``x_i`` then changes the energy by ``(1 - 2 x_i) f_i``, read in O(1);
only an accepted flip costs O(degree), to update its neighbours' fields.  A
move whose ``beta * delta`` exceeds 36.8 has acceptance probability below
2**-53, under the resolution of the uniform draw, so it is rejected without
drawing; the others take :func:`~qlib.solvers.kernel.metropolis`, whose exact
bounds skip most exponentials.  The neighbours are one contiguous CSR array (both directions of each
coupling), so a sweep reads memory in order; a dense model (a quarter of all
pairs coupled, up to 2048 variables) keeps its couplings as a matrix instead,
so that a flip updates the fields with one contiguous, vectorised row.

The sweeps, the target check (after every accepted flip), the record of when
the target was reached and the replica arrays are those of
:mod:`qlib.solvers.anneal`, so the driver (:func:`qlib.solvers.sa.run_sa`)
treats both paths alike.  :func:`quadratic_arrays` builds the flat arrays in
Python; models it does not fit (rows, higher degree) return None.

A model of higher degree without constraint rows (a HUBO) takes the second
kernel here, :func:`anneal_replica_cached`: each variable's flip delta is
cached in the same field array and kept current from the terms' counts of
false literals (:mod:`qlib.solvers.kernel`), so a rejected move costs O(1) and
an accepted one touches only the terms whose count passes 0 or 1.  Models with
rows take the general kernel, :mod:`qlib.solvers.anneal`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .kernel import flip_delta, init_state, metropolis

__all__ = ["QuadArrays", "quadratic_arrays", "ising_beta_range", "anneal_replica_quadratic", "anneal_round_quadratic",
           "has_rows", "anneal_replica_cached", "anneal_round_cached", "anneal_serial_quadratic",
           "anneal_serial_cached"]

#: The most variables, and the least share of coupled pairs, for the matrix layout.
DENSE_MAX_VARS, DENSE_MIN_SHARE = 2048, 0.25
#: ``beta * delta`` above which a move is rejected without a draw: exp(-36.8) < 2**-53.
CUTOFF = 36.8


class QuadArrays(NamedTuple):
    """A quadratic model in the variables' own (un-negated) form, neighbours as CSR."""

    constant: float          # the energy of the all-zero state, without the model's offset
    linear: np.ndarray       # float64 (N,): h
    ptr: np.ndarray          # int64 (N + 1,): the neighbours of i are nbr[ptr[i]:ptr[i + 1]]
    nbr: np.ndarray          # int32: neighbour columns, both directions of each coupling
    coupling: np.ndarray     # float64: J of each neighbour entry
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
    nbr = np.concatenate([b, a])[order].astype(np.int32)
    coupling = np.concatenate([weights, weights])[order]
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(rows, minlength=n))
    dense = np.zeros((0, 0))
    if 1 < n <= DENSE_MAX_VARS and len(keys) >= DENSE_MIN_SHARE * n * (n - 1) / 2:
        dense = np.zeros((n, n))
        dense[a, b] = weights
        dense[b, a] = weights
    return QuadArrays(constant, linear, ptr, nbr, coupling, dense)


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
def _start(rep, q, a, target):
    """Fill replica ``rep``'s fields from its state; its energy, best state and hit record."""
    x, f = a.states[rep], a.field[rep]
    n = x.shape[0]
    for i in range(n):
        f[i] = q.linear[i]
    for i in range(n):
        if x[i]:
            for k in range(q.ptr[i], q.ptr[i + 1]):
                f[q.nbr[k]] += q.coupling[k]
    energy = q.constant
    for i in range(n):
        if x[i]:
            energy += 0.5 * (q.linear[i] + f[i])   # h_i + half of the couplings, each counted from both ends
        a.best_states[rep, i] = x[i]
    a.energies[rep] = energy
    a.best_energies[rep] = energy
    a.hit[rep] = 1 if energy <= target else 0


@njit(cache=True)
def anneal_replica_quadratic(rep, q, a, betas, lo, hi, target):
    """Sweeps ``lo`` to ``hi`` of replica ``rep`` (``lo == 0`` starts it from ``a.states[rep]``);
    the same contract as :func:`qlib.solvers.anneal.anneal_replica`, on :class:`QuadArrays`."""
    if lo == 0:
        _start(rep, q, a, target)
    if a.hit[rep]:
        return
    x, f, rg = a.states[rep], a.field[rep], a.rng[rep]
    ptr, nbr, coupling, dense = q.ptr, q.nbr, q.coupling, q.dense
    n = x.shape[0]
    energy = a.energies[rep]
    best = a.best_energies[rep]
    count = 0
    when = 0
    for s in range(lo, hi):
        beta = betas[s - lo]
        cutoff = CUTOFF / beta
        for v in range(n):
            d = -f[v] if x[v] else f[v]
            if d > 0.0 and (d >= cutoff or not metropolis(rg, 0, beta * d)):
                continue
            step = -1.0 if x[v] else 1.0
            x[v] ^= 1
            if dense.shape[0]:
                row = dense[v]
                for j in range(n):
                    f[j] += step * row[j]
            else:
                for k in range(ptr[v], ptr[v + 1]):
                    f[np.uintp(nbr[k])] += step * coupling[k]   # an unsigned index: no negative-index check
            energy += d
            count += 1
            if energy <= target:
                when = 2 + s * n + v
                break
        if when:
            break
        if energy < best:
            best = energy
            for i in range(n):
                a.best_states[rep, i] = x[i]
    if when:
        best = energy
        for i in range(n):
            a.best_states[rep, i] = x[i]
    a.energies[rep] = energy
    a.best_energies[rep] = best
    a.flips[rep] += count
    a.hit[rep] = when


@njit(cache=True, parallel=True)
def anneal_round_quadratic(q, a, betas, lo, hi, target):
    """Sweeps ``lo`` to ``hi`` of every replica, in parallel on the CPU cores."""
    for rep in prange(a.states.shape[0]):
        anneal_replica_quadratic(rep, q, a, betas, lo, hi, target)


@njit(cache=True)
def anneal_serial_quadratic(q, a, betas, lo, hi, target):
    """:func:`anneal_round_quadratic` on one thread: no parallel launch, for one replica or one thread."""
    for rep in range(a.states.shape[0]):
        anneal_replica_quadratic(rep, q, a, betas, lo, hi, target)


def has_rows(compiled) -> bool:
    """Whether ``compiled`` has constraint rows (then only the general kernel anneals it)."""
    return compiled.num_rows > 0


@njit(cache=True)
def _flip_cached(v, x, fc, g, m):
    """Flip ``x[v]``: update the terms' false counts and the cached deltas ``g`` of their variables."""
    term_ptr, term_vars, term_negs, term_coef = m[0], m[1], m[2], m[3]
    var_term_ptr, var_terms, var_term_negs = m[5], m[6], m[7]
    xv = x[v]
    for k in range(var_term_ptr[v], var_term_ptr[v + 1]):
        t = var_terms[k]
        before = fc[t]
        after = before + 1 if (xv ^ var_term_negs[k]) != 0 else before - 1
        fc[t] = after
        if min(before, after) > 1:          # the term stays off whichever other literal flips
            continue
        c = term_coef[t]
        for kk in range(term_ptr[t], term_ptr[t + 1]):
            u = term_vars[kk]
            if u == v:
                continue
            if (x[u] ^ term_negs[kk]) != 0:   # u's literal is true: flipping it turns an on term off
                g[u] += (-c if after == 0 else 0.0) - (-c if before == 0 else 0.0)
            else:                              # false: flipping it turns the term on if it is the last one
                g[u] += (c if after == 1 else 0.0) - (c if before == 1 else 0.0)
    x[v] = 1 - xv
    g[v] = -g[v]


@njit(cache=True)
def anneal_replica_cached(rep, m, a, betas, lo, hi, target):
    """Sweeps ``lo`` to ``hi`` of replica ``rep`` on a model without rows, with cached deltas;
    the contract of :func:`qlib.solvers.anneal.anneal_replica`."""
    x, g, fc, rg = a.states[rep], a.field[rep], a.false_count[rep], a.rng[rep]
    n = x.shape[0]
    if lo == 0:
        energy = init_state(x, fc, a.lhs[rep], m)
        for v in range(n):
            g[v] = flip_delta(v, x, fc, a.lhs[rep], a.row_delta[rep], m)
            a.best_states[rep, v] = x[v]
        a.energies[rep] = energy
        a.best_energies[rep] = energy
        a.hit[rep] = 1 if energy <= target else 0
    if a.hit[rep]:
        return
    energy = a.energies[rep]
    best = a.best_energies[rep]
    count = 0
    when = 0
    for s in range(lo, hi):
        beta = betas[s - lo]
        cutoff = CUTOFF / beta
        for v in range(n):
            d = g[v]
            if d > 0.0 and (d >= cutoff or not metropolis(rg, 0, beta * d)):
                continue
            _flip_cached(v, x, fc, g, m)
            energy += d
            count += 1
            if energy <= target:
                when = 2 + s * n + v
                break
        if when:
            break
        if energy < best:
            best = energy
            for i in range(n):
                a.best_states[rep, i] = x[i]
    if when:
        best = energy
        for i in range(n):
            a.best_states[rep, i] = x[i]
    a.energies[rep] = energy
    a.best_energies[rep] = best
    a.flips[rep] += count
    a.hit[rep] = when


@njit(cache=True, parallel=True)
def anneal_round_cached(m, a, betas, lo, hi, target):
    """Sweeps ``lo`` to ``hi`` of every replica with cached deltas, in parallel on the CPU cores."""
    for rep in prange(a.states.shape[0]):
        anneal_replica_cached(rep, m, a, betas, lo, hi, target)


@njit(cache=True)
def anneal_serial_cached(m, a, betas, lo, hi, target):
    """:func:`anneal_round_cached` on one thread."""
    for rep in range(a.states.shape[0]):
        anneal_replica_cached(rep, m, a, betas, lo, hi, target)
