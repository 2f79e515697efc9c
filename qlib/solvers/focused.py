"""Focused local search with lazy cuts, for models whose energy is all penalty.

A *component* of the energy is a constraint row, a positive objective term, or a
cut added during the search; it is *bad* when it contributes energy.  Each step
picks a random bad component and flips one of its variables: with probability
``noise`` a random one, otherwise the one with the lowest energy change that is
not tabu (a tabu move is still taken when it would beat the best energy seen).
A flipped variable stays tabu for a short random number of steps.  This is
WalkSAT's idea applied to weighted penalties, and it makes every step count
where simulated annealing would spend most flips on satisfied parts.

Lazy cuts, as MIP solvers offer them: a *separation function* (plain Python,
see :class:`LazyCuts`) looks at states whose energy is at most its
``energy``.  It may accept a state as the answer, or return new cuts: products
of literals that add ``weight`` while all of them are true (e.g. a forbidden
loop).  The kernel pauses a replica when it meets such a state; the driver
calls the function and hands the cuts back.  Pauses happen at points that
depend only on each replica's own trajectory, and the replicas pool their
cuts at fixed step counts, so a result depends on the seed alone, not on the
number of threads or their timing.
"""

from __future__ import annotations

import time
from collections import namedtuple

import numpy as np
from numba import njit, prange

from .kernel import apply_flip, flip_delta, init_state, rng_below, rng_uniform, row_penalty

EPS = 1e-9

# replica status
RUNNING, AT_TARGET, ACCEPTED, POOL_FULL, WAITING = 0, 1, 2, 3, 4

#: Per-replica search state (every array has one row per replica).
Replicas = namedtuple("Replicas", "x false_count lhs energy best_energy best_x tabu steps since_hook hook_wait "
                                  "rng bad_list bad_pos bad_count status")
#: Per-replica cut pools: cut ``c`` of replica ``r`` is the product of the literals
#: ``vars[r, ptr[r, c]:ptr[r, c + 1]]`` (negated where ``negs`` is 1).
#: ``false_xor[r, c]`` is the XOR of the variables whose literal in cut ``c`` is false, so the
#: only false literal of a cut is known in O(1).
CutPool = namedtuple("CutPool", "ptr vars negs num_false false_xor hash count head lit_next lit_cut on crit")
#: Scalars of one search.
Params = namedtuple("Params", "target hook_energy hook_interval noise tenure_min tenure_span cut_weight "
                              "num_objective")
#: The constraint rows' variables (row -> variables), for picking a bad row's candidates.
RowVars = namedtuple("RowVars", "ptr vars")


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


@njit(cache=True)
def _flip(rep, v, x, fc, lhs, m, C, R, num_obj, num_rows):
    """Flip ``x[v]`` and update term counts, row values, cut counters and the bad set."""
    (term_ptr, term_vars, term_negs, term_coef, term_row,
     var_term_ptr, var_terms, var_term_negs, var_row_ptr, var_rows,
     row_const, row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) = m
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
def focused_chunk(m, rows, p, R, C, end_steps, has_hook):
    """Run focused steps on every running replica until its step count reaches ``end_steps``.

    A replica stops early when it reaches the target (status AT_TARGET without
    a separation function, else WAITING) or meets a state for the separation
    function (WAITING); its state stays in ``R`` for the driver to read.
    """
    n = R.x.shape[1]
    num_rows = m[11].shape[0]
    num_obj = p.num_objective
    # Plain local names for every array written inside the parallel loop: numba's parfor
    # pass does not write back through a named tuple's attribute there.
    energies, steps, since, status = R.energy, R.steps, R.since_hook, R.status
    best_energy, best_x, tabu, bad_list, bad_count = R.best_energy, R.best_x, R.tabu, R.bad_list, R.bad_count
    for rep in prange(R.x.shape[0]):
        if status[rep] != RUNNING:
            continue
        _replica_steps(rep, m, rows, p, R, C, end_steps[rep], has_hook, n, num_rows, num_obj,
                       energies, steps, since, status, best_energy, best_x, tabu, bad_list, bad_count)
    return 0


