"""Focused local search with lazy cuts, for models whose energy is all penalty.

A *component* of the energy is a constraint row, a positive objective term, or a
cut added during the search; it is *bad* when it contributes energy.  Each step
picks a random bad component and flips one of its variables: with probability
``noise`` a random one, otherwise the one with the lowest energy change that is
not tabu (a tabu move is still taken when it would beat the best energy seen).
A flipped variable stays tabu for a short random number of steps.  This is
WalkSAT's idea applied to weighted penalties, and it makes every step count
where simulated annealing would spend most flips on satisfied parts.  With
``weight_smoothing`` each replica also weighs the rows and objective terms
itself (dynamic penalty weights, as clause-weighting SAT searches do): a
component that stays broken weighs more after every step that does not lower
the energy, and every so often the raised weights step back
(:func:`~qlib.solvers.focused.kernel.raise_weights`).  The energy a replica
tracks, and shows the separation function, is then the weighted one; it is 0
exactly where the model's is.

Lazy cuts, as MIP solvers offer them: a *separation function* (plain Python,
see :class:`LazyCuts`) looks at states whose energy is at most its
``energy``.  It may accept a state as the answer, or return new cuts: products
of literals that add ``weight`` while all of them are true (e.g. a forbidden
loop).  The kernel pauses a replica when it meets such a state; the driver
calls the function, appends the cuts to the one pool that every replica reads,
and the replica takes them at the start of the next chunk.  Pauses happen at
points that depend only on each replica's own trajectory, and the replicas
take each other's cuts at fixed step counts (a *pooling*), in the order of the
cuts' hashes, so a result depends on the seed alone, not on the number of
threads or their timing.

This module is the driver (:func:`run_focused`); the numba kernels are in
:mod:`qlib.solvers.focused.kernel`.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ...stop import SOLVER, stop_reason as as_stop_reason
from ... import validate
from ...limits import check_allocation
from .kernel import (ACCEPTED, AT_TARGET, EPS, RUNNING, WAITING, CutNews, CutPool, PackedCuts, Params,
                             Replicas, RowVars, focused_chunk, init_replicas, model_energies, pool_append,
                             take_cuts_all)

__all__ = ["LazyCuts", "run_focused", "warmup_cuts", "pack_cuts", "new_replicas", "new_pool", "grow_pool",
           "pool_capacity", "CutBook", "POOL_BYTES"]

#: Bytes the replicas' counters of the pool's cuts may take at the start of a CPU search (the pool
#: grows when full).
POOL_BYTES = 1 << 26


class LazyCuts:
    """Lazy cuts for :func:`qlib.solve` (``backend="cpu"`` or ``"gpu"``, ``algorithm="focused"``).

    ``separate(state, energy)`` is any Python callable that takes a state
    (uint8 array, one entry per model column) and its energy in the search
    (the model's energy, as the replica weighs it, plus the weight of the cuts it breaks) and returns
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
    ``max_cuts`` and ``max_cut_literals`` size the cut pool, which every replica
    reads, at the start (fewer cuts when many replicas would make their
    counters large: :func:`pool_capacity`); it grows when full, and a full pool
    loses no cut, so its size changes only the memory taken, never the search.
    ``cuts``: cuts every replica starts with, e.g. those a previous search
    found (``solution.info["cuts"]``), so a restart keeps them.
    """

    def __init__(self, separate, *, energy: float = 1.0, interval: int = 8, weight: float = 1.0,
                 max_cuts: int = 8192, max_cut_literals: int = 1 << 19, cuts=()):
        if not callable(separate):
            raise TypeError(f"separate must be a callable state -> (answer, cuts), got {type(separate).__name__}")
        self.separate = separate
        self.cuts = list(cuts)
        self.energy = validate.bound("energy", energy)
        self.interval = validate.integer("interval", interval, minimum=1)
        self.weight = validate.number("weight", weight, positive=True)
        self.max_cuts = validate.integer("max_cuts", max_cuts, minimum=1)
        self.max_cut_literals = validate.integer("max_cut_literals", max_cut_literals, minimum=1)


def pack_cuts(cuts, n) -> PackedCuts:
    """Flatten a list of (columns, negated) pairs over ``n`` columns into :class:`~qlib.solvers.focused.kernel.PackedCuts`,
    validated, each cut's literals in column order (the checks and the sort run once over all cuts)."""
    cols_list, negs_list = [], []
    for k, cut in enumerate(cuts):
        try:
            cols, neg = cut
        except (TypeError, ValueError):
            raise TypeError(f"cut {k} must be a pair (columns, negated), got {cut!r}") from None
        cols = np.asarray(cols, dtype=np.int64).ravel()
        neg = np.asarray(neg, dtype=np.int64).ravel()
        if cols.size == 0 or cols.shape != neg.shape:
            raise ValueError(f"cut {k} needs one or more columns and one negation flag per column")
        cols_list.append(cols)
        negs_list.append(neg)
    if not cols_list:
        empty = np.zeros(0, dtype=np.int64)
        return PackedCuts(empty, empty.astype(np.uint8), np.zeros(1, dtype=np.int64))
    sizes = np.fromiter((c.size for c in cols_list), dtype=np.int64, count=len(cols_list))
    ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    cut_of = np.repeat(np.arange(len(sizes)), sizes)
    cols, negs = np.concatenate(cols_list), np.concatenate(negs_list)
    bad = (cols < 0) | (cols >= n) | ((negs != 0) & (negs != 1))
    if bad.any():
        k = int(cut_of[np.argmax(bad)])
        raise ValueError(f"cut {k} names a column outside 0..{n - 1} or a flag other than 0/1")
    order = np.lexsort((cols, cut_of))   # variable order within each cut: a cut is the same cut whoever found it
    cols, negs = cols[order], negs[order]
    twice = (cols[1:] == cols[:-1]) & (cut_of[1:] == cut_of[:-1])
    if twice.any():
        raise ValueError(f"cut {int(cut_of[1:][np.argmax(twice)])} names a column twice")
    return PackedCuts(cols, negs.astype(np.uint8), ptr)


def new_replicas(compiled, start_states, rng_states, max_cuts, weight_smoothing=0) -> Replicas:
    """Fresh :class:`~qlib.solvers.focused.kernel.Replicas` from ``start_states``, replica ``k`` seeded by ``rng_states[k]``, with
    counters for ``max_cuts`` pool cuts; replica ``k`` smooths its weights as ``weight_smoothing`` says (an
    integer for all, or a sequence, cycling)."""
    P, n = start_states.shape
    num_comp = compiled.num_rows + compiled.num_objective_terms + max_cuts
    rng = np.zeros((P, 8), dtype=np.uint64)  # padded: one cache line per replica
    rng[:, 0] = rng_states
    return Replicas(
        x=start_states.copy(), false_count=np.zeros((P, compiled.term_count), dtype=np.int32),
        lhs=np.zeros((P, compiled.num_rows)), row_delta=np.zeros((P, compiled.num_rows)),
        energy=np.zeros(P), best_energy=np.zeros(P),
        best_x=start_states.copy(), tabu=np.zeros((P, n), dtype=np.int64), steps=np.zeros(P, dtype=np.int64),
        since_separation=np.zeros(P, dtype=np.int64), separation_wait=np.ones(P, dtype=np.int64), rng=rng,
        bad_list=np.zeros((P, num_comp), dtype=np.int32),
        bad_pos=np.empty((P, num_comp), dtype=np.int32),   # init_replicas fills it
        bad_count=np.zeros((P, 8), dtype=np.int64), status=np.zeros(P, dtype=np.int64),
        num_false=np.empty((P, max_cuts), dtype=np.int32),   # init_replicas fills it
        false_xor=np.zeros((P, max_cuts), dtype=np.int32), on=np.zeros((P, n), dtype=np.int32),
        crit=np.zeros((P, n), dtype=np.int32), folded=np.zeros(P, dtype=np.int64),
        smoothing=np.resize(np.asarray(weight_smoothing, dtype=np.int64).ravel(), P),
        term_weight=np.tile(compiled.term_coef.astype(np.float64), (P, 1)),
        row_weight=np.tile(compiled.row_weight.astype(np.float64), (P, 1)),
        raises=np.zeros((P, 8), dtype=np.int64),
        raised_list=np.zeros((P, compiled.num_rows + compiled.num_objective_terms), dtype=np.int32),
        raised_pos=np.full((P, compiled.num_rows + compiled.num_objective_terms), -1, dtype=np.int32),
        raised_count=np.zeros((P, 8), dtype=np.int64), halt=np.zeros((P, 8), dtype=np.int64))


def new_pool(n, max_cuts, max_lits) -> CutPool:
    """An empty :class:`~qlib.solvers.focused.kernel.CutPool` over ``n`` variables."""
    return CutPool(ptr=np.zeros(max_cuts + 1, dtype=np.int64), vars=np.zeros(max_lits, dtype=np.int32),
                   negs=np.zeros(max_lits, dtype=np.uint8), hash=np.zeros(max_cuts, dtype=np.uint64),
                   count=np.zeros(8, dtype=np.int64), head=np.full(n, -1, dtype=np.int32),
                   lit_next=np.full(max_lits, -1, dtype=np.int32), lit_cut=np.zeros(max_lits, dtype=np.int32))


#: Bytes a replica spends on each pool cut (its counters and bad-set entries), and the pool on each literal.
CUT_BYTES, LITERAL_BYTES = 16, 13


def pool_capacity(lazy: LazyCuts, num_replicas: int, pool_bytes: int = POOL_BYTES) -> tuple[int, int]:
    """(cuts, literals) the pool starts with: ``lazy``'s ``max_cuts`` and ``max_cut_literals``, fewer cuts
    (down to 64) when ``num_replicas`` replicas' counters of that many would pass ``pool_bytes``."""
    cuts = min(lazy.max_cuts, max(64, pool_bytes // (CUT_BYTES * num_replicas)))
    return cuts, lazy.max_cut_literals


def grow_pool(R: Replicas, C: CutPool, num_base: int, cuts: bool, literals: bool):
    """Twice the room for cuts (``cuts``) or their literals (``literals``), keeping every cut and counter;
    returns (R, C)."""
    P = R.x.shape[0]
    max_cuts, max_lits = C.hash.shape[0], C.vars.shape[0]
    new_cuts, new_lits = (2 * max_cuts if cuts else max_cuts), (2 * max_lits if literals else max_lits)
    check_allocation(P * new_cuts * CUT_BYTES + new_lits * LITERAL_BYTES, "the lazy-cut pool")

    def wider(a, width, fill=0):
        out = np.full(a.shape[:-1] + (width,), fill, dtype=a.dtype)
        out[..., :a.shape[-1]] = a
        return out
    C = C._replace(ptr=wider(C.ptr, new_cuts + 1), hash=wider(C.hash, new_cuts), vars=wider(C.vars, new_lits),
                   negs=wider(C.negs, new_lits), lit_next=wider(C.lit_next, new_lits, -1),
                   lit_cut=wider(C.lit_cut, new_lits))
    if cuts:                                       # the replicas' arrays are per cut, not per literal
        R = R._replace(num_false=wider(R.num_false, new_cuts, -1), false_xor=wider(R.false_xor, new_cuts),
                       bad_list=wider(R.bad_list, num_base + new_cuts),
                       bad_pos=wider(R.bad_pos, num_base + new_cuts, -1))
    return R, C


class CutBook:
    """The host's side of the pool: it appends cuts (once each, found by their hash), knows which
    cuts each replica has taken, and writes the :class:`~qlib.solvers.focused.kernel.CutNews` of the next chunk."""

    def __init__(self, R, C, zobrist, num_base, weight):
        self.R, self.C, self.zobrist, self.num_base, self.weight = R, C, zobrist, num_base, float(weight)
        self.index = {}                            # hash -> pool index
        P = R.x.shape[0]
        self.base = np.zeros(P, dtype=np.int64)   # replica r has taken every cut below base[r] ...
        self.own = {}                              # ... and these (replica -> set of pool indices)
        self.pending = {}                          # replica -> its new cuts for the next chunk
        self.fold = np.zeros(0, dtype=np.int64)
        self.generation = 0

    def append(self, packed: PackedCuts) -> list[int]:
        """The pool indices of ``packed``'s cuts, appending those the pool lacks (growing it when full)."""
        out = []
        for k in range(packed.ptr.shape[0] - 1):
            lits = packed.lits[packed.ptr[k]:packed.ptr[k + 1]]
            negs = packed.negs[packed.ptr[k]:packed.ptr[k + 1]]
            h = int(np.bitwise_xor.reduce(self.zobrist[2 * lits + negs]))
            c = self.index.get(h)
            while c is None:
                c = pool_append(self.C, lits.astype(np.int32), negs, np.uint64(h))
                if c < 0:
                    count = int(self.C.count[0])
                    self.R, self.C = grow_pool(self.R, self.C, self.num_base, cuts=count >= self.C.hash.shape[0],
                                               literals=self.C.ptr[count] + lits.size > self.C.vars.shape[0])
                    c = None
                else:
                    self.index[h] = c
            out.append(c)
        return out

    def has(self, rep: int, c: int) -> bool:
        """Whether replica ``rep`` has taken pool cut ``c`` (or will at its next chunk)."""
        return c < self.base[rep] or c in self.own.get(rep, ())

    def give(self, rep: int, packed: PackedCuts) -> int:
        """Append ``packed`` and queue for replica ``rep`` those it has not taken; returns how many."""
        new = []
        for c in self.append(packed):
            if not self.has(rep, c):
                self.own.setdefault(rep, set()).add(c)
                new.append(c)
        if new:
            self.pending[rep] = new
        return len(new)

    def give_all(self, packed: PackedCuts) -> None:
        """Every replica takes ``packed`` now (a restart's cuts, before the first chunk)."""
        cuts = np.asarray(self.append(packed), dtype=np.int64)
        take_cuts_all(cuts, self.R, self.C, self.weight, self.num_base)
        self.base[:] = self.C.count[0]

    def pool(self, running) -> None:
        """A pooling: each running replica takes every cut in the pool it lacks, in hash order."""
        count = int(self.C.count[0])
        self.fold = np.argsort(self.C.hash[:count], kind="stable").astype(np.int64)
        self.generation += 1
        self.base[running] = count
        self.own = {rep: cuts for rep, cuts in self.own.items() if not running[rep]}

    def news(self) -> CutNews:
        """The next chunk's :class:`~qlib.solvers.focused.kernel.CutNews`; the queue empties."""
        P = self.R.x.shape[0]
        ptr = np.zeros(P + 1, dtype=np.int64)
        for rep, cuts in self.pending.items():
            ptr[rep + 1] = len(cuts)
        np.cumsum(ptr, out=ptr)
        cuts = np.concatenate([np.asarray(self.pending[r], dtype=np.int64) for r in sorted(self.pending)]) \
            if self.pending else np.zeros(0, dtype=np.int64)
        self.pending = {}
        return CutNews(ptr, cuts, self.fold)

    def taken(self, rep: int) -> list:
        """The cuts replica ``rep`` has taken or will take at its next chunk, as (columns, negated) pairs in
        hash order."""
        count = int(self.C.count[0])
        mine = np.union1d(np.flatnonzero(self.R.num_false[rep, :count] >= 0),
                          np.asarray(self.pending.get(rep, []), dtype=np.int64))
        mine = mine[np.argsort(self.C.hash[mine], kind="stable")]
        C = self.C
        return [(C.vars[C.ptr[c]:C.ptr[c + 1]].astype(np.int64), C.negs[C.ptr[c]:C.ptr[c + 1]].astype(np.int64))
                for c in mine]


def run_focused(compiled, rng_states, start_states, target, time_limit, *, noise=0.2,
                tabu_tenure=(0, 2), weight_smoothing=0, lazy: LazyCuts | None = None, max_steps=None, share_cuts=True,
                share_interval=20_000, chunk_function=focused_chunk, chunk_seconds=0.02, pool_bytes=POOL_BYTES):
    """Drive ``chunk_function`` (:func:`~qlib.solvers.focused.kernel.focused_chunk` on the CPU cores, or the GPU backend's,
    :class:`qlib.solvers.focused.gpu.FocusedChunkGPU`) in short chunks until done, out of time or out of steps.

    Returns (state, info).  ``target`` is relative to the model's offset; the
    options come checked (:class:`~qlib.solvers.options.FocusedOptions`).  Chunks
    are sized from the measured step rate so that the clock is read every
    ``chunk_seconds``; the separation calls and appending cuts to the pool run
    here, between chunks (:class:`CutBook`); replicas take each other's cuts
    every ``share_interval`` steps when ``share_cuts`` is on.  The replicas' counters of
    the pool's cuts start within ``pool_bytes`` (:func:`pool_capacity`).  A
    ``chunk_function`` with a ``sync(R)`` method is asked to fill ``R``'s host
    arrays before the result is read.  Ctrl-C ends the search with
    ``stop_reason="interrupted"`` and the best state so far.
    """
    start = time.perf_counter()
    num_replicas, n = start_states.shape
    m = compiled.kernel_arrays()
    num_obj = compiled.num_objective_terms
    num_base = compiled.num_rows + num_obj
    tenure_min, tenure_max = (int(t) for t in tabu_tenure)
    if lazy is None:
        cut_energy, interval, weight, max_cuts, max_lits = -np.inf, 1 << 30, 1.0, 1, 1
    else:
        cut_energy, interval, weight = lazy.energy, lazy.interval, lazy.weight
        max_cuts, max_lits = pool_capacity(lazy, num_replicas, pool_bytes)
    P = num_replicas
    R = new_replicas(compiled, start_states, rng_states, max_cuts, weight_smoothing)
    R.separation_wait[:] = interval
    init_replicas(m, num_obj, R)
    p = Params(float(target), float(cut_energy), int(interval), float(noise), tenure_min,
               tenure_max - tenure_min, float(weight), int(num_obj), 0, lazy is not None,
               chunk_function is focused_chunk and P <= numba.get_num_threads())
    rows = RowVars(compiled.row_var_ptr, compiled.row_vars)
    zobrist = np.random.Generator(np.random.PCG64(int(rng_states[0]))).integers(
        1, 2**63, size=max(2 * n, 2), dtype=np.uint64)
    book = CutBook(R, new_pool(n, max_cuts, max_lits), zobrist, num_base, weight)
    if lazy is not None and lazy.cuts:   # a restart keeps the cuts found before it
        book.give_all(pack_cuts(lazy.cuts, n))
    R = book.R
    R.best_energy[:] = R.energy
    R.best_x[:] = R.x
    answers = {}
    limit_steps = (1 << 62) if max_steps is None else int(max_steps)
    sync = int(share_interval) if (lazy is not None and share_cuts and P > 1) else limit_steps
    sync_at = min(sync, limit_steps)
    # a first chunk of at most 2**16 steps in all: the clock is read before many replicas run long
    chunk, stop_reason = int(min(256, max(16, (1 << 16) // P))), None
    finish_by = np.int64(1) << 62
    separation_calls = 0
    separation_seconds = 0.0
    deadline = start + time_limit
    try:
        while stop_reason is None:
            t0 = time.perf_counter()
            before = R.steps.copy()
            end_steps = np.minimum(np.minimum(R.steps + chunk, sync_at), finish_by)
            R.halt[:, 0] = 0
            chunk_function(m, rows, p, R, book.C, book.news(), end_steps)
            elapsed = time.perf_counter() - t0
            done_steps = int((R.steps - before).max())
            for rep in np.flatnonzero(R.status == WAITING):  # replica order: deterministic
                h0 = time.perf_counter()
                if h0 >= deadline:   # thousands of replicas may wait: the clock is read between calls
                    break
                answer, cuts = lazy.separate(R.x[rep].copy(), float(R.energy[rep]) + compiled.offset)
                separation_calls += 1
                if answer is not None:
                    answers[int(rep)] = compiled.as_states(answer).copy()
                    R.status[rep] = ACCEPTED
                    continue
                added = book.give(rep, pack_cuts(cuts, n))   # the replica takes them at the next chunk's start
                R = book.R   # grown if the pool was full
                R.status[rep] = AT_TARGET if added == 0 and R.energy[rep] <= target + EPS else RUNNING
                # back off while the states met give nothing to cut; look often again once they do
                R.separation_wait[rep] = interval if added else min(2 * R.separation_wait[rep], 1 << 12)
                separation_seconds += time.perf_counter() - h0
            finished = (R.status == ACCEPTED) | (R.status == AT_TARGET)
            if finished.any():
                # The winner is the replica that finished in the fewest steps (then the lowest
                # index): the others run on until they pass that step count, whatever the chunks.
                finish_by = int(R.steps[finished].min())
                if not (R.steps[R.status == RUNNING] < finish_by).any():
                    stop_reason = "accepted" if (R.status == ACCEPTED).any() else "target_energy"
                    break
            running = R.status == RUNNING
            if running.any() and (R.steps[running] >= sync_at).all():
                if sync_at >= limit_steps:
                    stop_reason = "max_steps"
                    break
                if sync < limit_steps:
                    book.pool(running)
                    p = p._replace(fold_generation=book.generation)
                sync_at = min(sync_at + sync, limit_steps)
            now = time.perf_counter()
            if now >= deadline:
                stop_reason = "time_limit"
                break
            # next chunk: about chunk_seconds of steps, and never past the deadline
            if done_steps >= chunk // 2:   # a chunk cut short by a pause says little about the speed
                rate = done_steps / max(elapsed, 1e-6)
                chunk = int(max(64, min(rate * min(chunk_seconds, deadline - now), 4 * chunk, 1 << 24)))
    except KeyboardInterrupt:
        stop_reason = "interrupted"
    fetch = getattr(chunk_function, "sync", None)
    if fetch is not None:   # the GPU's chunk runner brings back what only the kernel wrote
        fetch(R)
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
    cuts = book.taken(rep)
    info = dict(algorithm="focused", num_replicas=P, noise=noise, tabu_tenure=(tenure_min, tenure_max),
                weight_smoothing=weight_smoothing, weight_raises=int(R.raises[:, 0].sum()),
                flips=int(R.steps.sum()), steps_of_winner=int(R.steps[rep]), replica=rep,
                stop_reason=as_stop_reason(stop_reason, SOLVER),
                cuts=cuts, num_cuts=len(cuts), pool_cuts=int(book.C.count[0]),
                separation_calls=separation_calls,
                separation_seconds=separation_seconds,
                replica_states=R.best_x.copy())
    if done:
        info["replica_states"][rep] = state
    info["replica_energies"] = model_energies(m, info["replica_states"], R) + compiled.offset
    return state, info


def warmup_cuts(compiled, chunk_function=focused_chunk) -> None:
    """Compile (or load) the lazy-cut kernels: appending cuts to the pool, taking them (a restart's cuts
    too), and ``chunk_function``'s.

    A solve with lazy cuts would otherwise compile them at its first cut or
    first pooling, inside its time limit.
    """
    n = compiled.var_count

    def separate(state, energy):   # cut every state met, so the replicas pool cuts until max_steps
        return None, [(np.arange(n), 1 - np.asarray(state[:n], dtype=np.int64))]
    rng = np.arange(1, 3, dtype=np.uint64)
    start = np.zeros((2, n), dtype=np.uint8)
    kept = [(np.arange(n), np.ones(n, dtype=np.int64))]   # a restart's cut: every replica takes it first
    run_focused(compiled, rng, start, 0.0, 5.0, lazy=LazyCuts(separate, energy=np.inf, interval=1, cuts=kept),
                max_steps=64, share_interval=1, chunk_function=chunk_function)
