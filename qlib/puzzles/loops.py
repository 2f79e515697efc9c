"""Lattice geometry and loop splitting for loop puzzles (Slitherlink).

Everything here is plain NumPy/Python on integer arrays, so a numba version can
replace the hot paths later without changing callers.

Lattice of ``R`` x ``C`` cells: points ``(i, j)`` with ``0 <= i <= R``,
``0 <= j <= C`` numbered ``i * (C + 1) + j``.  Edges, in one flat index:

* horizontal ``h[i][j]`` joins ``(i, j)`` and ``(i, j + 1)``; index ``i * C + j``
  (``0 <= i <= R``, ``0 <= j < C``), all of them first, row-major;
* vertical ``v[i][j]`` joins ``(i, j)`` and ``(i + 1, j)``; index
  ``(R + 1) * C + i * (C + 1) + j`` (``0 <= i < R``, ``0 <= j <= C``).

That is ``(R + 1) * C + R * (C + 1)`` edges (220 for a 10 x 10 board).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = ["Grid", "grid", "DegreeError", "split_loops", "loop_satisfies_clues", "clue_counts"]


class DegreeError(ValueError):
    """A state in which some lattice point has degree other than 0 or 2.

    ``points`` lists ``(point, degree)`` for every offending point.
    """

    def __init__(self, message: str, points):
        super().__init__(message)
        self.points = list(points)


@dataclass(frozen=True, eq=False)
class Grid:
    """Edge and point arrays of an ``rows`` x ``cols`` lattice (see the module docstring).

    * ``endpoints`` (E, 2): the two point numbers of each edge;
    * ``point_edges`` (P, 4): incident edges of each point, padded with -1;
    * ``cell_edges`` (R*C, 4): top, bottom, left, right edge of each cell
      (cell ``(i, j)`` is row ``i * C + j``);
    * ``horizontal`` (E,): True for the h edges;
    * ``straight_pairs`` (S, 2): pairs of collinear edges meeting at a point
      (consecutive h edges in a row, consecutive v edges in a column).
    """

    rows: int
    cols: int
    endpoints: np.ndarray
    point_edges: np.ndarray
    cell_edges: np.ndarray
    horizontal: np.ndarray
    straight_pairs: np.ndarray

    @property
    def num_h(self) -> int:
        """Horizontal edges, ``(rows + 1) * cols``: they come first in the flat edge order."""
        return (self.rows + 1) * self.cols

    @property
    def num_edges(self) -> int:
        """Edges in all."""
        return len(self.endpoints)

    @property
    def num_points(self) -> int:
        """Lattice points, ``(rows + 1) * (cols + 1)``."""
        return (self.rows + 1) * (self.cols + 1)

    def h_index(self, i: int, j: int) -> int:
        """Flat number of the horizontal edge ``h[i][j]``."""
        return i * self.cols + j

    def v_index(self, i: int, j: int) -> int:
        """Flat number of the vertical edge ``v[i][j]``."""
        return self.num_h + i * (self.cols + 1) + j

    def point(self, i: int, j: int) -> int:
        """Number of the lattice point ``(i, j)``."""
        return i * (self.cols + 1) + j

    def point_ij(self, p: int) -> tuple[int, int]:
        """``(i, j)`` of lattice point ``p``."""
        return divmod(int(p), self.cols + 1)

    def edge_name(self, e: int) -> str:
        """The edge's variable name, ``h[i][j]`` or ``v[i][j]``."""
        e = int(e)
        if e < self.num_h:
            i, j = divmod(e, self.cols)
            return f"h[{i}][{j}]"
        i, j = divmod(e - self.num_h, self.cols + 1)
        return f"v[{i}][{j}]"

    # -- states -----------------------------------------------------------------
    def to_hv(self, mask) -> tuple[list[list[int]], list[list[int]]]:
        """A flat edge mask as ``(h, v)`` lists of lists of 0/1."""
        mask = self.as_mask(mask)
        h = mask[: self.num_h].reshape(self.rows + 1, self.cols)
        v = mask[self.num_h:].reshape(self.rows, self.cols + 1)
        return h.astype(int).tolist(), v.astype(int).tolist()

    def from_hv(self, h, v) -> np.ndarray:
        """``(h, v)`` (nested lists or arrays of 0/1) as a flat uint8 edge mask."""
        h = np.asarray(h if h is not None else np.zeros((self.rows + 1, self.cols)))
        v = np.asarray(v if v is not None else np.zeros((self.rows, self.cols + 1)))
        if h.shape != (self.rows + 1, self.cols):
            raise ValueError(f"h must have shape {(self.rows + 1, self.cols)} (R+1 rows of C edges), got {h.shape}")
        if v.shape != (self.rows, self.cols + 1):
            raise ValueError(f"v must have shape {(self.rows, self.cols + 1)} (R rows of C+1 edges), got {v.shape}")
        mask = np.concatenate([h.ravel(), v.ravel()])
        return self.as_mask(mask)

    def as_mask(self, mask) -> np.ndarray:
        """``mask`` checked to be a 0/1 edge vector of this grid, as uint8."""
        mask = np.asarray(mask)
        if mask.shape != (self.num_edges,):
            raise ValueError(f"an edge mask must have {self.num_edges} entries, got shape {mask.shape}")
        if mask.size and not np.isin(mask, (0, 1)).all():
            raise ValueError("edge values must be 0 or 1")
        return mask.astype(np.uint8)

    def degrees(self, mask) -> np.ndarray:
        """Degree of every point under an edge mask, shape (P,)."""
        mask = np.asarray(mask, dtype=np.int64)
        return np.bincount(self.endpoints.ravel(), weights=np.repeat(mask, 2),
                           minlength=self.num_points).astype(np.int64)


