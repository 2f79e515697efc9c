"""Showing a grid: as text, and drawn with matplotlib."""

from __future__ import annotations

from .parsing import parse
from .puzzle import as_strings, normalise_grid


def render_text(grid) -> str:
    """The grid as lines of '#' (black) and '.' (white)."""
    return "\n".join(as_strings(normalise_grid(grid)))


def draw(puzzle, grid=None, ax=None):
    """Draw the board on a matplotlib Axes: black cells, a thicker line every five
    cells, row clues on the left and column clues on top.  Returns the Axes."""
    from matplotlib.patches import Rectangle

    puzzle = parse(puzzle)
    height, width = puzzle.height, puzzle.width
    row_labels = [" ".join(map(str, clue)) or "0" for clue in puzzle.rows]
    col_labels = ["\n".join(map(str, clue)) or "0" for clue in puzzle.columns]
    left = 0.3 + 0.32 * max(len(s) for s in row_labels)
    top = 0.3 + 0.55 * max(s.count("\n") + 1 for s in col_labels)
    if ax is None:
        import matplotlib.pyplot as plt

        scale = 0.35
        fig, ax = plt.subplots(figsize=(scale * (width + left) + 0.4, scale * (height + top) + 0.4))
        fig.subplots_adjust(left=0.02, right=0.98, bottom=0.02, top=0.98 if not puzzle.title else 0.92)
    if grid is not None:
        cells = normalise_grid(grid)
        for i, row in enumerate(cells):
            for j, black in enumerate(row):
                if black:
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor="black", edgecolor="none"))
    for x in range(width + 1):
        ax.plot([x, x], [0, height], color="0.3", lw=1.6 if x % 5 == 0 or x == width else 0.5)
    for y in range(height + 1):
        ax.plot([0, width], [y, y], color="0.3", lw=1.6 if y % 5 == 0 or y == height else 0.5)
    for i, label in enumerate(row_labels):
        ax.text(-0.25, i + 0.5, label, ha="right", va="center", fontsize=8)
    for j, label in enumerate(col_labels):
        ax.text(j + 0.5, -0.2, label, ha="center", va="bottom", fontsize=8, linespacing=1.0)
    ax.set_xlim(-left, width + 0.05)
    ax.set_ylim(height + 0.05, -top)
    ax.set_aspect("equal")
    ax.axis("off")
    if puzzle.title:
        ax.set_title(puzzle.title)
    return ax
