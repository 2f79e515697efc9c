"""Slitherlink drawings: text (:func:`~qlib.puzzles.slitherlink.render_text`) and matplotlib (:func:`draw`)."""

from __future__ import annotations

import numpy as np

from ..loops import DegreeError, split_loops
from .board import parse, render_text  # noqa: F401 - the text drawing lives with the text format

# -----------------------------------------------------------------------------
# Display
# -----------------------------------------------------------------------------
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


def cell_edges_mask(cells) -> np.ndarray:
    """The edge mask (uint8, flat edge order) that a cell colouring draws: an edge where its two
    cells differ, the outside of the board counting as 0."""
    pad = np.pad(np.asarray(cells, dtype=np.uint8) & 1, 1)
    h = pad[:-1, 1:-1] ^ pad[1:, 1:-1]      # (R+1, C): cell above vs cell below
    v = pad[1:-1, :-1] ^ pad[1:-1, 1:]      # (R, C+1): cell left vs cell right
    return np.concatenate([h.ravel(), v.ravel()]).astype(np.uint8)


def draw_cells(board, cells, ax=None, *, colour: str = "0.85", mark=None, **options):
    """Draw a cell colouring (the cell formulation's state): cells equal to 1 shaded, and the
    loops it draws (:func:`cell_edges_mask`) as :func:`draw` draws edges.

    ``cells`` is an R x C array of 0/1; ``mark`` lists cells ``(i, j)`` to outline (for example a
    cell just flipped); other keyword arguments go to :func:`draw`.  Returns the Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    board = parse(board)
    cells = np.asarray(cells, dtype=np.uint8)
    if cells.shape != (board.rows, board.cols):
        raise ValueError(f"cells must be a {board.rows} x {board.cols} array, got shape {cells.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(0.45 * board.cols + 1, 0.45 * board.rows + 1))
    h, v = board.grid.to_hv(cell_edges_mask(cells))
    draw(board, h, v, ax=ax, **options)
    for i, j in zip(*np.nonzero(cells)):
        ax.add_patch(Rectangle((j, i), 1, 1, facecolor=colour, edgecolor="none", zorder=0))
    for i, j in mark or ():
        ax.add_patch(Rectangle((j + 0.08, i + 0.08), 0.84, 0.84, fill=False, edgecolor="tab:red",
                               linestyle="--", lw=1.5, zorder=1))
    return ax
