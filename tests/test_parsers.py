"""Reading puzzle files: a path is a path and a text is a text; one error type per puzzle,
whose messages name the file, the line and the column; a fuzz test of both parsers."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qlib
from qlib.puzzles import nonogram as ng
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink.board import SlitherlinkFileNotFoundError, parse_text

LOCATION = re.compile(r", line (\d+), column (\d+): ")
#: A parse of fuzzed input that takes this long hangs (a guard, not a speed claim: speed is benchmarked).
HANG_SECONDS = 10.0
LOGO = qlib.data_path("nonogram-15x15-qbpp-logo.non")
TEN = qlib.data_path("slitherlink-10x10-qbpp.txt")
SMALL_NON = "width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n"


def error_of(call, *args):
    with pytest.raises(ValueError) as info:
        call(*args)
    return info.value


# -- item 1: a path or a text, never guessed ----------------------------------------
def test_long_one_line_text_is_a_path_and_says_so():
    row = ".0" * 200  # 400 characters: too long for a file name
    for parse, error in ((sl.parse, sl.SlitherlinkError), (ng.parse, ng.NonogramError)):
        err = error_of(parse, row)
        assert isinstance(err, error)
        assert "parse_text" in str(err) and len(str(err)) < 400
    board = parse_text(row)
    assert (board.rows, board.cols) == (1, 400)


def test_one_line_str_is_a_path_even_if_it_reads_as_a_board(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = error_of(sl.parse, "3.2")
    assert isinstance(err, SlitherlinkFileNotFoundError) and isinstance(err, FileNotFoundError)
    assert str(err).startswith("3.2: no such file")
    assert parse_text("3.2").clues == ((3, None, 2),)
    Path("3.2").write_text("...\n")  # now there is such a file
    assert sl.parse("3.2").clues == ((None, None, None),)


def test_mistyped_file_name_is_not_read_as_a_board(tmp_path):
    missing = str(tmp_path / "slitherlink-10x10-qbp.txt")
    err = error_of(sl.parse, missing)
    assert isinstance(err, sl.SlitherlinkError) and isinstance(err, FileNotFoundError)
    assert "no such file" in str(err) and "unexpected character" not in str(err)
    err = error_of(ng.parse, "x.non")
    assert isinstance(err, ng.NonogramError) and isinstance(err, FileNotFoundError)
    assert str(err) == "x.non: no such file: expected the path of a .non file"


def test_path_text_and_multiline_str_agree():
    board = sl.parse(TEN)
    assert sl.parse(str(TEN)) == board
    assert parse_text(TEN.read_text()) == board
    assert sl.parse(TEN.read_text()) == board  # a str holding a newline is still a text
    assert sl.parse(board.to_text().splitlines()) == board
    logo = ng.parse(LOGO)
    assert ng.parse(str(LOGO)) == logo == ng.parse_text(LOGO.read_text()) == ng.parse(LOGO.read_text())


def test_parse_text_names_the_text():
    err = error_of(parse_text, "3x\n", "board.txt")
    assert str(err).startswith("board.txt, line 1, column 2: ")
    err = error_of(ng.parse_text, "width 2\n", "mine")
    assert str(err).startswith("mine, line 1, column 1: ")
    with pytest.raises(TypeError):
        parse_text(TEN)
    with pytest.raises(TypeError):
        ng.parse_text(LOGO)


# -- item 2: one error type, file, line and column --------------------------------
def both_parsers(tmp_path, data: bytes, suffix=".txt"):
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(data)
    return path, [error_of(sl.parse, path), error_of(ng.parse, path)]


def test_non_utf8_byte_names_its_line_and_column(tmp_path):
    path, errors = both_parsers(tmp_path, b"width 2\nheight \xff2\n")
    assert isinstance(errors[0], sl.SlitherlinkError) and isinstance(errors[1], ng.NonogramError)
    for err in errors:
        assert str(err).startswith(f"{path}, line 2, column 8: byte 0xff is not UTF-8")
    # a character of several bytes counts as one column
    _, errors = both_parsers(tmp_path, "..é.\n".encode() + b"\x80")
    assert all(", line 2, column 1: byte 0x80" in str(err) for err in errors)
    _, errors = both_parsers(tmp_path, "é\x80".encode("latin-1"))
    assert all(", line 1, column 1: byte 0xe9" in str(err) for err in errors)


def test_directory_is_reported_as_one(tmp_path):
    for parse, error in ((sl.parse, sl.SlitherlinkError), (ng.parse, ng.NonogramError)):
        err = error_of(parse, tmp_path)
        assert isinstance(err, error)
        assert str(err) == f"{tmp_path}: is a directory: expected the path of a " + \
            ("puzzle file" if parse is sl.parse else ".non file")


def test_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "bom.non"
    path.write_bytes(b"\xef\xbb\xbf" + SMALL_NON.encode())
    assert ng.parse(path) == ng.parse_text(SMALL_NON)
    assert ng.parse_text("\ufeff" + SMALL_NON) == ng.parse_text(SMALL_NON)
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf3.\n.1\n")
    assert sl.parse(path).clues == ((3, None), (None, 1))


@pytest.mark.parametrize("text, where, words", [
    ("width 2\nheight 2\nrows\n1\n" + "9" * 5000 + "\ncolumns\n1\n1\n", "line 5, column 1", "at most 6 digits"),
    ("width 2\nheight 2\nrows\n1\n1, 1" + "0" * 4400 + "\ncolumns\n1\n1\n", "line 5, column 4", "at most 6 digits"),
    ("width " + "7" * 5000 + "\nheight 2\n", "line 1, column 7", "at most 6 digits"),
    ("width 2\nheight 2\nrows\n\u0661\n1\ncolumns\n1\n1\n", "line 4, column 1", "digits 0-9"),
    ("width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n\uff11\n", "line 8, column 1", "digits 0-9"),
    ("width \u0662\nheight 2\n", "line 1, column 7", "digits (0-9)"),
    ("width 3\nheight 1\nrows\n  1, x\ncolumns\n1\n0\n0\n", "line 4, column 6", "'x'"),
    ("width 3\nheight 1\nrows\n1 0\ncolumns\n1\n0\n0\n", "line 4, column 3", "0 stands alone"),
    ("width 3\nheight 1\nrows\n4\ncolumns\n1\n0\n0\n", "line 4, column 1", "needs 4 cells"),
])
def test_nonogram_numbers_are_ascii_and_bounded(tmp_path, text, where, words):
    path = tmp_path / "n.non"
    path.write_text(text, encoding="utf-8")
    err = error_of(ng.parse, path)
    assert isinstance(err, ng.NonogramError)
    assert str(err).startswith(f"{path}, {where}: "), str(err)[:200]
    assert words in str(err)
    assert len(str(err)) < 300


def test_line_numbers_follow_editors_not_splitlines():
    # a form feed or U+2028 is not a line break: the bad character stays on line 2
    err = error_of(parse_text, "3.\n.\x0c\n..\n")
    assert ", line 2, column 2: " in str(err)
    err = error_of(parse_text, "3.\r\n.\u2028\r\n")
    assert ", line 2, column 2: " in str(err)
    assert parse_text("3.\r.1\r").clues == ((3, None), (None, 1))  # old Mac line ends


# -- item 3: fuzz ---------------------------------------------------------------
NON_LINES = ["width 2", "width 3", "height 2", "height 1", "rows", "columns", "1", "2", "1,1", "1 1", "0", "",
             "title \"x\"", "by \"\"", "goal 0110", "goal \"101\"", "catalogue", "9" * 60, "-1", "+2", "x",
             "\u0661", "rows 1", "\ufeffwidth 2", "  1", "3,", ",", "#"]
SLITHER_LINES = ["+   +   +", "+---+   +", "  1   2", "| 3 |   |", "+   +", "  1", "3..", ".0.", "4", "...",
                 "", "  ", "x", "https://puzz.link/p?slither/2/1/1h", "puzz.link/p?slither/2/2/", "+", "|"]
ALPHABET = st.sampled_from(list(".0123456789+-|, \t\n\r\"#:/?abcdeghxyz") + ["\x0c", "\u0661", "é", "\ufeff", "\x00"])


@st.composite
def mutated_non(draw):
    """A valid .non text (from a random grid, often with a goal) with a few lines changed."""
    height, width = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    grid = tuple("".join(draw(st.sampled_from("#."))for _ in range(width)) for _ in range(height))
    rows = [list(ng.blocks_of([c == "#" for c in row])) for row in grid]
    columns = [list(ng.blocks_of([row[j] == "#" for row in grid])) for j in range(width)]
    puzzle = ng.parse({"rows": rows, "columns": columns, "goal": grid if draw(st.booleans()) else None,
                       "title": draw(st.sampled_from([None, "t", 'a "b"']))})
    lines = ng.to_non(puzzle).split("\n")
    for _ in range(draw(st.integers(0, 3))):
        k = draw(st.integers(0, len(lines)))
        new = draw(st.one_of(st.sampled_from(NON_LINES), st.text(ALPHABET, max_size=8)))
        action = draw(st.sampled_from(["insert", "replace", "delete"]))
        if action == "insert" or k == len(lines):
            lines.insert(k, new)
        elif action == "replace":
            lines[k] = new
        else:
            del lines[k]
    return "\n".join(lines)


@st.composite
def mutated_board(draw):
    """A valid board text, in rows or as a lattice drawing, with a few characters changed."""
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    board = sl.Board([[draw(st.sampled_from([None, 0, 1, 2, 3])) for _ in range(cols)] for _ in range(rows)])
    text = draw(st.sampled_from([board.to_text(), sl.render_text(board), board.to_url() + "\n"]))
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(0, len(text)))
        text = text[:k] + draw(ALPHABET) + text[k + draw(st.integers(0, 1)):]
    return text


def texts():
    lines = st.lists(st.one_of(st.sampled_from(NON_LINES), st.sampled_from(SLITHER_LINES),
                               st.text(ALPHABET, max_size=12)), max_size=14)
    return st.one_of(st.text(ALPHABET, max_size=80),
                     lines.map("\n".join),
                     st.tuples(lines, st.sampled_from(["\n", "\r\n", "\r"])).map(lambda t: t[1].join(t[0])),
                     mutated_non(), mutated_board())


def datas():
    return st.one_of(st.binary(max_size=80), texts().map(lambda t: t.encode("utf-8")),
                     st.tuples(texts(), st.binary(min_size=1, max_size=3), st.integers(0, 80)).map(
                         lambda t: t[0].encode()[:t[2]] + t[1] + t[0].encode()[t[2]:]))


def check_error(error, kind, name):
    assert type(error) is kind or isinstance(error, kind), repr(error)
    message = str(error)
    assert message.startswith(f"{name}, line "), message[:200]
    match = LOCATION.search(message)
    assert match and int(match.group(1)) >= 1 and int(match.group(2)) >= 1, message[:200]
    assert len(message) < 400, message[:200]


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(data=datas())
def test_fuzz_files_raise_only_the_puzzle_error_with_a_location(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.txt"
        path.write_bytes(data)
        for parse, kind, result in ((sl.parse, sl.SlitherlinkError, sl.Board),
                                    (ng.parse, ng.NonogramError, ng.Nonogram)):
            start = time.perf_counter()
            try:
                assert isinstance(parse(path), result)
            except kind as error:
                check_error(error, kind, str(path))
            assert time.perf_counter() - start < HANG_SECONDS


@FUZZ
@given(text=texts())
def test_fuzz_texts_raise_only_the_puzzle_error_with_a_location(text):
    for parse, kind in ((parse_text, sl.SlitherlinkError), (ng.parse_text, ng.NonogramError)):
        start = time.perf_counter()
        try:
            parse(text, "fuzz")
        except kind as error:
            check_error(error, kind, "fuzz")
        assert time.perf_counter() - start < HANG_SECONDS


@FUZZ
@given(url=st.one_of(
    st.text(st.sampled_from(list("0123456789abcdefghijklmnopqrstuvwxyz./?:_")), max_size=30).map(
        lambda body: "https://puzz.link/p?slither/" + body),
    st.tuples(st.integers(0, 12), st.integers(0, 12), st.text(st.sampled_from(list("0123456789abcdeghz.fA")),
                                                                 max_size=30)).map(
        lambda t: f"https://puzz.link/p?slither/{t[0]}/{t[1]}/{t[2]}")))
def test_fuzz_urls_raise_only_the_puzzle_error_with_a_location(url):
    try:
        board = sl.parse(url)
    except sl.SlitherlinkError as error:
        check_error(error, sl.SlitherlinkError, "<url>")
    else:
        assert sl.parse(board.to_url()) == board

