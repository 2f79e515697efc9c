"""Tests for the nonogram module: parsing, the domain-wall model, solving, output."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import qlib
from qlib.puzzles import nonogram as ng

LOGO_FILE = qlib.data_path("nonogram-15x15-qbpp-logo.non")   # the QUBO++ logo puzzle, shipped

LOGO_ROWS = [[7], [11], [4, 4], [2, 2], [3, 1, 1, 3], [2, 3, 3, 2], [2, 1, 1, 2], [2, 2],
             [3, 3], [2, 2], [4, 4], [10], [7, 2], [4], [3]]
LOGO_COLUMNS = [[5], [9], [4, 4], [2, 2], [3, 1, 3], [2, 3, 2], [2, 1, 2], [2, 2],
                [2, 1, 2], [2, 3, 2], [3, 1, 3], [2, 2, 1], [4, 3, 3], [9, 3], [5, 2]]
LOGO_ANSWER = (
    "....#######....",
    "..###########..",
    ".####.....####.",
    ".##.........##.",
    "###..#...#..###",
    "##..###.###..##",
    "##...#...#...##",
    "##...........##",
    "###.........###",
    ".##.........##.",
    ".####.....####.",
    "..##########...",
    "....#######.##.",
    "...........####",
    "............###",
)


def clues_of(grid):
    """The (rows, columns) clues a grid of '#'/'.' strings has."""
    cells = [[c == "#" for c in row] for row in grid]
    rows = [list(ng.blocks_of(r)) for r in cells]
    columns = [list(ng.blocks_of([r[j] for r in cells])) for j in range(len(cells[0]))]
    return rows, columns


def all_solutions(puzzle):
    """Every grid that satisfies the clues, by enumerating all 2**(h*w) grids."""
    h, w = puzzle.height, puzzle.width
    found = []
    for bits in itertools.product(".#", repeat=h * w):
        grid = tuple("".join(bits[i * w:(i + 1) * w]) for i in range(h))
        if ng.is_solution(puzzle, grid):
            found.append(grid)
    return found


SMALL_3x3 = ("##.", ".##", "#.#")
SMALL_4x4 = ("#.##", "##..", ".###", "#..#")


@pytest.fixture(scope="module")
def logo():
    return ng.parse(LOGO_FILE)


# -- parsing -------------------------------------------------------------------
def test_parse_shipped_file(logo):
    assert (logo.height, logo.width) == (15, 15)
    assert logo.rows == tuple(tuple(c) for c in LOGO_ROWS)
    assert logo.columns == tuple(tuple(c) for c in LOGO_COLUMNS)
    assert logo.title is None  # the file has a catalogue line only
    assert ng.parse(str(LOGO_FILE)) == logo
    assert ng.parse(LOGO_FILE.read_text()) == logo


def test_parse_python_forms_agree():
    by_mapping = ng.parse({"rows": LOGO_ROWS, "columns": LOGO_COLUMNS})
    by_pair = ng.parse((LOGO_ROWS, LOGO_COLUMNS))
    assert by_mapping == by_pair
    assert by_mapping.rows[4] == (3, 1, 1, 3)
    assert ng.parse(by_mapping) is by_mapping


def test_parse_text_details():
    text = (
        'catalogue "test"\ntitle "A corner"\nby "someone"\nwidth 3\nheight 3\n\n'
        "rows\n2\n0\n\n\ncolumns\n1\n1\n0\n\ngoal 110000000\n"
    )
    puzzle = ng.parse(text)
    # row 2 is an empty line; the blank line after it separates the sections
    assert puzzle.rows == ((2,), (), ())
    assert puzzle.columns == ((1,), (1,), ())
    assert puzzle.title == "A corner"
    spaced = ng.parse("width 4\nheight 1\nrows\n1 2\ncolumns\n1\n0\n1\n1\n")
    assert spaced.rows == ((1, 2),)


def test_empty_line_clues():
    puzzle = ng.parse({"rows": [[0], [], [1]], "columns": [[1], [0]]})
    assert puzzle.rows == ((), (), (1,))
    nm = ng.build_model(puzzle)
    assert nm.row_vars[0].shape == (0, 0)
    result = ng.solve(puzzle, backend="exhaustive")
    assert result.grid == ("..", "..", "#.")


BAD_FILES = [
    # (text, line named in the message, words in the message)
    ("width 3\nheight 3\nrows\n1\n1\ncolumns\n1\n1\n0\n", 3, "height 3"),
    ("width 3\nheight 2\nrows\n1\n1\n1\ncolumns\n1\n1\n1\n", 6, "height 2"),
    ("width 3\nheight 2\nrows\n1,x\n1\ncolumns\n1\n1\n0\n", 4, "'x'"),
    ("width 3\nheight 2\nrows\n2,2\n1\ncolumns\n1\n1\n1\n", 4, "needs 5 cells"),
    ("width 3\nheight 2\nrows\n-1\n1\ncolumns\n1\n1\n0\n", 4, "negative"),
    ("width 3\nheight 2\nrows\n1,0\n1\ncolumns\n1\n1\n0\n", 4, "0 stands alone"),
    ("height 2\nrows\n1\n1\ncolumns\n1\n1\n0\n", 5, "width"),
    ("width 3\nrows\n1\n1\ncolumns\n1\n1\n0\n", 2, "height"),
    ("width 3\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n1\n", 6, "column clues count 3"),
    ("width three\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n0\n", 1, "positive whole number"),
    ("width 3\nheight 2\nrows\n1\n1\n", 5, "'columns' section"),
]


@pytest.mark.parametrize("text, line, words", BAD_FILES)
def test_parse_errors_name_file_and_line(tmp_path, text, line, words):
    path = tmp_path / "bad.non"
    path.write_text(text)
    with pytest.raises(ng.NonogramError) as info:
        ng.parse(path)
    message = str(info.value)
    assert str(path) in message
    assert f"line {line}, column " in message
    assert words in message
    with pytest.raises(ng.NonogramError, match="<text>, line"):
        ng.parse(text)


def test_parse_errors_for_python_clues():
    with pytest.raises(ng.NonogramError, match=r"rows\[1\].*needs 3 cells"):
        ng.parse({"rows": [[1], [1, 1]], "columns": [[1], [1]]})
    with pytest.raises(ng.NonogramError, match=r"columns\[0\].*negative"):
        ng.parse(([[1]], [[-1]]))
    with pytest.raises(ng.NonogramError, match="count 1 black cells but the column clues count 2"):
        ng.parse(([[1], [0]], [[1], [1]]))
    with pytest.raises(ng.NonogramError, match="whole numbers"):
        ng.parse(([[1.5]], [[1]]))
    with pytest.raises(ng.NonogramError):
        ng.parse(42)
    assert issubclass(ng.NonogramError, ValueError)


# -- the model -----------------------------------------------------------------
def test_logo_model_sizes(logo):
    nm = ng.build_model(logo)
    assert nm.model.var_count == 437
    assert sum(w.size for w in nm.row_vars) == 198
    assert sum(w.size for w in nm.col_vars) == 239
    assert len(nm.model.constraints) == 225
    assert nm.model.report["fixed_conflicts"] == []
    expanded = qlib.expand_cons(nm.model)
    assert expanded.var_count == 437
    assert expanded.objective.term_count == 2756
    assert expanded.report["slack_vars"] == []  # no auxiliary variables
    qubo = ng.build_model(logo, formulation="qubo")
    assert (qubo.var_count, qubo.term_count) == (437, 2756)
    assert qubo.model.objective.degree == 2


def test_unknown_form():
    with pytest.raises(ValueError, match="form"):
        ng.build_model(clues_of(SMALL_3x3), formulation="hubo")


def random_shifts(rng, clue, length):
    """Non-decreasing shifts in [0, slack], one per block."""
    slack = ng.line_slack(clue, length)
    return sorted(int(s) for s in rng.integers(0, slack + 1, size=len(clue)))


def wall_values(walls, shifts):
    """{label: bit} for one line's domain walls at the given shifts."""
    return {walls[k, p].label: int(t > p) for k, t in enumerate(shifts) for p in range(walls.shape[1])}