@njit(cache=True)
def _replica_steps(rep, m, rows, p, R, C, end, has_hook, n, num_rows, num_obj,
                   energies, steps, since, status, best_energy, best_x, tabu, bad_list, bad_count):
    """The focused steps of one replica up to step ``end`` (see :func:`focused_chunk`)."""
    term_ptr, term_vars = m[0], m[1]
    x = R.x[rep]
    fc = R.false_count[rep]
    lhs = R.lhs[rep]
    rg = R.rng[rep]
    on, crit = C.on[rep], C.crit[rep]
    cvars = C.vars[rep]
    cptr = C.ptr[rep]
    scratch = np.zeros(num_rows, dtype=np.float64)
    energy = energies[rep]
    step = steps[rep]
    since_hook = since[rep]
    while step < end:
        since_hook += 1
        if energy <= p.target + EPS:
            status[rep] = WAITING if has_hook else AT_TARGET
            since_hook = 0
            break
        if has_hook and energy <= p.hook_energy + EPS and since_hook >= R.hook_wait[rep]:
            status[rep] = WAITING
            since_hook = 0
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
        _flip(rep, v, x, fc, lhs, m, C, R, num_obj, num_rows)
        energy += d
        step += 1
        tabu[rep, v] = step + p.tenure_min + rng_below(rg, 0, p.tenure_span + 1)
        if energy < best_energy[rep] - EPS:
            best_energy[rep] = energy
            best_x[rep, :] = x
    energies[rep] = energy
    steps[rep] = step
    since[rep] = since_hook


@njit(cache=True)
def share_cuts(R, C, zobrist, shared_upto, cut_weight, num_base):
    """Give every running replica the cuts the others found since the last call.

    Called at fixed step counts, in replica order, so the result does not depend
    on thread timing.  A cut is a fact about the problem (here: a loop that is
    not the answer), so one replica's cut is valid for all.
    """
    P = R.x.shape[0]
    snapshot = C.count[:, 0].copy()
    for r in range(P):
        if R.status[r] != RUNNING:
            continue
        for s in range(P):
            if s == r:
                continue
            for c in range(shared_upto[s], snapshot[s]):
                lo, hi = C.ptr[s, c], C.ptr[s, c + 1]
                res = _add_cut(r, C.vars[s, lo:hi], C.negs[s, lo:hi], R.x[r], zobrist, C, R, num_base)
                if res == 1:
                    R.energy[r] += cut_weight
                elif res == -2:
                    R.status[r] = POOL_FULL
    for r in range(P):
        shared_upto[r] = C.count[r, 0]


@njit(cache=True)
def add_cuts(rep, lits, negs, ptr, R, C, zobrist, cut_weight, num_base):
    """Add the cuts ``lits[ptr[k]:ptr[k+1]]`` to replica ``rep``; returns how many were new."""
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
        R.bad_pos[rep, :] = -1
        R.bad_count[rep, 0] = 0
        for r in range(num_rows):
            if row_penalty(r, R.lhs[rep, r], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) > EPS:
                _set_bad(r, True, R.bad_list[rep], R.bad_pos[rep], R.bad_count[rep])
        for t in range(num_obj):
            if term_coef[t] > 0.0 and R.false_count[rep, t] == 0:
                _set_bad(num_rows + t, True, R.bad_list[rep], R.bad_pos[rep], R.bad_count[rep])


class LazyCuts:
    """Lazy cuts for :func:`qlib.solve` (``backend="cpu"``, ``algorithm="focused"``).

    ``separate(state, energy)`` is any Python callable that takes a state
    (uint8 array, one entry per model column) and its energy in the search
    (the model's energy plus the weight of the cuts it breaks) and returns
    ``(answer, cuts)``: ``answer`` is a
    state to accept as the result (or None), ``cuts`` a list of literal products
    to forbid, each a pair ``(columns, negated)`` of equal-length integer
    sequences (literal ``k`` is ``x[columns[k]]``, or its negation where
    ``negated[k]`` is 1).  A cut adds ``weight`` to the energy while all its
    literals are true.  The search calls ``separate`` on states with energy
    <= ``energy``, at most every ``interval`` steps, and always when the target
    energy is reached; a target state that gets no cut ends the search.
    While the calls give nothing to cut, a replica waits twice as long before
    the next one (up to 4096 steps); a cut brings the wait back to ``interval``.
    ``max_cuts`` and ``max_cut_literals`` size each replica's cut pool (it
    grows when full).  ``cuts``: cuts every replica starts with, e.g. those
    a previous search found (``solution.info["cuts"]``), so a restart keeps them.
    """

    def __init__(self, separate, *, energy: float = 1.0, interval: int = 8, weight: float = 1.0,
                 max_cuts: int = 8192, max_cut_literals: int = 1 << 19, cuts=()):
        if not callable(separate):
            raise TypeError(f"separate must be a callable state -> (answer, cuts), got {type(separate).__name__}")
        self.separate = separate
        self.cuts = list(cuts)
        self.energy, self.interval, self.weight = float(energy), int(interval), float(weight)
        self.max_cuts, self.max_cut_literals = int(max_cuts), int(max_cut_literals)
        if not self.weight > 0 or self.interval < 1 or self.max_cuts < 1 or self.max_cut_literals < 1:
            raise ValueError("LazyCuts needs weight > 0, interval >= 1, max_cuts >= 1 and max_cut_literals >= 1")


