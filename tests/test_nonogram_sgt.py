"""sgt-puzzles game IDs ("Pattern"): reading, writing, located errors, and puzzles that
``sgt-pattern`` (Debian's sgt-puzzles) generates, solved and checked against its own answers."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qlib
from qlib.puzzles import nonogram as ng
from qlib.puzzles.nonogram.engine import Engine

SGT_PATTERN = shutil.which("sgt-pattern") or next(
    (p for p in ("/usr/games/sgt-pattern",) if Path(p).exists()), None)
LOCATION = re.compile(r"^(.*), line (\d+), column (\d+): ")
#: A parse of fuzzed input that takes this long hangs (a guard, not a speed claim: speed is benchmarked).
HANG_SECONDS = 10.0
# pattern.c's comment: line solving alone cannot start on it, yet its answer is unique
BELLA_IMAGE = "4x4:2/1/2/1/1.1/2/1/1"


def test_columns_come_first_and_empty_clues_are_empty():
    puzzle = ng.parse_text("2x1:1//1")
    assert (puzzle.width, puzzle.height) == (2, 1)
    assert puzzle.columns == ((1,), ()) and puzzle.rows == ((1,),)
    assert ng.parse_text("2x1:/1/1").columns == ((), (1,))
    last_empty = ng.parse_text("2x2:1/1/2/")        # the last row is empty: the ID ends with '/'
    assert last_empty.rows == ((2,), ()) and ng.to_sgt(last_empty) == "2x2:1/1/2/"
    assert ng.parse_text("1x1:/") == ng.parse(([[0]], [[0]]))
    assert ng.parse_text("3:1/1/1/1/1/1") == ng.parse(([[1]] * 3, [[1]] * 3))   # N: a square
    assert ng.parse_text("2x1:0/1/1").columns == ((), (1,))   # a lone 0 is an empty clue too


def test_round_trips():
    for name in ("nonogram-15x15-qbpp-logo.non", "nonogram-webpbn-1.non", "nonogram-webpbn-21.non"):
        puzzle = ng.parse(qlib.data_path(name))
        text = ng.to_sgt(puzzle)
        assert re.fullmatch(r"\d+x\d+:[0-9./]*", text)
        again = ng.parse_text(text)
        assert again.rows == puzzle.rows and again.columns == puzzle.columns
        assert ng.to_sgt(again) == text and ng.parse(text) == again   # a one-line str is an ID
    rng = np.random.default_rng(2)
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(1, 9, size=2))
        grid = rng.random((h, w)) < rng.uniform(0.0, 1.0)
        puzzle = ng.parse(([list(ng.blocks_of(r)) for r in grid], [list(ng.blocks_of(grid[:, j])) for j in range(w)]))
        text = ng.to_sgt(puzzle)
        assert ng.parse_text(text) == puzzle and ng.parse_text(f"\n  {text}  \r\n\n") == puzzle
        assert ng.parse_text(ng.to_non(ng.parse_text(text))) == puzzle


def test_files_and_the_dispatch(tmp_path):
    path = tmp_path / "pattern.txt"
    path.write_text(BELLA_IMAGE + "\n")
    assert ng.parse(path) == ng.parse(str(path)) == ng.parse(BELLA_IMAGE) == ng.parse_text(BELLA_IMAGE)
    with pytest.raises(ng.NonogramError, match=re.escape(f"{path}, line 1, column 22")):
        path.write_text(BELLA_IMAGE + "/1\n")
        ng.parse(path)
    with pytest.raises(ng.NonogramError, match="^<game id>, line 1, column"):
        ng.parse("2x2:1/1/1")
    # a .non text is still a .non text
    assert ng.parse_text("width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n").width == 2


BAD_IDS = [
    # (text, line, column, words in the message)
    ("10x10", 1, 6, "expected ':' after the size '10x10'"),
    ("10x:1", 1, 4, "expected the height"),
    ("0x5:", 1, 1, "expected a positive width"),
    ("1234567x2:", 1, 1, "at most 6 digits"),
    ("2x2:1/1/1/a", 1, 11, "unexpected character 'a'"),
    ("2x2:1/1 /1/1", 1, 8, "unexpected character ' '"),
    ("2x2:1/1/1", 1, 10, "expected 4 clues (2 columns, then 2 rows), found 3"),
    ("2x2:1/1/1/1/1", 1, 12, "but a '/' starts clue 5"),
    ("2x2:1./1/1/1", 1, 7, "after '.'"),
    ("2x2:3/1/1/1", 1, 5, "column 0's clue 3 needs 3 cells"),
    ("2x2:1/1/1.1/1", 1, 9, "row 0's clue 1.1 needs 3 cells"),
    ("2x2:1/1/1/2", 1, 9, "the row clues count 3 black cells but the column clues count 2"),
    ("2x2:1/1/1/1,aB", 1, 12, "the ',' section"),
    ("2x2:1.0/1/1/1", 1, 7, "0 stands alone"),
    ("2x2:1/1/1/1\n3x3:1/1/1/1/1/1", 2, 1, "expected one game ID"),
    ("\n\n  2x2:1/1/1/x", 3, 13, "unexpected character 'x'"),
]


@pytest.mark.parametrize("text, line, column, words", BAD_IDS)
def test_malformed_ids_name_the_source_line_and_column(tmp_path, text, line, column, words):
    with pytest.raises(ng.NonogramError) as info:
        ng.parse_text(text, "mine")
    message = str(info.value)
    assert message.startswith(f"mine, line {line}, column {column}: "), message
    assert words in message
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(ng.NonogramError, match=re.escape(f"{path}, line {line}, column {column}: ")):
        ng.parse(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.tuples(st.sampled_from(["3x2:", "2x3:", "4:", "2x2:", "1x1:", "99x1:", "7x"]),
                      st.text(st.sampled_from(list("0123456789./,xaZ \n")), max_size=30)).map("".join))
def test_fuzz_ids_raise_only_located_errors(text):
    start = time.perf_counter()
    try:
        puzzle = ng.parse_text(text, "fuzz")
    except ng.NonogramError as error:
        match = LOCATION.match(str(error))
        assert match and match.group(1) == "fuzz" and int(match.group(2)) >= 1 and int(match.group(3)) >= 1
        assert len(str(error)) < 400
    else:
        assert ng.parse_text(ng.to_sgt(puzzle)) == puzzle
    assert time.perf_counter() - start < HANG_SECONDS


def test_bella_image_needs_probing_and_is_unique():
    puzzle = ng.parse(BELLA_IMAGE)
    engine = Engine(puzzle)
    engine.presolve(time.perf_counter() + 10, probing=False)
    assert engine.undecided == 16   # no line alone decides a cell
    result = ng.solve(puzzle, seed=0, check_unique=True, complete="backtrack")   # probing before the search
    assert (result.status, result.found_by, result.unique) == ("solved", "presolve", True)
    assert result.grid[0][0] == "#"   # "the top left square is full", as pattern.c says
    by_sat = ng.solve(puzzle, seed=0, check_unique=True)   # beside SAT, probing takes turns: SAT answers first
    assert (by_sat.found_by, by_sat.grid, by_sat.unique) == ("sat", result.grid, True)
    assert ng.count_solutions(puzzle)[:2] == (1, "exact")


# -- puzzles from sgt-pattern ---------------------------------------------------------
def _saved(path: Path) -> dict[str, str]:
    """The fields of an sgt save file: 'KEY     :length:value' lines."""
    fields = {}
    for line in path.read_text().splitlines():
        key, _, rest = line.partition(":")
        _, _, value = rest.partition(":")
        fields[key.strip()] = value
    return fields


@pytest.mark.skipif(SGT_PATTERN is None, reason="needs sgt-pattern (Debian/Ubuntu: apt install sgt-puzzles)")
@pytest.mark.parametrize("params", ["5x5#1", "8x12#2", "15x15#3", "20x10#4"])
def test_puzzles_generated_by_sgt_pattern(tmp_path, params):
    out = subprocess.run([SGT_PATTERN, "--generate", "2", params, "--save", str(tmp_path / "p%d.sav"),
                          "--with-solutions"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    saves = sorted(tmp_path.glob("p*.sav*"))
    assert len(saves) == 2
    for save in saves:
        fields = _saved(save)
        puzzle = ng.parse_text(f"{fields['PARAMS']}:{fields['DESC']}")
        width, height = (int(v) for v in fields["PARAMS"].split("x"))
        assert (puzzle.width, puzzle.height) == (width, height)
        bits = fields["SOLVE"].removeprefix("S")       # the game's own answer, row by row
        answer = tuple("".join("#" if b == "1" else "." for b in bits[i * width:(i + 1) * width])
                       for i in range(height))
        result = ng.solve(puzzle, seed=0, time_limit=60, check_unique=True)
        assert result.solved and ng.check(puzzle, result.grid) == []
        assert result.grid == answer and result.unique is True
        assert result.found_by == "presolve"   # the generator only makes line-solvable puzzles
        assert ng.to_sgt(puzzle) == f"{fields['PARAMS']}:{fields['DESC']}"   # written back the same


@pytest.mark.skipif(SGT_PATTERN is None, reason="needs sgt-pattern")
def test_generated_ids_as_printed():
    out = subprocess.run([SGT_PATTERN, "--generate", "3", "7x9#5"], capture_output=True, text=True, timeout=120)
    ids = out.stdout.split()
    assert len(ids) == 3
    for text in ids:
        puzzle = ng.parse(text)
        result = ng.solve(puzzle, seed=0)
        assert result.solved and ng.check(puzzle, result.grid) == [] and ng.to_sgt(puzzle) == text
