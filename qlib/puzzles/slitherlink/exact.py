"""An exact Slitherlink solver through SAT (CaDiCaL, via ``pysat``): the reference answer.

The annealing solvers and the backtracking counter of :mod:`qlib.puzzles.slitherlink.counter`
need an independent referee: this module proves answers (and uniqueness) with
a different method, so that a bug in one shows up as a disagreement.

Encoding: one boolean per lattice edge (flat :class:`qlib.puzzles.loops.Grid`
order, variable ``e + 1`` for edge ``e``).  Direct clauses say that every clue
cell has exactly ``n`` sides drawn, that every lattice point has degree 0 or 2
and that some edge is drawn.  "Exactly one loop" is global, so it is added
lazily: the model is split into loops; one loop is an answer; otherwise every
loop that is not an answer on its own gets the clause "not all of these edges"
(no single loop other than the loop itself contains all of a loop's edges) and
the incremental solver is called again.

Needs the ``python-sat`` package, one of qlib's dependencies.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from ... import validate
from ..count import Count, StopReason
from ..loops import loop_satisfies_clues, split_loops
from ..sat import solve_slice, solver_class, solver_name
from .board import parse

__all__ = ["ExactResult", "SatSearch", "solve_exact", "count_exact", "solver_name"]

#: Conflicts per solver slice between two looks at the clock (about 5-50 ms on 10x10 to 50x50).
_CONFLICTS = 1_000
#: The work :meth:`SatSearch.advance` counts for one SAT call and its loop clauses, in conflicts
#: (a call costs about as much as 20 conflicts here).
ITERATION_WORK = 20
_NO_LIMIT = 1 << 62


@dataclass(frozen=True, eq=False)
class ExactResult:
    """What :func:`solve_exact` found.

    ``status``: "solved" (``mask`` is a single-loop answer), "unsat" (proved:
    no single-loop answer exists), "time_limit" or "interrupted" (stopped
    first, by the clock or a Ctrl-C; ``mask`` is None).  ``mask`` is a uint8
    edge mask in the flat edge order, ``seconds`` the wall time,
    ``iterations`` the number of SAT calls, ``loop_clauses`` the number of
    lazy loop clauses added.
    """

    status: str
    mask: np.ndarray | None
    seconds: float
    iterations: int
    loop_clauses: int

    @property
    def solved(self) -> bool:
        """Whether an answer was found."""
        return self.status == "solved"


def _check_time_limit(time_limit):
    return validate.time_limit(time_limit)


def _board(board):
    try:
        return parse(board)
    except TypeError as exc:
        raise ValueError(f"board must be a Board, a path or a puzzle text: {exc}") from exc


def _exactly(lits, n):
    """Clauses saying exactly ``n`` of ``lits`` are true (direct: every forbidden subset)."""
    k = len(lits)
    out = [[-x for x in sub] for sub in itertools.combinations(lits, n + 1)] if n < k else []   # at most n
    if n > 0:
        out += [list(sub) for sub in itertools.combinations(lits, k - n + 1)]                   # at least n
    return out


def _degree_0_or_2(lits):
    """Clauses saying 0 or 2 of ``lits`` (a lattice point's edges) are true."""
    out = [[-x] + [y for y in lits if y != x] for x in lits]                  # not exactly one
    out += [[-x for x in sub] for sub in itertools.combinations(lits, 3)]     # not three or more
    return out


class SatSearch:
    """One board's incremental SAT search: the static clauses, and the lazy loop-clause iteration,
    resumable in budgets of work (:meth:`advance`) so that it can take turns with another search.

    ``fixed`` (an edge array: -1 undecided, 0 off, 1 on, as a presolve gives
    it) adds a unit clause per decided edge.
    """

    def __init__(self, board, fixed=None):
        self.board = board
        g = board.grid
        self.grid = g
        self.E = g.num_edges
        self.solver = solver_class()()
        self._setup = self._static_clauses(board, g, fixed)   # added by advance(), within its deadline
        self.iterations = 0
        self.loop_clauses = 0
        self.work = 0           # conflicts, plus ITERATION_WORK per loop-clause round (see advance)
        self._pending = False   # a SAT call stopped by its budget, to go on with
        self._slice_seconds = 0.0   # the last slice's wall time (the first: about the clauses' loading time)
        # a loop can meet every clue on its own only if it touches every cell with a positive clue, and a
        # loop of L edges touches at most 2 L cells: shorter loops are cut without a look at the clues
        self._positive = sum(1 for _, _, n in board.clue_cells if n > 0)

    def _static_clauses(self, board, g, fixed):
        """The clue, degree and some-edge clauses (and the unit clauses of ``fixed``), in a fixed order."""
        for i, j, n in board.clue_cells:
            yield from _exactly([int(e) + 1 for e in g.cell_edges[i * board.cols + j]], n)
        for row in g.point_edges:
            yield from _degree_0_or_2([int(e) + 1 for e in row if e >= 0])
        yield list(range(1, self.E + 1))                                      # some edge is drawn
        if fixed is not None:
            for e in np.flatnonzero(np.asarray(fixed) >= 0):
                yield [int(e) + 1 if fixed[e] == 1 else -(int(e) + 1)]

    def _add_static(self, deadline) -> bool:
        """Add the static clauses, looking at the clock every 4096; False if the deadline came first."""
        add = self.solver.add_clause
        t0 = time.perf_counter()
        for k, clause in enumerate(self._setup):
            add(clause)
            if k % 4096 == 4095 and time.perf_counter() >= deadline:
                return False
        self._setup = None
        self._slice_seconds = time.perf_counter() - t0   # CaDiCaL's first call reads them all again
        return True

    def close(self):
        """Free the SAT solver."""
        self.solver.delete()

    def next_answer(self, deadline):
        """("solved", mask), ("unsat", None) or ("time_limit", None)."""
        status, mask = self.advance(_NO_LIMIT, deadline)
        return ("time_limit" if status == "running" else status), mask

    def advance(self, work_stop: int, deadline: float):
        """Go on until ``self.work`` reaches ``work_stop``, the deadline passes or the search ends.

        Returns ("solved", mask), ("unsat", None) or ("running", None).  Work
        is counted in conflicts, plus ``ITERATION_WORK`` for each round of
        loop clauses: counts, not seconds, so the same call gives the same
        answer on any machine and under any load.  The budget is read between
        slices of ``_CONFLICTS`` conflicts, so a SAT call is cut only where
        :func:`solve_exact` would cut it too, and the search takes the same
        path as there.
        pysat's CaDiCaL classes do not implement ``interrupt()``, hence the
        slices (:func:`qlib.puzzles.sat.solve_slice`, which a Ctrl-C cannot
        break); the solver keeps its state between them.
        """
        if self._setup is not None and not self._add_static(deadline):
            return "running", None
        while True:
            now = time.perf_counter()
            # a slice is not cut mid-way: none starts that the last one says would end past the deadline
            if self.work >= work_stop or now + self._slice_seconds >= deadline:
                return "running", None
            if not self._pending:
                self.iterations += 1
                self.work += ITERATION_WORK
            before = self.solver.accum_stats().get("conflicts", 0)
            res = solve_slice(self.solver, _CONFLICTS)
            self._slice_seconds = time.perf_counter() - now
            self.work += max(1, self.solver.accum_stats().get("conflicts", 0) - before)
            if res is None:
                self._pending = True
                continue
            self._pending = False
            if not res:
                return "unsat", None
            model = self.solver.get_model()
            mask = np.zeros(self.E, dtype=np.uint8)
            mask[[v - 1 for v in model if 0 < v <= self.E]] = 1
            loops = split_loops(mask, self.grid.endpoints)
            if len(loops) == 1:
                return "solved", mask
            found = None
            for k, lp in enumerate(loops):
                if 2 * len(lp) >= self._positive and loop_satisfies_clues(self.board, lp):
                    found = lp if found is None else found                   # an answer on its own: keep it
                else:
                    self.solver.add_clause([-(int(e) + 1) for e in lp])
                    self.loop_clauses += 1
                if k % 256 == 255 and time.perf_counter() >= deadline:     # the clauses added so far hold
                    return "running", None
            if found is not None:
                mask = np.zeros(self.E, dtype=np.uint8)
                mask[found] = 1
                return "solved", mask

    def block(self, mask):
        """Forbid the single-loop answer ``mask`` (no other single loop holds all its edges)."""
        self.solver.add_clause([-(int(e) + 1) for e in np.flatnonzero(mask)])


def solve_exact(board, *, time_limit: float = 60.0) -> ExactResult:
    """One single-loop answer of ``board``, or a proof that none exists.

    ``board`` is anything :func:`qlib.puzzles.slitherlink.parse` reads.
    ``time_limit`` (seconds) stops the search with status "time_limit", and a
    Ctrl-C with status "interrupted".  Returns an :class:`ExactResult`.
    """
    t0 = time.perf_counter()
    board = _board(board)
    deadline = t0 + _check_time_limit(time_limit)
    search = SatSearch(board)
    try:
        status, mask = search.next_answer(deadline)
    except KeyboardInterrupt:
        status, mask = "interrupted", None
    finally:
        search.close()
    return ExactResult(status=status, mask=mask, seconds=time.perf_counter() - t0,
                       iterations=search.iterations, loop_clauses=search.loop_clauses)


def count_exact(board, *, limit: int = 2, time_limit: float = 60.0):
    """Count the single-loop answers of ``board``, stopping at ``limit``.

    Each answer found is blocked and the search goes on.  Returns a
    :class:`~qlib.puzzles.count.Count`, ``(count, status, masks)``: status
    "exact" (the search finished and ``count < limit`` is the number of
    answers), "limit" (``limit`` answers found: at least that many exist) or
    "unknown" (``stop_reason`` "time_limit" or "interrupted": ``count`` found
    so far); ``masks`` are the answers found (uint8 edge masks).  ``limit=2``
    proves uniqueness.
    """
    t0 = time.perf_counter()
    board = _board(board)
    limit = validate.integer("limit", limit, minimum=1)
    deadline = t0 + _check_time_limit(time_limit)
    search = SatSearch(board)
    masks = []
    try:
        while True:
            status, mask = search.next_answer(deadline)
            if status in ("unsat", "time_limit"):
                stop = StopReason.EXHAUSTED if status == "unsat" else StopReason.TIME_LIMIT
                return Count(masks, limit=limit, stop_reason=stop, seconds=time.perf_counter() - t0)
            masks.append(mask)
            if len(masks) >= limit:
                return Count(masks, limit=limit, stop_reason=StopReason.LIMIT, seconds=time.perf_counter() - t0)
            search.block(mask)
    except KeyboardInterrupt:
        return Count(masks, limit=limit, stop_reason=StopReason.INTERRUPTED, seconds=time.perf_counter() - t0)
    finally:
        search.close()
