"""The numba kernels of the focused search (:mod:`qlib.solvers.focused` drives them).

A *component* of the energy is a constraint row, a positive objective term, or
a cut; the bad ones (those contributing energy) form an indexed set per
replica, and :func:`focused_chunk` runs focused steps on every replica in
parallel: pick a random bad component, flip one of its variables (a random
one with probability ``noise``, else the best non-tabu one).  Cuts are
products of literals kept in one pool that every replica reads
(:class:`CutPool`); each replica keeps, per cut, whether it has taken the cut
yet and O(1) counters for the energy change of a flip.  A replica takes new
cuts (:class:`CutNews`: its own from the separation, and at a pooling every
cut it lacks) at the start of a chunk, in the step function itself, so that
the host only appends to the pool and the GPU moves only the new cuts.  All
state is in named tuples of arrays (:class:`Replicas`, one row per replica,
:class:`CutPool`, :class:`CutNews`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...compile import Incidence, KernelArrays, Rows, Terms
from ..core import apply_flip, flip_delta, init_state, rng_below, rng_uniform, row_penalty

EPS = 1e-9

# replica status
RUNNING, AT_TARGET, ACCEPTED, WAITING = 0, 1, 2, 4

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
    status: np.ndarray         # int64 (P,): RUNNING, AT_TARGET, ACCEPTED or WAITING
    num_false: np.ndarray      # int32 (P, cuts): false literals of each pool cut; -1: not taken yet
    false_xor: np.ndarray      # int32 (P, cuts): XOR of the variables whose literal is false (the only one, in O(1))
    on: np.ndarray             # int32 (P, N): taken cuts containing v that are on (every literal true)
    crit: np.ndarray           # int32 (P, N): taken cuts in which v's literal is the only false one
    folded: np.ndarray         # int64 (P,): the last pooling whose cuts the replica took
    smoothing: np.ndarray      # int64 (P,): this replica's weight_smoothing (0: the model's weights; see raise_weights)
    term_weight: np.ndarray    # float64 (P, T): the term coefficients this replica weighs (objective terms raised)
    row_weight: np.ndarray     # float64 (P, R): the row weights this replica weighs
    raises: np.ndarray         # int64 (P, 8): weight raises so far, in column 0
    raised_list: np.ndarray    # int32 (P, rows + objective terms): the components weighing more than the model's ...
    raised_pos: np.ndarray     # int32 (P, rows + objective terms): ... and each one's place in it (-1: not raised)
    raised_count: np.ndarray   # int64 (P, 8): how many, in column 0
    halt: np.ndarray           # int64 (P, 8): 1 in column 0 once a replica waits in this chunk (Params.halt_together)

    #: How the fields move between the host and the device between chunks (:class:`qlib.solvers.focused.gpu.FocusedChunkGPU`):
    #: set by the host at its separation calls, sent before every chunk; read by the host after every chunk
    #: (one entry per replica), fetched then; read by the driver at the end, fetched then.  The rest is the
    #: kernel's own (it takes the cuts itself): it goes up once, and of the states only the rows of the
    #: replicas that wait for a separation call come back.
    SENT = frozenset(("status", "separation_wait"))
    FETCHED = frozenset(("status", "steps", "energy"))
    AT_END = ("x", "best_x", "best_energy", "num_false", "raises")


class CutPool(NamedTuple):
    """The cuts, one pool for every replica: cut ``c`` is the product of the literals
    ``vars[ptr[c]:ptr[c + 1]]`` (negated where ``negs`` is 1), in variable order.

    Each variable's literals form a linked list (``head``, ``lit_next``) in the
    order of their cuts' hashes, so that a flip meets the cuts in an order that
    does not depend on when they came (which the replicas' timing decides).
    """

    ptr: np.ndarray            # int64 (cuts + 1,)
    vars: np.ndarray           # int32 (literals,)
    negs: np.ndarray           # uint8 (literals,)
    hash: np.ndarray           # uint64 (cuts,): Zobrist hash of the literals
    count: np.ndarray          # int64 (8,): cuts in the pool, entry 0
    head: np.ndarray           # int32 (N,): first literal position of each variable (-1: none) ...
    lit_next: np.ndarray       # int32 (literals,): ... and the next one
    lit_cut: np.ndarray        # int32 (literals,): the cut of each literal position


class CutNews(NamedTuple):
    """The cuts each replica takes at the start of the next chunk: first its own,
    ``cuts[ptr[r]:ptr[r + 1]]`` (those its separation call returned), then, if
    ``Params.fold_generation`` passed its ``folded``, every cut of ``fold`` it lacks
    (a pooling: the pool's cuts in hash order)."""

    ptr: np.ndarray            # int64 (P + 1,)
    cuts: np.ndarray           # int64
    fold: np.ndarray           # int64


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
    fold_generation: int       # the latest pooling (see CutNews)
    has_separation: bool       # whether a separation function looks at the states met
    halt_together: bool = False   # a replica that stops to wait for a separation call ends the chunk for all
                                  # (the CPU, one replica per thread): no core idles while another runs on


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
def _take_cut(rep, c, R, C, weight, num_base):
    """Replica ``rep`` takes pool cut ``c`` (its counters from its state); returns 1 if it was new to it, else 0."""
    num_false = R.num_false[rep]
    if num_false[c] >= 0:
        return 0
    x, on, crit = R.x[rep], R.on[rep], R.crit[rep]
    zeros = 0
    last_zero = -1
    fx = 0
    for k in range(C.ptr[c], C.ptr[c + 1]):
        v = C.vars[k]
        if (x[v] ^ C.negs[k]) == 0:
            zeros += 1
            last_zero = v
            fx ^= v
    num_false[c] = zeros
    R.false_xor[rep, c] = fx
    if zeros == 0:
        for k in range(C.ptr[c], C.ptr[c + 1]):
            on[C.vars[k]] += 1
        _set_bad(num_base + c, True, R.bad_list[rep], R.bad_pos[rep], R.bad_count[rep])
        R.energy[rep] += weight
    elif zeros == 1:
        crit[last_zero] += 1
    return 1


@njit(cache=True)
def take_cuts(rep, cuts, lo, hi, R, C, weight, num_base):
    """Replica ``rep`` takes the pool cuts ``cuts[lo:hi]``, in that order; returns how many were new to it."""
    added = 0
    for k in range(lo, hi):
        added += _take_cut(rep, cuts[k], R, C, weight, num_base)
    return added


@njit(cache=True, inline="always")
def _flip(rep, v, row, m, R, C, num_obj):
    """Flip replica ``rep``'s ``x[v]`` and update term counts, row values, cut counters and the bad set.

    ``row`` is ``(x, false_count, lhs)``: replica ``rep``'s rows of ``R``, taken once per chunk by the caller.
    """
    x, fc, lhs = row
    term_coef, var_term_ptr, var_terms, var_row_ptr = m.terms.coef, m.by_var.term_ptr, m.by_var.terms, m.by_var.row_ptr
    var_rows, row_weight, row_iv_ptr, row_iv_lo = m.by_var.rows, m.rows.weight, m.rows.iv_ptr, m.rows.iv_lo
    row_iv_hi = m.rows.iv_hi
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
    on, crit, num_false, false_xor = R.on[rep], R.crit[rep], R.num_false[rep], R.false_xor[rep]
    cvars, cnegs, cptr = C.vars, C.negs, C.ptr
    k = C.head[v]
    while k >= 0:
        c = C.lit_cut[k]
        old = num_false[c]
        if old < 0:   # a cut this replica has not taken yet
            k = C.lit_next[k]
            continue
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
        _set_bad(num_rows + num_obj + c, num_false[c] == 0, bad_list, bad_pos, bad_count)
        k = C.lit_next[k]


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
def raise_weights(rep, m, mw, R, lhs, num_obj, smoothing):
    """Dynamic penalty weights (clause weighting, as PAWS does for SAT): every bad row and objective term of
    replica ``rep`` weighs one base weight more (``mw``: the model as it weighs it; ``m``: the model's own
    weights); every ``smoothing``-th raise, every raised weight steps one base weight back.  Returns the
    change of the replica's energy.

    Called after a step that did not lower the energy: a component that stays broken through such steps
    grows until a move that mends it pays, which leads the search off the plateaus where one rule trades
    against another.  Weights never fall below the model's, so energy 0 keeps its meaning; the cuts keep
    their fixed weight.  The raised components form an indexed set, so that smoothing costs what was
    raised, not the model's size.
    """
    base_coef, base_row = m.terms.coef, m.rows.weight
    num_rows = base_row.shape[0]
    term_weight, row_weight = mw.terms.coef, mw.rows.weight
    row_iv_ptr, row_iv_lo, row_iv_hi = m.rows.iv_ptr, m.rows.iv_lo, m.rows.iv_hi
    raised_list, raised_pos, raised_count = R.raised_list[rep], R.raised_pos[rep], R.raised_count[rep]
    change = 0.0
    for i in range(R.bad_count[rep, 0]):
        c = R.bad_list[rep, i]
        if c < num_rows:
            old = row_penalty(c, lhs[c], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi)
            row_weight[c] += base_row[c]
            change += row_penalty(c, lhs[c], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) - old
        elif c < num_rows + num_obj:
            t = c - num_rows
            term_weight[t] += base_coef[t]
            change += base_coef[t]
        else:
            continue
        _set_bad(c, True, raised_list, raised_pos, raised_count)
    R.raises[rep, 0] += 1
    if R.raises[rep, 0] % smoothing == 0:
        i = 0
        while i < raised_count[0]:
            c = raised_list[i]
            if c < num_rows:
                old = row_penalty(c, lhs[c], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi)
                row_weight[c] -= base_row[c]
                change += row_penalty(c, lhs[c], row_weight, row_iv_ptr, row_iv_lo, row_iv_hi) - old
                back = row_weight[c] <= base_row[c]
            else:
                t = c - num_rows
                term_weight[t] -= base_coef[t]
                if R.bad_pos[rep, c] >= 0:
                    change -= base_coef[t]
                back = term_weight[t] <= base_coef[t]
            if back:   # back at the model's weight: out of the set (the last member takes its place)
                _set_bad(c, False, raised_list, raised_pos, raised_count)
            else:
                i += 1
    return change


@njit(cache=True, parallel=True)
def focused_chunk(m, rows, p, R, C, news, end_steps):
    """Run focused steps on every running replica until its step count reaches ``end_steps``, after it
    takes its new cuts (``news``, a :class:`CutNews`).

    A replica stops early when it reaches the target (status AT_TARGET without
    a separation function, else WAITING) or meets a state for the separation
    function (WAITING); its state stays in ``R`` for the driver to read.
    """
    status = R.status
    # A prange takes no named tuple of named tuples, and rebuilds the named tuples it takes from their
    # constructor calls: the model goes in by its parts, each made here, and each replica puts it together.
    t, v, r = m.terms, m.by_var, m.rows
    terms = Terms(ptr=t.ptr, vars=t.vars, negs=t.negs, coef=t.coef, row=t.row)
    by_var = Incidence(term_ptr=v.term_ptr, terms=v.terms, term_negs=v.term_negs, row_ptr=v.row_ptr, rows=v.rows)
    model_rows = Rows(const=r.const, weight=r.weight, iv_ptr=r.iv_ptr, iv_lo=r.iv_lo, iv_hi=r.iv_hi)
    for rep in prange(R.x.shape[0]):
        if status[rep] != RUNNING:
            continue
        replica_steps(rep, KernelArrays(terms=terms, by_var=by_var, rows=model_rows), rows, p, R, C, news,
                      end_steps[rep])
    return 0


@njit(cache=True)
def replica_steps(rep, m, rows, p, R, C, news, end):
    """The focused steps of one replica up to step ``end``, after it takes its new cuts (see
    :func:`focused_chunk`).

    The replica weighs the model with its own term coefficients and row weights (``R.term_weight``,
    ``R.row_weight``); with ``R.smoothing[rep] > 0`` they change as :func:`raise_weights` says.

    It allocates nothing and assigns no slices, so that the GPU backend runs
    this very code as a CUDA device function (:mod:`qlib.solvers.gpu_kernel`).
    """
    n = R.x.shape[1]
    num_rows = m.rows.weight.shape[0]
    num_obj = p.num_objective
    mw = KernelArrays(   # the model as this replica weighs it
        terms=Terms(ptr=m.terms.ptr, vars=m.terms.vars, negs=m.terms.negs, coef=R.term_weight[rep], row=m.terms.row),
        by_var=m.by_var,
        rows=Rows(const=m.rows.const, weight=R.row_weight[rep], iv_ptr=m.rows.iv_ptr, iv_lo=m.rows.iv_lo,
                  iv_hi=m.rows.iv_hi))
    has_separation = p.has_separation
    num_base = num_rows + num_obj
    take_cuts(rep, news.cuts, news.ptr[rep], news.ptr[rep + 1], R, C, p.cut_weight, num_base)
    if R.folded[rep] < p.fold_generation:
        take_cuts(rep, news.fold, 0, news.fold.shape[0], R, C, p.cut_weight, num_base)
        R.folded[rep] = p.fold_generation
    energies, steps, since, status = R.energy, R.steps, R.since_separation, R.status
    best_energy, best_x, tabu, bad_list, bad_count = R.best_energy, R.best_x, R.tabu, R.bad_list, R.bad_count
    term_ptr, term_vars = mw.terms.ptr, mw.terms.vars
    smoothing = R.smoothing[rep]
    x = R.x[rep]
    fc = R.false_count[rep]
    lhs = R.lhs[rep]
    row = (x, fc, lhs)
    rg = R.rng[rep]
    on, crit = R.on[rep], R.crit[rep]
    cvars, cptr = C.vars, C.ptr
    scratch = R.row_delta[rep]
    energy = energies[rep]
    step = steps[rep]
    since_separation = since[rep]
    while step < end:
        if p.halt_together and R.halt[rep, 0] != 0:   # another replica waits: this chunk is over
            break
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
                c = comp - num_base
                cand_lo, cand_hi = cptr[c], cptr[c + 1]
        size = cand_hi - cand_lo
        if kind == 3 or rng_uniform(rg, 0) < p.noise:
            v = _candidate(kind, cand_lo + rng_below(rg, 0, size), rows.vars, term_vars, cvars)
            d = flip_delta(v, x, fc, lhs, scratch, mw) + _cut_delta(v, on, crit, p.cut_weight)
        else:
            v = -1
            d = np.inf
            ties = 0
            for k in range(cand_lo, cand_hi):
                u = _candidate(kind, k, rows.vars, term_vars, cvars)
                du = flip_delta(u, x, fc, lhs, scratch, mw) + _cut_delta(u, on, crit, p.cut_weight)
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
                d = flip_delta(v, x, fc, lhs, scratch, mw) + _cut_delta(v, on, crit, p.cut_weight)
        _flip(rep, v, row, mw, R, C, num_obj)
        energy += d
        step += 1
        if smoothing > 0 and d >= -EPS:   # no descent: the broken components weigh more
            energy += raise_weights(rep, m, mw, R, lhs, num_obj, smoothing)
        tabu[rep, v] = step + p.tenure_min + rng_below(rg, 0, p.tenure_span + 1)
        if energy < best_energy[rep] - EPS:
            best_energy[rep] = energy
            for i in range(n):
                best_x[rep, i] = x[i]
    if status[rep] == RUNNING and energy <= p.target + EPS:   # reached on the chunk's last step
        status[rep] = WAITING if has_separation else AT_TARGET
        since_separation = 0
    if p.halt_together and status[rep] == WAITING:
        for r in range(R.halt.shape[0]):
            R.halt[r, 0] = 1
    energies[rep] = energy
    steps[rep] = step
    since[rep] = since_separation


@njit(cache=True)
def pool_append(C, lits, negs, h):
    """Append the cut ``prod(lits ^ negs)`` (``lits`` ascending) with hash ``h`` to the pool; returns its index,
    or -1 when the pool has no room for it (the caller grows the pool and calls again)."""
    count = C.count[0]
    start = C.ptr[count]
    size = lits.shape[0]
    if count >= C.hash.shape[0] or start + size > C.vars.shape[0]:
        return -1
    C.hash[count] = h
    for k in range(size):
        v = lits[k]
        pos = start + k
        C.vars[pos] = v
        C.negs[pos] = negs[k]
        C.lit_cut[pos] = count
        prev, j = -1, C.head[v]   # v's list stays in hash order
        while j >= 0 and C.hash[C.lit_cut[j]] < h:
            prev, j = j, C.lit_next[j]
        C.lit_next[pos] = j
        if prev < 0:
            C.head[v] = pos
        else:
            C.lit_next[prev] = pos
    C.ptr[count + 1] = start + size
    C.count[0] = count + 1
    return count


@njit(cache=True, parallel=True)
def take_cuts_all(cuts, R, C, weight, num_base):
    """Every replica takes the pool cuts ``cuts``, in that order (a restart's cuts, before the first chunk)."""
    for rep in prange(R.x.shape[0]):
        take_cuts(rep, cuts, 0, cuts.shape[0], R, C, weight, num_base)


@njit(cache=True)
def init_replicas(m, num_obj, R):
    """Energies, term counts, row values and bad sets of fresh replicas (no cut taken yet)."""
    term_coef = m.terms.coef
    row_weight, row_iv_ptr, row_iv_lo, row_iv_hi = m.rows.weight, m.rows.iv_ptr, m.rows.iv_lo, m.rows.iv_hi
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
        for c in range(R.num_false.shape[1]):
            R.num_false[rep, c] = -1


@njit(cache=True)
def model_energies(m, states, R):
    """The model's energy (without cuts or offset) of each row of ``states``, from scratch; one row
    per replica, whose term counts and row sides serve as scratch (they are overwritten)."""
    out = np.empty(states.shape[0])
    for rep in range(states.shape[0]):
        out[rep] = init_state(states[rep], R.false_count[rep], R.lhs[rep], m)
    return out
