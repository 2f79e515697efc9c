"""The numba kernels of the focused search (:mod:`qlib.solvers.focused` drives them).

A *component* of the energy is a constraint row, a positive objective term, or
a cut; the bad ones (those contributing energy) form an indexed set per
replica, and :func:`focused_chunk` runs focused steps on every replica in
parallel: pick a random bad component, flip one of its variables (a random
one with probability ``noise``, else the best non-tabu one).  Cuts are
products of literals kept in per-replica pools (:class:`CutPool`) with O(1)
counters for the energy change of a flip.  All state is in named tuples of
arrays (:class:`Replicas`, :class:`CutPool`), one row per replica.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .kernel import apply_flip, flip_delta, init_state, rng_below, rng_uniform, row_penalty

EPS = 1e-9

# replica status
RUNNING, AT_TARGET, ACCEPTED, POOL_FULL, WAITING = 0, 1, 2, 3, 4

class Replicas(NamedTuple):
    """Per-replica search state (every array has one row per replica)."""

    x: np.ndarray              # uint8 (P, N): the current assignments
    false_count: np.ndarray    # int32 (P, T)
    lhs: np.ndarray            # float64 (P, R)
    row_delta: np.ndarray      # float64 (P, R): zeroed scratch of flip_delta (the step function allocates nothing)
    energy: np.ndarray         # float64 (P,): with the cuts, without the offset
    best_energy: np.ndarray    # float64 (P,)
    best_x: np.ndarray         # uint8 (P, N)
    tabu: np.ndarray           # int64 (P, N): the step until which a variable is tabu
    steps: np.ndarray          # int64 (P,)
    since_separation: np.ndarray     # int64 (P,): steps since the last separation call
    separation_wait: np.ndarray      # int64 (P,): steps to wait before the next one
    rng: np.ndarray            # uint64 (P, 8): generator state in column 0
    bad_list: np.ndarray       # int32 (P, components): the bad set's members ...
    bad_pos: np.ndarray        # int32 (P, components): ... and each component's place in it (-1: not bad)
    bad_count: np.ndarray      # int64 (P, 8): the bad set's size in column 0
    status: np.ndarray         # int64 (P,): RUNNING, AT_TARGET, ACCEPTED, POOL_FULL or WAITING


class CutPool(NamedTuple):
    """Per-replica cut pools: cut ``c`` of replica ``r`` is the product of the literals
    ``vars[r, ptr[r, c]:ptr[r, c + 1]]`` (negated where ``negs`` is 1).

    ``false_xor[r, c]`` is the XOR of the variables whose literal in cut ``c`` is
    false, so the only false literal of a cut is known in O(1).
    """

    ptr: np.ndarray
    vars: np.ndarray
    negs: np.ndarray
    num_false: np.ndarray
    false_xor: np.ndarray
    hash: np.ndarray
    count: np.ndarray          # (P, 8): cuts in the pool, column 0
    head: np.ndarray           # (P, N): first literal position of each variable (a linked list) ...
    lit_next: np.ndarray       # ... and the next one
    lit_cut: np.ndarray        # the cut of each literal position
    on: np.ndarray             # (P, N): cuts containing v that are on (every literal true)
    crit: np.ndarray           # (P, N): cuts in which v's literal is the only false one


class Params(NamedTuple):
    """Scalars of one search."""

    target: float
    cut_energy: float
    cut_interval: int
    noise: float
    tenure_min: int
    tenure_span: int
    cut_weight: float
    num_objective: int


class RowVars(NamedTuple):
    """The constraint rows' variables (row -> variables), for picking a bad row's candidates."""

    ptr: np.ndarray
    vars: np.ndarray


class PackedCuts(NamedTuple):
    """Cuts as flat arrays: cut ``k`` is the literals ``lits[ptr[k]:ptr[k+1]]``, negated where ``negs`` is 1."""

    lits: np.ndarray
    negs: np.ndarray
    ptr: np.ndarray


# -- bad-component set (an indexed set: list + positions) ----------------------
@njit(cache=True, inline="always")
def _set_bad(c, bad, bad_list, bad_pos, bad_count):
    """Add or remove component ``c``; ``bad_count[0]`` is the set's size (a padded row per replica)."""
    pos = bad_pos[c]
    if bad:
        if pos < 0:
            n = bad_count[0]
            bad_list[n] = c
            bad_pos[c] = n
            bad_count[0] = n + 1
    elif pos >= 0:
        n = bad_count[0] - 1
        last = bad_list[n]
        bad_list[pos] = last
        bad_pos[last] = pos
        bad_pos[c] = -1
        bad_count[0] = n


