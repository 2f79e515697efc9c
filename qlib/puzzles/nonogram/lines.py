"""The exact engine: line solving, propagation, probing and backtracking, compiled with numba.

A grid is one ``int8`` per cell, row by row: -1 undecided, 0 white, 1 black.
Line ``l`` is row ``l`` for ``l < height`` and column ``l - height`` after that.

* **Line solving** (``_solve_line``) settles the cells of one line on which
  every placement of its clue that agrees with the decided cells agrees.  A
  placement is a path through states ``(i, k)``: the first ``i`` cells are
  settled with ``k`` blocks placed and cell ``i`` may start a block; a forward
  and a backward reachability pass (:mod:`.placements`) mark every cell some full
  placement makes white or black.  Only states inside each block's band (between
  its left- and right-packed places) are visited: O(blocks x slack) per line.
* **Propagation** (``_propagate``) line-solves the lines in a queue until
  none changes; a line is queued again when a cell of it is decided.
* **Probing** (:func:`probe`) tries each undecided cell black and white and
  propagates each: a value that leads to a contradiction is impossible, so the
  cell takes the other one; cells both tries decide alike are decided too.
  Every deduction is sound: a cell decided here has that colour in every answer.
  A probe that decided nothing is not repeated while none of the lines its tries
  solved has changed: the tries would go exactly as before (a line solve reads
  its own line only), so the fixed point is the same, reached with less work.
* **Backtracking** (:func:`dfs`) branches on an undecided cell, in depth-first
  order, with propagation at every node and, by default, probing too: it then
  branches on the cell whose weaker colour decides the most cells, the stronger
  colour first (without probing: the cell whose row and column placements agree
  most on a colour, that colour first).  It is resumable: all of its state lives
  in :class:`Work`, so a caller runs it in budgets of *work* (line solves,
  deterministic) and reads the clock between them.

Clues are checked and flattened in Python (:func:`flatten`) first; the kernels trust their input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from . import placements

# Work.stat slots
TLEN, UNKNOWN, QHEAD, QCOUNT, WORK, DEPTH, PHASE, PROBE_POS, PROBE_QUIET, NODES, EPOCH, CLOCK = range(12)
STAT_SIZE = 12

# results of the kernels
OK, CONTRADICTION, PAUSED, FOUND, EXHAUSTED = 0, 1, 2, 3, 4

# DFS phases
PROPAGATE, PROBING, BRANCH, BACKTRACK, DONE = 0, 1, 2, 3, 4

#: no budget: run to the end
UNLIMITED = 1 << 62

#: The most bytes probing's memory of quiet probes (``Work.quiet_lines``, a byte per cell and line) may
#: take; a larger puzzle probes every cell every round (about 200 x 200 cells and up).
QUIET_BYTES = 1 << 24


class Clues(NamedTuple):
    """A puzzle's clues as plain arrays: line ``l``'s block lengths are
    ``lengths[starts[l]:starts[l + 1]]`` (rows first, then columns)."""

    height: int
    width: int
    starts: np.ndarray   # int64, height + width + 1
    lengths: np.ndarray  # int64


class Work(NamedTuple):
    """Everything a search keeps between two kernel calls, and the kernels' scratch space."""

    grid: np.ndarray      # int8 [cells]
    trail: np.ndarray     # int64 [cells]: the cells decided, in order (undone by popping)
    stat: np.ndarray      # int64 [STAT_SIZE]: the counters named above
    queue: np.ndarray     # int64 [lines]: a ring of lines to line-solve
    inq: np.ndarray       # uint8 [lines]: 1 while a line is in the ring
    dec_cell: np.ndarray  # int64 [cells + 1]: the branching cell of each depth
    dec_val: np.ndarray   # int8 [cells + 1]: the colour tried first
    dec_tlen: np.ndarray  # int64 [cells + 1]: the trail's length before the branch
    dec_flag: np.ndarray  # int8 [cells + 1]: 1 once the second colour is being tried
    cells: np.ndarray     # int8 [longest line]: one line's cells
    wpre: np.ndarray      # int64 [longest + 1]: white cells before each position
    fw: np.ndarray        # uint8 [(most blocks + 1) * (longest + 1)]: forward reachability
    bw: np.ndarray        # uint8: backward reachability
    canw: np.ndarray      # uint8 [longest]: some placement makes the cell white
    cover: np.ndarray     # int64 [longest + 1]: difference array of black placements
    fwc: np.ndarray       # float64: forward placement counts
    bwc: np.ndarray       # float64: backward placement counts
    pblack: np.ndarray    # float64 [cells]: the share of its row's placements that make a cell black
    pcol: np.ndarray      # float64 [cells]: the same from its column
    coverf: np.ndarray    # float64 [longest + 1]: difference array of placement counts
    mark: np.ndarray      # int8 [cells]: probing: colour the black try gave a cell (-1: none)
    tried: np.ndarray     # int64 [cells]: probing: the cells the black try decided
    fix_cell: np.ndarray  # int64 [cells]: probing: cells to decide
    fix_val: np.ndarray   # int8 [cells]
    band_lo: np.ndarray   # int64 [most blocks + 1]: line states' bands (see placements.bands)
    band_hi: np.ndarray   # int64 [most blocks + 1]
    score: np.ndarray     # float64 [cells]: probing: how much deciding the cell decides (either colour)
    better: np.ndarray    # int8 [cells]: probing: the colour that decides more
    line_stamp: np.ndarray   # int64 [lines]: probing: the CLOCK of the line's last decided cell
    quiet_stamp: np.ndarray  # int64 [cells]: probing: the CLOCK of the cell's last quiet probe ...
    quiet_epoch: np.ndarray  # int64 [cells]: ... and its EPOCH (a quiet probe counts in its epoch only)
    quiet_lines: np.ndarray  # uint8 [cells, lines]: probing: the lines the tries of that probe solved
                             # ([0, lines], no memory of quiet probes, past QUIET_BYTES)


