"""Checking a grid against a Nonogram's clues."""

from __future__ import annotations

from .parsing import parse
from .puzzle import blocks_of, clue_text, normalise_grid


def check(puzzle, grid) -> list[str]:
    """Every way ``grid`` breaks the clues, as messages; an empty list means it is a solution."""
    puzzle = parse(puzzle)
    cells = normalise_grid(grid)
    if len(cells) != puzzle.height or any(len(r) != puzzle.width for r in cells):
        shape = f"{len(cells)} rows of {sorted({len(r) for r in cells})} cells"
        return [f"the grid must be {puzzle.height} rows of {puzzle.width} cells, got {shape}"]
    problems = []
    for i, clue in enumerate(puzzle.rows):
        found = blocks_of(cells[i])
        if found != clue:
            problems.append(f"row {i}: blocks {clue_text(found)} but the clue is {clue_text(clue)}")
    for j, clue in enumerate(puzzle.columns):
        found = blocks_of([row[j] for row in cells])
        if found != clue:
            problems.append(f"column {j}: blocks {clue_text(found)} but the clue is {clue_text(clue)}")
    return problems


def is_solution(puzzle, grid) -> bool:
    """True iff ``grid`` satisfies every row and column clue."""
    return not check(puzzle, grid)
