"""Slitherlink puzzle generation, with an exact solution counter to prove uniqueness.

The recipe:

1. :func:`random_loop` draws a random single loop as the boundary of a random
   simply-connected region of cells (:func:`random_region`: grown cell by
   cell; no holes and no two region cells touching only at a corner, so every
   lattice point has degree 0 or 2 and the boundary is one simple loop).
2. :func:`clues_of` counts the loop's edges around every cell.
3. :func:`count_solutions` is an exact backtracking search over the edges
   (clue, degree, single-loop, inside/outside parity and reach propagation,
   plus failed-edge probing) that counts single-loop answers up to a limit;
   with ``limit=2`` it proves a board unique or finds a second answer.  A node
   cap and a time limit make it answer ``"unknown"`` instead of running on.
4. :func:`generate` starts from every clue and removes clues in random order,
   keeping a removal only when :func:`count_solutions` still proves exactly
   one answer.  :func:`generate_dense` just keeps a random fraction of the
   clues (uniqueness not proved).

The search runs in numba functions that pause after a node budget and resume,
so the Python wrapper can watch the clock.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from .loops import grid
from .slitherlink import Board, parse

__all__ = ["random_region", "random_loop", "clues_of", "board_from_mask", "count_solutions", "SolutionCount",
           "BacktrackSearch",
           "generate", "generate_dense", "UnverifiedBoardError", "SHIPPED"]

#: The generated boards shipped in ``qlib/data``: file name -> the call that made it and how
#: uniqueness stands.  Each file is ``generate(size, size, seed, keep=keep, max_nodes=max_nodes)``
#: (``keep`` 0.0 and ``max_nodes`` 2_000_000 are generate's defaults; no clock limit, so the call
#: is deterministic), written with ``board.to_text()``.  25x25 and 30x30 keep 45% of the clues and
#: cap each removal check at 200_000 nodes: removing clues down to the default's ~35% takes well
#: over 5 minutes a board there, and the answer then takes count_solutions minutes to prove.
#: "status" "proved": ``count_solutions(board, limit=2)`` exhausts the search with exactly one
#: answer (0.05-5 s each on one core), and the SAT solver of
#: :mod:`qlib.puzzles.slitherlink.exact` agrees (tests/test_exact.py).
SHIPPED = {
    "slitherlink-15x15-gen-s1.txt": {"size": 15, "seed": 1, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-15x15-gen-s2.txt": {"size": 15, "seed": 2, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-15x15-gen-s3.txt": {"size": 15, "seed": 3, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-15x15-gen-s4.txt": {"size": 15, "seed": 4, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-15x15-gen-s5.txt": {"size": 15, "seed": 5, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-20x20-gen-s1.txt": {"size": 20, "seed": 1, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-20x20-gen-s2.txt": {"size": 20, "seed": 2, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-20x20-gen-s3.txt": {"size": 20, "seed": 3, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-20x20-gen-s4.txt": {"size": 20, "seed": 4, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-20x20-gen-s5.txt": {"size": 20, "seed": 5, "keep": 0.0, "max_nodes": 2_000_000, "status": "proved"},
    "slitherlink-25x25-gen-s1.txt": {"size": 25, "seed": 1, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-25x25-gen-s2.txt": {"size": 25, "seed": 2, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-25x25-gen-s3.txt": {"size": 25, "seed": 3, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-25x25-gen-s4.txt": {"size": 25, "seed": 4, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-25x25-gen-s5.txt": {"size": 25, "seed": 5, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-30x30-gen-s1.txt": {"size": 30, "seed": 1, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-30x30-gen-s2.txt": {"size": 30, "seed": 2, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-30x30-gen-s3.txt": {"size": 30, "seed": 3, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-30x30-gen-s4.txt": {"size": 30, "seed": 4, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
    "slitherlink-30x30-gen-s5.txt": {"size": 30, "seed": 5, "keep": 0.45, "max_nodes": 200_000, "status": "proved"},
}


# -----------------------------------------------------------------------------
# Random loops
# -----------------------------------------------------------------------------
def _rng(seed) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng(int(seed))


def _check_size(rows, cols):
    for name, n in (("rows", rows), ("cols", cols)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"{name} must be a positive integer, got {n!r}")


def _outside_connected(region: np.ndarray) -> bool:
    """Whether every cell outside ``region`` reaches the board's edge through outside cells."""
    R, C = region.shape
    seen = region.copy()
    todo = deque()
    for i in range(R):
        for j in (0, C - 1):
            if not seen[i, j]:
                seen[i, j] = True
                todo.append((i, j))
    for j in range(C):
        for i in (0, R - 1):
            if not seen[i, j]:
                seen[i, j] = True
                todo.append((i, j))
    while todo:
        i, j = todo.popleft()
        for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= a < R and 0 <= b < C and not seen[a, b]:
                seen[a, b] = True
                todo.append((a, b))
    return bool(seen.all())


_RING = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def _ring_safe(region: np.ndarray, i: int, j: int) -> bool:
    """Whether the outside cells among the 8 around (i, j) (off the board counts as outside)
    form one run around the ring: then they stay joined without (i, j), so adding it to the
    region cannot cut the outside apart (no global check needed)."""
    R, C = region.shape
    out = [not (0 <= i + a < R and 0 <= j + b < C and region[i + a, j + b]) for a, b in _RING]
    runs = sum(1 for k in range(8) if out[k] and not out[k - 1])
    return runs <= 1


def _corner_touch(region: np.ndarray, i: int, j: int) -> bool:
    """Whether adding cell (i, j) makes two region cells meet only at a corner.

    Cells off the board count as outside the region.
    """
    R, C = region.shape

    def inside(a, b):
        return 0 <= a < R and 0 <= b < C and bool(region[a, b])

    for di in (-1, 1):
        for dj in (-1, 1):
            if inside(i + di, j + dj) and not inside(i + di, j) and not inside(i, j + dj):
                return True
    return False


def _region_boundary(region: np.ndarray) -> np.ndarray:
    """Edge mask (flat :class:`~qlib.puzzles.loops.Grid` order) of the region's boundary."""
    R, C = region.shape
    g = grid(R, C)
    pad = np.zeros((R + 2, C + 2), dtype=bool)
    pad[1:-1, 1:-1] = region
    h = pad[:-1, 1:-1] ^ pad[1:, 1:-1]      # (R+1, C): cell above vs cell below
    v = pad[1:-1, :-1] ^ pad[1:-1, 1:]      # (R, C+1): cell left vs cell right
    return g.from_hv(h.astype(np.uint8), v.astype(np.uint8))