def line_from_shifts(clue, shifts, length):
    cells = ["."] * length
    for start, size, shift in zip(ng.packed_starts(clue), clue, shifts):
        for c in range(start + shift, start + shift + size):
            cells[c] = "#"
    return "".join(cells)


def test_domain_wall_colours_for_hand_built_shifts(logo):
    nm = ng.build_model(logo)
    compiled = qlib.compile(nm.model)
    walls = nm.row_vars[4]  # clue 3,1,1,3: slack 4
    assert walls.shape == (4, 4)
    cases = {
        (0, 0, 0, 0): "###.#.#.###....",  # packed left
        (0, 1, 3, 4): "###..#...#..###",  # the answer's row
        (4, 4, 4, 4): "....###.#.#.###",  # packed right
    }
    for shifts, expected in cases.items():
        values = {walls[k, p].label: int(t > p) for k, t in enumerate(shifts) for p in range(4)}
        sol = qlib.Solution(compiled, compiled.as_states(values))
        assert "".join("#" if sol(ng.row_colour(nm, 4, j)) else "." for j in range(15)) == expected
        by_id = {walls[k, p].id: bit for k in range(4) for p in range(4)
                 for bit in [values[walls[k, p].label]]}
        colours = [ng.row_colour(nm, 4, j).evaluate(by_id) for j in range(15)]
        assert "".join("#" if c == 1 else "." for c in colours) == expected

    # every row and column, from random valid shifts
    rng = np.random.default_rng(7)
    for _ in range(5):
        values, expected_rows, expected_cols = {}, [], []
        for i, clue in enumerate(logo.rows):
            shifts = random_shifts(rng, clue, 15)
            expected_rows.append(line_from_shifts(clue, shifts, 15))
            w = nm.row_vars[i]
            values.update(wall_values(w, shifts))
        for j, clue in enumerate(logo.columns):
            shifts = random_shifts(rng, clue, 15)
            expected_cols.append(line_from_shifts(clue, shifts, 15))
            w = nm.col_vars[j]
            values.update(wall_values(w, shifts))
        sol = qlib.Solution(compiled, compiled.as_states(values))
        assert ng.decode(nm, sol) == tuple(expected_rows)
        for j in range(15):
            column = "".join("#" if sol(ng.col_colour(nm, i, j)) else "." for i in range(15))
            assert column == expected_cols[j]
        # walls are well formed, so only the cell equalities can cost energy
        assert sol.energy == len(sol.violations)


