"""Loop separation for lazy cuts: find the closed loops of a state, accept or forbid each.

A closed loop is a connected set of drawn edges whose points all have degree 2.
If one alone satisfies every clue it is the answer; otherwise it can be
forbidden, because no proper subset of a cycle's edges is a cycle, so a loop
that is not the answer is never part of it.  The formulation says how a loop
is forbidden in its own variables (:meth:`Formulation.loop_literals <.formulation.Formulation.loop_literals>`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def closed_loops(mask, endpoints, point_ptr, point_edges):
    """The closed loops of the edge mask ``mask``: (edges, ptr), loop k is ``edges[ptr[k]:ptr[k+1]]``."""
    num_edges = endpoints.shape[0]
    num_points = point_ptr.shape[0] - 1
    deg = np.zeros(num_points, dtype=np.int32)
    for e in range(num_edges):
        if mask[e]:
            deg[endpoints[e, 0]] += 1
            deg[endpoints[e, 1]] += 1
    seen = np.zeros(num_edges, dtype=np.bool_)
    stack = np.empty(num_edges, dtype=np.int64)
    out = np.empty(num_edges, dtype=np.int64)
    ptr = np.zeros(num_edges + 1, dtype=np.int64)
    count = 0
    pos = 0
    for e0 in range(num_edges):
        if seen[e0] or not mask[e0]:
            continue
        size = 0
        top = 1
        stack[0] = e0
        seen[e0] = True
        closed = True
        while top > 0:
            top -= 1
            e = stack[top]
            out[pos + size] = e
            size += 1
            for s in range(2):
                p = endpoints[e, s]
                if deg[p] != 2:
                    closed = False
                for k in range(point_ptr[p], point_ptr[p + 1]):
                    f = point_edges[k]
                    if not seen[f] and mask[f]:
                        seen[f] = True
                        stack[top] = f
                        top += 1
        if closed:
            pos += size
            count += 1
            ptr[count] = pos
    return out[:pos].copy(), ptr[:count + 1].copy()


def warmup(board) -> None:
    """Compile or load the separation's kernels on ``board`` (one the presolve leaves open): finding closed
    loops, the cells of ring cuts (:func:`.rings.ring_cuts`), and the refutation that shortens a cut
    (:func:`.counter.shortest_refuted`), so that a solve's first cut pays for none of them inside its clock."""
    from . import counter
    from .model import edge_sides
    from .presolve import presolve
    from .rings import ring_cuts

    closed_loops(np.zeros(board.grid.num_edges, dtype=np.uint8), *incidence(board.grid))
    sides = edge_sides(board)
    around_first = np.flatnonzero((sides == 0).any(axis=1))   # the loop around cell 0, which is inside
    inside = np.zeros(board.rows * board.cols, dtype=np.uint8)
    inside[0] = 1
    ring_cuts(board, [around_first], inside, sides, np.zeros((0, 2), dtype=np.int64))
    state = presolve(board, probe_nodes=None).state
    counter.shortest_refuted(state, np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64))


def incidence(grid):
    """CSR point -> edges of a :class:`~qlib.puzzles.loops.Grid`, for :func:`closed_loops`."""
    ends = np.ascontiguousarray(grid.endpoints, dtype=np.int64)
    flat = ends.ravel()
    order = np.argsort(flat, kind="stable")
    point_edges = (order // 2).astype(np.int64)
    point_ptr = np.zeros(grid.num_points + 1, dtype=np.int64)
    point_ptr[1:] = np.cumsum(np.bincount(flat, minlength=grid.num_points))
    return ends, point_ptr, point_edges


class LoopSeparation:
    """The separation function of :class:`qlib.solvers.focused.driver.LazyCuts` for a Slitherlink model.

    Called with a model state: decodes it to edges (``formulation.decode_state``),
    accepts a loop that alone satisfies every clue (returning the model state
    that draws just that loop), and otherwise returns one cut per closed loop,
    in the formulation's literals, or the cut of the empty drawing when nothing
    is drawn.  A zero-energy state that is not an answer therefore always gets
    a cut, so it can never end the search.
    """

    def __init__(self, formulation, sm, compiled):
        self.formulation, self.sm, self.compiled = formulation, sm, compiled
        g = sm.grid
        self.ends, self.point_ptr, self.point_edges = incidence(g)
        clues = sm.board.clue_cells
        self.clue_edges = np.asarray([g.cell_edges[i * sm.board.cols + j] for i, j, _ in clues],
                                     dtype=np.int64).reshape(-1, 4)
        self.clue_values = np.asarray([n for _, _, n in clues], dtype=np.int64)

    def __call__(self, state, energy=None):
        mask = self.formulation.decode_state(self.sm, self.compiled, state)
        if not mask.any():   # the empty drawing is never an answer: forbid it like a wrong loop
            return None, self.formulation.empty_literals(self.sm, self.compiled)
        edges, ptr = closed_loops(mask, self.ends, self.point_ptr, self.point_edges)
        sizes = np.diff(ptr)
        # Below the target energy every loop is wrong; above it the longest loop is usually the
        # answer's body with a rule still broken nearby, and a cut of it would be long and weak.
        if energy is None:
            energy = self.compiled.energy(state)
        spare = int(np.argmax(sizes)) if len(sizes) and energy > 1e-9 else -1
        loops = [edges[ptr[k]:ptr[k + 1]] for k in range(len(ptr) - 1)]
        for loop in loops:
            on = np.zeros(mask.shape[0], dtype=bool)
            on[loop] = True
            if (on[self.clue_edges].sum(axis=1) == self.clue_values).all():
                return self.formulation.encode_loop(self.sm, self.compiled, loop, state), []
        wrong = [loop for k, loop in enumerate(loops) if k != spare]
        return None, self.formulation.loops_literals(self.sm, self.compiled, wrong, state)