def random_region(rows: int, cols: int, seed: int, fill: float | None = None) -> np.ndarray:
    """A random simply-connected region of cells, as a (rows, cols) bool array.

    Grown from a random cell by adding random neighbouring cells, each only if
    the cells outside the region stay connected to the board's edge (no holes)
    and no two region cells would meet only at a corner.  ``fill`` is the
    target fraction of cells (default: drawn from 0.4-0.6); growth stops early
    when no neighbouring cell can be added.
    """
    _check_size(rows, cols)
    rng = _rng(seed)
    if fill is None:
        fill = float(rng.uniform(0.4, 0.6))
    elif not 0.0 < fill <= 1.0:
        raise ValueError(f"fill must be a fraction in (0, 1], got {fill!r}")
    # two cells at least where the board has them: a one-cell region gives a clue 4, which no board takes
    target = max(min(2, rows * cols), min(rows * cols, int(round(fill * rows * cols))))
    region = np.zeros((rows, cols), dtype=bool)
    i0 = int(rng.integers(rows // 4, rows - rows // 4))       # start in the middle half
    j0 = int(rng.integers(cols // 4, cols - cols // 4))
    region[i0, j0] = True
    size = 1
    frontier = {}                     # cell -> number of region neighbours
    rejected = set()

    def touch(i, j):
        for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= a < rows and 0 <= b < cols and not region[a, b]:
                frontier[(a, b)] = frontier.get((a, b), 0) + 1

    touch(i0, j0)
    while size < target:
        cands = [c for c in sorted(frontier) if c not in rejected]
        if not cands:
            break
        # Prefer cells with one region neighbour (long arms) over ones that fill in corners.
        weights = np.array([4.0 if frontier[c] == 1 else 1.0 for c in cands])
        k = int(rng.choice(len(cands), p=weights / weights.sum()))
        i, j = cands[k]
        if _corner_touch(region, i, j):
            rejected.add((i, j))
            continue
        region[i, j] = True
        if not _ring_safe(region, i, j) and not _outside_connected(region):
            region[i, j] = False
            rejected.add((i, j))
            continue
        size += 1
        del frontier[(i, j)]
        rejected.clear()              # a cell rejected before may fit now
        touch(i, j)
    return region


def random_loop(rows: int, cols: int, seed: int, fill: float | None = None) -> np.ndarray:
    """A random single loop: the boundary of :func:`random_region` (uint8 edge mask).

    The mask is in the flat edge order of :class:`qlib.puzzles.loops.Grid`;
    every lattice point has degree 0 or 2 and the edges form one loop.
    """
    return _region_boundary(random_region(rows, cols, seed, fill))


def clues_of(board_shape, mask) -> list[list[int]]:
    """Every cell's count of selected edges: rows of ints (``board_shape`` is (rows, cols) or a Board)."""
    if isinstance(board_shape, Board):
        rows, cols = board_shape.rows, board_shape.cols
    else:
        rows, cols = board_shape
    g = grid(rows, cols)
    mask = g.as_mask(mask)
    counts = mask.astype(np.int64)[g.cell_edges].sum(axis=1)
    return counts.reshape(rows, cols).tolist()


def board_from_mask(mask, rows: int, cols: int, keep=None) -> Board:
    """The Board of a loop with the clues of cells where ``keep`` (bool (rows, cols)) is True (all by default)."""
    counts = clues_of((rows, cols), mask)
    if keep is None:
        keep = np.ones((rows, cols), dtype=bool)
    return Board(tuple(tuple(counts[i][j] if keep[i][j] else None for j in range(cols)) for i in range(rows)))


# -----------------------------------------------------------------------------
# The exact counter (numba)
# -----------------------------------------------------------------------------
# Arrays of one search (all int64):
#   st (E,)        edge value: -1 undecided, 0 off, 1 on
#   pt (P, 4)      per point: on edges, undecided edges, mate (other end of its path; itself when
#                  isolated), path length (at path ends)
#   cl (NC, 3)     per cell: on edges, undecided edges, clue (-1: none)
#   uf (NC+1, 4)   inside/outside classes of the cells (NC: the outside): parent, parity to parent,
#                  size, next member (circular list per class)
#   trail (E,), mtrail (2E, 3), utrail (E,)   undo stacks (edges set, mate changes, unions)
#   lv (E+1, 6)    per decision: edge, first value, phase, the three trail marks
#   queue          propagation items: point p, cell P+c, loop check P+NC+e, parity check P+NC+E+e
#   sc             scalars (slots below)
#   the _P* slots keep a probing pass that paused midway: active, next edge, changed, best, score
(_TLEN, _MLEN, _DEPTH, _NON, _NBAD, _MODE, _COUNT, _NODES, _QH, _QT, _CHECKS, _ULEN, _STAMP,
 _STAMP2, _PACTIVE, _PNEXT, _PCHANGED, _PBEST, _PSCORE) = range(19)
_NSC = 19
# modes
_PROPAGATE, _BACKTRACK, _DONE = 0, 1, 2
# results of one assignment / propagation
_OK, _FAIL, _SOLVED, _CHANGED, _PAUSE = 0, 1, 2, 3, 4


@njit(cache=True)
def _edge_between(x, y, pe, ends):
    for k in range(4):
        f = pe[x, k]
        if f >= 0 and (ends[f, 0] == y or ends[f, 1] == y):
            return f
    return -1


@njit(cache=True)
def _bad(cl, c, count):
    """1 if ``count`` sides drawn around cell ``c`` break its clue (or hit its excluded count)."""
    if cl[c, 2] >= 0:
        return 1 if count != cl[c, 2] else 0
    if cl[c, 3] >= 0:
        return 1 if count == cl[c, 3] else 0
    return 0


@njit(cache=True)
def _find(uf, x):
    par = 0
    while uf[x, 0] != x:
        par ^= uf[x, 1]
        x = uf[x, 0]
    return x, par


@njit(cache=True)
def _push(queue, sc, item):
    if sc[_QT] >= queue.shape[0]:
        raise IndexError("propagation queue overflow")
    queue[sc[_QT]] = item
    sc[_QT] += 1


@njit(cache=True)
def _union(e, val, st, ecd, ce, bnd, uf, utrail, queue, sc, P, NC, E):
    """Record that the cells beside edge ``e`` differ (val 1) or agree (val 0) in inside/outside."""
    r1, p1 = _find(uf, ecd[e, 0])
    r2, p2 = _find(uf, ecd[e, 1])
    if r1 == r2:
        return _OK if (p1 ^ p2) == val else _FAIL
    a, b = r1, r2
    if uf[a, 2] < uf[b, 2]:
        a, b = b, a
    # every undecided edge of b's members may now join two cells of one class
    x = b
    while True:
        if x == NC:
            for k in range(bnd.shape[0]):
                f = bnd[k]
                if st[f] < 0:
                    _push(queue, sc, P + NC + E + f)
        else:
            for k in range(4):
                f = ce[x, k]
                if st[f] < 0:
                    _push(queue, sc, P + NC + E + f)
        x = uf[x, 3]
        if x == b:
            break
    uf[b, 0] = a
    uf[b, 1] = p1 ^ p2 ^ val
    uf[a, 2] += uf[b, 2]
    nb = uf[b, 3]
    uf[b, 3] = uf[a, 3]
    uf[a, 3] = nb
    utrail[sc[_ULEN]] = b
    sc[_ULEN] += 1
    return _OK


@njit(cache=True)
def _set(e, val, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc, P, NC, E):
    """Assign edge ``e``; update counts, classes, the path ends (mate) and the queue."""
    st[e] = val
    trail[sc[_TLEN]] = e
    sc[_TLEN] += 1
    a = ends[e, 0]
    b = ends[e, 1]
    pt[a, 1] -= 1
    pt[b, 1] -= 1
    _push(queue, sc, a)
    _push(queue, sc, b)
    for k in range(2):
        c = ec[e, k]
        if c >= 0:
            cl[c, 1] -= 1
            if val == 1:
                sc[_NBAD] += _bad(cl, c, cl[c, 0] + 1) - _bad(cl, c, cl[c, 0])
                cl[c, 0] += 1
            _push(queue, sc, P + c)
    if val == 1:                                # every count first: _undo reverts them all
        sc[_NON] += 1
        pt[a, 0] += 1
        pt[b, 0] += 1
    if _union(e, val, st, ecd, ce, bnd, uf, utrail, queue, sc, P, NC, E) != _OK:
        return _FAIL
    if val == 0:
        return _OK
    if pt[a, 0] > 2 or pt[b, 0] > 2:
        return _FAIL
    x = pt[a, 2]
    y = pt[b, 2]
    if x == b:                                  # closes a loop
        if pt[a, 3] + 1 == sc[_NON] and sc[_NBAD] == 0:
            return _SOLVED
        return _FAIL
    length = pt[a, 3] + pt[b, 3] + 1
    m = sc[_MLEN]
    mtrail[m, 0] = x
    mtrail[m, 1] = pt[x, 2]
    mtrail[m, 2] = pt[x, 3]
    mtrail[m + 1, 0] = y
    mtrail[m + 1, 1] = pt[y, 2]
    mtrail[m + 1, 2] = pt[y, 3]
    sc[_MLEN] += 2
    pt[x, 2] = y
    pt[y, 2] = x
    pt[x, 3] = length
    pt[y, 3] = length
    f = _edge_between(x, y, pe, ends)
    if f >= 0 and st[f] < 0:
        _push(queue, sc, P + NC + f)
    return _OK


@njit(cache=True)
def _undo(tmark, mmark, umark, st, ends, ec, pt, cl, uf, trail, mtrail, utrail, sc):
    while sc[_TLEN] > tmark:
        sc[_TLEN] -= 1
        e = trail[sc[_TLEN]]
        val = st[e]
        st[e] = -1
        a = ends[e, 0]
        b = ends[e, 1]
        pt[a, 1] += 1
        pt[b, 1] += 1
        if val == 1:
            pt[a, 0] -= 1
            pt[b, 0] -= 1
            sc[_NON] -= 1
        for k in range(2):
            c = ec[e, k]
            if c >= 0:
                cl[c, 1] += 1
                if val == 1:
                    sc[_NBAD] += _bad(cl, c, cl[c, 0] - 1) - _bad(cl, c, cl[c, 0])
                    cl[c, 0] -= 1
    while sc[_MLEN] > mmark:
        sc[_MLEN] -= 1
        m = sc[_MLEN]
        x = mtrail[m, 0]
        pt[x, 2] = mtrail[m, 1]
        pt[x, 3] = mtrail[m, 2]
    while sc[_ULEN] > umark:
        sc[_ULEN] -= 1
        b = utrail[sc[_ULEN]]
        a = uf[b, 0]
        nb = uf[a, 3]
        uf[a, 3] = uf[b, 3]
        uf[b, 3] = nb
        uf[a, 2] -= uf[b, 2]
        uf[b, 0] = b
        uf[b, 1] = 0


@njit(cache=True)
def _propagate(st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc, P, NC, E):
    """Run the point, cell, early-loop and parity rules until the queue is empty."""
    while sc[_QH] < sc[_QT]:
        item = queue[sc[_QH]]
        sc[_QH] += 1
        sc[_CHECKS] += 1
        f = -1
        val = 0
        if item < P:                            # lattice point: degree 0 or 2
            p = item
            on = pt[p, 0]
            unk = pt[p, 1]
            if on > 2:
                return _FAIL
            if unk == 0:
                if on == 1:
                    return _FAIL
                continue
            if on == 2:
                for k in range(4):
                    g = pe[p, k]
                    if g >= 0 and st[g] < 0:
                        r = _set(g, 0, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                                 queue, sc, P, NC, E)
                        if r != _OK:
                            return r
                continue
            if unk != 1:
                continue
            val = 1 if on == 1 else 0
            for k in range(4):
                g = pe[p, k]
                if g >= 0 and st[g] < 0:
                    f = g
        elif item < P + NC:                     # clue cell
            c = item - P
            n = cl[c, 2]
            on = cl[c, 0]
            unk = cl[c, 1]
            if n < 0:
                n = cl[c, 3]                    # count that is excluded
                if n < 0 or unk > 1 or (on != n and on + unk != n):
                    continue
                if unk == 0:
                    return _FAIL
                f = -1
                val = 1 if on == n else 0
                for k in range(4):
                    g = ce[c, k]
                    if st[g] < 0:
                        f = g
            elif on > n or on + unk < n:
                return _FAIL
            elif unk == 0 or (on != n and on + unk != n):
                continue
            else:
                val = 0 if on == n else 1
                for k in range(4):
                    g = ce[c, k]
                    if st[g] < 0:
                        r = _set(g, val, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                                 queue, sc, P, NC, E)
                        if r != _OK:
                            return r
                continue
        elif item < P + NC + E:                 # an edge that would close a path into a loop
            g = item - P - NC
            if st[g] >= 0:
                continue
            a = ends[g, 0]
            b = ends[g, 1]
            if pt[a, 0] != 1 or pt[b, 0] != 1 or pt[a, 2] != b:
                continue
            ok = pt[a, 3] == sc[_NON]           # the path holds every selected edge
            if ok:
                bad = sc[_NBAD]
                for k in range(2):
                    c = ec[g, k]
                    if c >= 0:
                        bad += _bad(cl, c, cl[c, 0] + 1) - _bad(cl, c, cl[c, 0])
                ok = bad == 0
            if ok:
                continue
            f = g
            val = 0
        else:                                   # parity: both cells of the edge in one class
            g = item - P - NC - E
            if st[g] >= 0:
                continue
            r1, p1 = _find(uf, ecd[g, 0])
            r2, p2 = _find(uf, ecd[g, 1])
            if r1 != r2:
                continue
            f = g
            val = p1 ^ p2
        if f >= 0:
            r = _set(f, val, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                     queue, sc, P, NC, E)
            if r != _OK:
                return r
    return _OK


@njit(cache=True)
def _connect(st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc, seen, stack, P, NC, E):
    """Global check: the selected edges and every clue that still needs edges must be joined by
    undecided-or-on edges.  Edges out of reach of the selected ones are set off.

    Returns _FAIL, _OK (nothing changed) or _CHANGED (edges set; propagate again).
    """
    if sc[_NON] == 0:
        return _OK
    start = -1
    for p in range(P):
        if pt[p, 0] > 0:
            start = p
            break
    sc[_STAMP] += 1
    stamp = sc[_STAMP]
    seen[start] = stamp
    top = 1
    stack[0] = start
    while top > 0:
        top -= 1
        p = stack[top]
        for k in range(4):
            f = pe[p, k]
            if f >= 0 and st[f] != 0:
                q = ends[f, 0] + ends[f, 1] - p
                if seen[q] != stamp:
                    seen[q] = stamp
                    stack[top] = q
                    top += 1
    for p in range(P):
        if pt[p, 0] > 0 and seen[p] != stamp:
            return _FAIL
    changed = _OK
    for f in range(E):
        if st[f] < 0 and seen[ends[f, 0]] != stamp:
            r = _set(f, 0, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc, P, NC, E)
            if r != _OK:
                return _FAIL
            changed = _CHANGED
    return changed


@njit(cache=True)
def _choose(st, pe, ce, pt, cl, P, NC, E):
    """The edge to branch on: at the path end with fewest open edges, else at the tightest clue."""
    best = -1
    bestunk = 99
    for p in range(P):
        if pt[p, 0] == 1 and pt[p, 1] < bestunk:
            best = p
            bestunk = pt[p, 1]
            if bestunk <= 2:
                break
    if best >= 0:
        for k in range(4):
            f = pe[best, k]
            if f >= 0 and st[f] < 0:
                return f
    bestc = -1
    bestslack = 99
    for c in range(NC):
        n = cl[c, 2]
        if n > cl[c, 0] and cl[c, 1] - (n - cl[c, 0]) < bestslack:
            bestc = c
            bestslack = cl[c, 1] - (n - cl[c, 0])
    if bestc >= 0:
        for k in range(4):
            f = ce[bestc, k]
            if st[f] < 0:
                return f
    for f in range(E):
        if st[f] < 0:
            return f
    return -1


@njit(cache=True)
def _record(st, sols, sc):
    k = sc[_COUNT]
    if k < sols.shape[0]:
        for f in range(st.shape[0]):
            sols[k, f] = 1 if st[f] == 1 else 0
    sc[_COUNT] += 1


@njit(cache=True)
def _fix(use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc, seen, stack):
    """Propagate the queue (and the reach check when ``use_connect``) to a fixed point; empties the queue."""
    P = pt.shape[0]
    NC = cl.shape[0]
    E = st.shape[0]
    while True:
        sc[_NODES] += 1
        r = _propagate(st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc, P, NC, E)
        sc[_QH] = 0
        sc[_QT] = 0
        if r != _OK or not use_connect:
            return r
        r = _connect(st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc,
                     seen, stack, P, NC, E)
        if r != _CHANGED:
            sc[_QH] = 0
            sc[_QT] = 0
            return r


@njit(cache=True)
def _try(f, val, use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc,
         seen, stack):
    """Set edge ``f`` to ``val`` and propagate; returns _OK, _FAIL or _SOLVED (changes stay)."""
    P = pt.shape[0]
    NC = cl.shape[0]
    E = st.shape[0]
    r = _set(f, val, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc, P, NC, E)
    if r == _OK:
        return _fix(use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc,
                    seen, stack)
    sc[_QH] = 0
    sc[_QT] = 0
    return r


@njit(cache=True)
def _probe(node_stop, use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue, sc,
           seen, stack, mk, mv, common):
    """Failed-literal probing with both-branch implications, over every undecided edge until nothing changes.

    Each edge is tried on and off (set, propagate, undo): a value that fails fixes the edge to the
    other one; an edge value that both tries imply is fixed too.  Returns (_OK, _FAIL or _SOLVED,
    the edge whose two tries decided the most edges, for branching; -1 if none).  Before each
    edge (after the first one of this call) it returns _PAUSE once ``sc[_NODES]`` reaches
    ``node_stop``: the pass's position and the edges it fixed stay (slots ``_P*`` of ``sc``), and
    the next call goes on from that edge, exactly as if it had not paused.
    """
    E = st.shape[0]
    if sc[_PACTIVE] == 0:                       # a new probing round: its first pass
        sc[_PACTIVE] = 1
        sc[_PNEXT] = 0
        sc[_PCHANGED] = 0
        sc[_PBEST] = -1
        sc[_PSCORE] = -1
    tried = False
    while True:
        f = sc[_PNEXT]
        if f >= E:                              # a pass is over
            if sc[_PCHANGED] == 0:
                sc[_PACTIVE] = 0
                return _OK, sc[_PBEST]
            sc[_PNEXT] = 0                      # something changed: pass again
            sc[_PCHANGED] = 0
            sc[_PBEST] = -1
            sc[_PSCORE] = -1
            continue
        if st[f] >= 0:
            sc[_PNEXT] = f + 1
            continue
        if tried and sc[_NODES] >= node_stop:
            return _PAUSE, -1
        tried = True
        sc[_PNEXT] = f + 1
        tm = sc[_TLEN]
        mm = sc[_MLEN]
        um = sc[_ULEN]
        r1 = _try(f, 1, use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                  queue, sc, seen, stack)
        n1 = sc[_TLEN] - tm
        sc[_STAMP2] += 1
        stamp = sc[_STAMP2]
        if r1 == _OK:
            for k in range(tm, sc[_TLEN]):
                e = trail[k]
                mk[e] = stamp
                mv[e] = st[e]
        _undo(tm, mm, um, st, ends, ec, pt, cl, uf, trail, mtrail, utrail, sc)
        if r1 == _FAIL:
            r = _try(f, 0, use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                     queue, sc, seen, stack)
            if r != _OK:
                sc[_PACTIVE] = 0
                return r, -1
            sc[_PCHANGED] = 1
            continue
        r0 = _try(f, 0, use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                  queue, sc, seen, stack)
        n0 = sc[_TLEN] - tm
        ncommon = 0
        if r0 == _OK and r1 == _OK:
            for k in range(tm + 1, sc[_TLEN]):
                e = trail[k]
                if mk[e] == stamp and mv[e] == st[e]:
                    common[ncommon] = e
                    common[E + ncommon] = st[e]
                    ncommon += 1
        _undo(tm, mm, um, st, ends, ec, pt, cl, uf, trail, mtrail, utrail, sc)
        if r0 == _FAIL:
            r = _try(f, 1, use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                     queue, sc, seen, stack)
            if r != _OK:
                sc[_PACTIVE] = 0
                return r, -1
            sc[_PCHANGED] = 1
            continue
        if ncommon > 0:
            for k in range(ncommon):
                e = common[k]
                if st[e] < 0:
                    r = _try(e, common[E + k], use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail,
                             mtrail, utrail, queue, sc, seen, stack)
                    if r != _OK:
                        sc[_PACTIVE] = 0
                        return r, -1
            sc[_PCHANGED] = 1
            continue
        score = (n1 + 1) * (n0 + 1)
        if score > sc[_PSCORE]:
            sc[_PSCORE] = score
            sc[_PBEST] = f


@njit(cache=True)
def _run(node_stop, limit, use_connect, probe_depth, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail,
         utrail, queue, lv, sols, sc, seen, stack, mk, mv, common, hint):
    """Depth-first search until done, ``limit`` answers found, or ``sc[_NODES]`` passes ``node_stop``.

    ``lv[d]`` = (edge, first value, phase, edge/mate/union trail marks) of decision ``d``; the
    first value tried is ``hint[edge]`` (on when -1).  Probing runs at decision depths up to
    ``probe_depth``.  Returns the mode (``_DONE`` when the search is over).
    """
    P = pt.shape[0]
    NC = cl.shape[0]
    E = st.shape[0]
    while True:
        mode = sc[_MODE]
        if mode == _DONE:
            return mode
        if sc[_NODES] >= node_stop:
            return mode
        r = _OK
        if mode == _PROPAGATE:
            if sc[_PACTIVE] == 0:               # else a paused probing pass goes on from its fixed point
                r = _fix(use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail, queue,
                         sc, seen, stack)
            e = -1
            if r == _OK and sc[_DEPTH] <= probe_depth:
                r, e = _probe(node_stop, use_connect, st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                              queue, sc, seen, stack, mk, mv, common)
            if r == _PAUSE:
                return mode                     # resume: the fixed point is kept, probing goes on
            if r == _OK:
                if e < 0:
                    e = _choose(st, pe, ce, pt, cl, P, NC, E)
                if e < 0:                       # everything decided without closing a loop
                    r = _FAIL
                else:
                    d = sc[_DEPTH]
                    lv[d, 0] = e
                    lv[d, 1] = hint[e] if hint[e] >= 0 else 1
                    lv[d, 2] = 0
                    lv[d, 3] = sc[_TLEN]
                    lv[d, 4] = sc[_MLEN]
                    lv[d, 5] = sc[_ULEN]
                    sc[_DEPTH] += 1
                    r = _set(e, lv[d, 1], st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                             queue, sc, P, NC, E)
                    if r == _OK:
                        continue                # propagate next round
                    sc[_QH] = 0
                    sc[_QT] = 0
        # here r is _FAIL or _SOLVED (or we were already backtracking)
        if r == _SOLVED:
            _record(st, sols, sc)
            if sc[_COUNT] >= limit:
                sc[_MODE] = _DONE
                return _DONE
        sc[_MODE] = _BACKTRACK
        while True:
            if sc[_DEPTH] == 0:
                sc[_MODE] = _DONE
                return _DONE
            d = sc[_DEPTH] - 1
            _undo(lv[d, 3], lv[d, 4], lv[d, 5], st, ends, ec, pt, cl, uf, trail, mtrail, utrail, sc)
            if lv[d, 2] == 1:
                sc[_DEPTH] -= 1
                continue
            lv[d, 2] = 1
            r = _set(lv[d, 0], 1 - lv[d, 1], st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, trail, mtrail, utrail,
                     queue, sc, P, NC, E)
            if r == _OK:
                sc[_MODE] = _PROPAGATE
                break
            sc[_QH] = 0
            sc[_QT] = 0
            if r == _SOLVED:
                _record(st, sols, sc)
                if sc[_COUNT] >= limit:
                    sc[_MODE] = _DONE
                    return _DONE


@dataclass
class SolutionCount:
    """What :func:`count_solutions` found.

    ``status``: "exact" (the search finished: ``count`` is the number of
    single-loop answers, below ``limit``), "limit" (it stopped after finding
    ``limit`` answers: there are at least that many) or "unknown" (the time
    limit or node cap stopped it first; ``count`` answers were found so far).
    ``value`` is ``count`` unless the status is "unknown", then the string
    "unknown".  ``solutions`` holds the first answers found (uint8 edge masks),
    ``stop_reason`` is "exhausted", "limit", "time_limit" or "max_nodes".
    """

    count: int
    status: str
    stop_reason: str
    limit: int
    nodes: int
    seconds: float
    solutions: list = field(default_factory=list, repr=False)

    @property
    def value(self):
        return "unknown" if self.status == "unknown" else self.count

    @property
    def unique(self) -> bool:
        """Proved to have exactly one answer."""
        return self.status == "exact" and self.count == 1


#: What one numba call of :func:`count_solutions` aims to last when a time limit is set.
CHUNK_SECONDS = 0.02
_INT64_MAX = (1 << 63) - 1


def _check_memory(rows: int, cols: int, keep: int) -> None:
    """The search's arrays for a ``rows`` x ``cols`` board keeping ``keep`` answers must fit the budget."""
    from ..limits import check_allocation, format_bytes

    E = rows * (cols + 1) + (rows + 1) * cols
    P = (rows + 1) * (cols + 1)
    NC = rows * cols
    logn = int(math.log2(NC + 1)) + 2
    queue = 6 * E + P + NC + 4 * (NC + 1 + 2 * (rows + cols)) * logn + 16
    words = (E * (1 + 1 + 6 + 1 + 6 + 1 + 1 + 2 + 1)     # st trail mtrail utrail lv mk mv common hint
             + E * (2 + 1 + 2 + 2) + P * 4 + NC * 4        # _static: ec fill ecd ends, pe, ce
             + E * 2 + P * 4 + NC * 4                      # the grid's own tables
             + P * (4 + 1 + 1) + NC * 4 + (NC + 1) * 4     # pt seen stack, cl, uf
             + queue)
    search = 8 * words
    answers = keep * E
    what = (f"count_solutions on a {rows}x{cols} board ({E} edges): search arrays {format_bytes(search)} "
            f"+ store={keep} answers x {E} bytes")
    check_allocation(search + answers, what)


def _static(rows: int, cols: int):
    """The board's fixed tables, in the edge and point order of :func:`qlib.puzzles.loops.grid`.

    Built with NumPy (not from ``grid``, whose Python loops take most of a second on a
    200x200 board), so the search starts at once and a short time limit holds:
    ``ends`` (E, 2) end points; ``ec`` (E, 2) the cells beside each edge, ascending,
    -1 padded, and ``ecd`` the same with the outside as cell NC; ``pe`` (P, 4) each
    point's edges, ascending, -1 padded; ``ce`` (NC, 4) each cell's top, bottom,
    left and right edges; ``bnd`` the edges on the board's border.
    """
    R, C = rows, cols
    W = C + 1
    nh = (R + 1) * C
    E, P, NC = nh + R * W, (R + 1) * W, R * C
    hi, hj = np.divmod(np.arange(nh, dtype=np.int64), C)            # horizontal edge (i, j)
    vi, vj = np.divmod(np.arange(R * W, dtype=np.int64), W)         # vertical edge (i, j)
    ends = np.empty((E, 2), dtype=np.int64)
    ends[:nh, 0] = hi * W + hj
    ends[:nh, 1] = hi * W + hj + 1
    ends[nh:, 0] = vi * W + vj
    ends[nh:, 1] = (vi + 1) * W + vj
    # cells beside an edge: above/below a horizontal one, left/right of a vertical one
    side = np.full((E, 2), -1, dtype=np.int64)
    side[:nh, 0] = np.where(hi > 0, (hi - 1) * C + hj, -1)
    side[:nh, 1] = np.where(hi < R, hi * C + hj, -1)
    side[nh:, 0] = np.where(vj > 0, vi * C + vj - 1, -1)
    side[nh:, 1] = np.where(vj < C, vi * C + vj, -1)
    ec = _compact(side)
    ecd = np.where(ec >= 0, ec, NC)
    bnd = np.flatnonzero((ec >= 0).sum(axis=1) == 1).astype(np.int64)
    # a point's edges in ascending order: left, right (horizontal), up, down (vertical)
    pi, pj = np.divmod(np.arange(P, dtype=np.int64), W)
    around = np.stack([np.where(pj > 0, pi * C + pj - 1, -1), np.where(pj < C, pi * C + pj, -1),
                       np.where(pi > 0, nh + (pi - 1) * W + pj, -1), np.where(pi < R, nh + pi * W + pj, -1)],
                      axis=1)
    pe = _compact(around)
    ci, cj = np.divmod(np.arange(NC, dtype=np.int64), C)
    ce = np.stack([ci * C + cj, (ci + 1) * C + cj, nh + ci * W + cj, nh + ci * W + cj + 1], axis=1)
    return E, P, NC, ends, ec, ecd, pe, ce, bnd


def _compact(rows: np.ndarray) -> np.ndarray:
    """Each row's entries >= 0 moved to the front, in order, the rest -1."""
    order = np.argsort(rows < 0, axis=1, kind="stable")
    return np.ascontiguousarray(np.take_along_axis(rows, order, axis=1))


class BacktrackSearch:
    """The exact counter's search on one board, resumable: :meth:`advance` runs it for a node budget.

    Holds the search arrays (see :func:`count_solutions` for the propagation and
    the options).  The search is deterministic: the same board, options and
    budgets give the same nodes, answers and order, so a caller can interleave
    it with another search and still get repeatable results.
    ``status`` is "running" until the search ends: "exhausted" (every branch
    closed: ``count`` is the number of answers) or "limit" (``limit`` answers
    found).
    """

    def __init__(self, board, limit: int = 2, *, connect: bool = True, probe_depth: int = 1_000_000,
                 store: int = 10, exclude=None, hint=None):
        board = parse(board)
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        if isinstance(store, bool) or not isinstance(store, (int, np.integer)) or store < 0:
            raise ValueError(f"store must be a non-negative integer, got {store!r}")
        self.board, self.limit = board, int(limit)
        R, C = board.rows, board.cols
        _check_memory(R, C, int(min(limit, store)))
        E, P, NC, ends, ec, ecd, pe, ce, bnd = _static(R, C)
        st = np.full(E, -1, dtype=np.int64)
        pt = np.zeros((P, 4), dtype=np.int64)          # on, undecided, mate, path length
        pt[:, 1] = (pe >= 0).sum(axis=1)
        pt[:, 2] = np.arange(P)
        cl = np.zeros((NC, 4), dtype=np.int64)         # on, undecided, clue (-1: none), excluded count
        cl[:, 1] = 4
        cl[:, 2:] = -1
        for i, j, n in board.clue_cells:
            cl[i * C + j, 2] = n
        if exclude is not None:
            i, j, n = exclude
            if not (0 <= i < R and 0 <= j < C) or n not in (0, 1, 2, 3):
                raise ValueError(f"exclude must be (row, col, count) inside the board with count 0-3, got {exclude!r}")
            if board.clues[i][j] is not None:
                raise ValueError(f"exclude names cell ({i},{j}), which has a clue")
            cl[i * C + j, 3] = n
        uf = np.zeros((NC + 1, 4), dtype=np.int64)     # parent, parity, size, next member
        uf[:, 0] = np.arange(NC + 1)
        uf[:, 2] = 1
        uf[:, 3] = np.arange(NC + 1)
        sc = np.zeros(_NSC, dtype=np.int64)
        sc[_NBAD] = int((cl[:, 2] > 0).sum() + (cl[:, 3] == 0).sum())   # cells whose rule fails at count 0
        logn = int(math.log2(NC + 1)) + 2
        queue = np.zeros(6 * E + P + NC + 4 * (NC + 1 + len(bnd)) * logn + 16, dtype=np.int64)
        queue[:P + NC] = np.arange(P + NC)
        sc[_QT] = P + NC
        hint_arr = np.full(E, -1, dtype=np.int64)
        if hint is not None:
            hint_arr[:] = grid(R, C).as_mask(hint)
        sc[_MODE] = _PROPAGATE
        self.E = E
        self.connect = bool(connect)
        self.probe_depth = int(max(-1, min(probe_depth, _INT64_MAX)))
        self.sc = sc
        self.sols = np.zeros((int(min(limit, store)), E), dtype=np.uint8)
        self._arrays = (st, ends, ec, ecd, pe, ce, bnd, pt, cl, uf, np.zeros(E, dtype=np.int64),
                        np.zeros((2 * E + 2, 3), dtype=np.int64), np.zeros(E + 1, dtype=np.int64), queue,
                        np.zeros((E + 1, 6), dtype=np.int64), self.sols, sc, np.zeros(P, dtype=np.int64),
                        np.zeros(P + 1, dtype=np.int64), np.zeros(E, dtype=np.int64), np.zeros(E, dtype=np.int64),
                        np.zeros(2 * E, dtype=np.int64), hint_arr)
        self.status = "running"

    @property
    def nodes(self) -> int:
        """Propagations to a fixed point so far, probes included."""
        return int(self.sc[_NODES])

    @property
    def count(self) -> int:
        return int(min(self.sc[_COUNT], self.limit))

    @property
    def solutions(self) -> list:
        """The answers found and kept (uint8 edge masks), in the order found."""
        return [self.sols[k].copy() for k in range(min(self.count, len(self.sols)))]

    def advance(self, node_stop: int | None = None, deadline: float | None = None, chunk: int = 2_000) -> str:
        """Search until it ends, ``nodes`` reaches ``node_stop`` or ``time.perf_counter()`` passes ``deadline``.

        Returns the status: "exhausted", "limit", or "running" (stopped by the
        budget or the clock; call again to go on).  The kernel runs in calls
        of at most ``chunk`` nodes, fewer near the deadline (each call aims at
        ``CHUNK_SECONDS``, from the speed measured so far), so the clock is
        read often on large boards too.
        """
        if self.status != "running":
            return self.status
        kernel_limit = int(min(self.limit, _INT64_MAX))        # no count gets there; numba takes int64
        step = int(chunk) if deadline is None else int(min(chunk, 8))   # the first calls measure the speed
        sc = self.sc
        while True:
            stop = sc[_NODES] + step
            if node_stop is not None:
                if sc[_NODES] >= node_stop:
                    return self.status
                stop = min(stop, int(node_stop))
            nodes0, c0 = int(sc[_NODES]), time.perf_counter()
            mode = _run(stop, kernel_limit, self.connect, self.probe_depth, *self._arrays)
            now = time.perf_counter()
            if mode == _DONE:
                self.status = "limit" if sc[_COUNT] >= self.limit else "exhausted"
                return self.status
            if deadline is not None:
                if now >= deadline:
                    return self.status
                # the next call: about CHUNK_SECONDS of nodes at the speed just seen, and no more than the time left
                rate = max(int(sc[_NODES]) - nodes0, 1) / max(now - c0, 1e-6)
                step = int(min(chunk, max(1, rate * min(CHUNK_SECONDS, 0.9 * (deadline - now)))))


def count_solutions(board, limit: int = 2, time_limit: float | None = 10.0, max_nodes: int | None = None,
                    chunk: int = 2_000, connect: bool = True,
                    probe_depth: int = 1_000_000, store: int = 10, exclude=None,
                    hint=None) -> SolutionCount:
    """Count the single-loop answers of ``board`` exactly, stopping at ``limit``.

    Depth-first search over the edges (undecided / on / off).  After every
    decision a queue propagates, to a fixed point:

    * clue cells: a cell whose count is reached empties its undecided sides,
      one that needs all its undecided sides fills them;
    * lattice points: degree 0 or 2 (a path end with one way on takes it);
    * single loop: an edge that would close a path into a loop is removed
      unless that loop would hold every selected edge and meet every clue; a
      loop that closes that way is an answer (the rest of the edges are off);
    * inside/outside parity: each decided edge says whether its two cells (or
      a cell and the outside) are on the same side of the loop; a union-find
      with parities joins them, and an undecided edge between two cells of one
      class is decided by their parity;
    * reach (``connect``): every selected edge must be reachable from the
      others through undecided-or-on edges; edges out of reach are set off.

    At decision depths up to ``probe_depth`` (default: every depth) each
    undecided edge is also probed: tried on and off with full propagation; a
    value that fails fixes the other one, a value both tries imply is fixed,
    and the search branches on the edge whose tries decided the most edges.
    Otherwise it branches at the path end with fewest open edges.

    ``limit=2`` proves uniqueness (``result.unique``) or finds a second answer.
    ``time_limit`` (seconds, None for none) and ``max_nodes`` (propagations to
    a fixed point, probes included; None for none) stop the search with status
    "unknown".  The search runs in numba calls of at most ``chunk`` nodes,
    fewer when a time limit is set (each call aims at ``CHUNK_SECONDS``, from
    the speed measured so far, and at the time left), and a probing pass pauses
    and resumes at any edge, so the time limit holds on large boards too.  The
    first ``store`` answers found are kept; the arrays are checked against the
    memory budget (:func:`qlib.limits.check_allocation`) before they are made.
    ``exclude=(i, j, n)`` counts only the answers in which cell ``(i, j)`` (a
    cell without clue) does not have ``n`` sides drawn.  ``hint`` (an edge mask)
    is the value each decision tries first (on where no hint is given): an
    answer near the hint is found sooner; the count does not depend on it.
    Returns a :class:`SolutionCount`.
    """
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    if max_nodes is not None and (isinstance(max_nodes, bool) or max_nodes < 1):
        raise ValueError(f"max_nodes must be a positive integer or None, got {max_nodes!r}")
    t0 = time.perf_counter()
    search = BacktrackSearch(board, limit, connect=connect, probe_depth=probe_depth, store=store, exclude=exclude,
                             hint=hint)
    deadline = None if time_limit is None else t0 + time_limit
    status = search.advance(max_nodes, deadline, chunk)
    if status == "running":
        stop = "max_nodes" if max_nodes is not None and search.nodes >= max_nodes else "time_limit"
    else:
        stop = status
    count = search.count
    return SolutionCount(count=count, status={"exhausted": "exact", "limit": "limit"}.get(stop, "unknown"),
                         stop_reason=stop, limit=int(limit), nodes=search.nodes,
                         seconds=time.perf_counter() - t0, solutions=search.solutions)


# -----------------------------------------------------------------------------
# Generators
# -----------------------------------------------------------------------------
class UnverifiedBoardError(RuntimeError):
    """:func:`generate`'s final recount stopped at its node cap: the board's uniqueness is not proved.

    ``board``, ``mask`` and ``count`` (the :class:`SolutionCount` of the recount) say what was made.
    """

    def __init__(self, message: str, board, mask, count):
        super().__init__(message)
        self.board, self.mask, self.count = board, mask, count

    def __reduce__(self):   # picklable (for worker processes) with its fields
        return type(self), (str(self), self.board, self.mask, self.count)


def _unique_loop(rows, cols, rng, max_nodes, time_limit):
    """A random loop whose full clue board the counter proves unique (retrying a few loops).

    Every clue given, propagation alone nearly always decides every edge.
    """
    for _ in range(20):
        mask = random_loop(rows, cols, int(rng.integers(1 << 62)))
        board = board_from_mask(mask, rows, cols)
        res = count_solutions(board, limit=2, time_limit=time_limit, max_nodes=max_nodes)
        if res.unique:
            return mask
    raise RuntimeError(f"could not prove a full-clue {rows}x{cols} board unique; raise max_nodes")


def generate(rows: int, cols: int, seed: int, keep: float = 0.0, *, max_nodes: int | None = 2_000_000,
             check_time_limit: float | None = None, time_limit: float | None = None, verify: bool = True, log=None):
    """A board with a unique answer (proved by :func:`count_solutions`) and its answer mask.

    A random loop (:func:`random_loop`) gives every clue, and the full board is
    proved unique.  Clues are then tried for removal in random order; a removal
    stays only if :func:`count_solutions` proves the board still has exactly
    one answer.  The check uses what is known: the board before the removal
    has exactly one answer, the loop, so the board without the clue ``n`` of
    cell ``(i, j)`` is unique exactly when it has no answer in which that cell
    does not have ``n`` sides drawn — ``count_solutions(..., limit=1,
    exclude=(i, j, n))`` must finish with count 0.  When it finds such an
    answer, or stops with "unknown" (after ``max_nodes`` search nodes, or
    ``check_time_limit`` seconds), the clue goes back.

    ``keep`` is the fraction of cells that keep their clue at least (removal
    stops there; 0 tries every clue).  ``time_limit`` bounds the removal phase
    (clues not tried by then stay).  ``verify`` re-counts the final board with
    ``limit=2`` and a cap of ``4 * max_nodes`` nodes: it raises
    :class:`UnverifiedBoardError` when that recount stops at its cap before
    finishing (uniqueness not proved; the error holds the board), and
    RuntimeError if it finds a second answer or misses the loop, which would
    be a bug.  ``log`` (a callable) gets progress lines.

    Returns ``(board, mask)``: a :class:`~qlib.puzzles.slitherlink.Board` and
    the answer's uint8 edge mask.  The same arguments give the same board as
    long as no clock limit is set (``check_time_limit`` and ``time_limit`` make
    the result depend on the machine's speed; ``max_nodes`` does not).
    """
    _check_size(rows, cols)
    if rows * cols < 2:
        raise ValueError("a 1x1 board has only the loop around its cell, whose clue 4 no board accepts")
    if not 0.0 <= keep <= 1.0:
        raise ValueError(f"keep must be a fraction in [0, 1], got {keep!r}")
    rng = _rng(seed)
    t0 = time.perf_counter()
    mask = _unique_loop(rows, cols, rng, None if max_nodes is None else 4 * max_nodes, check_time_limit)
    counts = np.array(clues_of((rows, cols), mask))
    kept = np.ones((rows, cols), dtype=bool)
    floor = int(math.ceil(keep * rows * cols))
    order = rng.permutation(rows * cols)
    tried = removed = unknown = 0
    for k in order:
        if kept.sum() <= floor:
            break
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
        i, j = divmod(int(k), cols)
        kept[i, j] = False
        res = count_solutions(board_from_mask(mask, rows, cols, kept), limit=1, time_limit=check_time_limit,
                              max_nodes=max_nodes, exclude=(i, j, int(counts[i, j])), hint=mask)
        tried += 1
        if res.status == "exact" and res.count == 0:
            removed += 1
        else:
            kept[i, j] = True
            unknown += res.status == "unknown"
        if log is not None and tried % 25 == 0:
            log(f"{tried} tried, {removed} removed, {unknown} unknown, {time.perf_counter() - t0:.1f} s")
    board = board_from_mask(mask, rows, cols, kept)
    if verify:
        cap = None if max_nodes is None else 4 * max_nodes
        res = count_solutions(board, limit=2, time_limit=None, max_nodes=cap, hint=mask)
        if res.status == "unknown":
            raise UnverifiedBoardError(
                f"could not verify the generated {rows}x{cols} board (seed {seed}): the recount reached its "
                f"cap of {cap} nodes (4 * max_nodes) with {res.count} answer(s) found, so uniqueness is not "
                "proved; raise max_nodes (None for no cap), or pass verify=False and count it yourself",
                board, mask, res)
        if not res.unique or not np.array_equal(res.solutions[0], mask):
            raise RuntimeError(f"generated board is not unique ({res}); this is a bug")
    return board, mask


def generate_dense(rows: int, cols: int, seed: int, fraction: float = 0.6):
    """A board keeping a random ``fraction`` of a random loop's clues, and the loop's mask.

    Uniqueness is NOT proved (nor checked): the board may have other answers.
    Use :func:`count_solutions` to check it, or :func:`generate` for a proved
    unique board.  Returns ``(board, mask)``.
    """
    _check_size(rows, cols)
    if rows * cols < 2:
        raise ValueError("a 1x1 board has only the loop around its cell, whose clue 4 no board accepts")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction!r}")
    rng = _rng(seed)
    mask = random_loop(rows, cols, int(rng.integers(1 << 62)))
    n = rows * cols
    keep = np.zeros(n, dtype=bool)
    keep[rng.permutation(n)[: int(round(fraction * n))]] = True
    return board_from_mask(mask, rows, cols, keep.reshape(rows, cols)), mask
