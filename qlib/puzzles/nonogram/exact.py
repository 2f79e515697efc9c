"""An exact Nonogram solver through SAT (CaDiCaL, via ``pysat``): the complete search of the default.

:func:`~qlib.puzzles.nonogram.solve` runs it beside the domain-wall search
(``complete="sat"``), after propagation, in budgets of conflicts that double
every round; the bench's reference row runs it alone on the raw puzzle.

Encoding (the standard "block start" encoding): one boolean per cell,
``x[i][j]`` black; for every line and every block ``b`` of its clue, one
boolean ``s[b][p]`` per start ``p`` the block can take (between its leftmost
and rightmost packing: ``slack + 1`` starts).  Clauses, per line:

* each block starts exactly once (one "at least one" clause; "at most one" pairwise for up to
  ``_PAIRWISE`` starts, else by a sequential counter, which keeps a 100 x 100 puzzle's CNF small);
* order: ``s[b][p] -> OR(s[b+1][q] for q >= p + len(b) + 1)`` (a gap of at least one white cell);
* cover: ``s[b][p] -> x`` for the ``len(b)`` cells the block covers, and ``x -> OR(s[b][p]
  covering x)``: a black cell lies in some block of its row and of its column.

An all-white line (clue ``()``) gives the unit clauses ``-x``.  Every model is
a grid that meets every clue, and every such grid is a model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ... import validate
from ..clock import TimeUp, check
from ..count import Count
from ..sat import solve_slice, solver_class, solver_name
from .parsing import parse
from .puzzle import BLACK, WHITE, line_slack, packed_starts

__all__ = ["ExactResult", "SatSearch", "encode", "solve_exact", "count_exact", "solver_name"]

#: Conflicts per solver slice between two looks at the clock.
_CONFLICTS = 2_000
#: The first slice's expected seconds, in multiples of the seconds loading the clauses took.
_FIRST_SLICE = 5.0
#: Starts up to which "at most one start" is pairwise (more: a sequential counter, 3 clauses per start).
_PAIRWISE = 6


def _at_most_one(clauses: list, new_var, lits: list[int]) -> None:
    if len(lits) <= _PAIRWISE:
        clauses.extend([-a, -c] for k, a in enumerate(lits) for c in lits[k + 1:])
        return
    prev = None   # prev: "some start so far is true"
    for k, x in enumerate(lits):
        if prev is not None:
            clauses.append([-x, -prev])
        if k < len(lits) - 1:
            cur = new_var()
            clauses.append([-x, cur])
            if prev is not None:
                clauses.append([-prev, cur])
            prev = cur


#: A work budget with no limit (:meth:`SatSearch.next_grid`).
_NO_LIMIT = 1 << 62


@dataclass(frozen=True, eq=False)
class ExactResult:
    """What :func:`solve_exact` found.

    ``status``: "solved" (``grid`` meets every clue), "unsat" (proved: no grid
    does), "time_limit" or "interrupted" (``grid`` is None).  ``grid`` is a tuple
    of '#'/'.' row strings like :func:`~qlib.puzzles.nonogram.solve`'s;
    ``seconds`` the wall time (encoding included), ``variables`` and ``clauses``
    the CNF's size.
    """

    status: str
    grid: tuple[str, ...] | None
    seconds: float
    variables: int
    clauses: int

    @property
    def solved(self) -> bool:
        """Whether a grid was found."""
        return self.status == "solved"


def _line(clauses: list, new_var, cells: list[int], clue) -> None:
    """The clauses of one line: ``cells`` are the cell variables in order, ``clue`` its blocks."""
    n = len(cells)
    if not clue:
        clauses.extend([-x] for x in cells)
        return
    slack = line_slack(clue, n)
    if slack < 0:
        clauses.append([])  # the clue does not fit: no model
        return
    lefts = packed_starts(clue)
    starts = []  # starts[b] = [(p, var), ...]
    for b in range(len(clue)):
        row = [(p, new_var()) for p in range(lefts[b], lefts[b] + slack + 1)]
        starts.append(row)
        lits = [v for _, v in row]
        clauses.append(lits)                                               # at least one start
        _at_most_one(clauses, new_var, lits)
    for b in range(len(clue) - 1):                                         # order, with a gap
        for p, v in starts[b]:
            clauses.append([-v] + [w for q, w in starts[b + 1] if q >= p + clue[b] + 1])
    covering: list[list[int]] = [[] for _ in range(n)]
    for b, length in enumerate(clue):
        for p, v in starts[b]:
            for i in range(p, p + length):
                clauses.append([-v, cells[i]])                             # the block's cells are black
                covering[i].append(v)
    for i in range(n):
        clauses.append([-cells[i]] + covering[i])                          # a black cell is in a block


def encode(puzzle, known=None, deadline: float = float("inf")) -> tuple[int, list[list[int]], list[list[int]]]:
    """``(variables, clauses, cell_vars)``: the CNF of ``puzzle``; ``cell_vars[i][j]`` is the
    variable of cell ``(i, j)`` (true: black).  ``known`` (cells in row-major order: -1 open,
    0 white, 1 black, as propagation leaves them) adds a unit clause per decided cell.  Raises
    :class:`~qlib.puzzles.clock.TimeUp` once ``deadline`` (``time.perf_counter()`` seconds) has passed."""
    puzzle = parse(puzzle)
    h, w = puzzle.height, puzzle.width
    cell = [[i * w + j + 1 for j in range(w)] for i in range(h)]
    top = [h * w]

    def new_var():
        top[0] += 1
        return top[0]

    clauses: list[list[int]] = []
    for i, clue in enumerate(puzzle.rows):
        _line(clauses, new_var, cell[i], clue)
        check(deadline)
    for j, clue in enumerate(puzzle.columns):
        _line(clauses, new_var, [cell[i][j] for i in range(h)], clue)
        check(deadline)
    if known is not None:
        known = np.asarray(known).reshape(-1)
        clauses.extend([k + 1 if known[k] == 1 else -(k + 1)] for k in np.flatnonzero(known >= 0).tolist())
    return top[0], clauses, cell


class SatSearch:
    """One puzzle's incremental SAT search, resumable in budgets of conflicts (:meth:`advance`) so that
    it can take turns with another search; :meth:`block` forbids a grid found, to look for another."""

    def __init__(self, puzzle, known=None, deadline: float = float("inf")):
        self.puzzle = parse(puzzle)
        self.variables, clauses, self.cell = encode(self.puzzle, known, deadline)   # TimeUp past the deadline
        self.clauses = len(clauses)
        t0 = time.perf_counter()
        self.solver = solver_class()(bootstrap_with=clauses)
        self.work = 0   # conflicts so far (at least 1 per slice)
        # the next slice's expected seconds: the last slice's; the first slice, which also sets CaDiCaL up,
        # took about 5 times as long as loading the clauses (2.8 s after 0.56 s on a random 100x100)
        self._slice_seconds = _FIRST_SLICE * (time.perf_counter() - t0)

    def close(self):
        """Free the SAT solver."""
        self.solver.delete()

    def advance(self, work_stop: int, deadline: float):
        """Go on until ``self.work`` reaches ``work_stop``, the deadline passes or the search ends:
        ("solved", grid), ("unsat", None) or ("running", None).  Work counts conflicts, not seconds,
        so the same call gives the same answer under any load."""
        while True:
            now = time.perf_counter()
            # a slice is not cut mid-way: none starts that the last one says would end past the deadline
            if self.work >= work_stop or now + self._slice_seconds >= deadline:
                return "running", None
            before = self.solver.accum_stats().get("conflicts", 0)
            res = solve_slice(self.solver, min(_CONFLICTS, max(1, work_stop - self.work)))
            self.work += max(1, self.solver.accum_stats().get("conflicts", 0) - before)
            self._slice_seconds = time.perf_counter() - now
            if res is None:
                continue
            if not res:
                return "unsat", None
            true = {v for v in self.solver.get_model() if v > 0}
            return "solved", tuple("".join(BLACK if v in true else WHITE for v in row) for row in self.cell)

    def fix(self, known, before=None):
        """Add a unit clause for every cell decided in ``known`` (row-major: -1 open, 0 white,
        1 black) and open in ``before``."""
        known = np.asarray(known).reshape(-1)
        new = known >= 0 if before is None else (known >= 0) & (np.asarray(before).reshape(-1) < 0)
        for k in np.flatnonzero(new).tolist():
            self.solver.add_clause([k + 1 if known[k] == 1 else -(k + 1)])

    def next_grid(self, deadline):
        """("solved", grid), ("unsat", None) or ("time_limit", None)."""
        status, grid = self.advance(_NO_LIMIT, deadline)
        return ("time_limit" if status == "running" else status), grid

    def block(self, grid):
        """Forbid ``grid``: some cell must differ."""
        self.solver.add_clause([-v if c == BLACK else v
                                for row, cells in zip(self.cell, grid) for v, c in zip(row, cells)])


def solve_exact(puzzle, *, time_limit: float = 60.0) -> ExactResult:
    """A grid meeting every clue of ``puzzle`` (anything :func:`~qlib.puzzles.nonogram.parse` reads), or a
    proof that none exists; status "time_limit" after ``time_limit`` seconds, "interrupted" on Ctrl-C."""
    t0 = time.perf_counter()
    deadline = t0 + validate.time_limit(time_limit)
    try:
        search = SatSearch(puzzle, deadline=deadline)
    except TimeUp:   # encoding took the time
        return ExactResult("time_limit", None, time.perf_counter() - t0, 0, 0)
    try:
        status, grid = search.next_grid(deadline)
    except KeyboardInterrupt:
        status, grid = "interrupted", None
    finally:
        search.close()
    return ExactResult(status, grid, time.perf_counter() - t0, search.variables, search.clauses)


def count_exact(puzzle, limit: int = 2, time_limit: float = 60.0) -> Count:
    """Count the grids meeting the clues, up to ``limit``, as :func:`~qlib.puzzles.nonogram.count_solutions`
    does: a :class:`~qlib.puzzles.count.Count`, ``(count, status, grids)`` with status "exact" (all
    ``count`` answers found), "limit" (``limit`` found: at least that many exist) or "unknown" (stop
    reason "time_limit" or "interrupted": ``count`` is a lower bound)."""
    limit = validate.integer("limit", limit, minimum=1)
    start = time.perf_counter()
    deadline = start + validate.time_limit(time_limit)
    grids = []

    def count(stop):
        return Count(grids, limit=limit, stop_reason=stop, seconds=time.perf_counter() - start)
    try:
        search = SatSearch(puzzle, deadline=deadline)
    except TimeUp:
        return count("time_limit")
    try:
        while True:
            status, grid = search.next_grid(deadline)
            if status == "unsat":
                return count("exhausted")
            if status == "time_limit":
                return count("time_limit")
            grids.append(grid)
            if len(grids) >= limit:
                return count("limit")
            search.block(grid)
    except KeyboardInterrupt:
        return count("interrupted")
    finally:
        search.close()