def _pack_cuts(cuts, n):
    """Flatten a list of (columns, negated) pairs into (lits, negs, ptr) arrays, validated."""
    lits, negs, ptr = [], [], [0]
    for k, cut in enumerate(cuts):
        try:
            cols, neg = cut
        except (TypeError, ValueError):
            raise TypeError(f"cut {k} must be a pair (columns, negated), got {cut!r}") from None
        cols = np.asarray(cols, dtype=np.int64).ravel()
        neg = np.asarray(neg, dtype=np.int64).ravel()
        if cols.size == 0 or cols.shape != neg.shape:
            raise ValueError(f"cut {k} needs one or more columns and one negation flag per column")
        if cols.min() < 0 or cols.max() >= n or not np.isin(neg, (0, 1)).all():
            raise ValueError(f"cut {k} names a column outside 0..{n - 1} or a flag other than 0/1")
        if np.unique(cols).size != cols.size:
            raise ValueError(f"cut {k} names a column twice")
        lits.append(cols)
        negs.append(neg)
        ptr.append(ptr[-1] + cols.size)
    if not lits:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.astype(np.uint8), np.zeros(1, dtype=np.int64)
    return (np.concatenate(lits), np.concatenate(negs).astype(np.uint8), np.asarray(ptr, dtype=np.int64))


def _new_replicas(compiled, start_states, rng_states, max_cuts) -> Replicas:
    P, n = start_states.shape
    num_comp = compiled.num_rows + compiled.num_objective_terms + max_cuts
    rng = np.zeros((P, 8), dtype=np.uint64)  # padded: one cache line per replica
    rng[:, 0] = rng_states
    return Replicas(
        x=start_states.copy(), false_count=np.zeros((P, compiled.num_terms), dtype=np.int32),
        lhs=np.zeros((P, compiled.num_rows)), energy=np.zeros(P), best_energy=np.zeros(P),
        best_x=start_states.copy(), tabu=np.zeros((P, n), dtype=np.int64), steps=np.zeros(P, dtype=np.int64),
        since_hook=np.zeros(P, dtype=np.int64), hook_wait=np.ones(P, dtype=np.int64), rng=rng,
        bad_list=np.zeros((P, num_comp), dtype=np.int32), bad_pos=np.full((P, num_comp), -1, dtype=np.int32),
        bad_count=np.zeros((P, 8), dtype=np.int64), status=np.zeros(P, dtype=np.int64))


def _new_pool(P, n, max_cuts, max_lits) -> CutPool:
    return CutPool(
        ptr=np.zeros((P, max_cuts + 1), dtype=np.int64), vars=np.zeros((P, max_lits), dtype=np.int32),
        negs=np.zeros((P, max_lits), dtype=np.uint8), num_false=np.zeros((P, max_cuts), dtype=np.int32),
        false_xor=np.zeros((P, max_cuts), dtype=np.int64),
        hash=np.zeros((P, max_cuts), dtype=np.uint64), count=np.zeros((P, 8), dtype=np.int64),
        head=np.full((P, n), -1, dtype=np.int32), lit_next=np.full((P, max_lits), -1, dtype=np.int32),
        lit_cut=np.zeros((P, max_lits), dtype=np.int32), on=np.zeros((P, n), dtype=np.int32),
        crit=np.zeros((P, n), dtype=np.int32))


def _grow_pool(R: Replicas, C: CutPool, num_base: int):
    """Twice the room for cuts and their literals, keeping every cut and counter."""
    P = R.x.shape[0]
    max_cuts, max_lits = C.num_false.shape[1], C.vars.shape[1]
    try:
        from ..limits import check_allocation

        check_allocation(P * (2 * max_cuts * 40 + 2 * max_lits * 13), "the lazy-cut pool")
    except ImportError:  # pragma: no cover
        pass

    def wider(a, width, fill=0):
        out = np.full((a.shape[0], width), fill, dtype=a.dtype)
        out[:, :a.shape[1]] = a
        return out
    C = C._replace(ptr=wider(C.ptr, 2 * max_cuts + 1), vars=wider(C.vars, 2 * max_lits),
                   negs=wider(C.negs, 2 * max_lits), num_false=wider(C.num_false, 2 * max_cuts),
                   false_xor=wider(C.false_xor, 2 * max_cuts), hash=wider(C.hash, 2 * max_cuts),
                   lit_next=wider(C.lit_next, 2 * max_lits, -1), lit_cut=wider(C.lit_cut, 2 * max_lits))
    R = R._replace(bad_list=wider(R.bad_list, num_base + 2 * max_cuts),
                   bad_pos=wider(R.bad_pos, num_base + 2 * max_cuts, -1))
    return R, C


