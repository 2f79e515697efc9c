"""Formats: Slitherlink puzz.link URLs, the nonogram .non format (metadata, goal, writing),
and the exact nonogram answer counter."""

from __future__ import annotations

import hashlib
import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qlib
from qlib.puzzles import nonogram as ng
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink.board import parse_text, parse_url

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VECTOR_ROWS = ["2..1.", ".2..1", "..2..", "3..3.", ".0..3"]


# -- puzz.link URLs ----------------------------------------------------------------
@pytest.mark.parametrize("url", [
    "https://puzz.link/p?slither/5/5/cbcbcddad",
    "http://puzz.link/p?slither/5/5/cbcbcddad",
    "puzz.link/p?slither/5/5/cbcbcddad",
    "https://puzz.link/p?slither_edit/5/5/cbcbcddad",
    "https://puzz.link/p?slither/v:/5/5/cbcbcddad",
    "https://pzv.jp/p.html?slither/5/5/cbcbcddad",
    "  https://puzz.link/p?slither/5/5/cbcbcddad/ ",
])
def test_url_test_vector(url):
    board = parse_url(url)
    assert board == sl.parse(VECTOR_ROWS)
    assert sl.Board.from_url(url) == board
    assert board.to_url() == "https://puzz.link/p?slither/5/5/cbcbcddad"


def test_url_is_columns_first_and_row_major():
    board = sl.parse(["1..", "..."])  # 2 rows, 3 columns
    assert board.to_url() == "https://puzz.link/p?slither/3/2/bi"
    assert parse_url("https://puzz.link/p?slither/3/2/bi") == board
    assert parse_url("https://puzz.link/p?slither/2/3/bi") == sl.parse(["1.", "..", ".."])


def test_url_blank_runs_and_pzprjs_encoding():
    assert sl.parse(["." * 20]).to_url().endswith("/20/1/z")
    assert sl.parse(["." * 21]).to_url().endswith("/21/1/zg")
    assert sl.parse(["0" + "." * 22 + "3"]).to_url().endswith("/24/1/azd")  # a: 0 and two blanks
    assert sl.parse(["12", "3."]).to_url().endswith("/2/2/12d")
    assert sl.parse(["1.2"]).to_url().endswith("/3/1/6c")  # the last clue is written as if blanks followed
    assert parse_url("https://puzz.link/p?slither/3/1/62") == sl.parse(["1.2"])


@pytest.mark.parametrize("url, column, words", [
    ("https://puzz.link/p?slither/5/5/cbcbcdd/d", 40, "unexpected character '/'"),
    ("https://puzz.link/p?slither/5/5/4bcbcddad", 33, "clue 4"),
    ("https://puzz.link/p?slither/5/5/cbcbcFdad", 38, "unexpected character 'F'"),
    ("https://puzz.link/p?slither_test/5/5/cbcbcddad", 21, "'slither_test'"),
    ("https://puzz.link/p?nurikabe/5/5/x", 21, "'nurikabe'"),
    ("https://puzz.link/p?slither/0/5/x", 29, "between 1 and"),
    ("https://puzz.link/p?slither/5/five/x", 31, "number of rows"),
    ("https://puzz.link/p?slither/5", 30, "ends early"),
    ("https://puzz.link/pslither", 27, "no '?'"),
])
def test_url_errors(url, column, words):
    with pytest.raises(sl.SlitherlinkError) as info:
        sl.parse(url)
    message = str(info.value)
    assert message.startswith(f"<url>, line 1, column {column}: "), message
    assert words in message


@st.composite
def boards(draw):
    rows, cols = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    blank = draw(st.floats(0.0, 1.0))
    clue = st.one_of(st.none(), st.integers(0, 3)) if blank < 0.9 else st.sampled_from([None] * 12 + [2])
    return sl.Board([[draw(clue) for _ in range(cols)] for _ in range(rows)])


@SETTINGS
@given(board=boards())
def test_url_round_trip(board):
    url = board.to_url()
    assert url.startswith(f"https://puzz.link/p?slither/{board.cols}/{board.rows}/")
    assert parse_url(url) == board
    assert sl.parse(url) == board
    assert parse_text(url + "\n") == board  # a file may hold the URL on a line


def test_url_in_a_file_and_parse(tmp_path):
    path = tmp_path / "board.url"
    path.write_text("\nhttps://puzz.link/p?slither/5/5/cbcbcddad\n")
    assert sl.parse(path) == sl.parse(VECTOR_ROWS)
    path.write_text("\n  https://puzz.link/p?slither/5/5/cbcbcdd/d\n")
    with pytest.raises(sl.SlitherlinkError, match=r"board\.url, line 2, column 42: "):
        sl.parse(path)