@njit(cache=True, inline="always")
def _cut_delta(v, on, crit, weight):
    """Energy change from the cuts if ``x[v]`` flipped: O(1) from two counters.

    ``on[v]``: cuts containing v that are on (every literal true);
    ``crit[v]``: cuts in which v's literal is the only false one.
    """
    return weight * (crit[v] - on[v])


@njit(cache=True)
def _add_cut(rep, lits, negs, x, zobrist, C, R, num_base):
    """Append the cut ``prod(lits ^ negs)`` to replica ``rep``'s pool unless it is there already.

    Returns 1 if the new cut is on in state ``x`` (its weight must be added to
    the energy), 0 if added and off, -1 if it was a duplicate, -2 if the pool is full.
    """
    h = np.uint64(0)
    for k in range(lits.shape[0]):
        h ^= zobrist[2 * lits[k] + negs[k]]
    count = C.count[rep, 0]
    for c in range(count):
        if C.hash[rep, c] == h:
            return -1
    start = C.ptr[rep, count]
    size = lits.shape[0]
    if count >= C.num_false.shape[1] or start + size > C.vars.shape[1]:
        return -2
    zeros = 0
    last_zero = -1
    fx = 0
    for k in range(size):
        v = lits[k]
        pos = start + k
        C.vars[rep, pos] = v
        C.negs[rep, pos] = negs[k]
        C.lit_cut[rep, pos] = count
        C.lit_next[rep, pos] = C.head[rep, v]
        C.head[rep, v] = pos
        if (x[v] ^ negs[k]) == 0:
            zeros += 1
            last_zero = v
            fx ^= v
    C.false_xor[rep, count] = fx
    if zeros == 0:
        for k in range(size):
            C.on[rep, lits[k]] += 1
    elif zeros == 1:
        C.crit[rep, last_zero] += 1
    C.ptr[rep, count + 1] = start + size
    C.hash[rep, count] = h
    C.num_false[rep, count] = zeros
    C.count[rep, 0] = count + 1
    if zeros == 0:
        _set_bad(num_base + count, True, R.bad_list[rep], R.bad_pos[rep], R.bad_count[rep])
        return 1
    return 0


@njit(cache=True, inline="always")
def _flip(rep, v, row, m, R, C, num_obj):
    """Flip replica ``rep``'s ``x[v]`` and update term counts, row values, cut counters and the bad set.

    ``row`` is ``(x, false_count, lhs)``: replica ``rep``'s rows of ``R``, taken once per chunk by the caller.
    """
    x, fc, lhs = row
    (term_ptr, term_vars, term_negs, term_coef, term_row,
     var_term_ptr, var_terms, var_term_negs, var_row_ptr, var_rows,
     row_const, row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) = m
    num_rows = row_weight.shape[0]
    bad_list, bad_pos, bad_count = R.bad_list[rep], R.bad_pos[rep], R.bad_count[rep]
    apply_flip(v, x, fc, lhs, m)
    for k in range(var_row_ptr[v], var_row_ptr[v + 1]):
        r = var_rows[k]
        bad = row_penalty(r, lhs[r], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) > EPS
        _set_bad(r, bad, bad_list, bad_pos, bad_count)
    for k in range(var_term_ptr[v], var_term_ptr[v + 1]):
        t = var_terms[k]
        if t < num_obj and term_coef[t] > 0.0:
            _set_bad(num_rows + t, fc[t] == 0, bad_list, bad_pos, bad_count)
    on, crit, cvars, cnegs, cptr = C.on[rep], C.crit[rep], C.vars[rep], C.negs[rep], C.ptr[rep]
    num_false, false_xor = C.num_false[rep], C.false_xor[rep]
    k = C.head[rep, v]
    while k >= 0:
        c = C.lit_cut[rep, k]
        old = num_false[c]
        if (x[v] ^ cnegs[k]) == 0:  # v's literal turned false
            if old == 0:  # the cut turns off; v's literal is its only false one
                for j in range(cptr[c], cptr[c + 1]):
                    on[cvars[j]] -= 1
                crit[v] += 1
            elif old == 1:  # the former only false literal is no longer alone
                crit[false_xor[c]] -= 1
            num_false[c] = old + 1
        else:  # v's literal turned true
            if old == 1:  # it was the only false one: the cut turns on
                crit[v] -= 1
                for j in range(cptr[c], cptr[c + 1]):
                    on[cvars[j]] += 1
            elif old == 2:  # one false literal is left: it becomes critical
                crit[false_xor[c] ^ v] += 1
            num_false[c] = old - 1
        false_xor[c] ^= v
        _set_bad(num_rows + num_obj + c, C.num_false[rep, c] == 0, bad_list, bad_pos, bad_count)
        k = C.lit_next[rep, k]