def flatten(rows, columns) -> Clues:
    """The clues (sequences of positive ints, already validated) as :class:`Clues`."""
    lines = list(rows) + list(columns)
    starts = np.zeros(len(lines) + 1, dtype=np.int64)
    for l, clue in enumerate(lines):
        starts[l + 1] = starts[l] + len(clue)
    lengths = np.array([int(r) for clue in lines for r in clue], dtype=np.int64)
    return Clues(len(rows), len(columns), starts, lengths)


def new_work(clues: Clues, grid=None) -> Work:
    """Fresh search state for ``clues``: every cell undecided (or ``grid``'s cells), every line queued."""
    h, w = clues.height, clues.width
    n_cells, n_lines = h * w, h + w
    longest = max(h, w)
    most = int(np.diff(clues.starts).max()) if n_lines else 0
    states = (longest + 1) * (most + 1)
    work = Work(
        grid=np.full(n_cells, -1, dtype=np.int8), trail=np.zeros(n_cells, dtype=np.int64),
        stat=np.zeros(STAT_SIZE, dtype=np.int64), queue=np.zeros(n_lines, dtype=np.int64),
        inq=np.zeros(n_lines, dtype=np.uint8), dec_cell=np.zeros(n_cells + 1, dtype=np.int64),
        dec_val=np.zeros(n_cells + 1, dtype=np.int8), dec_tlen=np.zeros(n_cells + 1, dtype=np.int64),
        dec_flag=np.zeros(n_cells + 1, dtype=np.int8), cells=np.zeros(longest, dtype=np.int8),
        wpre=np.zeros(longest + 1, dtype=np.int64), fw=np.zeros(states, dtype=np.uint8),
        bw=np.zeros(states, dtype=np.uint8), canw=np.zeros(longest, dtype=np.uint8),
        cover=np.zeros(longest + 1, dtype=np.int64), fwc=np.zeros(states), bwc=np.zeros(states),
        pblack=np.zeros(n_cells), pcol=np.zeros(n_cells), coverf=np.zeros(longest + 1),
        mark=np.full(n_cells, -1, dtype=np.int8), tried=np.zeros(n_cells, dtype=np.int64),
        fix_cell=np.zeros(n_cells, dtype=np.int64), fix_val=np.zeros(n_cells, dtype=np.int8), band_lo=np.zeros(most + 1, dtype=np.int64),
        band_hi=np.zeros(most + 1, dtype=np.int64), score=np.zeros(n_cells),
        better=np.zeros(n_cells, dtype=np.int8), line_stamp=np.zeros(n_lines, dtype=np.int64),
        quiet_stamp=np.zeros(n_cells, dtype=np.int64), quiet_epoch=np.full(n_cells, -1, dtype=np.int64),
        quiet_lines=np.zeros((n_cells if n_cells * n_lines <= QUIET_BYTES else 0, n_lines), dtype=np.uint8),
    )
    work.stat[UNKNOWN] = n_cells
    if grid is not None:
        _load(work, np.asarray(grid, dtype=np.int8).ravel())
    _queue_all(work)
    return work


