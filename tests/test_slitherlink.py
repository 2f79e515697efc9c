"""Tests of qlib.puzzles.slitherlink and qlib.puzzles.loops.

The three drawings below are copied from the QUBO++ Slitherlink tutorial
(/work/shared/seeds/slitherlink-qbpp-tutorial.ja.txt): the 10x10 puzzle, the
first iteration's state (6 loops) and the final answer (one loop of 64 edges).
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import numpy as np
import pytest

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.loops import DegreeError, grid, loop_satisfies_clues, split_loops
from qlib.puzzles.slitherlink import bonus, exact
from qlib.puzzles.slitherlink.model import edge_sides

TEN = qlib.data_path("slitherlink-10x10-qbpp.txt")
EX1 = qlib.data_path("slitherlink-5x5-blog-ex1.txt")
EX2 = qlib.data_path("slitherlink-5x5-blog-ex2.txt")
TEN_ROWS = [".11..0.0.0", ".2.....2..", ".221.0....", "..3......1", "3...12112.",
            ".0.1...111", "1....1.2..", "1...0..2.2", "1.0......1", "2..11..11."]
# A 3x3 board with one single-loop answer and six multi-loop clue+degree states,
# none of whose loops satisfies the clues alone (so the driver must iterate).
SMALL = ["3..", "2..", "32."]

PUZZLE_DRAWING = """\
+   +   +   +   +   +   +   +   +   +   +
      1   1           0       0       0
+   +   +   +   +   +   +   +   +   +   +
      2                       2
+   +   +   +   +   +   +   +   +   +   +
      2   2   1       0
+   +   +   +   +   +   +   +   +   +   +
          3                           1
+   +   +   +   +   +   +   +   +   +   +
  3               1   2   1   1   2
+   +   +   +   +   +   +   +   +   +   +
      0       1               1   1   1
+   +   +   +   +   +   +   +   +   +   +
  1                   1       2
+   +   +   +   +   +   +   +   +   +   +
  1               0           2       2
+   +   +   +   +   +   +   +   +   +   +
  1       0                           1
+   +   +   +   +   +   +   +   +   +   +
  2           1   1           1   1
+   +   +   +   +   +   +   +   +   +   +
"""

FIRST_DRAWING = """\
+---+---+---+---+   +   +   +   +   +   +
|     1   1     |     0       0       0
+---+   +   +   +---+   +---+   +---+   +
    | 2             |   |   | 2 |   |
+   +---+---+---+---+   +---+   +---+   +
      2   2   1       0
+---+---+---+   +---+   +   +---+---+   +
|         3 |   |   |       |       | 1
+---+   +---+   +   +---+---+   +---+   +
  3 |   |       | 1   2   1   1 | 2
+---+   +---+---+   +---+   +   +   +   +
|     0       1     |   |     1 | 1   1
+   +   +---+   +   +---+   +   +   +---+
| 1     |   |         1       2 |   |   |
+   +   +---+   +   +   +---+---+   +   +
| 1               0     |     2     | 2 |
+   +   +   +   +   +   +   +---+---+   +
| 1       0             |   |         1 |
+   +   +   +   +   +   +---+   +   +   +
| 2           1   1           1   1     |
+---+---+---+---+---+---+---+---+---+---+
"""

ANSWER_DRAWING = """\
+   +   +   +   +   +   +   +   +   +   +
      1   1           0       0       0
+   +---+---+   +   +   +   +   +---+   +
    | 2     |                 2 |   |
+   +   +---+   +   +   +   +---+   +   +
    | 2 | 2   1       0     |       |
+---+   +   +---+---+   +---+   +   +   +
|       | 3 |       |   |           | 1
+---+   +---+   +   +---+   +   +   +   +
  3 |             1   2   1   1   2 |
