"""Nonogram as a binary polynomial, with the blocks' shifts as domain walls.

A line (row or column) of length ``n`` with clue ``r_0, ..., r_{m-1}`` packs its
blocks to the left with one white cell between them: block ``k`` then starts at
``e_k = r_0 + ... + r_{k-1} + k`` and ``d = n - sum(r) - (m - 1)`` cells of slack
remain.  In any solution block ``k`` sits ``t_k`` cells right of ``e_k``, with
``0 <= t_0 <= t_1 <= ... <= d`` (blocks cannot overtake each other).

Each shift is a domain wall over ``d`` variables: ``y[k, p] = 1`` iff ``t_k > p``,
so a shift is a run of ones followed by zeros.  Two quadratic penalties keep
the walls well formed, without auxiliary variables:

* shape, ``~y[k, p] * y[k, p+1]``: a one after a zero;
* order, ``y[k, p] * ~y[k+1, p]``: block ``k`` shifted further than block ``k+1``.

With ``Y(q) = 1`` for ``q < 0``, ``y[k, q]`` for ``0 <= q < d`` and ``0`` for
``q >= d``, block ``k`` covers cell ``j`` iff ``Y(j - e_k - r_k) - Y(j - e_k) = 1``
(the wall lies between the two marks), so the colour of a cell seen from its
line is a *linear* form in the variables.  The model asks, for every cell, that
the colour seen from its row equal the colour seen from its column.  It has
energy 0 exactly at the grids that satisfy every clue, and each such grid has
exactly one zero-energy state.

:func:`solve` propagates first (line solving and probing, compiled with numba),
then hands the cells still open to this model's search and to a complete
search (SAT, :mod:`qlib.puzzles.nonogram.exact`, or backtracking) in turns (see :mod:`.solver`).

The modules: :mod:`.puzzle` (the :class:`Nonogram` type, line arithmetic),
:mod:`.rules` (:func:`check`), :mod:`.parsing` (reading and writing the
``.non`` format and ``.nonpack`` bundles, game IDs and Python clues), :mod:`.sgt` (reading sgt-puzzles game IDs),
:mod:`.webpbn` (reading webpbn's XML), :mod:`.model` (the domain-wall model),
:mod:`.lines` (the numba line solver, propagation, probing, backtracking),
:mod:`.engine` (running those kernels against the clock), :mod:`qlib.puzzles.nonogram.exact` (SAT), :mod:`.count`
(:func:`count_solutions`), :mod:`.solver` (:func:`solve`) and :mod:`.display`.

Puzzles are read from the ``.non`` text format, webpbn's XML, sgt-puzzles game IDs
or Python lists of clues; see :func:`parse` (and :func:`~qlib.puzzles.nonogram.parsing.parse_pack` for bundles).
"""

from __future__ import annotations

from .count import count_solutions
from .display import draw, render_text
from .model import (FORMULATIONS, NonogramModel, build_model, col_colour, decode, encode, known_cells, line_colour,
                    line_penalty, row_colour)
from .parsing import parse, parse_bytes, parse_pack, parse_text, to_non, to_sgt, write
from .puzzle import (BLACK, METADATA_KEYS, WHITE, Nonogram, NonogramError, NonogramFileNotFoundError, blocks_of,
                     line_slack, packed_starts)
from .rules import check, is_solution
from .sgt import parse_sgt
from .solver import FIRST_STEPS, FIRST_WORK, METHODS, STOP_REASONS, NonogramResult, solve, warmup

__all__ = [
    "Nonogram", "NonogramError", "NonogramFileNotFoundError", "NonogramModel", "NonogramResult",
    "parse", "parse_text", "parse_bytes", "parse_sgt", "parse_pack", "to_non", "to_sgt", "write", "count_solutions", "METADATA_KEYS",
    "build_model", "solve", "warmup", "decode", "encode", "check", "is_solution",
    "render_text", "draw", "row_colour", "col_colour", "line_slack", "packed_starts",
    "blocks_of", "known_cells", "FORMULATIONS", "METHODS", "STOP_REASONS",
]
