"""Counting answers exactly, with the numba engine (:mod:`.engine`)."""

from __future__ import annotations

import time

from ... import validate
from ..count import Count, StopReason
from . import lines
from .engine import TIME_UP, Engine, warmup
from .parsing import parse


def count_solutions(puzzle, limit: int = 2, time_limit: float = 10.0):
    """Count the grids that satisfy the clues, exactly, up to ``limit``.

    Propagation (every row and column reduced to the cells all its placements
    consistent with the decided cells agree on, repeated until nothing changes)
    and probing, then a depth-first search that branches on an undecided cell
    and propagates and probes at every node (:mod:`.lines`, compiled with numba;
    the compilation happens before the clock starts).  Returns a
    :class:`~qlib.puzzles.count.Count`, ``(count, status, grids)``: status
    ``"exact"`` (the search finished: ``count`` is the number of answers, all in
    ``grids``), ``"limit"`` (it stopped at ``limit`` answers: there are at least
    that many) or ``"unknown"`` (``stop_reason`` "time_limit": ``count`` is a
    lower bound).  ``grids`` are tuples of '#'/'.' strings like :func:`~qlib.puzzles.nonogram.solve`'s.
    ``count_solutions(p)[0] == 1`` with status "exact" means the puzzle has a
    unique answer.
    """
    puzzle = parse(puzzle)
    limit = validate.integer("limit", limit, minimum=1)
    time_limit = validate.time_limit(time_limit)
    warmup()
    t0 = time.perf_counter()
    return count_from(Engine(puzzle), limit, t0 + float(time_limit), presolve=True, start=t0)


def count_from(engine: Engine, limit: int, deadline: float, *, presolve: bool, found=None,
               start: float | None = None) -> Count:
    """Go on counting with ``engine`` (after its presolve unless ``presolve``); ``found``:
    the grids it already found.  Returns a :class:`~qlib.puzzles.count.Count` as :func:`count_solutions`."""
    start = time.perf_counter() if start is None else start
    found = [] if found is None else found

    def done(stop):
        return Count(found, limit=limit, stop_reason=stop, seconds=time.perf_counter() - start)

    if presolve:
        status = engine.presolve(deadline)
        if status == lines.CONTRADICTION:
            return done(StopReason.EXHAUSTED)
        if status == TIME_UP:
            return done(StopReason.TIME_LIMIT)
    while len(found) < limit:
        if time.perf_counter() >= deadline:
            return done(StopReason.TIME_LIMIT)
        status = engine.backtrack(deadline)
        if status == lines.FOUND:
            found.append(engine.grid())
        elif status == lines.EXHAUSTED:
            return done(StopReason.EXHAUSTED)
        else:
            return done(StopReason.TIME_LIMIT)
    return done(StopReason.LIMIT)
