"""Driving the exact kernels of :mod:`.lines` in budgets of work, with the clock read between them."""

from __future__ import annotations

import time

import numpy as np

from . import lines, placements
from .puzzle import BLACK, WHITE, Nonogram

#: A kernel stopped because the deadline passed (it can go on later).
TIME_UP = 5

#: The seconds of work one chunk aims at: the clock is read this often.
CHUNK_SECONDS = 0.01


class Engine:
    """One exact search over a puzzle (:class:`lines.Work <.lines.Work>`): :meth:`presolve` (propagation,
    then probing), then :meth:`backtrack`, resumable, each in chunks of work between clock
    reads.  The kernels' state never depends on where a chunk ended, so what a search
    finds depends on the work budgets only, not on the clock (unless the deadline stops it)."""

    def __init__(self, puzzle: Nonogram, grid=None):
        self.puzzle = puzzle
        self.clues = lines.flatten(puzzle.rows, puzzle.columns)
        self.work = lines.new_work(self.clues, grid)
        self.chunk = 16   # grows fourfold a chunk while the measured speed allows: a line of a large
                          # puzzle can take a millisecond, so a large first chunk would overrun the limit

    @property
    def work_done(self) -> int:
        """Line solves so far (the unit of every budget)."""
        return int(self.work.stat[lines.WORK])

    @property
    def nodes(self) -> int:
        """Branches taken by :meth:`backtrack` so far."""
        return int(self.work.stat[lines.NODES])

    @property
    def undecided(self) -> int:
        """How many cells are still undecided."""
        return int(self.work.stat[lines.UNKNOWN])

    def cells(self) -> np.ndarray:
        """The current grid: -1 undecided, 0 white, 1 black, shape (height, width)."""
        return self.work.grid.reshape(self.clues.height, self.clues.width).copy()

    def grid(self) -> tuple[str, ...]:
        """The current grid (every cell decided) as rows of '#' and '.'."""
        return tuple("".join(BLACK if v == 1 else WHITE for v in row) for row in self.cells())

    def _run(self, kernel, deadline: float, limit: int = lines.UNLIMITED) -> int:
        """Call ``kernel(budget)`` in chunks until it returns something other than PAUSED
        (returned), the work counter reaches ``limit`` (PAUSED) or ``deadline`` passes (TIME_UP)."""
        while True:
            before = self.work_done
            target = min(before + self.chunk, limit)
            t0 = time.perf_counter()
            status = kernel(target)
            now = time.perf_counter()
            if status != lines.PAUSED:
                return status
            if self.work_done >= limit:
                return lines.PAUSED
            if now >= deadline:
                return TIME_UP
            done = self.work_done - before
            if done >= self.chunk // 2:   # a chunk cut short says little about the speed
                rate = done / max(now - t0, 1e-6)
                self.chunk = int(max(16, min(rate * min(CHUNK_SECONDS, deadline - now), 4 * self.chunk)))

    def presolve(self, deadline: float, probing: bool = True, limit: int = lines.UNLIMITED) -> int:
        """Propagate, then (``probing``) probe to the fixed point: OK, CONTRADICTION (a proof
        that the puzzle has no answer), PAUSED (the work counter reached ``limit``; call again
        to go on) or TIME_UP."""
        c, wk = self.clues, self.work
        status = self._run(lambda budget: lines.propagate(c, wk, budget), deadline, limit)
        if status == lines.OK and probing and self.undecided:
            status = self._run(lambda budget: lines.probe(c, wk, budget), deadline, limit)
            if status == lines.OK:   # the last probing round scored every open cell: branch at once
                wk.stat[lines.PHASE] = lines.BRANCH
        return status

    def backtrack(self, deadline: float, limit: int = lines.UNLIMITED, probing: bool = True) -> int:
        """Go on with the depth-first search: FOUND (the grid is :meth:`grid`; call again for the
        next answer), EXHAUSTED (no more answers), PAUSED (``limit`` reached) or TIME_UP."""
        c, wk = self.clues, self.work
        return self._run(lambda budget: lines.dfs(c, wk, budget, probing), deadline, limit)


_WARM = []


def warmup() -> float:
    """Compile (or load from numba's cache) every kernel of :mod:`.lines`; seconds (0 once warm)."""
    if _WARM:
        return 0.0
    start = time.perf_counter()
    tiny = Nonogram(((1,), (1,)), ((1,), (1,)))
    deadline = time.perf_counter() + 3600.0
    for probing in (True, False):
        engine = Engine(tiny)
        engine.presolve(deadline, probing=probing)
        while engine.backtrack(deadline, probing=probing) == lines.FOUND:
            pass
    placements.block_ranges(engine.clues, engine.work.grid.copy(), engine.work,
                       np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64))
    _WARM.append(time.perf_counter() - start)
    return _WARM[0]
