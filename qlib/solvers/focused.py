"""Focused local search with lazy cuts, for models whose energy is all penalty.

A *component* of the energy is a constraint row, a positive objective term, or a
cut added during the search; it is *bad* when it contributes energy.  Each step
picks a random bad component and flips one of its variables: with probability
``noise`` a random one, otherwise the one with the lowest energy change that is
not tabu (a tabu move is still taken when it would beat the best energy seen).
A flipped variable stays tabu for a short random number of steps.  This is
WalkSAT's idea applied to weighted penalties, and it makes every step count
where simulated annealing would spend most flips on satisfied parts.

Lazy cuts, as MIP solvers offer them: a *separation hook* (a numba function)
looks at states whose energy is at most ``hook_energy``.  It may accept a state
as the answer, or return new cuts: product terms of plain variables that add
``cut_weight`` when all their variables are 1 (e.g. a forbidden loop).  Each
replica keeps its own cut pool, so replicas stay independent and the result
depends only on the seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .hooks import ACCEPT, BUILTIN_HOOKS, call_hook, empty_hook_data
from .kernel import apply_flip, flip_delta, init_state, rng_below, rng_uniform, row_penalty

EPS = 1e-9


# -- bad-component set (an indexed set: list + positions) ----------------------
@njit(cache=True, inline="always")
def _set_bad(c, bad, bad_list, bad_pos, bad_count):
    """Add or remove component ``c``; ``bad_count[0]`` is the set's size.

    Each replica passes its own rows of the arrays (``bad_count`` is a padded
    row too), so replicas on different threads never share a cache line.
    """
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
def _cut_delta(v, xv, cut_on, cut_crit, cut_weight):
    """Energy change from the cuts if ``x[v]`` flipped: O(1) from two counters.

    ``cut_on[v]``: cuts containing v that are on (all their variables 1);
    ``cut_crit[v]``: cuts in which v is the only variable at 0.
    """
    if xv == 1:
        return -cut_weight * cut_on[v]
    return cut_weight * cut_crit[v]


@njit(cache=True)
def _count_new_cut(lo, hi, x, cut_vars, cut_on, cut_crit):
    """Register a new cut in the counters; returns its number of variables at 0."""
    zeros = 0
    last_zero = -1
    for k in range(lo, hi):
        if x[cut_vars[k]] == 0:
            zeros += 1
            last_zero = cut_vars[k]
    if zeros == 0:
        for k in range(lo, hi):
            cut_on[cut_vars[k]] += 1
    elif zeros == 1:
        cut_crit[last_zero] += 1
    return zeros


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


@njit(cache=True)
def _add_cut(src, lo, hi, x, zobrist, cptr, cvars, cut_fc, chash, ccount, cut_head, lit_next, lit_cut,
             cut_on, cut_crit, bad_l, bad_p, bad_c, comp_base):
    """Append the cut ``src[lo:hi]`` to one replica's pool unless it is there already.

    Returns 1 if the new cut is on in state ``x`` (its weight must be added to
    the energy), 0 if added and off, -1 if it was a duplicate, -2 if the pool is full.
    """
    h = np.uint64(0)
    for k in range(lo, hi):
        h ^= zobrist[src[k]]
    for c in range(ccount[0]):
        if chash[c] == h:
            return -1
    cid = ccount[0]
    start = cptr[cid]
    if cid >= cut_fc.shape[0] or start + (hi - lo) > cvars.shape[0]:
        return -2
    for k in range(lo, hi):
        v = src[k]
        pos = start + k - lo
        cvars[pos] = v
        lit_cut[pos] = cid
        lit_next[pos] = cut_head[v]
        cut_head[v] = pos
    zeros = _count_new_cut(start, start + hi - lo, x, cvars, cut_on, cut_crit)
    cptr[cid + 1] = start + hi - lo
    chash[cid] = h
    cut_fc[cid] = zeros
    ccount[0] = cid + 1
    if zeros == 0:
        _set_bad(comp_base + cid, True, bad_l, bad_p, bad_c)
        return 1
    return 0


@njit(cache=True)
def _flip(v, x, fc, lhs, m, num_obj, cut_fc, cut_head, lit_next, lit_cut, cut_ptr, cut_vars,
          cut_on, cut_crit, bad_list, bad_pos, bad_count, num_rows):
    """Flip ``x[v]`` and update term counts, row values, cut counters and the bad set."""
    (term_ptr, term_vars, term_negs, term_coef, term_row,
     var_term_ptr, var_terms, var_term_negs, var_row_ptr, var_rows,
     row_const, row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) = m
    xv = x[v]
    apply_flip(v, x, fc, lhs, m)
    for k in range(var_row_ptr[v], var_row_ptr[v + 1]):
        r = var_rows[k]
        bad = row_penalty(r, lhs[r], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) > EPS
        _set_bad(r, bad, bad_list, bad_pos, bad_count)
    for k in range(var_term_ptr[v], var_term_ptr[v + 1]):
        t = var_terms[k]
        if t < num_obj and term_coef[t] > 0.0:
            _set_bad(num_rows + t, fc[t] == 0, bad_list, bad_pos, bad_count)
    k = cut_head[v]
    while k >= 0:
        c = lit_cut[k]
        old = cut_fc[c]
        if xv == 1:  # v goes to 0
            if old == 0:  # the cut turns off; v becomes its only zero
                for j in range(cut_ptr[c], cut_ptr[c + 1]):
                    cut_on[cut_vars[j]] -= 1
                cut_crit[v] += 1
            elif old == 1:  # the former only zero is no longer alone
                for j in range(cut_ptr[c], cut_ptr[c + 1]):
                    u = cut_vars[j]
                    if u != v and x[u] == 0:
                        cut_crit[u] -= 1
                        break
            cut_fc[c] = old + 1
        else:  # v goes to 1
            if old == 1:  # v was the only zero: the cut turns on
                cut_crit[v] -= 1
                for j in range(cut_ptr[c], cut_ptr[c + 1]):
                    cut_on[cut_vars[j]] += 1
            elif old == 2:  # one zero is left: it becomes critical
                for j in range(cut_ptr[c], cut_ptr[c + 1]):
                    u = cut_vars[j]
                    if u != v and x[u] == 0:
                        cut_crit[u] += 1
                        break
            cut_fc[c] = old - 1
        _set_bad(num_rows + num_obj + c, cut_fc[c] == 0, bad_list, bad_pos, bad_count)
        k = lit_next[k]


@njit(cache=True, parallel=True)
def focused_chunk(m, row_var_ptr, row_vars, num_obj, hook, hook_id, hook_data, target, hook_energy, hook_interval,
                  noise, tenure_min, tenure_span, cut_weight, max_steps,
                  X, FC, LHS, E, best_E, best_X, tabu, steps, rng,
                  bad_list, bad_pos, bad_count,
                  CUT_PTR, CUT_VARS, CUT_FC, CUT_HASH, cut_count, CUT_HEAD, LIT_NEXT, LIT_CUT, CUT_ON, CUT_CRIT,
                  zobrist, status, answers, buf_vars, buf_ptr):
    """Run up to ``max_steps`` focused steps on every replica that has not finished.

    ``status[rep]``: 0 running, 1 reached the target (no hook), 2 hook accepted,
    3 cut pool full.  All state persists between calls.
    """
    (term_ptr, term_vars, term_negs, term_coef, term_row,
     var_term_ptr, var_terms, var_term_negs, var_row_ptr, var_rows,
     row_const, row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) = m
    num_replicas, n = X.shape
    num_rows = row_weight.shape[0]
    for rep in prange(num_replicas):
        if status[rep] != 0:
            continue
        x = X[rep]
        fc = FC[rep]
        lhs = LHS[rep]
        cut_fc = CUT_FC[rep]
        cut_head = CUT_HEAD[rep]
        lit_next = LIT_NEXT[rep]
        lit_cut = LIT_CUT[rep]
        cut_on = CUT_ON[rep]
        cut_crit = CUT_CRIT[rep]
        cptr = CUT_PTR[rep]
        cvars = CUT_VARS[rep]
        ccount = cut_count[rep]
        bad_l = bad_list[rep]
        bad_p = bad_pos[rep]
        bad_c = bad_count[rep]
        rg = rng[rep]
        scratch = np.zeros(num_rows, dtype=np.float64)
        energy = E[rep]
        step = steps[rep]
        end = step + max_steps
        since_hook = hook_interval
        while step < end:
            # -- separation hook / target ---------------------------------------
            since_hook += 1
            if energy <= target + EPS or (energy <= hook_energy + EPS and since_hook >= hook_interval):
                since_hook = 0
                nc = call_hook(hook, hook_id, x, hook_data, buf_vars[rep], buf_ptr[rep], answers[rep])
                if nc == ACCEPT:
                    status[rep] = 2
                    break
                added = 0
                for c in range(nc):
                    res = _add_cut(buf_vars[rep], buf_ptr[rep, c], buf_ptr[rep, c + 1], x, zobrist, cptr, cvars,
                                   cut_fc, CUT_HASH[rep], ccount, cut_head, lit_next, lit_cut, cut_on, cut_crit,
                                   bad_l, bad_p, bad_c, num_rows + num_obj)
                    if res == -2:
                        status[rep] = 3
                        break
                    if res >= 0:
                        added += 1
                        if res == 1:
                            energy += cut_weight
                if status[rep] != 0:
                    break
                if added == 0 and energy <= target + EPS:
                    status[rep] = 1
                    break
                if added > 0 and energy < best_E[rep]:
                    best_E[rep] = energy
            if bad_c[0] == 0:
                # nothing is bad but the target is below this energy: a random flip
                cand_lo, cand_hi, kind, comp = 0, n, 3, 0
            else:
                comp = bad_l[rng_below(rg, 0, bad_c[0])]
                if comp < num_rows:
                    kind = 0
                    cand_lo, cand_hi = row_var_ptr[comp], row_var_ptr[comp + 1]
                elif comp < num_rows + num_obj:
                    kind = 1
                    t = comp - num_rows
                    cand_lo, cand_hi = term_ptr[t], term_ptr[t + 1]
                else:
                    kind = 2
                    c = comp - num_rows - num_obj
                    cand_lo, cand_hi = CUT_PTR[rep, c], CUT_PTR[rep, c + 1]
            size = cand_hi - cand_lo
            if kind == 3 or rng_uniform(rg, 0) < noise:
                v = _candidate(kind, cand_lo + rng_below(rg, 0, size), row_vars, term_vars, cvars)
                d = flip_delta(v, x, fc, lhs, scratch, m) + _cut_delta(
                    v, x[v], cut_on, cut_crit, cut_weight)
            else:
                v = -1
                d = np.inf
                ties = 0
                for k in range(cand_lo, cand_hi):
                    u = _candidate(kind, k, row_vars, term_vars, cvars)
                    du = flip_delta(u, x, fc, lhs, scratch, m) + _cut_delta(
                        u, x[u], cut_on, cut_crit, cut_weight)
                    if tabu[rep, u] > step and energy + du >= best_E[rep] - EPS:
                        continue
                    if du < d - EPS:
                        v, d, ties = u, du, 1
                    elif du <= d + EPS:
                        ties += 1
                        if rng_below(rg, 0, ties) == 0:
                            v = u
                if v < 0:  # every candidate is tabu: take a random one
                    v = _candidate(kind, cand_lo + rng_below(rg, 0, size), row_vars, term_vars, cvars)
                    d = flip_delta(v, x, fc, lhs, scratch, m) + _cut_delta(
                        v, x[v], cut_on, cut_crit, cut_weight)
            _flip(v, x, fc, lhs, m, num_obj, cut_fc, cut_head, lit_next, lit_cut, cptr, cvars,
                  cut_on, cut_crit, bad_l, bad_p, bad_c, num_rows)
            energy += d
            step += 1
            tabu[rep, v] = step + tenure_min + rng_below(rg, 0, tenure_span + 1)
            if energy < best_E[rep] - EPS:
                best_E[rep] = energy
                best_X[rep, :] = x
        E[rep] = energy
        steps[rep] = step


@njit(cache=True)
def share_cuts(X, E, status, shared_upto, cut_weight, num_base, zobrist, CUT_PTR, CUT_VARS, CUT_FC, CUT_HASH,
               cut_count, CUT_HEAD, LIT_NEXT, LIT_CUT, CUT_ON, CUT_CRIT, bad_list, bad_pos, bad_count):
    """Give every running replica the cuts the others found since the last call.

    Called between chunks, in replica order, so the result does not depend on
    thread timing.  A cut is a fact about the problem (here: a loop that is not
    the answer), so one replica's cut is valid for all.
    """
    P = X.shape[0]
    snapshot = cut_count[:, 0].copy()
    for r in range(P):
        if status[r] != 0:
            continue
        for s in range(P):
            if s == r:
                continue
            for c in range(shared_upto[s], snapshot[s]):
                res = _add_cut(CUT_VARS[s], CUT_PTR[s, c], CUT_PTR[s, c + 1], X[r], zobrist, CUT_PTR[r],
                               CUT_VARS[r], CUT_FC[r], CUT_HASH[r], cut_count[r], CUT_HEAD[r], LIT_NEXT[r],
                               LIT_CUT[r], CUT_ON[r], CUT_CRIT[r], bad_list[r], bad_pos[r], bad_count[r], num_base)
                if res == 1:
                    E[r] += cut_weight
                elif res == -2:
                    status[r] = 3
    for r in range(P):
        shared_upto[r] = cut_count[r, 0]


@njit(cache=True)
def init_replicas(m, num_obj, X, FC, LHS, E, bad_list, bad_pos, bad_count):
    """Energies, term counts, row values and bad sets of fresh replicas (no cuts yet)."""
    (term_ptr, term_vars, term_negs, term_coef, term_row,
     var_term_ptr, var_terms, var_term_negs, var_row_ptr, var_rows,
     row_const, row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) = m
    num_rows = row_weight.shape[0]
    for rep in range(X.shape[0]):
        E[rep] = init_state(X[rep], FC[rep], LHS[rep], m)
        bad_pos[rep, :] = -1
        bad_count[rep, 0] = 0
        for r in range(num_rows):
            if row_penalty(r, LHS[rep, r], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) > EPS:
                _set_bad(r, True, bad_list[rep], bad_pos[rep], bad_count[rep])
        for t in range(num_obj):
            if term_coef[t] > 0.0 and FC[rep, t] == 0:
                _set_bad(num_rows + t, True, bad_list[rep], bad_pos[rep], bad_count[rep])


class LazyCuts:
    """Lazy cuts for :func:`qlib.solve` (``backend="cpu"``, ``algorithm="focused"``).

    ``hook`` is the name of a built-in hook (``"loops"``, see
    :mod:`qlib.solvers.hooks`) or a custom ``@njit`` function with the hook
    signature; ``data`` is its tuple of seven int64 arrays.  A cut adds
    ``weight`` to the energy while all its variables are 1.  The hook is called
    on states with energy <= ``energy``, at most every ``interval`` steps, and
    always when the target energy is reached.  The default ``energy=1.0`` was
    chosen by measurement on the 10x10 Slitherlink (median 0.2 s against 0.4 s
    at 2.0, over 20 seeds): looking at states one violation away from the
    target finds the loops that matter without cutting every loop of a rough
    state.
    """

    def __init__(self, hook, data, *, energy: float = 1.0, interval: int = 8, weight: float = 1.0,
                 max_cuts: int = 4096, max_cut_vars: int = 1 << 18):
        if isinstance(hook, str):
            if hook not in BUILTIN_HOOKS:
                raise ValueError(f"unknown built-in hook {hook!r}; choose one of {sorted(BUILTIN_HOOKS)}")
            self.hook, self.hook_id = None, BUILTIN_HOOKS[hook]
        else:
            self.hook, self.hook_id = hook, 0
        data = tuple(np.ascontiguousarray(a, dtype=np.int64) for a in data)
        if len(data) != 7 or any(a.ndim != 1 for a in data):
            raise ValueError("hook data must be a tuple of seven one-dimensional int64 arrays")
        self.data = data
        self.energy, self.interval, self.weight = float(energy), int(interval), float(weight)
        self.max_cuts, self.max_cut_vars = int(max_cuts), int(max_cut_vars)
        if self.weight <= 0 or self.interval < 1 or self.max_cuts < 1:
            raise ValueError("LazyCuts needs weight > 0, interval >= 1 and max_cuts >= 1")


def run_focused(compiled, rng_states, start_states, target, time_limit, *, noise=0.2,
                tabu_tenure=(0, 2), lazy: LazyCuts | None = None, max_steps=None, share=True, sync_steps=20_000):
    """Drive :func:`focused_chunk` in short chunks until done, out of time or out of steps.

    Returns (state, info).  ``target`` is relative to the model's offset.  With
    lazy cuts, chunks are at most ``sync_steps`` long and, when ``share`` is
    on, the replicas pool their cuts after every chunk.
    """
    import time

    num_replicas, n = start_states.shape
    m = compiled.kernel_arrays()
    num_obj = compiled.num_objective_terms
    num_comp = compiled.num_rows + num_obj
    if lazy is None:
        hook, hook_id, data, hook_energy, interval, weight = None, 0, empty_hook_data(), -np.inf, 1 << 30, 1.0
        max_cuts, max_lits = 1, 1
    else:
        hook, hook_id, data = lazy.hook, lazy.hook_id, lazy.data
        hook_energy, interval, weight = lazy.energy, lazy.interval, lazy.weight
        max_cuts, max_lits = lazy.max_cuts, lazy.max_cut_vars
    tenure_min, tenure_max = (int(t) for t in tabu_tenure)
    if not 0 <= tenure_min <= tenure_max:
        raise ValueError(f"tabu_tenure must be (min, max) with 0 <= min <= max, got {tabu_tenure!r}")
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise must be in [0, 1], got {noise!r}")
    if max_steps is None:
        max_steps = 1 << 62
    P = num_replicas
    X = start_states.copy()
    FC = np.zeros((P, compiled.num_terms), dtype=np.int32)
    LHS = np.zeros((P, compiled.num_rows))
    E = np.zeros(P)
    bad_list = np.zeros((P, num_comp + max_cuts), dtype=np.int32)
    bad_pos = np.full((P, num_comp + max_cuts), -1, dtype=np.int32)
    bad_count = np.zeros((P, 8), dtype=np.int64)  # padded: one cache line per replica
    init_replicas(m, num_obj, X, FC, LHS, E, bad_list, bad_pos, bad_count)
    best_E = E.copy()
    best_X = X.copy()
    tabu = np.zeros((P, n), dtype=np.int64)
    steps = np.zeros(P, dtype=np.int64)
    rng = np.zeros((P, 8), dtype=np.uint64)  # padded: one cache line per replica
    rng[:, 0] = rng_states
    CUT_PTR = np.zeros((P, max_cuts + 1), dtype=np.int64)
    CUT_VARS = np.zeros((P, max_lits), dtype=np.int32)
    CUT_FC = np.zeros((P, max_cuts), dtype=np.int32)
    CUT_HASH = np.zeros((P, max_cuts), dtype=np.uint64)
    cut_count = np.zeros((P, 8), dtype=np.int64)  # padded: one cache line per replica
    shared_upto = np.zeros(P, dtype=np.int64)
    CUT_HEAD = np.full((P, n), -1, dtype=np.int32)
    LIT_NEXT = np.full((P, max_lits), -1, dtype=np.int32)
    LIT_CUT = np.zeros((P, max_lits), dtype=np.int32)
    CUT_ON = np.zeros((P, n), dtype=np.int32)
    CUT_CRIT = np.zeros((P, n), dtype=np.int32)
    zobrist = np.random.Generator(np.random.PCG64(int(rng_states[0]))).integers(
        1, 2**63, size=max(n, 1), dtype=np.uint64)
    status = np.zeros(P, dtype=np.int64)
    answers = np.zeros((P, n), dtype=np.uint8)
    buf_vars = np.zeros((P, max(4 * n, 1)), dtype=np.int32)
    buf_ptr = np.zeros((P, n + 2), dtype=np.int64)

    start = time.perf_counter()
    chunk, stop_reason = 1000, "max_steps"
    max_chunk = 200_000 if lazy is None else sync_steps
    while True:
        remaining = max_steps - int(steps.max())
        if remaining <= 0:
            break
        focused_chunk(m, compiled.row_var_ptr, compiled.row_vars, num_obj, hook, hook_id, data, target, hook_energy,
                      interval, noise, tenure_min, tenure_max - tenure_min, weight, min(chunk, remaining),
                      X, FC, LHS, E, best_E, best_X, tabu, steps, rng, bad_list, bad_pos, bad_count,
                      CUT_PTR, CUT_VARS, CUT_FC, CUT_HASH, cut_count, CUT_HEAD, LIT_NEXT, LIT_CUT, CUT_ON,
                      CUT_CRIT, zobrist, status, answers, buf_vars, buf_ptr)
        if (status == 2).any() or (status == 1).any():
            stop_reason = "accepted" if (status == 2).any() else "target_energy"
            break
        if (status == 3).all():
            stop_reason = "cut_pool_full"
            break
        if lazy is not None and share and P > 1:
            share_cuts(X, E, status, shared_upto, weight, num_comp, zobrist, CUT_PTR, CUT_VARS, CUT_FC, CUT_HASH,
                       cut_count, CUT_HEAD, LIT_NEXT, LIT_CUT, CUT_ON, CUT_CRIT, bad_list, bad_pos, bad_count)
        if time.perf_counter() - start >= time_limit:
            stop_reason = "time_limit"
            break
        chunk = min(chunk * 2, max_chunk)
    done = np.flatnonzero((status == 1) | (status == 2))
    if done.size:
        rep = int(done[0])  # lowest replica index: independent of thread timing
        state = answers[rep].copy() if status[rep] == 2 else X[rep].copy()
    else:
        rep = int(np.argmin(best_E))
        state = best_X[rep].copy()
    cuts = [CUT_VARS[rep, CUT_PTR[rep, c]:CUT_PTR[rep, c + 1]].copy() for c in range(int(cut_count[rep, 0]))]
    info = dict(algorithm="focused", num_replicas=P, noise=noise, tabu_tenure=(tenure_min, tenure_max),
                flips=int(steps.sum()), steps_of_winner=int(steps[rep]), replica=rep,
                stop_reason=stop_reason, cuts=cuts, num_cuts=len(cuts))
    return state, info