@njit(cache=True, inline="always")
def _candidate(kind, k, row_vars, term_vars, cut_vars):
    """The k-th candidate variable of a bad component: a row (0), an objective
    term (1), a cut (2), or any variable (3, when nothing is bad)."""
    if kind == 0:
        return row_vars[k]
    if kind == 1:
        return term_vars[k]
    if kind == 2:
        return cut_vars[k]
    return k


@njit(cache=True, parallel=True)
def focused_chunk(m, rows, p, R, C, end_steps, has_separation):
    """Run focused steps on every running replica until its step count reaches ``end_steps``.

    A replica stops early when it reaches the target (status AT_TARGET without
    a separation function, else WAITING) or meets a state for the separation
    function (WAITING); its state stays in ``R`` for the driver to read.
    """
    status = R.status
    for rep in prange(R.x.shape[0]):
        if status[rep] != RUNNING:
            continue
        replica_steps(rep, m, rows, p, R, C, end_steps[rep], has_separation)
    return 0


@njit(cache=True)
def replica_steps(rep, m, rows, p, R, C, end, has_separation):
    """The focused steps of one replica up to step ``end`` (see :func:`focused_chunk`).

    It allocates nothing and assigns no slices, so that the GPU backend runs
    this very code as a CUDA device function (:mod:`qlib.solvers.gpu_kernel`).
    """
    n = R.x.shape[1]
    num_rows = m[11].shape[0]
    num_obj = p.num_objective
    energies, steps, since, status = R.energy, R.steps, R.since_separation, R.status
    best_energy, best_x, tabu, bad_list, bad_count = R.best_energy, R.best_x, R.tabu, R.bad_list, R.bad_count
    term_ptr, term_vars = m[0], m[1]
    x = R.x[rep]
    fc = R.false_count[rep]
    lhs = R.lhs[rep]
    row = (x, fc, lhs)
    rg = R.rng[rep]
    on, crit = C.on[rep], C.crit[rep]
    cvars = C.vars[rep]
    cptr = C.ptr[rep]
    scratch = R.row_delta[rep]
    energy = energies[rep]
    step = steps[rep]
    since_separation = since[rep]
    while step < end:
        since_separation += 1
        if energy <= p.target + EPS:
            status[rep] = WAITING if has_separation else AT_TARGET
            since_separation = 0
            break
        if has_separation and energy <= p.cut_energy + EPS and since_separation >= R.separation_wait[rep]:
            status[rep] = WAITING
            since_separation = 0
            break
        count = bad_count[rep, 0]
        if count == 0:
            # nothing is bad but the target is below this energy: a random flip
            cand_lo, cand_hi, kind = 0, n, 3
        else:
            comp = bad_list[rep, rng_below(rg, 0, count)]
            if comp < num_rows:
                kind = 0
                cand_lo, cand_hi = rows.ptr[comp], rows.ptr[comp + 1]
            elif comp < num_rows + num_obj:
                kind = 1
                t = comp - num_rows
                cand_lo, cand_hi = term_ptr[t], term_ptr[t + 1]
            else:
                kind = 2
                c = comp - num_rows - num_obj
                cand_lo, cand_hi = cptr[c], cptr[c + 1]
        size = cand_hi - cand_lo
        if kind == 3 or rng_uniform(rg, 0) < p.noise:
            v = _candidate(kind, cand_lo + rng_below(rg, 0, size), rows.vars, term_vars, cvars)
            d = flip_delta(v, x, fc, lhs, scratch, m) + _cut_delta(v, on, crit, p.cut_weight)
        else:
            v = -1
            d = np.inf
            ties = 0
            for k in range(cand_lo, cand_hi):
                u = _candidate(kind, k, rows.vars, term_vars, cvars)
                du = flip_delta(u, x, fc, lhs, scratch, m) + _cut_delta(u, on, crit, p.cut_weight)
                if tabu[rep, u] > step and energy + du >= best_energy[rep] - EPS:
                    continue
                if du < d - EPS:
                    v, d, ties = u, du, 1
                elif du <= d + EPS:
                    ties += 1
                    if rng_below(rg, 0, ties) == 0:
                        v = u
            if v < 0:  # every candidate is tabu: take a random one
                v = _candidate(kind, cand_lo + rng_below(rg, 0, size), rows.vars, term_vars, cvars)
                d = flip_delta(v, x, fc, lhs, scratch, m) + _cut_delta(v, on, crit, p.cut_weight)
        _flip(rep, v, row, m, R, C, num_obj)
        energy += d
        step += 1
        tabu[rep, v] = step + p.tenure_min + rng_below(rg, 0, p.tenure_span + 1)
        if energy < best_energy[rep] - EPS:
            best_energy[rep] = energy
            for i in range(n):
                best_x[rep, i] = x[i]
    if status[rep] == RUNNING and energy <= p.target + EPS:   # reached on the chunk's last step
        status[rep] = WAITING if has_separation else AT_TARGET
        since_separation = 0
    energies[rep] = energy
    steps[rep] = step
    since[rep] = since_separation