@pytest.mark.parametrize("form", ng.FORMULATIONS)
def test_answer_has_zero_energy_and_every_flip_costs(logo, form):
    nm = ng.build_model(logo, formulation=form)
    compiled = qlib.compile(nm.model)
    state = compiled.as_states(ng.encode(nm, LOGO_ANSWER))
    assert compiled.energy(state) == 0
    assert ng.decode(nm, qlib.Solution(compiled, state)) == LOGO_ANSWER
    flipped = np.tile(state, (compiled.var_count, 1))
    flipped[np.arange(compiled.var_count), np.arange(compiled.var_count)] ^= 1
    assert (compiled.energy(flipped) > 0).all()


def test_a_flipped_cell_is_no_solution(logo):
    grid = [list(row) for row in LOGO_ANSWER]
    grid[7][7] = "#"
    grid = ["".join(row) for row in grid]
    problems = ng.check(logo, grid)
    assert problems == ["row 7: blocks 2,1,2 but the clue is 2,2",
                        "column 7: blocks 2,1,2 but the clue is 2,2"]
    assert not ng.is_solution(logo, grid)
    with pytest.raises(ValueError, match="row 7"):
        ng.encode(ng.build_model(logo), grid)
    assert ng.check(logo, LOGO_ANSWER[:-1])[0].startswith("the grid must be 15 rows")


