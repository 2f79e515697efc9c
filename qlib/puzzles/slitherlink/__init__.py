"""Slitherlink: one closed loop along the lattice edges, with clue counts per cell.

Formulation (after the QUBO++ tutorial and Nakahara et al., CANDAR 2026): one
binary variable per lattice edge, ``h[i][j]`` for the horizontal edge from point
``(i, j)`` to ``(i, j + 1)`` and ``v[i][j]`` for the vertical edge from ``(i, j)``
to ``(i + 1, j)``.  A clue ``n`` in cell ``(i, j)`` says
``h[i][j] + h[i+1][j] + v[i][j] + v[i][j+1] == n``; every lattice point has
degree 0 or 2.  These two local rules allow several disjoint loops; "exactly
one loop" is global, so :func:`solve` removes extra loops by iterating: solve,
split the state into loops, accept a loop that satisfies every clue on its own,
otherwise forbid every loop found and solve again, warm-started from the last
state.

``formulation="cells"``, the default, is a second formulation: one variable per
cell, 1 inside the loop and 0 outside (the border's outside is 0).  An edge is
drawn where its two cells differ (``a + b - 2ab``), so lattice-point degrees
are even by construction; a penalty on every 2x2 checkerboard rules out
degree 4.  A single flip can merge two loops or split one, which the edge form
needs several flips and several violated rules for.  Before the search a
presolve (:mod:`.presolve`) decides what the rules alone decide and joins the
cells known to lie on the same or opposite sides into classes, one variable
each.  The default method is lazy: one focused search in which each closed
loop met is accepted or forbidden at once (:mod:`.separation`).

Modules: :mod:`.board` (the board and its formats), :mod:`.formulation`
(models, and one :class:`~.formulation.Formulation` object per form),
:mod:`.presolve`, :mod:`.separation` (lazy loop cuts), :mod:`.rules`
(``check``: the rules as a check of a drawing), :mod:`.solve` (the methods), :mod:`qlib.puzzles.slitherlink.exact` (the SAT reference solver),
:mod:`.counter` (the exact backtracking counter, :func:`count_solutions`, with
its numba kernels in :mod:`.propagation`), :mod:`.generator` (boards with a
proved unique answer, :func:`generate`), :mod:`.bonus` (the straight-edge bonus
QUBO and its exact check), :mod:`.single_loop` (a QUBO with auxiliary variables
whose ground states are exactly the single-loop answers, :func:`build_single_loop_model`)
and :mod:`.display`.

The verbs match the other puzzle modules: :func:`parse`, :func:`build_model`,
:func:`solve`, :func:`decode`, :func:`check`, :func:`render_text`, :func:`draw`.
Edges also have a flat index (all ``h`` row-major, then all ``v``); see
:mod:`qlib.puzzles.loops` for the geometry arrays.
"""

from ..count import Count, CountStatus, StopReason
from ..loops import loop_satisfies_clues, split_loops
from .board import (CLUE_CHARS, Board, SlitherlinkError, SlitherlinkFileNotFoundError, parse, parse_bytes,
                    parse_loopy, parse_text, parse_url)
from .display import cell_edges_mask, draw, draw_cells, render_text
from .formulation import CUTS, EDGE_CUTS, FORMULATIONS, decode, forbid_loop
from .model import SlitherlinkModel, build_model, model_sizes
from .presolve import presolve
from .rules import check, is_solution
from .solve import METHODS, SlitherlinkResult, loop_cuts, solve, warmup
from .single_loop import SingleLoopModel, build_single_loop_model
from .sweep import sweep_task
from .counter import BacktrackSearch, count_solutions
from .generator import SHIPPED, UnverifiedBoardError, board_from_mask, generate, generate_dense, random_loop
from . import bonus, counter, generator

__all__ = [
    "Board", "SlitherlinkError", "SlitherlinkModel", "SlitherlinkResult", "METHODS", "EDGE_CUTS", "CUTS",
    "parse", "build_model", "model_sizes", "forbid_loop", "solve", "decode", "check",
    "is_solution", "render_text", "draw", "split_loops", "loop_satisfies_clues", "loop_cuts",
    "parse_text", "parse_url", "parse_loopy", "parse_bytes", "SlitherlinkFileNotFoundError", "CLUE_CHARS", "FORMULATIONS", "presolve", "warmup",
    "sweep_task", "cell_edges_mask", "draw_cells",
    "count_solutions", "Count", "CountStatus", "StopReason", "BacktrackSearch", "generate", "generate_dense", "random_loop",
    "board_from_mask", "UnverifiedBoardError", "SHIPPED", "bonus", "counter", "generator",
    "SingleLoopModel", "build_single_loop_model",
]
