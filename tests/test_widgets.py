"""Tests of qlib.puzzles.slitherlink.widgets: the widgets are built and driven without a kernel."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import qlib  # noqa: E402
from qlib.puzzles.slitherlink import widgets  # noqa: E402
from qlib.puzzles import slitherlink as sl  # noqa: E402

# A 3x3 board whose clue+degree constraints allow multi-loop states, so the
# outer method needs more than one iteration (see tests/test_slitherlink.py).
SMALL = "3..\n2..\n32.\n"
PNG = b"\x89PNG\r\n\x1a\n"


def png(image) -> bytes:
    """The bytes an ipywidgets Image holds (its value is a memoryview)."""
    return bytes(image.value)


@pytest.fixture(scope="module")
def outer():
    for seed in range(20):
        result = sl.solve(SMALL, formulation="hubo", method="outer", seed=seed, time_limit=20)
        if result.solved and len(result.iterations) >= 2:
            return result
    pytest.fail("no seed in 0..19 needed two iterations on the small board")


def test_import_qlib_does_not_import_ipywidgets():
    import subprocess

    code = "import sys, qlib; sys.exit('ipywidgets' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_iteration_explorer_slider_redraws(outer):
    box = widgets.iteration_explorer(outer)
    n = len(outer.iterations)
    assert box.slider.min == 1 and box.slider.max == n and box.slider.value == 1
    first_png, first_info = png(box.image), box.info.value
    assert first_png.startswith(PNG)
    assert f"iteration 1 of {n}" in first_info
    lengths = " ".join(map(str, outer.iterations[0]["loops"]))
    assert f"loop lengths {lengths}" in first_info
    assert "forbidden" in first_info

    box.slider.value = n
    assert png(box.image).startswith(PNG) and png(box.image) != first_png
    assert f"iteration {n} of {n}" in box.info.value
    assert "the answer" in box.info.value

    box.slider.value = 1  # back again: the same picture as at the start
    assert png(box.image) == first_png and box.info.value == first_info


def test_iteration_explorer_needs_iterations(outer):
    from dataclasses import replace

    with pytest.raises(ValueError, match="no iterations"):
        widgets.iteration_explorer(replace(outer, iterations=[]))


def test_iteration_figure_has_one_panel_per_iteration(outer):
    import matplotlib.pyplot as plt

    fig = widgets.iteration_figure(outer, columns=2)
    try:
        n = len(outer.iterations)
        drawn = [ax for ax in fig.axes if ax.get_title()]
        assert len(drawn) == n
        assert drawn[0].get_title().startswith("iteration 1: energy 0")
        assert "accepted" in drawn[-1].get_title()
        assert len(fig.axes) == 2 * (-(-n // 2))
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="columns"):
        widgets.iteration_figure(outer, columns=0)


def test_iteration_title_names_the_loops(outer):
    k = len(outer.iterations)
    title = widgets.iteration_title(outer, k)
    assert title.splitlines()[0] == f"iteration {k}: energy 0"
    assert f"({len(outer.loop)} accepted)" in title
    with pytest.raises(ValueError, match="outside"):
        widgets.iteration_title(outer, k + 1)


def test_board_editor_solves_a_small_board():
    box = widgets.board_editor(SMALL, seed=3, time_limit=20)
    assert png(box.image) == b"" and box.message.value == ""
    box.button.click()
    assert box.message.value.startswith("<b>Solved</b>: one loop of")
    assert png(box.image).startswith(PNG)
    assert not box.button.disabled
    # The drawn answer is the one solve() finds with the same seed.
    expected = sl.solve(SMALL, seed=3, time_limit=20)
    assert expected.solved and f"one loop of {len(expected.loop)} edges" in box.message.value


def test_board_editor_reports_parse_errors():
    box = widgets.board_editor("3..\n2x.\n", seed=1, time_limit=5)
    box.button.click()
    assert "Cannot read the board" in box.message.value
    assert "line 2, column 2" in box.message.value
    assert png(box.image) == b""
    box.text.value = "3..\n2.\n"  # ragged rows
    box.button.click()
    assert "Cannot read the board" in box.message.value and "same length" in box.message.value


def test_board_editor_says_no_solution_found():
    # A 1x1 cell with clue 2: the only loop, its four sides, has 4 drawn sides.
    box = widgets.board_editor("2\n", seed=1, time_limit=0.3)
    box.button.click()
    assert "no solution found" in box.message.value.lower()
    assert png(box.image).startswith(PNG)  # the bare board is drawn


def test_board_editor_defaults_to_the_book_puzzle():
    box = widgets.board_editor()
    assert sl.parse(box.text.value) == sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    assert box.seed.value == 1 and box.time_limit.value == pytest.approx(10.0)


def test_draw_iteration_draws_every_edge_once(outer):
    import matplotlib.pyplot as plt

    k = len(outer.iterations)
    ax = widgets.draw_iteration(outer, k)
    try:
        assert ax.get_title() == widgets.iteration_title(outer, k)
        assert len(ax.lines) == int(np.asarray(outer.iterations[-1]["state"]).sum())
    finally:
        plt.close(ax.figure)


def test_iteration_table_lists_every_iteration(outer):
    table = widgets.iteration_table(outer).data.splitlines()
    assert table[0] == "| iteration | energy | loop lengths | forbidden | seconds |"
    assert len(table) == 2 + len(outer.iterations)
    first = outer.iterations[0]
    assert table[2].startswith(f"| 1 | 0 | {' '.join(map(str, first['loops']))} | {first['forbidden']} | ")
    assert table[-1].split(" | ")[2].endswith(f"({len(outer.loop)} accepted)")
    bare = widgets.iteration_table(outer, seconds=False)
    assert bare.data.splitlines()[0] == "| iteration | energy | loop lengths | forbidden |"
    page = bare._repr_html_()
    assert page.startswith("<table>") and page.count("<tr>") == 1 + len(outer.iterations)
    assert bare.data.splitlines()[1] == "|---:|---:|:---|---:|"
    assert "accepted)</td>" in page


def test_iteration_seconds_lists_the_timings_apart(outer):
    table = widgets.iteration_seconds(outer)
    lines = table.data.splitlines()
    assert lines[0] == "| iteration | seconds | solver seconds |"
    assert len(table.rows) == len(outer.iterations) + 1
    for row, it in zip(table.rows, outer.iterations):
        assert row[0] == str(it["iteration"])
        assert float(row[1]) == pytest.approx(it["seconds"], abs=5e-4)
        assert float(row[2]) == pytest.approx(it["solver_seconds"], abs=5e-4)
        assert float(row[2]) <= float(row[1]) + 1e-3      # the solver runs inside its iteration
    assert table.rows[-1][:2] == ["total", f"{outer.seconds:.3f}"]
    assert float(table.rows[-1][1]) >= sum(float(r[1]) for r in table.rows[:-1]) - 1e-2
    # the facts and the timings do not mix: no seconds in the table without them
    bare = widgets.iteration_table(outer, seconds=False)
    assert all(len(r) == 4 for r in bare.rows) and [r[0] for r in bare.rows] == [r[0] for r in table.rows[:-1]]


def test_iteration_table_without_seconds_repeats_for_a_seed():
    first = sl.solve(SMALL, formulation="hubo", method="outer", seed=2, time_limit=20)
    again = sl.solve(SMALL, formulation="hubo", method="outer", seed=2, time_limit=20)
    assert widgets.iteration_table(first, seconds=False).data == widgets.iteration_table(again, seconds=False).data
    from dataclasses import replace

    with pytest.raises(ValueError, match="no iterations"):
        widgets.iteration_seconds(replace(first, iterations=[]))
