"""Counting answers exactly, with the numba engine (:mod:`.engine`)."""

from __future__ import annotations

import time

from ... import validate
from . import lines
from .engine import TIME_UP, Engine, warmup
from .parsing import parse


def count_solutions(puzzle, limit: int = 2, time_limit: float = 10.0):
    """Count the grids that satisfy the clues, exactly, up to ``limit``.

    Propagation (every row and column reduced to the cells all its placements
    consistent with the decided cells agree on, repeated until nothing changes)
    and probing, then a depth-first search that branches on an undecided cell
    and propagates and probes at every node (:mod:`.lines`, compiled with numba;
    the compilation happens before the clock starts).  Returns ``(count, status,
    grids)``: status ``"exact"`` (the search finished: ``count`` is the number of
    answers, all in ``grids``), ``"limit"`` (it stopped at ``limit`` answers:
    there are at least that many) or ``"time_limit"`` (out of time: ``count`` is
    a lower bound).  ``grids`` are tuples of '#'/'.' strings like :func:`solve`'s.
    ``count_solutions(p)[0] == 1`` with status "exact" means the puzzle has a
    unique answer.
    """
    puzzle = parse(puzzle)
    limit = validate.integer("limit", limit, minimum=1)
    time_limit = validate.time_limit(time_limit)
    warmup()
    deadline = time.perf_counter() + float(time_limit)
    return count_from(Engine(puzzle), limit, deadline, presolve=True)


def count_from(engine: Engine, limit: int, deadline: float, *, presolve: bool, found=None):
    """Go on counting with ``engine`` (after its presolve unless ``presolve``); ``found``:
    the grids it already found.  Returns ``(count, status, grids)`` as :func:`count_solutions`."""
    found = [] if found is None else found
    if presolve:
        status = engine.presolve(deadline)
        if status == lines.CONTRADICTION:
            return 0, "exact", []
        if status == TIME_UP:
            return 0, "time_limit", []
    while len(found) < limit:
        if time.perf_counter() >= deadline:
            return len(found), "time_limit", found
        status = engine.backtrack(deadline)
        if status == lines.FOUND:
            found.append(engine.grid())
        elif status == lines.EXHAUSTED:
            return len(found), "exact", found
        else:
            return len(found), "time_limit", found
    return len(found), "limit", found