def run_focused(compiled, rng_states, start_states, target, time_limit, *, noise=0.2,
                tabu_tenure=(0, 2), lazy: LazyCuts | None = None, max_steps=None, share=True, sync_steps=20_000):
    """Drive :func:`focused_chunk` in short chunks until done, out of time or out of steps.

    Returns (state, info).  ``target`` is relative to the model's offset.  Chunks
    are sized from the measured step rate so that the clock is read every few
    milliseconds; replicas pool their cuts every ``sync_steps`` steps when
    ``share`` is on.  Ctrl-C ends the search with ``stop_reason="interrupted"``
    and the best state so far.
    """
    start = time.perf_counter()
    num_replicas, n = start_states.shape
    m = compiled.kernel_arrays()
    num_obj = compiled.num_objective_terms
    num_base = compiled.num_rows + num_obj
    tenure_min, tenure_max = (int(t) for t in tabu_tenure)
    if not 0 <= tenure_min <= tenure_max:
        raise ValueError(f"tabu_tenure must be (min, max) with 0 <= min <= max, got {tabu_tenure!r}")
    if not isinstance(noise, (int, float)) or not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise must be a number in [0, 1], got {noise!r}")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
    if lazy is None:
        hook_energy, interval, weight, max_cuts, max_lits = -np.inf, 1 << 30, 1.0, 1, 1
    else:
        hook_energy, interval, weight = lazy.energy, lazy.interval, lazy.weight
        max_cuts, max_lits = lazy.max_cuts, lazy.max_cut_literals
    P = num_replicas
    R = _new_replicas(compiled, start_states, rng_states, max_cuts)
    R.hook_wait[:] = interval
    C = _new_pool(P, n, max_cuts, max_lits)
    init_replicas(m, num_obj, R)
    R.best_energy[:] = R.energy
    R.best_x[:] = R.x
    p = Params(float(target), float(hook_energy), int(interval), float(noise), tenure_min,
               tenure_max - tenure_min, float(weight), int(num_obj))
    rows = RowVars(compiled.row_var_ptr, compiled.row_vars)
    zobrist = np.random.Generator(np.random.PCG64(int(rng_states[0]))).integers(
        1, 2**63, size=max(2 * n, 2), dtype=np.uint64)
    shared_upto = np.zeros(P, dtype=np.int64)
    if lazy is not None and lazy.cuts:   # a restart keeps the cuts found before it
        lits, negs, ptr = _pack_cuts(lazy.cuts, n)
        for rep in range(P):
            while True:
                add_cuts(rep, lits, negs, ptr, R, C, zobrist, weight, num_base)
                if R.status[rep] != POOL_FULL:
                    break
                R, C = _grow_pool(R, C, num_base)   # duplicates of the cuts already in are skipped
                R.status[rep] = RUNNING
        R.best_energy[:] = R.energy
        R.best_x[:] = R.x
    answers = {}
    limit_steps = (1 << 62) if max_steps is None else int(max_steps)
    sync = int(sync_steps) if (lazy is not None and share and P > 1) else limit_steps
    sync_at = min(sync, limit_steps)
    chunk, stop_reason = 256, None
    finish_by = np.int64(1) << 62
    hook_calls = 0
    hook_seconds = 0.0
    deadline = start + time_limit
    try:
        while stop_reason is None:
            t0 = time.perf_counter()
            before = R.steps.copy()
            end_steps = np.minimum(np.minimum(R.steps + chunk, sync_at), finish_by)
            focused_chunk(m, rows, p, R, C, end_steps, lazy is not None)
            elapsed = time.perf_counter() - t0
            done_steps = int((R.steps - before).max())
            for rep in np.flatnonzero(R.status == WAITING):  # replica order: deterministic
                h0 = time.perf_counter()
                answer, cuts = lazy.separate(R.x[rep].copy(), float(R.energy[rep]) + compiled.offset)
                hook_calls += 1
                if answer is not None:
                    answers[int(rep)] = compiled.as_states(answer).copy()
                    R.status[rep] = ACCEPTED
                    continue
                lits, negs, ptr = _pack_cuts(cuts, n)
                R.status[rep] = RUNNING
                added = add_cuts(rep, lits, negs, ptr, R, C, zobrist, weight, num_base)
                if added == 0 and R.energy[rep] <= target + EPS and R.status[rep] == RUNNING:
                    R.status[rep] = AT_TARGET
                # back off while the states met give nothing to cut; look often again once they do
                R.hook_wait[rep] = interval if added else min(2 * R.hook_wait[rep], 1 << 12)
                hook_seconds += time.perf_counter() - h0
            finished = (R.status == ACCEPTED) | (R.status == AT_TARGET)
            if finished.any():
                # The winner is the replica that finished in the fewest steps (then the lowest
                # index): the others run on until they pass that step count, whatever the chunks.
                finish_by = int(R.steps[finished].min())
                if not (R.steps[R.status == RUNNING] < finish_by).any():
                    stop_reason = "accepted" if (R.status == ACCEPTED).any() else "target_energy"
                    break
            if (R.status == POOL_FULL).any():   # no cap the caller did not set: the pool grows
                R, C = _grow_pool(R, C, compiled.num_rows + num_obj)
                R.status[R.status == POOL_FULL] = RUNNING
            running = R.status == RUNNING
            if running.any() and (R.steps[running] >= sync_at).all():
                if sync_at >= limit_steps:
                    stop_reason = "max_steps"
                    break
                if sync < limit_steps:
                    share_cuts(R, C, zobrist, shared_upto, weight, num_base)
                sync_at = min(sync_at + sync, limit_steps)
            now = time.perf_counter()
            if now >= deadline:
                stop_reason = "time_limit"
                break
            # next chunk: about 20 ms of steps, and never past the deadline
            if done_steps >= chunk // 2:   # a chunk cut short by a pause says little about the speed
                rate = done_steps / max(elapsed, 1e-6)
                chunk = int(max(64, min(rate * min(0.02, deadline - now), 4 * chunk, 1 << 24)))
    except KeyboardInterrupt:
        stop_reason = "interrupted"
    # An accepted answer wins over a target state the separation neither accepted nor cut;
    # among equals, the replica that finished in the fewest steps, then the lowest index.
    done = ([rep for rep in range(P) if R.status[rep] == ACCEPTED]
            or [rep for rep in range(P) if R.status[rep] == AT_TARGET])
    if done:
        rep = min(done, key=lambda r: (R.steps[r], r))
        state = answers[rep] if R.status[rep] == ACCEPTED else R.x[rep].copy()
        if stop_reason in ("accepted", "target_energy"):
            stop_reason = "accepted" if R.status[rep] == ACCEPTED else "target_energy"
    else:
        rep = int(np.argmin(R.best_energy))
        state = R.best_x[rep].copy()
    cuts = [(C.vars[rep, C.ptr[rep, c]:C.ptr[rep, c + 1]].astype(np.int64),
             C.negs[rep, C.ptr[rep, c]:C.ptr[rep, c + 1]].astype(np.int64)) for c in range(int(C.count[rep, 0]))]
    info = dict(algorithm="focused", num_replicas=P, noise=noise, tabu_tenure=(tenure_min, tenure_max),
                flips=int(R.steps.sum()), steps_of_winner=int(R.steps[rep]), replica=rep,
                stop_reason=stop_reason, cuts=cuts, num_cuts=len(cuts), separation_calls=hook_calls,
                separation_seconds=hook_seconds,
                replica_states=R.best_x.copy())
    if done:
        info["replica_states"][rep] = state
    info["replica_energies"] = np.atleast_1d(compiled.energy(info["replica_states"]))
    return state, info


def warmup_cuts(compiled) -> None:
    """Compile (or load) the lazy-cut kernels: adding, pooling and sharing cuts between replicas.

    A solve with lazy cuts would otherwise compile them at its first cut or
    first pooling, inside its time limit.
    """
    n = compiled.num_vars

    def separate(state, energy):   # cut every state met, so the replicas pool cuts until max_steps
        return None, [(np.arange(n), 1 - np.asarray(state[:n], dtype=np.int64))]
    rng = np.arange(1, 3, dtype=np.uint64)
    start = np.zeros((2, n), dtype=np.uint8)
    run_focused(compiled, rng, start, 0.0, 5.0, lazy=LazyCuts(separate, energy=np.inf, interval=1),
                max_steps=64, sync_steps=1)