@lru_cache(maxsize=64)
def grid(rows: int, cols: int) -> Grid:
    """The :class:`Grid` of a ``rows`` x ``cols`` board (cached)."""
    if rows < 1 or cols < 1:
        raise ValueError(f"a board needs at least one row and one column, got {rows} x {cols}")
    R, C = rows, cols
    W = C + 1
    nh = (R + 1) * C
    i, j = np.divmod(np.arange(nh), C)                      # h[i][j]: from point (i, j) to (i, j + 1)
    h_from = i * W + j
    i, j = np.divmod(np.arange(R * W), W)                   # v[i][j]: from point (i, j) to (i + 1, j)
    v_from = i * W + j
    endpoints = np.stack([np.concatenate([h_from, v_from]), np.concatenate([h_from + 1, v_from + W])], axis=1)
    P = (R + 1) * W
    # each point's edges in increasing edge order, padded with -1
    ends = endpoints.ravel()
    order = np.argsort(ends, kind="stable")
    points, edges = ends[order], order // 2
    slot = np.arange(len(points)) - np.searchsorted(points, points, side="left")
    point_edges = np.full((P, 4), -1, dtype=np.int64)
    point_edges[points, slot] = edges
    i, j = np.divmod(np.arange(R * C), C)
    cell_edges = np.stack([i * C + j, (i + 1) * C + j, nh + i * W + j, nh + i * W + j + 1], axis=1)
    horizontal = np.arange(len(endpoints)) < nh
    i, j = np.divmod(np.arange((R + 1) * (C - 1)), max(C - 1, 1))
    h_pairs = np.stack([i * C + j, i * C + j + 1], axis=1)
    i, j = np.divmod(np.arange((R - 1) * (C + 1)), C + 1)
    v_pairs = np.stack([nh + i * W + j, nh + (i + 1) * W + j], axis=1)
    straight = np.concatenate([h_pairs, v_pairs]).astype(np.int64).reshape(-1, 2)
    for arr in (endpoints, point_edges, cell_edges, horizontal, straight):
        arr.setflags(write=False)
    return Grid(R, C, endpoints, point_edges, cell_edges, horizontal, straight)