+---+   +   +   +---+---+---+---+---+   +
|     0       1 |             1   1   1
+   +   +   +   +---+---+---+   +   +---+
| 1                   1     | 2     |   |
+   +   +   +   +   +   +   +---+   +   +
| 1               0           2 |   | 2 |
+   +   +   +   +   +   +   +   +---+   +
| 1       0                           1 |
+   +   +   +   +   +   +   +   +   +   +
| 2           1   1           1   1     |
+---+---+---+---+---+---+---+---+---+---+
"""

def edges_from_drawing(text: str, rows: int, cols: int):
    """h, v (lists of 0/1) read off a lattice drawing: '---' and '|' are drawn edges."""
    lines = text.splitlines()
    assert len(lines) == 2 * rows + 1
    h = [[int(lines[2 * i][4 * j + 1:4 * j + 4] == "---") for j in range(cols)] for i in range(rows + 1)]
    v = []
    for i in range(rows):
        line = lines[2 * i + 1].ljust(4 * cols + 1)
        v.append([int(line[4 * j] == "|") for j in range(cols + 1)])
    return h, v


def cons_energy(sm, mask) -> float:
    """Energy of an edge mask in a cons-form model (its only variables are the edges)."""
    compiled = qlib.compile(sm.model)
    state = np.zeros(compiled.var_count, dtype=np.uint8)
    for e, x in enumerate(sm.edges):
        state[compiled.index(x)] = mask[e]
    return compiled.energy(state)


def unique_answer(board) -> np.ndarray:
    """The single-loop state of a board, by exact enumeration (asserted unique)."""
    g = board.grid
    singles = [m for m in bonus.enumerate_states(board) if len(split_loops(m, g.endpoints)) == 1]
    assert len(singles) == 1
    return singles[0]


# -- parsing -------------------------------------------------------------------
def test_parse_path_text_and_list_agree():
    ref = sl.parse(TEN_ROWS)
    assert ref.rows == 10 and ref.cols == 10
    assert len(ref.clue_cells) == 39
    assert ref.clues[0] == (None, 1, 1, None, None, 0, None, 0, None, 0)
    assert sl.parse(TEN) == ref
    assert sl.parse(str(TEN)) == ref
    assert sl.parse(TEN.read_text()) == ref
    assert sl.parse("\n\n" + "\n".join(TEN_ROWS) + "\n\n") == ref
    assert sl.parse(ref) is ref
    assert sl.parse(ref.to_text()) == ref


def test_parse_lattice_drawings():
    ref = sl.parse(TEN)
    assert sl.parse(PUZZLE_DRAWING) == ref
    assert sl.parse(FIRST_DRAWING) == ref   # drawn edges are ignored
    assert sl.parse(ANSWER_DRAWING) == ref
    indented = "\n".join("    " + line for line in ANSWER_DRAWING.splitlines())
    assert sl.parse(indented) == ref
    assert sl.parse(PUZZLE_DRAWING.splitlines()) == ref


def test_parse_lattice_with_empty_cell_row_round_trips():
    board = sl.parse(EX2)           # its second row has no clue: a blank line in the drawing
    text = sl.render_text(board)
    assert "\n\n" in text
    assert sl.parse(text) == board


@pytest.mark.parametrize("text, where, what", [
    ("3..\n3.\n", "line 2, column 3", "row has 2 cells"),
    ("3..\n\n3..1\n", "line 3, column 4", "the end of the row"),
    ("3x.\n", "line 1, column 2", "'x'"),
    ("  3.2\n  .5.\n", "line 2, column 4", "'5'"),
    ("3.4\n", "line 1, column 3", "clue 4"),
    ("", "line 1, column 1", "empty input"),
    ("\n   \n", "line 1, column 1", "empty input"),
    ("+   +\n  5\n+   +\n", "line 2, column 3", "'5'"),
    ("+   +   +\n  4\n+   +   +\n", "line 2, column 3", "clue 4"),  # a 4 is read on a 1x1 board only
    ("+   +\n  1\n", "line 3, column 1", "closing lattice row"),
    ("+   +\n  1\n+  +\n", "line 3, column 2", "'   ' or '---'"),
    ("+   +   +\n  1   2\n+   +\n", "line 3, column 6", "ends early"),
    ("+   +   +\n  1   2\n+   -   +\n", "line 3, column 5", "expected '+'"),
    ("+   +\n 1\n+   +\n", "line 2, column 2", "middle of its cell"),
    ("+   +\n  1 x\n+   +\n", "line 2, column 5", "vertical edge"),
])
def test_parse_errors_name_line_and_column(text, where, what):
    with pytest.raises(sl.SlitherlinkError) as err:
        sl.parse(text)
    message = str(err.value)
    assert message.startswith("<text>, ")
    assert where in message
    assert what in message
    assert isinstance(err.value, ValueError)


def test_parse_error_names_the_file(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("3..\n.a.\n")
    with pytest.raises(sl.SlitherlinkError, match=r"bad\.txt, line 2, column 2"):
        sl.parse(path)
    with pytest.raises(sl.SlitherlinkError, match=r"bad\.txt, line 2, column 2"):
        sl.parse(str(path))
    with pytest.raises(FileNotFoundError):
        sl.parse(str(tmp_path / "missing.txt"))


def test_board_validates_direct_construction():
    with pytest.raises(ValueError, match="clue"):
        sl.Board(((4, None),))
    with pytest.raises(ValueError, match="row 1"):
        sl.Board(((1, 2), (3,)))
    board = sl.Board([[1, None], [None, 2]])
    assert board.clues == ((1, None), (None, 2))
    assert hash(board) == hash(sl.parse(["1.", ".2"]))


# -- geometry and models ---------------------------------------------------------
def test_geometry_of_10x10():
    g = grid(10, 10)
    assert g.num_edges == 220 == 11 * 10 + 10 * 11
    assert g.num_points == 121
    assert tuple(g.endpoints[g.h_index(0, 0)]) == (0, 1)
    assert tuple(g.endpoints[g.h_index(10, 9)]) == (g.point(10, 9), g.point(10, 10))
    assert tuple(g.endpoints[g.v_index(0, 0)]) == (0, 11)
    assert tuple(g.endpoints[g.v_index(9, 10)]) == (g.point(9, 10), g.point(10, 10))
    sizes = (g.point_edges >= 0).sum(axis=1)
    assert sizes[g.point(0, 0)] == 2 and sizes[g.point(0, 5)] == 3 and sizes[g.point(5, 5)] == 4
    assert sizes.sum() == 2 * 220
    assert list(g.cell_edges[0]) == [g.h_index(0, 0), g.h_index(1, 0), g.v_index(0, 0), g.v_index(0, 1)]
    assert g.edge_name(g.v_index(3, 4)) == "v[3][4]"
    mask = np.arange(220) % 2
    h, v = g.to_hv(mask)
    assert np.array_equal(g.from_hv(h, v), mask)


def test_build_model_cons_counts():
    board = sl.parse(TEN)
    sm = sl.build_model(board)
    assert sm.var_count == 220
    assert sm.h.shape == (11, 10) and sm.v.shape == (10, 11)
    labels = [c.label for c in sm.model.constraints]
    assert sum(lab.startswith("clue ") for lab in labels) == 39
    assert sum(lab.startswith("point ") for lab in labels) == 121
    assert "clue (0,1)" in labels and "point (10,10)" in labels
    assert sm.edges[sm.grid.h_index(2, 3)].label == "h[2][3]"
    assert sm.edges[sm.grid.v_index(2, 3)].label == "v[2][3]"
    deg = {c.label: c for c in sm.model.constraints}["point (0,0)"]
    assert deg.allowed.values == (0, 2)


def test_model_sizes_and_qubo_equals_expand_cons():
    sizes = sl.model_sizes(TEN)
    assert sizes["hubo"] == dict(vars=220, aux_vars=0, terms=39 * 4 + 2 * 220, constraints=160, max_degree=1)
    assert sizes["qubo"]["vars"] == 220 + 121
    assert sizes["qubo"]["aux_vars"] == 121
    assert sizes["qubo"]["constraints"] == 0
    assert sizes["qubo"]["max_degree"] == 2
    # The direct QUBO is what expand_cons makes of the cons form, up to the aux names.
    qubo = sl.build_model(TEN, "qubo").model.objective
    expanded = qlib.expand_cons(sl.build_model(TEN).model).objective
    assert qubo.term_count == expanded.term_count == sizes["qubo"]["terms"]
    assert qubo.var_count == expanded.var_count
    assert qubo.constant_term == expanded.constant_term == sum(n * n for _, _, n in sl.parse(TEN).clue_cells)
    assert sorted(qubo.terms.values()) == sorted(expanded.terms.values())
    # "hubo" and "inequality" name how loops are forbidden; both build the native-constraint model
    assert sl.build_model(TEN, "hubo").model.term_count == sl.build_model(TEN, "cons").model.term_count
    with pytest.raises(ValueError, match="cons"):
        sl.build_model(TEN, "nope")


# -- loops -----------------------------------------------------------------------
def _square(g, i, j, h=1, w=1):
    """Edge indices of the rectangle of cells (i..i+h-1, j..j+w-1)."""
    edges = [g.h_index(i, j + k) for k in range(w)] + [g.h_index(i + h, j + k) for k in range(w)]
    edges += [g.v_index(i + k, j) for k in range(h)] + [g.v_index(i + k, j + w) for k in range(h)]
    return edges


def _mask(g, *edge_lists):
    mask = np.zeros(g.num_edges, dtype=np.uint8)
    for edges in edge_lists:
        mask[edges] = 1
    return mask


def _assert_walks(g, loop):
    """Consecutive edges of a loop share a point, and it closes."""
    for a, b in zip(loop, np.roll(loop, -1)):
        assert set(g.endpoints[a]) & set(g.endpoints[b])


def test_split_two_separate_squares():
    g = grid(3, 3)
    a, b = _square(g, 0, 0), _square(g, 2, 2)
    loops = split_loops(_mask(g, a, b), g.endpoints)
    assert [sorted(lp.tolist()) for lp in loops] == [sorted(a), sorted(b)]
    for lp in loops:
        _assert_walks(g, lp)


def test_split_a_4_loop_and_a_6_loop():
    g = grid(1, 4)
    four, six = _square(g, 0, 0), _square(g, 0, 2, 1, 2)
    loops = split_loops(_mask(g, four, six), g.endpoints)
    assert sorted(len(lp) for lp in loops) == [4, 6]
    assert {frozenset(lp.tolist()) for lp in loops} == {frozenset(four), frozenset(six)}
    for lp in loops:
        _assert_walks(g, lp)


def test_split_a_single_big_loop():
    g = grid(5, 5)
    border = _square(g, 0, 0, 5, 5)
    (loop,) = split_loops(_mask(g, border), g.endpoints)
    assert len(loop) == 20 and set(loop.tolist()) == set(border)
    assert loop[0] == min(border)
    _assert_walks(g, loop)
    assert split_loops(np.zeros(g.num_edges), g.endpoints) == []


def test_split_the_tutorials_first_state():
    board = sl.parse(TEN)
    g = board.grid
    mask = g.from_hv(*edges_from_drawing(FIRST_DRAWING, 10, 10))
    loops = split_loops(mask, g.endpoints)
    assert sorted(len(lp) for lp in loops) == [4, 4, 4, 4, 14, 56]  # "loops = 14 4 4 56 4 4"
    assert not any(loop_satisfies_clues(board, lp) for lp in loops)
    for lp in loops:
        _assert_walks(g, lp)


@pytest.mark.parametrize("edges, degree", [
    (lambda g: [g.h_index(1, 1)], 1),
    (lambda g: [g.h_index(1, 0), g.h_index(1, 1), g.v_index(1, 1)], 3),
    (lambda g: [g.h_index(1, 0), g.h_index(1, 1), g.v_index(0, 1), g.v_index(1, 1)], 4),
])
def test_split_rejects_bad_degrees(edges, degree):
    g = grid(2, 2)
    mask = _mask(g, edges(g))
    with pytest.raises(DegreeError, match=f"degree {degree}") as err:
        split_loops(mask, g.endpoints, point_label=lambda p: "point ({},{})".format(*g.point_ij(p)))
    assert "point (1,1)" in str(err.value)
    assert (g.point(1, 1), degree) in err.value.points
    with pytest.raises(ValueError):
        split_loops(mask[:-1], g.endpoints)


# -- the known 10x10 answer ---------------------------------------------------------
def test_known_answer_of_the_10x10():
    board = sl.parse(TEN)
    g = board.grid
    h, v = edges_from_drawing(ANSWER_DRAWING, 10, 10)
    mask = g.from_hv(h, v)
    assert mask.sum() == 64
    assert sl.check(board, h, v) == []
    assert sl.is_solution(board, h, v)
    (loop,) = split_loops(mask, g.endpoints)
    assert len(loop) == 64
    assert loop_satisfies_clues(board, loop)
    assert cons_energy(sl.build_model(board), mask) == 0
    # the pure QUBO form is 0 too, with y at deg/2
    sm = sl.build_model(board, "qubo")
    compiled = qlib.compile(sm.model)
    state = np.zeros(compiled.var_count, dtype=np.uint8)
    for e, x in enumerate(sm.edges):
        state[compiled.index(x)] = mask[e]
    deg = g.degrees(mask)
    for p in range(g.num_points):
        state[compiled.index(sm.aux[g.point_ij(p)])] = deg[p] // 2
    assert compiled.energy(state) == 0


def test_render_text_reproduces_the_tutorial():
    board = sl.parse(TEN)
    assert sl.render_text(board) == PUZZLE_DRAWING
    assert str(board) == PUZZLE_DRAWING
    assert sl.render_text(board, *edges_from_drawing(ANSWER_DRAWING, 10, 10)) == ANSWER_DRAWING
    assert sl.render_text(board, *edges_from_drawing(FIRST_DRAWING, 10, 10)) == FIRST_DRAWING


def test_check_reports_problems():
    board = sl.parse(TEN)
    h, v = edges_from_drawing(FIRST_DRAWING, 10, 10)
    assert sl.check(board, h, v) == ["6 loops (lengths 14 4 4 56 4 4), expected exactly one"]
    assert cons_energy(sl.build_model(board), board.grid.from_hv(h, v)) == 0  # multi-loop: still energy 0
    h, v = edges_from_drawing(ANSWER_DRAWING, 10, 10)
    h[10][0] = 0
    problems = sl.check(board, h, v)
    assert "clue (9,0) is 2 but 1 of its sides are drawn" in problems
    assert "point (10,0) has degree 1, expected 0 or 2" in problems
    assert "point (10,1) has degree 1, expected 0 or 2" in problems
    assert not sl.is_solution(board, h, v)
    assert "no edge is drawn: expected one loop" in sl.check(board, None, None)
    with pytest.raises(ValueError, match="shape"):
        sl.check(board, [[0] * 10] * 10, v)


def test_check_reports_a_clue_with_too_many_sides():
    # one loop around both cells of a 1x2 board: degrees fine, one loop, but 3 sides around the 1
    board = sl.parse(["1."])
    g = board.grid
    mask = np.ones(g.num_edges, dtype=np.uint8)
    mask[g.cell_edges[0][3]] = 0                     # the edge between the two cells
    assert sl.check(board, *g.to_hv(mask)) == ["clue (0,0) is 1 but 3 of its sides are drawn"]
    assert not sl.is_solution(board, *g.to_hv(mask))
    # the square around the second cell alone: 1 side around the clue, the answer
    answer = np.zeros(g.num_edges, dtype=np.uint8)
    answer[g.cell_edges[1]] = 1
    assert sl.check(board, *g.to_hv(answer)) == []
    # a 0 with every side drawn
    zero = sl.parse(["0"])
    drawn = zero.grid.to_hv(np.ones(4, dtype=np.uint8))
    assert sl.check(zero, *drawn) == ["clue (0,0) is 0 but 4 of its sides are drawn"]


# -- zero-energy states = brute force on a tiny board -------------------------------
def _brute_force_valid(board):
    g = board.grid
    masks = np.array(list(itertools.product((0, 1), repeat=g.num_edges)), dtype=np.uint8)
    deg = np.stack([g.degrees(m) for m in masks])
    ok = np.isin(deg, (0, 2)).all(axis=1)
    counts = masks.astype(np.int64)[:, g.cell_edges].sum(axis=2)
    for i, j, n in board.clue_cells:
        ok &= counts[:, i * board.cols + j] == n
    return masks, ok


@pytest.mark.parametrize("rows", [["2.", ".."], ["..", ".."], ["3.", ".1"], ["00", "03"]])
def test_zero_energy_states_are_the_valid_states(rows):
    board = sl.parse(rows)
    sm = sl.build_model(board)
    masks, ok = _brute_force_valid(board)
    assert len(masks) == 4096
    compiled = qlib.compile(sm.model)
    cols = [compiled.index(x) for x in sm.edges]
    states = np.zeros((len(masks), compiled.var_count), dtype=np.uint8)
    states[:, cols] = masks
    energy = compiled.energy(states)
    assert np.array_equal(energy == 0, ok)
    sol = qlib.solve(sm.model, backend="exhaustive")
    if ok.any():
        assert sol.energy == 0
        assert sol.info["num_ground_states"] == ok.sum()
        assert ok[int("".join(map(str, sl.decode(sm, sol))), 2)]
    else:
        assert sol.energy > 0
    found = {m.tobytes() for m in bonus.enumerate_states(board)}
    assert found == {m.tobytes() for m in masks[ok]}


# -- forbidding loops ----------------------------------------------------------------
def test_forbid_loop_forms():
    board = sl.parse(SMALL)
    sm = sl.build_model(board)
    g = board.grid
    loop = _square(g, 0, 0, 1, 2)   # a 6-loop
    other = _square(g, 1, 1)
    prod = sl.forbid_loop(sm, loop, "hubo")
    assert prod.term_count == 1 and prod.degree == 6
    ineq = sl.forbid_loop(sm, loop, "inequality")
    assert isinstance(ineq, qlib.Constraint) and ineq.allowed.hi == 5
    qubo = sl.forbid_loop(sm, loop, "qubo")
    assert qubo.degree == 2
    edge_ids = {x.id for x in sm.edges}
    slack = [i for i in qubo.var_ids if i not in edge_ids]
    assert len(slack) == (6 - 1).bit_length()
    other_slack = [i for i in sl.forbid_loop(sm, other, "qubo").var_ids if i not in edge_ids]
    assert not set(slack) & set(other_slack)          # each loop has its own slack variables
    assert sorted(sl.forbid_loop(sm, list(reversed(loop)), "qubo").var_ids) == sorted(qubo.var_ids)
    for off in [None] + loop:
        values = {sm.edges[e].id: int(e in loop and e != off) for e in range(g.num_edges)}
        expected = 1 if off is None else 0
        assert prod.evaluate(values) == expected
        assert ineq.energy(ineq.lhs.evaluate(values)) == expected
        best = min(qubo.evaluate({**values, **dict(zip(slack, bits))})
                   for bits in itertools.product((0, 1), repeat=len(slack)))
        assert best == expected
    with pytest.raises(ValueError, match="hubo"):
        sl.forbid_loop(sm, loop, "lazy")
    with pytest.raises(ValueError, match="empty"):
        sl.forbid_loop(sm, [], "hubo")


# -- the iterative driver --------------------------------------------------------------
@pytest.mark.parametrize("source, form", [
    (SMALL, "hubo"), (SMALL, "inequality"), (SMALL, "qubo"),
    (EX1, "hubo"), (EX1, "inequality"),
    (EX2, "hubo"), (EX2, "inequality"),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_outer_driver_finds_the_unique_answer(source, form, seed):
    board = sl.parse(source)
    answer = unique_answer(board)
    result = sl.solve(board, formulation=form, method="outer", seed=seed, time_limit=30)
    assert result.status == "solved", result.summary()
    assert result.stop_reason == "answer"
    assert np.array_equal(result.answer_state, answer)
    assert sl.check(board, result.h, result.v) == []
    assert sorted(result.loop) == np.flatnonzero(answer).tolist()
    assert result.formulation == form and result.method == "outer" and result.backend == "cpu" and result.seed == seed
    its = result.iterations
    assert its and all(it["energy"] == 0 for it in its)
    assert [it["iteration"] for it in its] == list(range(1, len(its) + 1))
    assert [it["seed"] for it in its] == [seed + k for k in range(len(its))]
    for it in its[:-1]:
        assert it["forbidden"] == len(it["loops"]) > 0
    assert all(len(it["state"]) == board.grid.num_edges for it in its)
    assert result.term_count == its[-1]["term_count"]
    assert result.seconds >= sum(it["seconds"] for it in its) * 0.99


def test_unsolvable_board_stops_within_its_time_limit():
    proved = sl.solve(["00", "03"], seed=0, time_limit=2.0)          # the default presolve proves it
    assert (proved.status, proved.stop_reason) == ("unsolved", "no_answer")
    start = time.perf_counter()
    result = sl.solve(["00", "03"], formulation="hubo", method="outer", seed=0, time_limit=2.0, max_iterations=5)
    took = time.perf_counter() - start
    assert result.status == "unsolved"
    assert result.stop_reason == "time_limit"        # the clock stopped it, and it says so
    assert result.answer_state is None and result.loop is None
    assert result.iterations[-1]["energy"] > 0
    assert took < 2.0 + 1.5


def test_board_with_only_multi_loop_states():
    # "33.33": its one clue+degree state is two 6-edge loops; no single loop exists.
    assert sl.solve(["33.33"], seed=0, time_limit=10).stop_reason == "no_answer"
    result = sl.solve(["33.33"], formulation="hubo", method="outer", seed=0, time_limit=10, max_iterations=1)
    assert (result.status, result.stop_reason) == ("unsolved", "max_iterations")
    assert result.iterations[0]["loops"] == [6, 6]
    exact = sl.solve(["33.33"], formulation="hubo", method="outer", backend="exhaustive", time_limit=10)
    assert (exact.status, exact.stop_reason, exact.found_by) == ("unsolved", "no_answer", "search")
    assert [it["loops"] for it in exact.iterations][0] == [6, 6]
    assert exact.iterations[1]["energy"] > 0 and len(exact.iterations) == 2


def test_solve_argument_errors():
    with pytest.raises(ValueError, match="'outer'"):
        sl.solve(SMALL, method="branch-and-bound")
    with pytest.raises(ValueError, match="method='outer'"):
        sl.solve(SMALL, method="lazy", formulation="qubo")
    with pytest.raises(ValueError, match="CPU"):
        sl.solve(SMALL, method="lazy", backend="exhaustive")
    with pytest.raises(ValueError, match="'hubo'"):
        sl.solve(SMALL, formulation="cons")
    with pytest.raises(ValueError, match="time_limit"):
        sl.solve(SMALL, time_limit=0)
    with pytest.raises(ValueError, match="max_iterations"):
        sl.solve(SMALL, max_iterations=0)
    with pytest.raises(ValueError, match="seed"):
        sl.solve(SMALL, seed=-1)
    for name, bad in (("seed", True), ("time_limit", "1"), ("max_iterations", 2.0)):   # a wrong type
        with pytest.raises(TypeError, match=name):
            sl.solve(SMALL, **{name: bad})


def test_decode_reads_edges_by_label():
    board = sl.parse(["3.", ".."])
    sm = sl.build_model(board)
    sol = qlib.solve(sm.model, backend="exhaustive")
    mask = sl.decode(sm, sol)
    assert mask.dtype == np.uint8 and mask.shape == (12,)
    assert [sol[x] for x in sm.edges] == mask.tolist()


@pytest.mark.parametrize("source, form", [
    (SMALL, "hubo"), (EX1, "hubo"), (EX1, "inequality"), (EX2, "hubo"), (EX2, "inequality"),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_lazy_method_finds_the_unique_answer(source, form, seed):
    board = sl.parse(source)
    result = sl.solve(board, formulation=form, seed=seed, time_limit=30)  # method="lazy" is the default
    assert (result.status, result.stop_reason, result.method) == ("solved", "answer", "lazy")
    assert np.array_equal(result.answer_state, unique_answer(board))
    assert len(result.iterations) == 1 and result.iterations[0]["forbidden"] == len(result.iterations[0]["cuts"])


@pytest.mark.parametrize("rows", [["00", "03"], ["33.33"]])
def test_lazy_method_on_boards_without_answer_ends_unsolved_in_time(rows):
    start = time.perf_counter()
    result = sl.solve(rows, formulation="hubo", seed=0, time_limit=1.0)
    assert (result.status, result.stop_reason) == ("unsolved", "time_limit")
    assert time.perf_counter() - start < 1.0 + 1.0


@pytest.mark.parametrize("method, seed", [("outer", 5), ("lazy", 0)])
def test_10x10_hubo(method, seed):
    board = sl.parse(TEN)
    result = sl.solve(board, formulation="hubo", method=method, seed=seed, time_limit=120)
    assert result.status == "solved", result.summary()
    h, v = edges_from_drawing(ANSWER_DRAWING, 10, 10)
    assert result.h == h and result.v == v
    assert len(result.loop) == 64
    assert result.render() == ANSWER_DRAWING


_RUN_LOG = """
import json, sys
import qlib
from qlib.puzzles import slitherlink as sl
if sys.argv[1] == "built":   # edge labels interned last first, other boards' models, this one's
    for i in reversed(range(13)):
        for j in reversed(range(13)):
            qlib.var(f"v[{i}][{j}]"), qlib.var(f"h[{i}][{j}]")
    sl.build_model(sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt")), "qubo")
    sl.build_model(sl.parse(sys.argv[2]))
r = sl.solve(sys.argv[2], formulation="hubo", method="outer", seed=1, max_iterations=4, time_limit=60)
print(json.dumps([it["loops"] for it in r.iterations]))
"""


def test_outer_solve_does_not_depend_on_what_the_process_built_before():
    # Variable ids follow creation order; a solve must not (they once set the order of a
    # product term's literals, which the search breaks ties by).
    import subprocess
    import sys

    logs = {}
    for before in ("nothing", "built"):
        out = subprocess.run([sys.executable, "-c", _RUN_LOG, before, TEN], capture_output=True, text=True,
                             check=True, timeout=300)
        logs[before] = out.stdout.strip().splitlines()[-1]
    assert len(set(logs.values())) == 1, logs
    assert len(json.loads(logs["nothing"])) == 4   # four iterations: products of long loops took part


def test_compiled_term_lists_its_literals_by_column():
    c, b, a = (qlib.var(f"order_check_{k}") for k in "cba")      # interned c first: ids in reverse
    m = qlib.compile(qlib.Model.of(a * b * ~c + 2 * c * a))
    assert m.labels == ["order_check_a", "order_check_b", "order_check_c"]
    per_term = [list(zip(m.term_vars[m.term_ptr[t]:m.term_ptr[t + 1]].tolist(),
                         m.term_negs[m.term_ptr[t]:m.term_ptr[t + 1]].tolist())) for t in range(m.term_count)]
    assert sorted(per_term) == [[(0, 0), (1, 0), (2, 1)], [(0, 0), (2, 0)]]
    states = np.array(list(itertools.product((0, 1), repeat=3)), dtype=np.uint8)
    x_a, x_b, x_c = states.T.astype(float)
    assert np.allclose(m.energy(states), x_a * x_b * (1 - x_c) + 2 * x_c * x_a)


# -- drawing ---------------------------------------------------------------------------
def test_draw_colours_each_loop():
    plt = pytest.importorskip("matplotlib.pyplot")
    board = sl.parse(TEN)
    ax = sl.draw(board, *edges_from_drawing(FIRST_DRAWING, 10, 10))
    colours = {tuple(np.round(line.get_color(), 3)) if not isinstance(line.get_color(), str) else line.get_color()
               for line in ax.lines}
    assert len(ax.lines) == 86 and len(colours) == 6  # 14+4+4+56+4+4 edges
    assert len(ax.texts) == 39
    fig, ax2 = plt.subplots()
    assert sl.draw(board, *edges_from_drawing(ANSWER_DRAWING, 10, 10), ax=ax2) is ax2
    assert {line.get_color() for line in ax2.lines} == {"black"}
    plt.close("all")


@pytest.mark.parametrize("form", ["cells", "hubo"])
@pytest.mark.parametrize("method", ["lazy", "outer"])
def test_board_whose_empty_drawing_has_zero_energy(method, form):
    """'0' allows only the empty drawing, which is no answer: a proof where a complete part runs,
    else the time limit; never a stop at the empty drawing."""
    result = sl.solve(["0"], formulation=form, method=method, seed=0, time_limit=1)
    assert result.status == "unsolved"
    if form == "cells":   # the presolve proves it, whatever the method
        assert (result.stop_reason, result.found_by) == ("no_answer", "presolve")
    else:
        assert result.stop_reason == "time_limit" and result.found_by is None


@pytest.mark.parametrize("form", sl.FORMULATIONS)
def test_the_empty_drawing_is_cut_and_the_answer_found(form):
    """'0.' over '..' allows the empty drawing and has exactly one answer: every form finds it
    instead of stopping at the empty drawing."""
    board = sl.parse_text("0.\n..\n")
    count, status, masks = exact.count_exact(board, limit=2)
    assert (count, status) == (1, "exact")
    for seed in range(4):
        result = sl.solve(board, formulation=form, seed=seed, time_limit=10)
        assert result.solved and sl.check(board, result.h, result.v) == []
        assert np.array_equal(board.grid.from_hv(result.h, result.v), masks[0])


# -- the cell formulation ---------------------------------------------------------------
def _colourings(board):
    """Every inside/outside colouring of the cells (rows of 0/1, cell order row-major)."""
    return np.array(list(itertools.product((0, 1), repeat=board.rows * board.cols)), dtype=np.uint8)


def _edges_of_colouring(board, colour):
    """The edge mask drawn by a colouring: an edge is on where its two cells differ (outside = 0)."""
    R, C = board.rows, board.cols
    grid_ = np.zeros((R + 2, C + 2), dtype=np.uint8)
    grid_[1:-1, 1:-1] = colour.reshape(R, C)
    h = grid_[:-1, 1:-1] ^ grid_[1:, 1:-1]          # (R+1) x C
    v = grid_[1:-1, :-1] ^ grid_[1:-1, 1:]          # R x (C+1)
    return np.concatenate([h.ravel(), v.ravel()])


def _cells_state(sm, compiled, colour):
    state = np.zeros(compiled.var_count, dtype=np.uint8)
    for x, value in zip(sm.cells.ravel(), colour):
        state[compiled.index(x)] = value
    return state


@pytest.mark.parametrize("rows", [["2.", ".."], ["..", ".."], ["3.", ".1"], ["00", "03"]])
def test_cells_zero_energy_states_draw_exactly_the_valid_states(rows):
    board = sl.parse(rows)
    sm = sl.build_model(board, "cells")
    assert sm.formulation == "cells" and sm.cells.shape == (2, 2)
    compiled = qlib.compile(sm.model)
    colourings = _colourings(board)
    energy = compiled.energy(np.stack([_cells_state(sm, compiled, c) for c in colourings]))
    drawn = {_edges_of_colouring(board, c).tobytes() for c, e in zip(colourings, energy) if e == 0}
    masks, ok = _brute_force_valid(board)
    assert drawn == {m.tobytes() for m in masks[ok]}
    # each valid state comes from one colouring only (the outside is fixed at 0)
    assert int((energy == 0).sum()) == int(ok.sum())


def _cell_model_by_arithmetic(sm):
    """The presolved cell model's edges, clue sides and checkerboard penalty from their definitions, in
    plain expression arithmetic: ``a + b - 2ab`` per edge (the outside 0), ``a d ~b ~c + ~a ~d b c`` per block."""
    board, pre = sm.board, sm.presolve
    R, C = board.rows, board.cols
    cell = list(sm.cells.ravel())

    def value(k):
        return qlib.Expr.constant(0) if k < 0 else cell[k]

    def negation(e):   # a literal's native negation, or 1 - a constant
        term = next(iter(e.terms), ())
        return qlib.Expr({(term[0] ^ 1,): 1}) if term else qlib.Expr.constant(1 - e.constant_term)

    edges = []
    for a, b in edge_sides(board).tolist():
        if a >= 0 and b >= 0 and pre.cell_class[a] == pre.cell_class[b]:
            edges.append(qlib.Expr.constant(int(pre.cell_parity[a] ^ pre.cell_parity[b])))
        else:
            la, lb = value(a), value(b)
            edges.append((la + lb - 2 * la * lb).simplify_as_binary())
    sides = [qlib.sum([edges[e] for e in board.grid.cell_edges[i * C + j]]) for i, j, _ in board.clue_cells]
    g = np.array(cell, dtype=object).reshape(R, C)
    blocks = []
    for i in range(R - 1):
        for j in range(C - 1):
            a, b, c, d = g[i, j], g[i, j + 1], g[i + 1, j], g[i + 1, j + 1]
            blocks += [a * d * negation(b) * negation(c), negation(a) * negation(d) * b * c]
    return edges, [e for e in sides if e.degree], qlib.sum(blocks).simplify_as_binary()


@pytest.mark.parametrize("name", ["ten", "ex1", "ex2", "qlibgen-20x20-s1.txt", "loopy-20x20-dh-s5.loopy"])
@pytest.mark.parametrize("presolve", [True, False])
def test_the_cell_model_has_the_terms_its_definition_gives(name, presolve):
    """The cell model, built term by term, holds the very terms (in the same order, so the same compiled
    model) that its definition gives in expression arithmetic, with and without the presolve's classes."""
    boards = Path(__file__).parents[1] / "benchmarks" / "boards"
    source = {"ten": TEN, "ex1": EX1, "ex2": EX2}.get(name) or boards / name
    board = sl.parse(source)
    sm = sl.build_model(board, "cells", presolve=presolve)
    if presolve:
        assert sm.presolve.num_classes < board.rows * board.cols   # the classes join cells
    edges, sides, objective = _cell_model_by_arithmetic(sm)
    assert [list(e.terms.items()) for e in sm.edges] == [list(e.terms.items()) for e in edges]
    assert [list(c.lhs.terms.items()) for c in sm.model.constraints] == [list(e.terms.items()) for e in sides]
    assert list(sm.model.objective.terms.items()) == list(objective.terms.items())
    assert objective.term_count > 0 or sm.presolve.status == "solved"


def test_cells_forbid_loop_is_one_exactly_when_the_loop_is_drawn():
    board = sl.parse(["...", "...", "..."])
    sm = sl.build_model(board, "cells")
    g = board.grid
    ring = _square(g, 1, 1)             # around the centre cell: an inside region or a hole
    corner = _square(g, 0, 0, 2, 2)     # touches the border: an inside region only
    checker = qlib.compile(sm.model)
    for loop in (ring, corner):
        term = sl.forbid_loop(sm, loop, "cells")
        assert term.term_count == (1 if loop is corner else 2)
        for colour in _colourings(board):
            if checker.energy(_cells_state(sm, checker, colour)) != 0:   # a 2x2 checkerboard: degree 4
                continue
            values = {x.id: int(c) for x, c in zip(sm.cells.ravel(), colour)}
            drawn = _edges_of_colouring(board, colour)
            assert term.evaluate(values) == int(drawn[loop].all())
    with pytest.raises(ValueError, match="cells"):
        sl.forbid_loop(sm, ring, "hubo")
    with pytest.raises(ValueError, match="cells"):
        sl.forbid_loop(sl.build_model(board), ring, "cells")


@pytest.mark.parametrize("source", [SMALL, EX1, EX2, TEN])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("method", ["lazy", "outer"])
def test_cells_form_finds_the_unique_answer(source, seed, method):
    board = sl.parse(source)
    result = sl.solve(board, formulation="cells", method=method, seed=seed, time_limit=30)
    assert result.status == "solved", result.summary()
    assert result.method == method and result.formulation == "cells"
    assert sl.is_solution(board, result.h, result.v)
    if source is not TEN:
        assert np.array_equal(result.answer_state, unique_answer(board))
    else:
        assert np.array_equal(result.answer_state, board.grid.from_hv(*edges_from_drawing(ANSWER_DRAWING, 10, 10)))
    again = sl.solve(board, formulation="cells", method=method, seed=seed, time_limit=30)
    assert [it["loops"] for it in again.iterations] == [it["loops"] for it in result.iterations]
    assert [it.get("cuts") for it in again.iterations] == [it.get("cuts") for it in result.iterations]