# -- solving -------------------------------------------------------------------
@pytest.mark.parametrize("form", ng.FORMULATIONS)
def test_solve_logo_by_model_search(form):
    result = ng.solve(LOGO_FILE, formulation=form, method="search", backend="cpu", seed=1, time_limit=60)
    assert result.status == "solved" and result.stop_reason == "answer" and result.found_by == "search"
    assert result.method == "search" and result.formulation == form
    assert result.grid == LOGO_ANSWER
    assert result.energy == 0
    assert result.var_count == 437
    assert result.backend == "cpu" and result.seed == 1
    if form == "qubo":
        assert result.term_count == 2756
    assert result.solution.info["algorithm"] == ("focused" if form == "cons" else "sa")
    assert result.solution.energy == 0
    assert ng.render_text(result.grid) == "\n".join(LOGO_ANSWER)


def test_solve_logo_by_default():
    result = ng.solve(LOGO_FILE, seed=1, time_limit=60)
    assert result.method == "auto" and result.formulation == "cons"
    assert (result.status, result.stop_reason, result.found_by) == ("solved", "answer", "presolve")
    assert result.grid == LOGO_ANSWER and ng.check(LOGO_FILE, result.grid) == []
    assert result.decided == 1.0 and result.var_count == 0 and result.energy == 0
    # the answer as a state of the full model, built on demand: energy 0 there
    assert result.solution.energy == 0 and result.solution.info["algorithm"] == "presolve"
    assert result.solution.compiled.var_count == 437
    # a form other than the default asks for the model search
    assert ng.solve(LOGO_FILE, formulation="qubo", seed=1).method == "search"
    assert ng.solve(LOGO_FILE, formulation="qubo", method="auto", seed=1).found_by == "presolve"


@pytest.mark.parametrize("answer", [SMALL_3x3, SMALL_4x4])
@pytest.mark.parametrize("form", ng.FORMULATIONS)
def test_small_puzzles(answer, form):
    puzzle = ng.parse(clues_of(answer))
    assert all_solutions(puzzle) == [answer]  # the hand-made puzzles are unique
    result = ng.solve(puzzle, formulation=form, backend="cpu", seed=3, time_limit=10)
    assert result.status == "solved" and result.grid == answer
    assert result.var_count <= 20
    exact = ng.solve(puzzle, formulation=form, backend="exhaustive")
    assert exact.grid == answer
    assert exact.solution.info["num_ground_states"] == 1


@pytest.mark.parametrize("form", ng.FORMULATIONS)
@pytest.mark.parametrize("clues", [
    ([[1], [1], [1]], [[1], [1], [1]]),            # 6 permutation grids
    ([[2], [1], [2]], [[1], [3], [1]]),            # several placements
    ([[1, 1], [2], [1], [3]], [[2], [1, 1], [2], [1, 1]]),
])
def test_zero_energy_states_are_exactly_the_solutions(clues, form):
    puzzle = ng.parse(clues)
    nm = ng.build_model(puzzle, formulation=form)
    compiled = qlib.compile(nm.model)
    n = compiled.var_count
    assert n <= 16
    states = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.uint8)
    zero = states[np.abs(compiled.energy(states)) < 1e-9]
    grids = [ng.decode(nm, qlib.Solution(compiled, s)) for s in zero]
    expected = all_solutions(puzzle)
    assert expected  # the check is not vacuous
    assert len(grids) == len(set(grids))  # one state per grid
    assert sorted(grids) == sorted(expected)


