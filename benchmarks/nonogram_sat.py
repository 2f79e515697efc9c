"""An exact Nonogram solver through SAT (CaDiCaL, via ``pysat``): the bench's reference row.

As :mod:`qlib.puzzles.slitherlink.exact` does for Slitherlink, this solves a
puzzle with a method independent of qlib's annealing (and of the line solver of
:func:`qlib.puzzles.nonogram.count_solutions`), so that the bench can report
how far each solver is from an exact one on the same board.

Encoding (the standard "block start" encoding): one boolean per cell,
``x[i][j]`` black; for every line and every block ``b`` of its clue, one
boolean ``s[b][p]`` per start ``p`` the block can take (between its leftmost
and rightmost packing: ``slack + 1`` starts).  Clauses, per line:

* each block starts exactly once (one "at least one" clause, pairwise "at most one");
* order: ``s[b][p] -> OR(s[b+1][q] for q >= p + len(b) + 1)`` (a gap of at least one white cell);
* cover: ``s[b][p] -> x`` for the ``len(b)`` cells the block covers, and ``x -> OR(s[b][p]
  covering x)``: a black cell lies in some block of its row and of its column.

An all-white line (clue ``()``) gives the unit clauses ``-x``.  Every model is
a grid that meets every clue, and every such grid is a model.

Needs ``python-sat`` (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from qlib.puzzles import nonogram

__all__ = ["SatResult", "solve_sat", "count_sat", "encode", "solver_name"]

#: pysat solver classes, newest first (the same choice as qlib.puzzles.slitherlink.exact).
_SOLVERS = ("Cadical300", "Cadical195", "Cadical153")
#: Conflicts per solver slice between two looks at the clock.
_CONFLICTS = 5_000


def _solver_class():
    try:
        from pysat import solvers
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the Nonogram SAT reference needs python-sat: pip install -e '.[bench]'") from exc
    for name in _SOLVERS:
        cls = getattr(solvers, name, None)
        if cls is not None:
            return cls
    raise ImportError(f"the installed python-sat has none of {', '.join(_SOLVERS)}")


def solver_name() -> str:
    """The pysat CaDiCaL class used (e.g. ``"Cadical195"``)."""
    return _solver_class().__name__


@dataclass(frozen=True, eq=False)
class SatResult:
    """What :func:`solve_sat` found.

    ``status``: "solved" (``grid`` meets every clue), "unsat" (proved: no grid
    does) or "time_limit" (``grid`` is None).  ``grid`` is a tuple of '#'/'.'
    row strings like :func:`qlib.puzzles.nonogram.solve`'s; ``seconds`` the wall
    time (encoding included), ``variables`` and ``clauses`` the CNF's size.
    """

    status: str
    grid: tuple[str, ...] | None
    seconds: float
    variables: int
    clauses: int

    @property
    def solved(self) -> bool:
        return self.status == "solved"


def _check_time_limit(time_limit) -> float:
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or \
            not (time_limit > 0 and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a positive finite number of seconds, got {time_limit!r}")
    return float(time_limit)


def _line(clauses: list, new_var, cells: list[int], clue) -> None:
    """The clauses of one line: ``cells`` are the cell variables in order, ``clue`` its blocks."""
    n = len(cells)
    if not clue:
        clauses.extend([-x] for x in cells)
        return
    slack = nonogram.line_slack(clue, n)
    if slack < 0:
        clauses.append([])  # the clue does not fit: no model
        return
    lefts = nonogram.packed_starts(clue)
    starts = []  # starts[b] = [(p, var), ...]
    for b, length in enumerate(clue):
        row = [(p, new_var()) for p in range(lefts[b], lefts[b] + slack + 1)]
        starts.append(row)
        lits = [v for _, v in row]
        clauses.append(lits)                                               # at least one start
        clauses.extend([-a, -c] for k, a in enumerate(lits) for c in lits[k + 1:])   # at most one
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


def encode(puzzle) -> tuple[int, list[list[int]], list[list[int]]]:
    """``(variables, clauses, cell_vars)``: the CNF of ``puzzle``; ``cell_vars[i][j]`` is the
    variable of cell ``(i, j)`` (true: black)."""
    puzzle = nonogram.parse(puzzle)
    h, w = puzzle.height, puzzle.width
    cell = [[i * w + j + 1 for j in range(w)] for i in range(h)]
    top = [h * w]

    def new_var():
        top[0] += 1
        return top[0]

    clauses: list[list[int]] = []
    for i, clue in enumerate(puzzle.rows):
        _line(clauses, new_var, cell[i], clue)
    for j, clue in enumerate(puzzle.columns):
        _line(clauses, new_var, [cell[i][j] for i in range(h)], clue)
    return top[0], clauses, cell


class _Search:
    def __init__(self, puzzle):
        self.puzzle = nonogram.parse(puzzle)
        self.variables, clauses, self.cell = encode(self.puzzle)
        self.clauses = len(clauses)
        self.solver = _solver_class()(bootstrap_with=clauses)

    def close(self):
        self.solver.delete()

    def next_grid(self, deadline):
        """("solved", grid), ("unsat", None) or ("time_limit", None)."""
        while True:
            if time.perf_counter() >= deadline:
                return "time_limit", None
            self.solver.conf_budget(_CONFLICTS)
            res = self.solver.solve_limited()
            if res is None:
                continue
            if not res:
                return "unsat", None
            model = self.solver.get_model()
            true = {v for v in model if v > 0}
            grid = tuple("".join(nonogram.BLACK if v in true else nonogram.WHITE for v in row) for row in self.cell)
            return "solved", grid

    def block(self, grid):
        """Forbid ``grid``: some cell must differ."""
        self.solver.add_clause([-v if c == nonogram.BLACK else v
                                for row, cells in zip(self.cell, grid) for v, c in zip(row, cells)])


def solve_sat(puzzle, *, time_limit: float = 60.0) -> SatResult:
    """A grid meeting every clue of ``puzzle`` (anything :func:`nonogram.parse` reads), or a proof
    that none exists; stops with status "time_limit" after ``time_limit`` seconds."""
    t0 = time.perf_counter()
    deadline = t0 + _check_time_limit(time_limit)
    search = _Search(puzzle)
    try:
        status, grid = search.next_grid(deadline)
    finally:
        search.close()
    return SatResult(status, grid, time.perf_counter() - t0, search.variables, search.clauses)


def count_sat(puzzle, limit: int = 2, time_limit: float = 60.0):
    """Count the grids meeting the clues, up to ``limit``, as :func:`nonogram.count_solutions` does.

    Returns ``(count, status, grids)``: status "exact" (all ``count`` answers found),
    "limit" (``limit`` found: at least that many exist) or "time_limit".
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    deadline = time.perf_counter() + _check_time_limit(time_limit)
    search = _Search(puzzle)
    grids = []
    try:
        while True:
            status, grid = search.next_grid(deadline)
            if status == "unsat":
                return len(grids), "exact", grids
            if status == "time_limit":
                return len(grids), "time_limit", grids
            grids.append(grid)
            if len(grids) >= limit:
                return len(grids), "limit", grids
            search.block(grid)
    finally:
        search.close()