# -- the .non format ------------------------------------------------------------------
FULL = '''catalogue "webpbn #1"
title "A smile"
by "Someone"
copyright "(c) Someone"
license CC-BY-3.0
width 3
height 2
color ignored
note "an unknown key"

rows
1,1
3

columns
2
1
2

goal "101111"
'''


def test_metadata_and_goal_are_kept():
    puzzle = ng.parse_text(FULL)
    assert puzzle.title == "A smile"
    assert puzzle.metadata == {"catalogue": "webpbn #1", "by": "Someone", "copyright": "(c) Someone",
                               "license": "CC-BY-3.0"}
    assert (puzzle.catalogue, puzzle.by, puzzle.copyright, puzzle.license) == (
        "webpbn #1", "Someone", "(c) Someone", "CC-BY-3.0")
    assert puzzle.goal == ("#.#", "###")
    assert ng.is_solution(puzzle, puzzle.goal)
    assert puzzle.rows == ((1, 1), (3,)) and puzzle.columns == ((2,), (1,), (2,))
    unquoted = ng.parse_text(FULL.replace('goal "101111"', "goal 101111"))
    assert unquoted.goal == puzzle.goal


@pytest.mark.parametrize("goal, where, words", [
    ('goal "10111"', "line 20, column 12", "has 5 cells"),
    ("goal 1011110", "line 20, column 12", "has 7 cells"),
    ('goal "10x111"', "line 20, column 9", "'x'"),
])
def test_bad_goal(goal, where, words):
    with pytest.raises(ng.NonogramError) as info:
        ng.parse_text(FULL.replace('goal "101111"', goal))
    assert str(info.value).startswith(f"<text>, {where}: ")
    assert words in str(info.value)


def test_to_non_and_write_round_trip(tmp_path):
    puzzle = ng.parse_text(FULL)
    text = ng.to_non(puzzle)
    again = ng.parse_text(text)
    assert again == puzzle and again.metadata == puzzle.metadata and again.goal == puzzle.goal
    assert ng.to_non(again) == text
    path = ng.write(puzzle, tmp_path / "smile.non")
    assert ng.parse(path) == puzzle and ng.parse(path).goal == puzzle.goal
    logo = ng.parse(qlib.data_path("nonogram-15x15-qbpp-logo.non"))
    assert ng.parse_text(ng.to_non(logo)) == logo
    assert ng.parse_text(ng.to_non(logo)).catalogue == logo.catalogue
    with pytest.raises(ng.NonogramError, match="line break"):
        ng.to_non(ng.parse({"rows": [[1]], "columns": [[1]], "title": "two\nlines"}))


@st.composite
def nonograms(draw):
    height, width = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    grid = tuple("".join(draw(st.sampled_from("#."))for _ in range(width)) for _ in range(height))
    rows = [list(ng.blocks_of([c == "#" for c in row])) for row in grid]
    columns = [list(ng.blocks_of([row[j] == "#" for row in grid])) for j in range(width)]
    value = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), min_size=1,
                    max_size=12)
    source = {"rows": rows, "columns": columns, "title": draw(st.none() | value)}
    for key in ng.METADATA_KEYS:
        source[key] = draw(st.none() | value)
    if draw(st.booleans()):
        source["goal"] = grid
    return ng.parse(source), grid


@SETTINGS
@given(case=nonograms())
def test_non_round_trip(case):
    puzzle, grid = case
    text = ng.to_non(puzzle)
    again = ng.parse_text(text)
    assert again == puzzle
    assert again.metadata == puzzle.metadata and again.goal == puzzle.goal and again.title == puzzle.title
    assert ng.is_solution(again, grid)


# -- the exact counter ------------------------------------------------------------------
def brute_force(puzzle):
    h, w = puzzle.height, puzzle.width
    found = []
    for bits in itertools.product(".#", repeat=h * w):
        grid = tuple("".join(bits[i * w:(i + 1) * w]) for i in range(h))
        if ng.is_solution(puzzle, grid):
            found.append(grid)
    return found


