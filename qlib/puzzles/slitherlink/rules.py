"""The rules of Slitherlink, as a check of a drawing: every clue met, every point of degree 0 or 2, one loop."""

from __future__ import annotations

import numpy as np

from ..loops import split_loops
from .board import parse

__all__ = ["check", "is_solution"]


def check(board, h, v) -> list[str]:
    """Problems of the drawing ``(h, v)``: clue mismatches, bad degrees, not one loop.

    An empty list means ``(h, v)`` solves the puzzle.
    """
    board = parse(board)
    g = board.grid
    mask = board.grid.from_hv(h, v)
    problems = []
    counts = mask.astype(np.int64)[g.cell_edges].sum(axis=1)
    for i, j, n in board.clue_cells:
        k = int(counts[i * board.cols + j])
        if k != n:
            problems.append(f"clue ({i},{j}) is {n} but {k} of its sides are drawn")
    deg = g.degrees(mask)
    bad = np.flatnonzero((deg != 0) & (deg != 2))
    for p in bad:
        i, j = g.point_ij(p)
        problems.append(f"point ({i},{j}) has degree {int(deg[p])}, expected 0 or 2")
    if not mask.any():
        problems.append("no edge is drawn: expected one loop")
    elif not bad.size:
        loops = split_loops(mask, g.endpoints)
        if len(loops) > 1:
            lengths = " ".join(str(len(lp)) for lp in loops)
            problems.append(f"{len(loops)} loops (lengths {lengths}), expected exactly one")
    return problems


def is_solution(board, h, v) -> bool:
    """Whether ``(h, v)`` is one loop satisfying every clue."""
    return not check(board, h, v)