# -- kernels ---------------------------------------------------------------------
@njit(cache=True)
def _load(wk, grid):
    for cell in range(grid.size):
        if grid[cell] >= 0:
            _set(wk, cell, grid[cell])


@njit(cache=True)
def _queue_all(wk):
    for l in range(wk.inq.size):
        _push(wk, l)


@njit(cache=True, inline="always")
def _push(wk, l):
    if wk.inq[l] == 0:
        n = wk.queue.size
        wk.inq[l] = 1
        wk.queue[(wk.stat[QHEAD] + wk.stat[QCOUNT]) % n] = l
        wk.stat[QCOUNT] += 1


@njit(cache=True)
def _clear_queue(wk):
    n = wk.queue.size
    for q in range(wk.stat[QCOUNT]):
        wk.inq[wk.queue[(wk.stat[QHEAD] + q) % n]] = 0
    wk.stat[QHEAD] = 0
    wk.stat[QCOUNT] = 0


@njit(cache=True, inline="always")
def _set(wk, cell, value):
    wk.grid[cell] = value
    wk.trail[wk.stat[TLEN]] = cell
    wk.stat[TLEN] += 1
    wk.stat[UNKNOWN] -= 1


@njit(cache=True, inline="always")
def _decide(c, wk, cell, value):
    """Decide one cell and queue its row and column."""
    _set(wk, cell, value)
    _push(wk, cell // c.width)
    _push(wk, c.height + cell % c.width)


@njit(cache=True, inline="always")
def _undo(wk, tlen):
    while wk.stat[TLEN] > tlen:
        wk.stat[TLEN] -= 1
        wk.grid[wk.trail[wk.stat[TLEN]]] = -1
        wk.stat[UNKNOWN] += 1


@njit(cache=True)
def _solve_line(c, wk, l):
    """Line-solve line ``l`` in place: -1 if no placement fits, else the number of cells decided."""
    n, base, step, b0, m = placements.gather(c, wk, l)
    if not placements.reach(c, wk, n, b0, m):
        return -1
    cells, fw, bw, canw, cover, lo, hi = wk.cells, wk.fw, wk.bw, wk.canw, wk.cover, wk.band_lo, wk.band_hi
    wpre, blocks = wk.wpre, c.lengths[b0:b0 + m]
    N1 = n + 1
    for p in range(n + 1):
        cover[p] = 0
    for p in range(n):
        canw[p] = 0
    for k in range(m + 1):
        for i in range(lo[k], hi[k] + 1):
            s = k * N1 + i
            if fw[s] == 0:
                continue
            if i < hi[k] and cells[i] != 1 and bw[s + 1]:
                canw[i] = 1
            if k < m and placements.lands(blocks, wpre, cells, hi, bw, n, k, i):
                e = i + blocks[k]
                cover[i] += 1
                cover[e] -= 1
                if e < n:
                    canw[e] = 1
    changed = 0
    depth = 0
    row = l < c.height
    for p in range(n):
        depth += cover[p]
        if cells[p] != -1:
            continue
        value = -1
        if depth == 0:
            value = 0
        elif canw[p] == 0:
            value = 1
        if value >= 0:
            _set(wk, base + p * step, value)
            _push(wk, c.height + p if row else p)
            changed += 1
    return changed


@njit(cache=True)
def _propagate(c, wk, budget):
    """Line-solve queued lines until the queue is empty (OK), a line has no placement
    (CONTRADICTION; the queue is left as it is) or the work counter reaches ``budget`` (PAUSED)."""
    n_lines = wk.queue.size
    while wk.stat[QCOUNT] > 0:
        if wk.stat[WORK] >= budget:
            return PAUSED
        l = wk.queue[wk.stat[QHEAD]]
        wk.stat[QHEAD] = (wk.stat[QHEAD] + 1) % n_lines
        wk.stat[QCOUNT] -= 1
        wk.inq[l] = 0
        wk.stat[WORK] += 1
        if _solve_line(c, wk, l) < 0:
            return CONTRADICTION
    return OK


@njit(cache=True)
def propagate(c, wk, budget):
    """``_propagate``, as the engine calls it: OK, CONTRADICTION or PAUSED at ``budget``."""
    return _propagate(c, wk, budget)


@njit(cache=True)
def _try(c, wk, cell, value):
    """Decide ``cell`` and propagate to the end; True if no contradiction.  Undo is the caller's."""
    _decide(c, wk, cell, value)
    ok = _propagate(c, wk, UNLIMITED) == OK
    if not ok:
        _clear_queue(wk)
    return ok


@njit(cache=True)
def _probe_cell(c, wk, cell):
    """Probe one undecided cell: CONTRADICTION (neither colour fits), else OK and the
    number of cells it decided (0 when both colours fit and agree on nothing else)."""
    t0 = wk.stat[TLEN]
    black = _try(c, wk, cell, 1)
    tried = 0
    if black:
        for t in range(t0, wk.stat[TLEN]):
            q = wk.trail[t]
            wk.mark[q] = wk.grid[q]
            wk.tried[tried] = q
            tried += 1
    _undo(wk, t0)
    white = _try(c, wk, cell, 0)
    fixes = 0
    if white and black:
        nw = wk.stat[TLEN] - t0
        wk.score[cell] = float(min(tried, nw)) * 1e6 + float(max(tried, nw))
        wk.better[cell] = 1 if tried >= nw else 0
        for t in range(t0, wk.stat[TLEN]):
            q = wk.trail[t]
            if wk.mark[q] == wk.grid[q]:
                wk.fix_cell[fixes] = q
                wk.fix_val[fixes] = wk.grid[q]
                fixes += 1
        if wk.quiet_lines.shape[0]:   # the lines both tries solved: their rows and columns
            solved = wk.quiet_lines[cell]
            solved[:] = 0
            for t in range(t0, wk.stat[TLEN]):
                q = wk.trail[t]
                solved[q // c.width] = 1
                solved[c.height + q % c.width] = 1
            for t in range(tried):
                q = wk.tried[t]
                solved[q // c.width] = 1
                solved[c.height + q % c.width] = 1
    for t in range(tried):
        wk.mark[wk.tried[t]] = -1
    if white and not black:
        return OK, wk.stat[TLEN] - t0   # keep the white try: it is the only colour that fits
    _undo(wk, t0)
    if not white:
        if not black:
            return CONTRADICTION, 0
        return (OK, tried) if _try(c, wk, cell, 1) else (CONTRADICTION, 0)
    for f in range(fixes):
        if wk.grid[wk.fix_cell[f]] == -1:
            _decide(c, wk, wk.fix_cell[f], wk.fix_val[f])
    if fixes and _propagate(c, wk, UNLIMITED) != OK:
        _clear_queue(wk)
        return CONTRADICTION, 0
    return OK, fixes


@njit(cache=True)
def _still_quiet(c, wk, cell):
    """Whether ``cell``'s last probe, in this epoch, decided nothing and no line its tries solved
    has changed since: probing it again would decide nothing, and score it the same."""
    if wk.quiet_lines.shape[0] == 0 or wk.quiet_epoch[cell] != wk.stat[EPOCH]:
        return False
    since, solved = wk.quiet_stamp[cell], wk.quiet_lines[cell]
    for l in range(solved.size):
        if solved[l] and wk.line_stamp[l] > since:
            return False
    return True


@njit(cache=True)
def probe(c, wk, budget):
    """Probe undecided cells in turn, round and round, until a whole round decides nothing
    (OK), a cell fits neither colour (CONTRADICTION) or the work counter reaches ``budget``
    (PAUSED; call again to go on).  Propagation must have reached its fixed point first, and
    the grid may change between two calls only if the caller starts a new epoch (``EPOCH``)."""
    n = wk.grid.size
    while True:
        if wk.stat[UNKNOWN] == 0 or wk.stat[PROBE_QUIET] >= n:
            return OK
        if wk.stat[WORK] >= budget:
            return PAUSED
        cell = wk.stat[PROBE_POS]
        wk.stat[PROBE_POS] = (cell + 1) % n
        if wk.grid[cell] != -1 or _still_quiet(c, wk, cell):
            wk.stat[PROBE_QUIET] += 1
            continue
        t0 = wk.stat[TLEN]
        status, fixes = _probe_cell(c, wk, cell)
        if status == CONTRADICTION:
            return CONTRADICTION
        if fixes:
            wk.stat[PROBE_QUIET] = 0
            for t in range(t0, wk.stat[TLEN]):   # the cells decided for good: their lines changed
                q = wk.trail[t]
                wk.stat[CLOCK] += 1
                wk.line_stamp[q // c.width] = wk.stat[CLOCK]
                wk.line_stamp[c.height + q % c.width] = wk.stat[CLOCK]
        else:
            wk.stat[PROBE_QUIET] += 1
            wk.quiet_stamp[cell] = wk.stat[CLOCK]
            wk.quiet_epoch[cell] = wk.stat[EPOCH]


@njit(cache=True)
def _choose(c, wk):
    """The branching cell and its first colour: the undecided cell on whose colour its row's and
    its column's placements agree most (shares combined as independent odds), likelier colour first."""
    h = c.height
    for l in range(h):
        placements.line_shares(c, wk, l, wk.pblack)
    for l in range(h, h + c.width):
        placements.line_shares(c, wk, l, wk.pcol)
    best, best_cell, best_val = -1.0, -1, 1
    for cell in range(wk.grid.size):
        if wk.grid[cell] != -1:
            continue
        a, b = wk.pblack[cell], wk.pcol[cell]
        yes, no = a * b, (1.0 - a) * (1.0 - b)
        p = yes / (yes + no) if yes + no > 0 else 0.5
        score = p if p >= 0.5 else 1.0 - p
        if score > best:
            best, best_cell, best_val = score, cell, 1 if p >= 0.5 else 0
    return best_cell, best_val


@njit(cache=True)
def _choose_probed(wk):
    """After a probing round that decided nothing: the undecided cell whose weaker colour
    decides the most cells (then the stronger), and first the colour that decides more."""
    best, best_cell = -1.0, -1
    for cell in range(wk.grid.size):
        if wk.grid[cell] == -1 and wk.score[cell] > best:
            best, best_cell = wk.score[cell], cell
    return best_cell, wk.better[best_cell]


@njit(cache=True)
def dfs(c, wk, budget, probe_nodes):
    """Depth-first search from the state in ``wk`` until the work counter reaches ``budget``
    (PAUSED), a full grid is reached (FOUND: it is in ``wk.grid``; the next call goes on past
    it) or every branch is closed (EXHAUSTED).  With ``probe_nodes`` every node is probed
    to its fixed point before it branches."""
    while True:
        phase = wk.stat[PHASE]
        if phase == DONE:
            return EXHAUSTED
        if wk.stat[WORK] >= budget:
            return PAUSED
        if phase == PROPAGATE:
            status = _propagate(c, wk, budget)
            if status == PAUSED:
                return PAUSED
            if status == CONTRADICTION:
                wk.stat[PHASE] = BACKTRACK
            elif probe_nodes and wk.stat[UNKNOWN] > 0:
                wk.stat[PROBE_QUIET] = 0
                wk.stat[EPOCH] += 1   # the grid changed outside probing: no earlier quiet probe counts
                wk.stat[PHASE] = PROBING
            else:
                wk.stat[PHASE] = BRANCH
        elif phase == PROBING:
            status = probe(c, wk, budget)
            if status == PAUSED:
                return PAUSED
            wk.stat[PHASE] = BACKTRACK if status == CONTRADICTION else BRANCH
        elif phase == BRANCH:
            if wk.stat[UNKNOWN] == 0:
                wk.stat[PHASE] = BACKTRACK
                return FOUND
            if probe_nodes:
                cell, value = _choose_probed(wk)
            else:
                cell, value = _choose(c, wk)
            d = wk.stat[DEPTH]
            wk.dec_cell[d] = cell
            wk.dec_val[d] = value
            wk.dec_tlen[d] = wk.stat[TLEN]
            wk.dec_flag[d] = 0
            wk.stat[DEPTH] = d + 1
            wk.stat[NODES] += 1
            _decide(c, wk, cell, value)
            wk.stat[PHASE] = PROPAGATE
        else:   # BACKTRACK
            _clear_queue(wk)
            d = wk.stat[DEPTH]
            while d > 0 and wk.dec_flag[d - 1] == 1:
                d -= 1
            wk.stat[DEPTH] = d
            if d == 0:
                wk.stat[PHASE] = DONE
                return EXHAUSTED
            _undo(wk, wk.dec_tlen[d - 1])
            wk.dec_flag[d - 1] = 1
            wk.stat[NODES] += 1
            _decide(c, wk, wk.dec_cell[d - 1], 1 - wk.dec_val[d - 1])
            wk.stat[PHASE] = PROPAGATE
