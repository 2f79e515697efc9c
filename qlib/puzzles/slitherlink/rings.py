"""The cells of ring cuts, for every loop of a state in one numba call.

A loop encloses the cells ``S`` (parity of the loop's vertical edges to a
cell's left); ``N`` is the cells next to ``S`` outside it.  The ring cut of the
loop (:meth:`.formulation.CellFormulation.loop_literals` says why it is valid)
asks ``N`` to take one side and a cell of ``S`` beside the loop's first edge the
other: ``N`` outside and that cell inside when the loop bounds an inside
region (valid only while a clue of 1-3 lies beyond ``S`` and ``N``), the reverse
when it bounds a hole.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ring_cuts"]


def ring_cuts(board, loops, colour, sides, clues) -> list:
    """The ring cut ``(cells, values)`` of each of ``loops`` (edge index arrays) in a state whose cells
    have sides ``colour`` (flat, 1 inside), or None for a loop whose ring cut is not valid.
    ``sides``: :func:`.model.edge_sides`; ``clues``: the (i, j) of every clue 1-3 (K x 2)."""
    if not len(loops):
        return []
    sizes = np.fromiter((len(loop) for loop in loops), dtype=np.int64, count=len(loops))
    ptr = np.zeros(len(loops) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    edges = np.concatenate([np.asarray(loop, dtype=np.int64) for loop in loops])
    flat = np.ascontiguousarray(clues[:, 0] * board.cols + clues[:, 1], dtype=np.int64)
    cells, values, out_ptr = _rings(edges, ptr, board.rows, board.cols, np.ascontiguousarray(colour, dtype=np.uint8),
                                    sides, flat)
    return [None if out_ptr[k + 1] == out_ptr[k] else (cells[out_ptr[k]:out_ptr[k + 1]], values[out_ptr[k]:out_ptr[k + 1]])
            for k in range(len(loops))]


@njit(cache=True)
def _rings(edges, ptr, R, C, colour, sides, clues):
    """Flat ring cells and values of each loop ``edges[ptr[k]:ptr[k+1]]``; an empty span where not valid."""
    NC = R * C
    nh = (R + 1) * C
    L = ptr.shape[0] - 1
    cells = np.empty(4 * (NC + 1), dtype=np.int64)
    values = np.empty_like(cells)
    out_ptr = np.zeros(L + 1, dtype=np.int64)
    vert = np.zeros((R, C + 1), dtype=np.uint8)
    enclosed = np.zeros(NC, dtype=np.bool_)
    grown = np.zeros(NC, dtype=np.bool_)
    pos = 0
    for k in range(L):
        out_ptr[k + 1] = pos
        vert[:, :] = 0
        for t in range(ptr[k], ptr[k + 1]):
            e = edges[t]
            if e >= nh:
                vert[(e - nh) // (C + 1), (e - nh) % (C + 1)] = 1
        for i in range(R):
            par = 0
            for j in range(C):
                par ^= vert[i, j]
                enclosed[i * C + j] = par == 1
        c = -1
        first = edges[ptr[k]]
        for s in range(2):
            cell = sides[first, s]
            if cell >= 0 and enclosed[cell]:
                c = cell
                break
        if c < 0:
            continue
        for q in range(NC):
            i, j = q // C, q % C
            grown[q] = enclosed[q] or (i > 0 and enclosed[q - C]) or (i < R - 1 and enclosed[q + C]) \
                or (j > 0 and enclosed[q - 1]) or (j < C - 1 and enclosed[q + 1])
        inside_type = colour[c] == 1
        if inside_type:
            beyond = False
            for t in range(clues.shape[0]):
                if not grown[clues[t]]:
                    beyond = True
                    break
            if not beyond:
                continue
        if cells.shape[0] < pos + NC + 1:   # room for this loop's ring
            cells = _grown(cells, pos, NC + 1)
            values = _grown(values, pos, NC + 1)
        ring_value = 0 if inside_type else 1
        for q in range(NC):
            if grown[q] and not enclosed[q]:
                cells[pos] = q
                values[pos] = ring_value
                pos += 1
        cells[pos] = c
        values[pos] = 1 - ring_value
        pos += 1
        out_ptr[k + 1] = pos
    return cells[:pos].copy(), values[:pos].copy(), out_ptr


@njit(cache=True)
def _grown(a, used, more):
    """``a`` with its first ``used`` entries and room for ``more`` after them."""
    out = np.empty(max(2 * a.shape[0], used + more), dtype=a.dtype)
    out[:used] = a[:used]
    return out
