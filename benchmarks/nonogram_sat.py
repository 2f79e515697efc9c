"""The bench's exact Nonogram row: :mod:`qlib.puzzles.nonogram.exact` (CaDiCaL, block starts) on the raw puzzle.

The default solver runs the same SAT search after propagation, beside the
domain-wall search; this row runs it alone, with no propagation, as the limit
that the other rows are measured against.  It is independent of the line solver
of :func:`qlib.puzzles.nonogram.count_solutions`, which the tests compare it with.
"""

from __future__ import annotations

from qlib.puzzles.nonogram import exact

__all__ = ["SatResult", "solve_sat", "count_sat", "encode", "solver_name"]

SatResult = exact.ExactResult
encode = exact.encode
solver_name = exact.solver_name


def solve_sat(puzzle, *, time_limit: float = 60.0) -> SatResult:
    """A grid meeting every clue of ``puzzle``, or a proof that none exists (:func:`exact.solve_exact`)."""
    return exact.solve_exact(puzzle, time_limit=time_limit)


def count_sat(puzzle, limit: int = 2, time_limit: float = 60.0):
    """``(count, status, grids)`` up to ``limit`` answers (:func:`exact.count_exact`, a ``Count``)."""
    return exact.count_exact(puzzle, limit=limit, time_limit=time_limit)
