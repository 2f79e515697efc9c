"""Tests of the cell-colouring helpers of qlib.puzzles.slitherlink.display (cell_edges_mask, draw_cells)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from qlib.puzzles import slitherlink as sl  # noqa: E402
from qlib.puzzles.loops import grid, split_loops  # noqa: E402
from qlib.puzzles.slitherlink import generator  # noqa: E402
from qlib.puzzles.slitherlink.display import cell_edges_mask, draw_cells  # noqa: E402
from qlib.puzzles.slitherlink.formulation import edge_sides  # noqa: E402


def test_mask_is_the_xor_of_the_cells_beside_each_edge():
    rng = np.random.default_rng(0)
    for rows, cols in ((1, 1), (2, 3), (4, 4), (5, 2)):
        board = sl.Board(((None,) * cols,) * rows)
        sides = edge_sides(board)
        for _ in range(20):
            cells = rng.integers(0, 2, size=(rows, cols)).astype(np.uint8)
            colour = np.append(cells.ravel(), 0)          # index -1: the outside, always 0
            expected = colour[sides[:, 0]] ^ colour[sides[:, 1]]
            mask = cell_edges_mask(cells)
            assert mask.dtype == np.uint8 and mask.shape == (grid(rows, cols).num_edges,)
            assert np.array_equal(mask, expected)


def test_mask_of_a_random_region_is_its_loop():
    for seed in range(5):
        region = generator.random_region(6, 7, seed)
        mask = cell_edges_mask(region)
        assert np.array_equal(mask, generator.random_loop(6, 7, seed))
        assert len(split_loops(mask, grid(6, 7).endpoints)) == 1


def test_known_colourings():
    # one cell: its four sides; a full board: the border; nothing: nothing
    one = np.zeros((2, 2), dtype=np.uint8)
    one[0, 0] = 1
    g = grid(2, 2)
    assert sorted(np.flatnonzero(cell_edges_mask(one))) == sorted(g.cell_edges[0])
    assert int(cell_edges_mask(np.ones((3, 3))).sum()) == 12
    assert not cell_edges_mask(np.zeros((3, 3))).any()


def test_draw_cells_shades_inside_cells_and_draws_the_loops():
    board = sl.Board(((None,) * 5, (None, None, 2, None, None), (None,) * 5))
    cells = np.zeros((3, 5), dtype=np.uint8)
    cells[1, 1] = cells[1, 3] = 1
    fig, ax = plt.subplots()
    assert draw_cells(board, cells, ax=ax, mark=[(1, 2)]) is ax
    assert len(ax.patches) == 2 + 1                     # two shaded cells, one marked cell
    assert len(ax.lines) == int(cell_edges_mask(cells).sum())   # one segment per drawn edge
    plt.close(fig)
    with pytest.raises(ValueError, match="3 x 5"):
        draw_cells(board, np.zeros((2, 2)))