@njit(cache=True)
def share_cuts(R, C, zobrist, shared_upto, cut_weight, num_base):
    """Give every running replica the cuts the others found since the last call.

    Called at fixed step counts, in replica order, so the result does not depend
    on thread timing.  A cut is a fact about the problem (here: a loop that is
    not the answer), so one replica's cut is valid for all.

    Each new cut is offered once, at its first place in replica order: a later
    copy (same hash) would be refused as a duplicate anyway, so the pools come
    out as if every copy were offered, in O(replicas x distinct cuts) offers
    rather than O(replicas**2 x cuts), which many GPU replicas need.
    """
    P = R.x.shape[0]
    snapshot = C.count[:, 0].copy()
    total = 0
    for s in range(P):
        total += snapshot[s] - shared_upto[s]
    source = np.empty(total, dtype=np.int64)
    index = np.empty(total, dtype=np.int64)
    hashes = np.empty(total, dtype=np.uint64)
    k = 0
    for s in range(P):
        for c in range(shared_upto[s], snapshot[s]):
            source[k], index[k], hashes[k] = s, c, C.hash[s, c]
            k += 1
    order = np.argsort(hashes, kind="mergesort")   # stable: equal hashes stay in replica order
    first = np.zeros(total, dtype=np.bool_)
    for j in range(total):
        if j == 0 or hashes[order[j]] != hashes[order[j - 1]]:
            first[order[j]] = True
    for r in range(P):
        if R.status[r] != RUNNING:
            continue
        for k in range(total):
            s, c = source[k], index[k]
            if s == r or not first[k]:
                continue
            lo, hi = C.ptr[s, c], C.ptr[s, c + 1]
            res = _add_cut(r, C.vars[s, lo:hi], C.negs[s, lo:hi], R.x[r], zobrist, C, R, num_base)
            if res == 1:
                R.energy[r] += cut_weight
            elif res == -2:
                R.status[r] = POOL_FULL
    for r in range(P):
        shared_upto[r] = C.count[r, 0]


@njit(cache=True)
def add_cuts(rep, cuts, R, C, zobrist, cut_weight, num_base):
    """Add the :class:`PackedCuts` ``cuts`` to replica ``rep``; returns how many were new."""
    lits, negs, ptr = cuts.lits, cuts.negs, cuts.ptr
    added = 0
    for k in range(ptr.shape[0] - 1):
        res = _add_cut(rep, lits[ptr[k]:ptr[k + 1]], negs[ptr[k]:ptr[k + 1]], R.x[rep], zobrist, C, R, num_base)
        if res == -2:
            R.status[rep] = POOL_FULL
            break
        if res >= 0:
            added += 1
            if res == 1:
                R.energy[rep] += cut_weight
    if added and R.energy[rep] < R.best_energy[rep]:
        R.best_energy[rep] = R.energy[rep]
        R.best_x[rep, :] = R.x[rep]
    return added


@njit(cache=True)
def init_replicas(m, num_obj, R):
    """Energies, term counts, row values and bad sets of fresh replicas (no cuts yet)."""
    term_coef = m[3]
    row_weight, row_iv_ptr, row_iv_lo, row_iv_hi = m[11], m[12], m[13], m[14]
    num_rows = row_weight.shape[0]
    for rep in range(R.x.shape[0]):
        R.energy[rep] = init_state(R.x[rep], R.false_count[rep], R.lhs[rep], m)
        for c in range(R.bad_pos.shape[1]):
            R.bad_pos[rep, c] = -1
        R.bad_count[rep, 0] = 0
        for r in range(num_rows):
            if row_penalty(r, R.lhs[rep, r], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) > EPS:
                _set_bad(r, True, R.bad_list[rep], R.bad_pos[rep], R.bad_count[rep])
        for t in range(num_obj):
            if term_coef[t] > 0.0 and R.false_count[rep, t] == 0:
                _set_bad(num_rows + t, True, R.bad_list[rep], R.bad_pos[rep], R.bad_count[rep])


@njit(cache=True)
def model_energies(m, states, R):
    """The model's energy (without cuts or offset) of each row of ``states``, from scratch; one row
    per replica, whose term counts and row sides serve as scratch (they are overwritten)."""
    out = np.empty(states.shape[0])
    for rep in range(states.shape[0]):
        out[rep] = init_state(states[rep], R.false_count[rep], R.lhs[rep], m)
    return out