def split_loops(selected, endpoints, *, point_label=None) -> list[np.ndarray]:
    """Split the selected edges into loops.

    ``selected`` is a 0/1 (or bool) vector over the edges, ``endpoints`` an
    (E, 2) array of the edges' end points.  Every point must have degree 0 or 2
    among the selected edges, else :class:`~qlib.puzzles.loops.DegreeError` names the offending
    points (with ``point_label(p)`` when given).  Returns one int64 array of
    edge indices per loop, in walking order; loops are ordered by their
    smallest edge index, and each loop starts at its smallest edge.
    """
    endpoints = np.asarray(endpoints, dtype=np.int64)
    if endpoints.ndim != 2 or endpoints.shape[1] != 2:
        raise ValueError(f"endpoints must have shape (E, 2), got {endpoints.shape}")
    sel = np.asarray(selected)
    if sel.shape != (len(endpoints),):
        raise ValueError(f"the edge mask has shape {sel.shape}, expected ({len(endpoints)},)")
    sel = sel.astype(bool)
    num_points = int(endpoints.max()) + 1 if len(endpoints) else 0
    edges = np.flatnonzero(sel)
    deg = np.bincount(endpoints[edges].ravel(), minlength=num_points)
    bad = np.flatnonzero((deg != 0) & (deg != 2))
    if bad.size:
        name = point_label or (lambda p: f"point {p}")
        shown = ", ".join(f"{name(int(p))} has degree {int(deg[p])}" for p in bad[:8])
        more = f" (and {bad.size - 8} more)" if bad.size > 8 else ""
        raise DegreeError(
            f"cannot split into loops: every point needs degree 0 or 2, but {shown}{more}",
            [(int(p), int(deg[p])) for p in bad],
        )
    # The two selected edges at each point of degree 2.
    inc = np.full((num_points, 2), -1, dtype=np.int64)
    fill = np.zeros(num_points, dtype=np.int64)
    for e in edges:
        for p in endpoints[e]:
            inc[p, fill[p]] = e
            fill[p] += 1
    used = np.zeros(len(endpoints), dtype=bool)
    loops = []
    for start in edges:
        if used[start]:
            continue
        loop = [int(start)]
        used[start] = True
        e, p = int(start), int(endpoints[start, 1])
        while True:
            nxt = int(inc[p, 0] if inc[p, 0] != e else inc[p, 1])
            if nxt == start:
                break
            used[nxt] = True
            loop.append(nxt)
            a, b = endpoints[nxt]
            p = int(b if a == p else a)
            e = nxt
        loops.append(np.array(loop, dtype=np.int64))
    return loops


def clue_counts(mask, cell_edges) -> np.ndarray:
    """Number of selected edges around every cell, shape (R*C,): the clues an edge mask gives.

    The one clue count of the package: the clue check here and the generator's
    boards (:func:`qlib.puzzles.slitherlink.board_from_mask`) both use it.
    """
    mask = np.asarray(mask, dtype=np.int64)
    return mask[np.asarray(cell_edges)].sum(axis=1)


def loop_satisfies_clues(board, loop) -> bool:
    """Whether the edges of ``loop`` alone satisfy every clue of ``board``.

    ``board`` is anything with ``rows``, ``cols`` and ``clues`` (rows of
    int-or-None); ``loop`` is a sequence of edge indices (or a boolean edge
    mask of ``num_edges`` entries).
    """
    g = grid(board.rows, board.cols)
    loop = np.asarray(loop)
    mask = np.zeros(g.num_edges, dtype=np.int64)
    if loop.dtype == bool:
        if loop.shape != (g.num_edges,):
            raise ValueError(f"a boolean edge mask must have {g.num_edges} entries, got shape {loop.shape}")
        mask[loop] = 1
    else:
        mask[loop.astype(np.int64)] = 1
    counts = clue_counts(mask, g.cell_edges)
    for k, n in enumerate(c for row in board.clues for c in row):
        if n is not None and counts[k] != n:
            return False
    return True
