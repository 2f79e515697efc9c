"""Slitherlink puzzle generation: random loops, their clues, and clue removal proved by the counter.

The recipe:

1. :func:`random_loop` draws a random single loop as the boundary of a random
   simply-connected region of cells (:func:`random_region`: grown cell by
   cell; no holes and no two region cells touching only at a corner, so every
   lattice point has degree 0 or 2 and the boundary is one simple loop).
2. :func:`board_from_mask` gives the loop's clues
   (:func:`qlib.puzzles.loops.clue_counts` counts its edges around every cell).
3. :func:`generate` starts from every clue and removes clues in random order,
   keeping a removal only when the exact counter
   (:func:`.counter.count_solutions`) still proves exactly one answer.
   :func:`generate_dense` just keeps a random fraction of the clues
   (uniqueness not proved).
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from ... import validate
from ..loops import clue_counts, grid
from .board import Board
from .counter import count_solutions

__all__ = ["random_region", "random_loop", "board_from_mask", "generate", "generate_dense",
           "UnverifiedBoardError", "SHIPPED"]

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
    """NumPy's generator for a non-negative integer ``seed`` (TypeError / ValueError otherwise)."""
    return np.random.default_rng(validate.seed(seed, none=False))


def _check_size(rows, cols) -> tuple[int, int]:
    """``rows`` and ``cols`` as ints, each a positive integer."""
    return validate.integer("rows", rows, minimum=1), validate.integer("cols", cols, minimum=1)


def _check_board(rows, cols, name, share) -> tuple[int, int]:
    """:func:`_check_size` for a board to generate (2 cells or more), and ``share`` (the argument ``name``)
    a fraction in [0, 1]."""
    rows, cols = _check_size(rows, cols)
    if rows * cols < 2:
        raise ValueError("a 1x1 board has one puzzle only, the clue 4 around its cell: nothing to generate; "
                         "ask for 2 cells or more")
    if not 0.0 <= validate.number(name, share) <= 1.0:
        raise ValueError(f"{name} must be a fraction in [0, 1], got {share!r}")
    return rows, cols


def _outside_connected(region: np.ndarray) -> bool:
    """Whether every cell outside ``region`` reaches the board's edge through outside cells."""
    return bool(_reaches_edge(np.ascontiguousarray(region, dtype=np.bool_)))


