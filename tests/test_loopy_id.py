"""Slitherlink boards as game IDs of Simon Tatham's Loopy (sgt-puzzles): reading, writing, errors.

The generated-board tests need ``sgt-loopy`` (Debian's ``sgt-puzzles``; skipped without it)
and python-sat (``count_exact`` proves each decoded board has exactly one answer).
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink.board import parse_loopy

# sgt-loopy --generate 1 '10x10t0dh#1' (sgt-puzzles 20230122)
HARD10 = "10x10t0:b2a211b22e2a1132c1a3a3a3b1b1a23a02b32f1202a230b2a231a31b2d3d2a3a213b2f"
# sgt-loopy --generate 1 '12x7t0dh#5': 12 columns, 7 rows
WIDE = "12x7t0:32b32b3b33a3b1a2a1a33c1a111b2d2a1a2a2a2a22b13b22a3b2b2b3b32a312a3a2a"
BOARDS = Path(__file__).resolve().parents[1] / "benchmarks" / "boards"
SGT_LOOPY = shutil.which("sgt-loopy") or shutil.which("sgt-loopy", path="/usr/games")


def _error(source, parser=sl.parse) -> str:
    with pytest.raises(sl.SlitherlinkError) as info:
        parser(source)
    return str(info.value)


# -- reading and writing -----------------------------------------------------------
def test_the_description_is_row_major_with_the_width_first():
    b = sl.parse(WIDE)
    assert (b.rows, b.cols) == (7, 12)
    assert b.clues[0][:6] == (3, 2, None, None, 3, 2)
    assert b.to_loopy() == WIDE


def test_round_trips():
    assert sl.parse(HARD10).to_loopy() == HARD10
    assert sl.Board.from_loopy(HARD10) == sl.parse(HARD10)
    for name in ("slitherlink-10x10-qbpp.txt", "slitherlink-5x5-blog-ex1.txt", "slitherlink-15x15-gen-s1.txt"):
        b = sl.parse(qlib.data_path(name))
        game_id = b.to_loopy()
        assert re.fullmatch(rf"{b.cols}x{b.rows}t0:[0-3a-z]+", game_id)
        assert sl.parse(game_id) == b == sl.parse_text(game_id + "\n") == parse_loopy(game_id)


def test_long_blank_runs_are_split_at_26_as_loopy_writes_them():
    empty = sl.Board(((None,) * 10,) * 10)
    assert empty.to_loopy() == "10x10t0:zzzv"          # 26 + 26 + 26 + 22
    assert sl.Board(((None,) * 26 + (1,),)).to_loopy() == "27x1t0:z1"
    assert sl.Board(((None,) * 27,)).to_loopy() == "27x1t0:za"
    assert sl.parse("27x1t0:za") == sl.Board(((None,) * 27,))


def test_optional_parameters_as_loopy_reads_them():
    b = sl.parse(HARD10)
    desc = HARD10.split(":", 1)[1]
    for params in ("10", "10x10", "10x10t0", "10x10t0dh", "10x10t0de", "10t0", "10dn"):
        assert sl.parse(f"{params}:{desc}") == b, params
    assert sl.parse(f"  {HARD10}  ") == b


def test_files_and_texts_holding_an_id(tmp_path):
    path = tmp_path / "board.loopy"
    path.write_text("\n" + HARD10 + "\n")
    assert sl.parse(path) == sl.parse(str(path)) == sl.parse(HARD10)
    assert sl.parse_text("\ufeff" + HARD10 + "\r\n") == sl.parse(HARD10)


def test_rows_and_file_names_are_not_taken_for_ids(tmp_path):
    assert sl.parse_text("0123\n") == sl.Board(((0, 1, 2, 3),))
    with pytest.raises(sl.SlitherlinkFileNotFoundError):
        sl.parse(str(tmp_path / "10x10.txt"))
    with pytest.raises(sl.SlitherlinkFileNotFoundError):
        sl.parse("10x10.txt")


# -- errors: each names the source, the line, the column and what was expected ------------
@pytest.mark.parametrize("game_id, column, words", [
    ("10x10t0", 8, "no ':'"),
    ("10x10t0dh#1", 10, "random-seed ID"),
    ("10x10t1:" + "a" * 4, 7, "only square grids"),
    ("7x7t12:a", 5, "only square grids"),
    ("0x10t0:a", 1, "width between 1 and"),
    ("10x0t0:a", 4, "height between 1 and"),
    ("10xt0:a", 4, "expected the height"),
    ("10x10t:a", 7, "expected the grid type"),
    ("10x10t0dq:a", 9, "expected a difficulty"),
    ("10x10t0d:a", 9, "expected a difficulty"),
    ("10x10q:a", 6, "unexpected 'q' in the parameters"),
    ("3x1t0:1.2", 8, "unexpected character '.'"),
    ("3x1t0:142", 8, "a clue 4 is not accepted"),
    ("3x1t0:152", 8, "the clue '5' (5) cannot be on a square grid"),
    ("3x1t0:1A2", 8, "the clue 'A' (10)"),
    ("3x1t0:a_b", 8, "grid description"),
    ("3x2t0:1b2", 10, "ends after 4 of the 3x2 = 6 cells"),
    ("3x2t0:", 7, "ends after 0 of the 3x2 = 6 cells"),
    ("3x1t0:1232", 10, "after the last of the 3x1 = 3 cells"),
    ("3x1t0:1c", 8, "the run 'c' of 3 blank cells goes past"),
])
def test_located_errors(game_id, column, words):
    message = _error(game_id, parse_loopy)
    assert message.startswith(f"<loopy>, line 1, column {column}: "), message
    assert words in message, message
    assert _error(game_id) == message      # parse() takes it for an ID too, and says the same
    assert _error(game_id + "\n", sl.parse_text) == message.replace("<loopy>", "<text>")


def test_errors_in_a_file_name_it_and_the_line(tmp_path):
    path = tmp_path / "bad.loopy"
    path.write_text("\n\n  3x1t1:abc\n")
    message = _error(path)
    assert message.startswith(f"{path}, line 3, column 7: "), message
    assert "only square grids" in message
    assert _error("\n3x1t0:12\n", sl.parse_text).startswith("<text>, line 2, column 9: ")


def test_a_game_id_is_one_line():
    assert _error("3x1t0:abc\n3x1t0:abc", parse_loopy).startswith("<loopy>, line 1, column 1: a game ID is one line")
    with pytest.raises(TypeError):
        parse_loopy(3)


# -- generated boards ------------------------------------------------------------------
@pytest.mark.skipif(SGT_LOOPY is None, reason="sgt-loopy not installed (apt-get install sgt-puzzles)")
@pytest.mark.parametrize("params", ["10x10t0dh#1", "12x7t0dh#5", "7x12t0dt#6", "8x8t0de#3", "15x15t0dh#4"])
def test_generated_boards_read_back_with_exactly_one_answer(params):
    count_exact = pytest.importorskip("qlib.puzzles.slitherlink.exact").count_exact
    out = subprocess.run([SGT_LOOPY, "--generate", "1", params], capture_output=True, text=True, check=True)
    game_id = out.stdout.strip()
    board = sl.parse(game_id)
    w, h = map(int, re.match(r"(\d+)x(\d+)", params).groups())
    assert (board.cols, board.rows) == (w, h)
    assert board.to_loopy() == game_id
    count, status, masks = count_exact(board, limit=2)
    assert (count, status) == (1, "exact")
    assert sl.check(board, *board.grid.to_hv(masks[0])) == []


def test_the_shipped_loopy_boards_read_back():
    files = sorted(BOARDS.glob("*.loopy"))
    for path in files:
        game_id = path.read_text().strip()
        assert sl.parse(path).to_loopy() == game_id, path.name


def test_a_1x1_id_with_a_4_is_the_loop_around_its_cell():
    board = parse_loopy("1x1t0:4")
    assert board.clues[0][0] == 4
    count, status, _ = sl.count_solutions(board)
    assert (count, status) == (1, "exact")
    assert sl.solve(board, seed=0).solved