def test_count_two_by_two_and_logo():
    count, status, grids = ng.count_solutions(ng.parse(([[1], [1]], [[1], [1]])))
    assert (count, status) == (2, "limit") and sorted(grids) == [("#.", ".#"), (".#", "#.")]
    count, status, grids = ng.count_solutions(ng.parse(([[1], [1]], [[1], [1]])), limit=3)
    assert (count, status) == (2, "exact")
    logo = ng.parse(qlib.data_path("nonogram-15x15-qbpp-logo.non"))
    count, status, grids = ng.count_solutions(logo)
    assert (count, status) == (1, "exact") and ng.is_solution(logo, grids[0])
    assert ng.count_solutions(ng.parse(([[1], [1], [1]], [[1], [1], [1]])), limit=100)[:2] == (6, "exact")
    assert ng.count_solutions(ng.parse(([[2], [0]], [[0], [2]])))[:2] == (0, "exact")
    with pytest.raises(ValueError):
        ng.count_solutions(logo, limit=0)


def test_count_runs_out_of_time():
    free = ng.parse(([[1]] * 12, [[1]] * 12))  # 12! permutation matrices
    count, status, grids = ng.count_solutions(free, limit=10**9, time_limit=0.2)
    assert status == "unknown" and count == len(grids) and count < 479001600


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=st.integers(1, 4).flatmap(lambda h: st.integers(1, min(4, 12 // h)).flatmap(
    lambda w: st.lists(st.text(st.sampled_from("#."), min_size=w, max_size=w), min_size=h, max_size=h))))
def test_count_agrees_with_brute_force(grid):
    rows = [list(ng.blocks_of([c == "#" for c in row])) for row in grid]
    columns = [list(ng.blocks_of([row[j] == "#" for row in grid])) for j in range(len(grid[0]))]
    puzzle = ng.parse((rows, columns))
    expected = brute_force(puzzle)
    count, status, grids = ng.count_solutions(puzzle, limit=1000)
    assert status == "exact" and count == len(expected) and sorted(grids) == sorted(expected)
    assert tuple(grid) in grids


# -- the webpbn.com puzzles shipped in qlib/data (CC BY 3.0, see qlib/data/README.md) ---
# number -> (title, copyright, width, height)
WEBPBN = {
    1: ("Dancer", "© 2004 Jan Wolter", 5, 10),
    6: ("Scardy Cat", "© 2004 Jan Wolter", 20, 20),
    16: ("Probably Not", "© 2004 Jan Wolter", 34, 34),
    21: ("Slippery Conditions", "© 2004 Jan Wolter", 14, 25),
    529: ("Swing", "© 2006 Jan Wolter", 45, 45),
}


def _shipped_hashes() -> dict[str, str]:
    """File name -> SHA-256 as qlib/data/README.md lists them."""
    text = (qlib.data_path("README.md")).read_text(encoding="utf-8")
    return {name: digest for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", text, re.M)}


@pytest.mark.parametrize("number", sorted(WEBPBN))
def test_webpbn_file_is_the_attributed_copy(number):
    name = f"nonogram-webpbn-{number}.non"
    data = qlib.data_path(name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == _shipped_hashes()[name], f"{name} differs from the upstream copy"
    title, copyright_, width, height = WEBPBN[number]
    readme = qlib.data_path("README.md").read_text(encoding="utf-8")
    assert f"`{name}` | webpbn.com #{number} \"{title}\"" in readme and "CC BY 3.0" in readme


@pytest.mark.parametrize("number", sorted(WEBPBN))
def test_webpbn_metadata_and_goal(number):
    puzzle = ng.parse(qlib.data_path(f"nonogram-webpbn-{number}.non"))
    title, copyright_, width, height = WEBPBN[number]
    assert puzzle.title == title
    assert puzzle.metadata == {"catalogue": f"webpbn.com #{number}", "by": "Jan Wolter",
                               "copyright": copyright_, "license": "CC-BY-3.0"}
    assert (puzzle.width, puzzle.height) == (width, height)
    assert puzzle.goal is not None and len(puzzle.goal) == height and {len(r) for r in puzzle.goal} == {width}
    assert ng.check(puzzle, puzzle.goal) == []
    again = ng.parse_text(ng.to_non(puzzle))  # writing keeps the attribution
    assert again == puzzle and again.metadata == puzzle.metadata and again.goal == puzzle.goal


@pytest.mark.parametrize("number", sorted(WEBPBN))
def test_webpbn_answer_is_unique(number):
    puzzle = ng.parse(qlib.data_path(f"nonogram-webpbn-{number}.non"))
    count, status, grids = ng.count_solutions(puzzle, limit=2, time_limit=60)
    assert (count, status) == (1, "exact")
    assert grids[0] == puzzle.goal