@numba.njit(cache=True)
def _reaches_edge(region):   # pragma: no cover - compiled
    """A breadth-first search from the outside cells on the board's edge; True when it meets every one."""
    R, C = region.shape
    seen = region.copy()
    queue = np.empty(R * C, dtype=np.int64)
    n = 0
    for i in range(R):
        for j in range(C):
            if (i == 0 or j == 0 or i == R - 1 or j == C - 1) and not seen[i, j]:
                seen[i, j] = True
                queue[n] = i * C + j
                n += 1
    head = 0
    while head < n:
        i, j = divmod(queue[head], C)
        head += 1
        for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= a < R and 0 <= b < C and not seen[a, b]:
                seen[a, b] = True
                queue[n] = a * C + b
                n += 1
    return n + region.sum() == R * C


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
    rows, cols = _check_size(rows, cols)
    rng = _rng(seed)
    if fill is None:
        fill = float(rng.uniform(0.4, 0.6))
    elif not 0.0 < validate.number("fill", fill) <= 1.0:
        raise ValueError(f"fill must be a fraction in (0, 1], got {fill!r}")
    # two cells at least where the board has them: a one-cell region gives a clue 4, which only a 1x1 board takes
    target = max(min(2, rows * cols), min(rows * cols, int(round(fill * rows * cols))))
    region = np.zeros((rows, cols), dtype=bool)
    i0 = int(rng.integers(rows // 4, rows - rows // 4))       # start in the middle half
    j0 = int(rng.integers(cols // 4, cols - cols // 4))
    region[i0, j0] = True
    size = 1
    # the frontier: outside cells next to the region, with their number of region neighbours; the
    # candidates are its cells not rejected since the last growth, in row-major order
    neighbours = np.zeros(rows * cols, dtype=np.int64)
    frontier = np.zeros(rows * cols, dtype=bool)
    rejected = np.zeros(rows * cols, dtype=bool)

    def touch(i, j):
        for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= a < rows and 0 <= b < cols and not region[a, b]:
                frontier[a * cols + b] = True
                neighbours[a * cols + b] += 1

    touch(i0, j0)
    while size < target:
        cands = np.flatnonzero(frontier & ~rejected)
        if not cands.size:
            break
        # Prefer cells with one region neighbour (long arms) over ones that fill in corners.
        weights = np.where(neighbours[cands] == 1, 4.0, 1.0)
        k = int(rng.choice(len(cands), p=weights / weights.sum()))
        cell = int(cands[k])
        i, j = divmod(cell, cols)
        if _corner_touch(region, i, j):
            rejected[cell] = True
            continue
        region[i, j] = True
        if not _ring_safe(region, i, j) and not _outside_connected(region):
            region[i, j] = False
            rejected[cell] = True
            continue
        size += 1
        frontier[cell] = False
        neighbours[cell] = 0
        rejected[:] = False           # a cell rejected before may fit now
        touch(i, j)
    return region


def random_loop(rows: int, cols: int, seed: int, fill: float | None = None) -> np.ndarray:
    """A random single loop: the boundary of :func:`~.generator.random_region` (uint8 edge mask).

    The mask is in the flat edge order of :class:`qlib.puzzles.loops.Grid`;
    every lattice point has degree 0 or 2 and the edges form one loop.
    """
    return _region_boundary(random_region(rows, cols, seed, fill))


def board_from_mask(mask, rows: int, cols: int, keep=None) -> Board:
    """The Board of a loop with the clues of cells where ``keep`` (bool (rows, cols)) is True (all by default)."""
    g = grid(rows, cols)
    counts = clue_counts(g.as_mask(mask), g.cell_edges).reshape(rows, cols).tolist()
    if keep is None:
        keep = np.ones((rows, cols), dtype=bool)
    return Board(tuple(tuple(counts[i][j] if keep[i][j] else None for j in range(cols)) for i in range(rows)))


# -----------------------------------------------------------------------------
# Generators
# -----------------------------------------------------------------------------
class UnverifiedBoardError(RuntimeError):
    """:func:`generate`'s final recount stopped at its node cap: the board's uniqueness is not proved.

    ``board``, ``mask`` and ``count`` (the :class:`~qlib.puzzles.count.Count` of the recount) say what was made.
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
    """A board with a unique answer (proved by :func:`~qlib.puzzles.slitherlink.count_solutions`) and its answer mask.

    A random loop (:func:`random_loop`) gives every clue, and the full board is
    proved unique.  Clues are then tried for removal in random order; a removal
    stays only if :func:`~qlib.puzzles.slitherlink.count_solutions` proves the board still has exactly
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
    rows, cols = _check_board(rows, cols, "keep", keep)
    max_nodes = validate.integer("max_nodes", max_nodes, minimum=1, none=True)
    check_time_limit = validate.number("check_time_limit", check_time_limit, positive=True, none=True)
    time_limit = validate.time_limit(time_limit, none=True)
    rng = _rng(seed)
    t0 = time.perf_counter()
    mask = _unique_loop(rows, cols, rng, None if max_nodes is None else 4 * max_nodes, check_time_limit)
    g = grid(rows, cols)
    counts = clue_counts(mask, g.cell_edges).reshape(rows, cols)
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
    Use :func:`~qlib.puzzles.slitherlink.count_solutions` to check it, or :func:`generate` for a proved
    unique board.  Returns ``(board, mask)``.
    """
    rows, cols = _check_board(rows, cols, "fraction", fraction)
    rng = _rng(seed)
    mask = random_loop(rows, cols, int(rng.integers(1 << 62)))
    n = rows * cols
    keep = np.zeros(n, dtype=bool)
    keep[rng.permutation(n)[: int(round(fraction * n))]] = True
    return board_from_mask(mask, rows, cols, keep.reshape(rows, cols)), mask