def test_unsolvable_puzzle_reports_unsolved():
    # totals agree (4 = 4), but rows 0 and 2 make column 0 read 1,1, not 2
    puzzle = ng.parse(([[1, 1], [0], [1, 1]], [[2], [0], [2]]))
    assert all_solutions(puzzle) == []
    result = ng.solve(puzzle, backend="cpu", seed=0, time_limit=1)
    assert result.status == "unsolved" and result.grid is None
    assert (result.stop_reason, result.found_by) == ("no_answer", "presolve")   # a proof, with no search
    assert result.var_count == 0 and result.timings["search_seconds"] == result.timings["complete_seconds"] == 0
    # the model search alone cannot prove it: it runs out of time at energy > 0
    searched = ng.solve(puzzle, method="search", backend="cpu", seed=0, time_limit=0.5)
    assert (searched.status, searched.stop_reason, searched.found_by) == ("unsolved", "time_limit", None)
    assert searched.energy > 0
    # the exhaustive backend sees every state: that is a proof too
    exact = ng.solve(puzzle, backend="exhaustive")
    assert exact.energy > 0 and (exact.stop_reason, exact.found_by) == ("no_answer", "search")


def test_fixed_lines():
    # every line is full or empty: no variables at all
    consistent = ng.parse(([[3], [0], [3]], [[1, 1], [1, 1], [1, 1]]))
    nm = ng.build_model(consistent)
    assert nm.var_count == 0 and not nm.model.constraints
    result = ng.solve(consistent, backend="cpu", seed=0, time_limit=1)
    assert result.status == "solved" and result.grid == ("###", "...", "###")
    # fixed colours that disagree: the model cannot reach energy 0
    clash = ng.parse(([[2], [0]], [[0], [2]]))
    nm = ng.build_model(clash)
    assert nm.model.report["fixed_conflicts"] == [(0, 0), (1, 1)]
    result = ng.solve(clash, backend="exhaustive")
    assert result.status == "unsolved" and result.energy == 2


# -- output --------------------------------------------------------------------
def test_render_text_accepts_arrays():
    assert ng.render_text(np.array([[1, 0], [0, 1]])) == "#.\n.#"
    assert ng.render_text(["#.", ".#"]) == "#.\n.#"


def test_draw(logo):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    ax = ng.draw(logo, LOGO_ANSWER)
    assert len(ax.patches) == sum(row.count("#") for row in LOGO_ANSWER)
    labels = [t.get_text() for t in ax.texts]
    assert "3 1 1 3" in labels and "9\n3" in labels
    assert len(labels) == 30
    plt.close(ax.figure)
    fig, ax = plt.subplots()
    assert ng.draw(logo, ax=ax) is ax and not ax.patches
    plt.close(fig)


def test_check_unique_in_solve():
    logo = ng.solve(qlib.data_path("nonogram-15x15-qbpp-logo.non"), seed=0, check_unique=True)
    assert logo.solved and logo.unique is True and logo.second_answer is None
    twin = ng.solve(ng.parse_text("width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n"), seed=0,
                          check_unique=True)
    assert twin.solved and twin.unique is False
    assert set([twin.grid, twin.second_answer]) == {(".#", "#."), ("#.", ".#")}


# -- real puzzles: webpbn.com (CC BY 3.0, see qlib/data/README.md) -------------------------
# The model search alone took 9-23 s on #16 and 3-19 s on #529 (2 cores); propagation
# decides every cell of all five, in milliseconds.
@pytest.mark.parametrize("number", [1, 6, 16, 21, 529])
def test_solve_webpbn(number):
    puzzle = ng.parse(qlib.data_path(f"nonogram-webpbn-{number}.non"))
    result = ng.solve(puzzle, seed=1, time_limit=60, check_unique=True)
    assert result.solved, f"webpbn #{number}: {result.status} ({result.stop_reason})"
    assert ng.check(puzzle, result.grid) == []
    assert result.grid == puzzle.goal
    assert result.unique is True and result.second_answer is None
    count, status, grids = ng.count_solutions(puzzle, limit=2, time_limit=60)
    assert (count, status, grids) == (1, "exact", [puzzle.goal])
