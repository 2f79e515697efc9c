"""Slitherlink drawings: text (:func:`render_text`) and matplotlib (:func:`draw`)."""

from __future__ import annotations

import numpy as np

from ..loops import DegreeError, split_loops
from .board import parse

# -----------------------------------------------------------------------------
# Display
# -----------------------------------------------------------------------------
def render_text(board, h=None, v=None) -> str:
    """The board as text: ``+---+`` / ``|`` for drawn edges, clues centred in cells.

    Same layout as the tutorial's drawings (4 characters per cell, trailing
    spaces stripped); the result ends with a newline.  ``h``/``v`` default to
    no edges.
    """
    board = parse(board)
    g = board.grid
    mask = board.grid.from_hv(h, v)
    R, C = board.rows, board.cols
    out = []
    for i in range(R + 1):
        out.append("".join("+---" if mask[g.h_index(i, j)] else "+   " for j in range(C)) + "+")
        if i == R:
            break
        line = ""
        for j in range(C + 1):
            line += "|" if mask[g.v_index(i, j)] else " "
            if j < C:
                c = board.clues[i][j]
                line += f" {' ' if c is None else c} "
        out.append(line.rstrip())
    return "\n".join(out) + "\n"


def draw(board, h=None, v=None, ax=None, loops=None, *, linewidth: float = 3.0):
    """Draw the board with matplotlib: lattice dots, clues and the selected edges.

    When the state splits into several loops each gets its own colour (pass
    ``loops``, lists of edge indices, to choose them; selected edges in no
    given loop are drawn grey).  Returns the Axes.
    """
    import matplotlib.pyplot as plt

    board = parse(board)
    g = board.grid
    R, C = board.rows, board.cols
    mask = board.grid.from_hv(h, v)
    if ax is None:
        _, ax = plt.subplots(figsize=(0.45 * C + 1, 0.45 * R + 1))
    if loops is None and mask.any():
        try:
            loops = split_loops(mask, g.endpoints)
        except DegreeError:
            loops = None
    coords = np.array([g.point_ij(p) for p in range(g.num_points)], dtype=float)  # (i, j)

    def segment(e, **kw):
        a, b = g.endpoints[e]
        ax.plot([coords[a, 1], coords[b, 1]], [coords[a, 0], coords[b, 0]], solid_capstyle="round",
                lw=linewidth, zorder=2, **kw)

    drawn = np.zeros(g.num_edges, dtype=bool)
    if loops is not None and len(loops) > 1:
        palette = plt.get_cmap("tab10").colors
        for k, lp in enumerate(loops):
            for e in np.asarray(lp, dtype=np.int64):
                segment(e, color=palette[k % len(palette)])
                drawn[e] = True
    rest_colour = "0.55" if loops is not None and len(loops) > 1 else "black"
    for e in np.flatnonzero(mask.astype(bool) & ~drawn):
        segment(e, color=rest_colour)
    ax.scatter(coords[:, 1], coords[:, 0], s=12, color="black", zorder=3)
    for i, j, n in board.clue_cells:
        ax.text(j + 0.5, i + 0.5, str(n), ha="center", va="center", fontsize=11, zorder=1)
    ax.set_xlim(-0.5, C + 0.5)
    ax.set_ylim(R + 0.5, -0.5)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
