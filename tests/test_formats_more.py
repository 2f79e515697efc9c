"""The formats people have: every puzz.link URL pzprjs reads (aliases, modes, hosts, short and long
bodies, the unknown clue, a clue 4 on a 1x1 board), webpbn's XML, .nonpack bundles, HTML escapes
and bare licences in .non files, and "unique: no answer" on the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qlib
from qlib.puzzles import nonogram as ng
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink import exact
from qlib.puzzles.slitherlink.board import parse_text, parse_url
from qlib.puzzles.slitherlink.syntax import FOUR

VECTOR = sl.parse(["2..1.", ".2..1", "..2..", "3..3.", ".0..3"])
CANONICAL = "https://puzz.link/p?slither/5/5/cbcbcddad"
COLOUR = "a colour puzzle: qlib reads black-and-white nonograms only"


def error_of(function, *args):
    with pytest.raises(ValueError) as info:
        function(*args)
    return info.value


# -- puzz.link URLs: the forms pzprjs reads (parser.js parseURLType / parseURLData) ------------------
@pytest.mark.parametrize("url", [
    "https://puzz.link/p?slitherlink/5/5/cbcbcddad",           # pzprjs's kanpen alias of 'slither'
    "https://puzz.link/p?slither_play/5/5/cbcbcddad",          # the mode suffixes
    "https://puzz.link/p?slitherlink_edit/5/5/cbcbcddad",
    "https://puzz.link/p?type=player&slither/5/5/cbcbcddad",   # options before the puzzle's name
    "https://puzz.link/p?type=editor&lang=en&slither/5/5/cbcbcddad",
    "https://puzz.link/p?slither/f/5/5/cbcbcddad",             # pflag letters (slither: 'f')
    "https://puzz.link/p?slither/v:/f/5/5/cbcbcddad",
    "https://puzz.link/p?slither/5/5/cbcbcddad#top",           # a fragment is not part of the query
    "https://puzz.link/p?slither/5/5/cbcbcddad#/x/y?z",
    "https://puzz.link/p?slither/5/5/cbcbcddadd",              # what follows a complete body is ignored
    "https://puzz.link/p?slither/5/5/cbcbcddadzzzz.x",
    "https://puzz.link/p?slither/5/5/cbcbcddad/extra/x",
    "https://puzz.link/p?slither/5/5/cbcbcdda3",               # the last clue without its blanks
    "https://www.puzz.link/p?slither/5/5/cbcbcddad",
    "www.puzz.link/p?slither/5/5/cbcbcddad",
    "pzprxs.vercel.app/p?slither/5/5/cbcbcddad",
    "https://pzprxs.vercel.app/p?slither/5/5/cbcbcddad",
    "pzv.jp/p.html?slither/5/5/cbcbcddad",
    "http://pzv.jp/p.html?slither_edit/5/5/cbcbcddad",
])
def test_url_forms_read_as_pzprjs_reads_them(url):
    board = sl.parse(url)
    assert board == VECTOR
    assert board.to_url() == CANONICAL
    assert sl.parse(board.to_url()) == board                    # parse(canonical(x)) == parse(x)
    assert parse_text(f"\n  {url}\n") == board                  # a file may hold it


@pytest.mark.parametrize("url, rows", [
    ("https://puzz.link/p?slither/5/5/cbc", ["2..1.", ".2...", ".....", ".....", "....."]),
    ("https://puzz.link/p?slither/5/5/cbc/", ["2..1.", ".2...", ".....", ".....", "....."]),
    ("https://puzz.link/p?slither/3/2", ["...", "..."]),       # no body: a blank board, as in pzprjs
    ("https://puzz.link/p?slither/3/2/", ["...", "..."]),
    ("https://puzz.link/p?slither/3/1/1z", ["1.."]),
    ("https://puzz.link/p?slither/2/1/d", ["3."]),             # 'd': 3 and two blanks, one past the end
])
def test_a_short_body_leaves_the_rest_blank(url, rows):
    board = parse_url(url)
    assert board == sl.parse(rows)
    assert parse_url(board.to_url()) == board


def test_the_unknown_clue_is_a_cell_without_a_count():
    board = parse_url("https://puzz.link/p?slither/3/2/1.g.g2")
    assert board.clues == ((1, None, None), (None, None, 2)) and board.unknown == {(0, 1), (1, 0)}
    assert board.to_url() == "https://puzz.link/p?slither/3/2/1.g.gc"   # pzprjs's encode4Cell
    assert board.to_text() == "1?.\n?.2\n"
    assert parse_text(board.to_text()) == board and parse_text(sl.render_text(board)) == board
    assert "  1   ?" in sl.render_text(board)
    plain = sl.Board(board.clues)
    assert board != plain and parse_url(plain.to_url()) == plain and plain.unknown == frozenset()
    # a body that ends in '.' gets the '/' that pzprjs's outputURLData adds
    ends = parse_url("https://puzz.link/p?slither/2/1/..")
    assert ends.unknown == {(0, 0), (0, 1)} and ends.to_url() == "https://puzz.link/p?slither/2/1/../"
    assert parse_url(ends.to_url()) == ends
    # every solver and counter reads '?' as no clue: the same answers as the plain board
    small = parse_url("https://puzz.link/p?slither/2/2/3.g")
    assert sl.count_solutions(small, limit=50)[:2] == sl.count_solutions(sl.Board(small.clues), limit=50)[:2]
    result = sl.solve(small, seed=1, time_limit=20)
    assert result.status == "solved" and sl.check(small, result.h, result.v) == []
    with pytest.raises(ValueError, match="has the clue"):
        sl.Board(((1, None),), unknown={(0, 0)})
    with pytest.raises(ValueError, match="outside"):
        sl.Board(((1, None),), unknown={(1, 0)})


@st.composite
def marked_boards(draw):
    rows, cols = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    cells = [[draw(st.sampled_from([None, None, None, 0, 1, 2, 3, "?"])) for _ in range(cols)]
             for _ in range(rows)]
    unknown = {(i, j) for i in range(rows) for j in range(cols) if cells[i][j] == "?"}
    clues = [[None if c == "?" else c for c in row] for row in cells]
    return sl.Board(clues, unknown)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=marked_boards())
def test_unknown_clues_round_trip_in_every_written_form(board):
    assert parse_url(board.to_url()) == board
    assert sl.parse(board.to_url()) == board
    assert parse_text(board.to_text()) == board
    assert parse_text(sl.render_text(board)) == board


@pytest.mark.parametrize("url, column, words", [
    ("https://puzz.link/p?slither_test/5/5/cbcbcddad", 21, "'slither_test'"),   # not a pzprjs mode
    ("https://puzz.link/p?slither_edit_play/1/1/0", 21, "'slither_edit_play'"),
    ("https://puzz.link/p?Slither/1/1/0", 21, "'Slither'"),
    ("https://puzz.link/p?slither/5/5/cbc/cddad", 36, "unexpected character '/'"),
    ("https://puzz.link/p?slither/2/2/4", 33, FOUR),
    ("https://puzz.link/p?slither/1/2/4", 33, FOUR),
    ("https://puzz.link/p?slither/2/1/0e", 34, FOUR),
    ("https://puzz.link/p?slither/5#/5/0", 30, "ends early"),
])
def test_url_refusals_are_located(url, column, words):
    message = str(error_of(sl.parse, url))
    assert message.startswith(f"<url>, line 1, column {column}: "), message
    assert words in message


# -- a clue 4 --------------------------------------------------------------------------------------
def test_a_clue_4_on_a_1x1_board_is_the_loop_around_it():
    forms = [parse_url("https://puzz.link/p?slither/1/1/4"), parse_url("https://puzz.link/p?slither/1/1/e"),
             parse_text("4\n"), parse_text("+   +\n  4\n+   +\n"), sl.Board([[4]])]
    assert all(board == forms[0] for board in forms) and forms[0].clues == ((4,),)
    board = forms[0]
    assert board.to_url() == "https://puzz.link/p?slither/1/1/e"     # pzprjs writes 10 + 4 in hex
    assert board.to_text() == "4\n" and parse_text(sl.render_text(board)) == board
    assert exact.count_exact(board)[:2] == (1, "exact") and sl.count_solutions(board)[:2] == (1, "exact")
    result = sl.solve(board, seed=1, time_limit=20)
    assert (result.status, result.stop_reason) == ("solved", "answer")
    assert (result.h, result.v) == ([[1], [1]], [[1, 1]])             # the four sides
    assert sl.check(board, result.h, result.v) == []
    assert sl.render_text(board, result.h, result.v) == "+---+\n| 4 |\n+---+\n"


@pytest.mark.parametrize("text, where", [
    ("34\n", "line 1, column 2"),
    ("..\n.4\n", "line 2, column 2"),
    ("+   +   +\n  4\n+   +   +\n", "line 2, column 3"),
])
def test_a_clue_4_on_a_larger_board_is_refused_where_it_stands(text, where):
    message = str(error_of(parse_text, text))
    assert message == f"<text>, {where}: {FOUR}"
    with pytest.raises(ValueError, match="not accepted on a board larger than 1x1"):
        sl.Board([[4, None]])


@pytest.mark.parametrize("rows, cols", [(1, 2), (2, 2), (2, 3), (3, 3)])
def test_the_clue_4_message_is_true(rows, cols):
    """FOUR says: on a larger board the only loop that holds a cell's four sides is the square around
    that cell.  The exact counter lists every single loop of the clue-free board: check it cell by cell."""
    blank = sl.Board([[None] * cols for _ in range(rows)])
    count = exact.count_exact(blank, limit=100_000)
    assert count.status == "exact" and count.count == len(count.solutions) > 1
    g = blank.grid
    for cell in range(rows * cols):
        i, j = divmod(cell, cols)
        sides = g.cell_edges[cell]
        holding = [mask for mask in count.solutions if all(mask[e] for e in sides)]
        square = [e for e in range(g.num_edges) if holding and holding[0][e]]
        assert len(holding) == 1 and sorted(square) == sorted(int(e) for e in sides), (i, j)
        # and so a 4 there beside a neighbour's 0, which that square breaks, leaves no answer at all
        clues = [[None] * cols for _ in range(rows)]
        if cols > 1:
            clues[i][j + 1 if j + 1 < cols else j - 1] = 0
        else:
            clues[i + 1 if i + 1 < rows else i - 1][j] = 0
        other = sl.Board(clues)
        assert not sl.loop_satisfies_clues(other, holding[0].astype(bool))


# -- webpbn's XML -------------------------------------------------------------------------------------
# webpbn.com puzzle #1, "Demo Puzzle from Front Page" by Jan Wolter (CC BY 3.0, see qlib/data/README.md),
# written by hand in the layout of webpbn's XML export from the clues and goal of the shipped
# nonogram-webpbn-1.non (the same puzzle): not a byte copy of webpbn's file.
WEBPBN_1 = """<?xml version="1.0"?>
<!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">

<puzzleset>
<puzzle type="grid" defaultcolor="black">
<source>webpbn.com</source>
<id>#1</id>
<title>Demo Puzzle from Front Page</title>
<author>Jan Wolter</author>
<authorid>jan</authorid>
<copyright>&copy; Copyright 2004 by Jan Wolter</copyright>
<description>A stick figure man, dancing his stickly little heart out.</description>
<color name="white" char=".">fff</color>
<color name="black" char="X">000</color>
<clues type="columns">
<line><count>2</count><count>1</count></line>
<line><count>2</count><count>1</count><count>3</count></line>
<line><count>7</count></line>
<line><count>1</count><count>3</count></line>
<line><count>2</count><count>1</count></line>
</clues>
<clues type="rows">
<line><count>2</count></line>
<line><count>2</count><count>1</count></line>
<line><count>1</count><count>1</count></line>
<line><count>3</count></line>
<line><count>1</count><count>1</count></line>
<line><count>1</count><count>1</count></line>
<line><count>2</count></line>
<line><count>1</count><count>1</count></line>
<line><count>1</count><count>2</count></line>
<line><count>2</count></line>
</clues>
<solution type="goal">
<image>
|.XX..|
|.XX.X|
|..X.X|
|.XXX.|
|X.X..|
|X.X..|
|..XX.|
|.X.X.|
|.X.XX|
|XX...|
</image>
</solution>
</puzzle>
</puzzleset>
"""


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The line number of the nth line of ``text`` that holds ``needle``."""
    found = [k for k, line in enumerate(text.split("\n"), start=1) if needle in line]
    return found[nth - 1]


def test_webpbn_xml_reads_clues_metadata_and_goal(tmp_path):
    shipped = ng.parse(qlib.data_path("nonogram-webpbn-1.non"))
    path = tmp_path / "1.xml"
    path.write_text(WEBPBN_1, encoding="utf-8")
    for puzzle in (ng.parse(path), ng.parse(str(path)), ng.parse_text(WEBPBN_1), ng.parse(WEBPBN_1),
                   ng.parse_bytes(WEBPBN_1.encode()), ng.webpbn.parse_text(WEBPBN_1)):
        assert (puzzle.rows, puzzle.columns) == (shipped.rows, shipped.columns)
        assert puzzle.title == "Demo Puzzle from Front Page"
        assert puzzle.metadata == {"catalogue": "webpbn.com #1", "by": "Jan Wolter",
                                   "copyright": "© Copyright 2004 by Jan Wolter"}
        assert puzzle.goal == shipped.goal
    again = ng.parse_text(ng.to_non(puzzle))                       # to .non and back
    assert again == puzzle and again.metadata == puzzle.metadata and again.goal == puzzle.goal
    assert ng.count_solutions(puzzle)[:2] == (1, "exact")
    result = ng.solve(puzzle, seed=1, time_limit=30)
    assert result.status == "solved" and tuple(result.grid) == puzzle.goal
    # another encoding, as its XML declaration names it
    latin = WEBPBN_1.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>')
    latin = latin.replace("&copy;", "©").encode("latin-1")
    assert ng.parse_bytes(latin).copyright == "© Copyright 2004 by Jan Wolter"
    (tmp_path / "latin.xml").write_bytes(latin)
    assert ng.parse(tmp_path / "latin.xml") == puzzle


def test_webpbn_xml_other_writers_forms():
    # the form of the issue (and of some converters): defaultcolor names the background, no DOCTYPE
    plain = WEBPBN_1.replace('<puzzle type="grid" defaultcolor="black">', '<puzzle type="grid" defaultcolor="white">')
    plain = plain.replace('<!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">\n', "")
    plain = plain.replace("&copy;", "(c)")
    assert ng.parse_text(plain) == ng.parse_text(WEBPBN_1)
    # counts that name their colour, no <color> at all (pbnsolve's white '.' and black 'X'), no goal
    bare = "<puzzleset><puzzle><clues type='rows'><line><count color='black'>1</count></line><line/></clues>" \
           "<clues type='columns'><line/><line><count>1</count></line></clues></puzzle></puzzleset>"
    puzzle = ng.parse_text(bare)
    assert (puzzle.rows, puzzle.columns, puzzle.title, puzzle.metadata, puzzle.goal) == \
        (((1,), ()), ((), (1,)), None, {}, None)
    # a puzzleset of two: parse refuses, parse_pack reads both
    second = WEBPBN_1[WEBPBN_1.index("<puzzle "):WEBPBN_1.index("</puzzleset>")].replace("#1", "#1b")
    two = WEBPBN_1.replace("</puzzleset>", second + "</puzzleset>")
    message = str(error_of(ng.parse_text, two))
    assert message.startswith(f"<text>, line {line_of(two, '<puzzle ', 2)}, column 1: ") and "parse_pack" in message
    pack = ng.parse_pack(two)
    assert [p.catalogue for p in pack] == ["webpbn.com #1", "webpbn.com #1b"]


@pytest.mark.parametrize("old, new, needle, column, words", [
    ('<color name="black" char="X">000</color>',
     '<color name="black" char="X">000</color>\n<color name="red" char="r">f00</color>',
     '<color name="red"', 1, COLOUR + " (a second colour 'red'"),
    ("<line><count>7</count></line>", '<line><count color="red">7</count></line>', 'color="red"', 7,
     COLOUR + " (a block of 'red'"),
    ("<line><count>7</count></line>", '<line><count color="white">7</count></line>', 'color="white"', 7,
     "a count in the background colour 'white'"),
    ('type="grid"', 'type="triddler"', "<puzzle ", 1, "qlib reads grid nonograms only"),
    ("<line><count>7</count></line>", "<line><count> seven</count></line>", "seven", 15,
     "expected a block length"),
    ("<line><count>7</count></line>", "<line><count>17</count></line>", "<count>17", 1, "needs 17 cells"),
    ("<line><count>7</count></line>", "<line><count>6</count></line>", '<clues type="columns">', 1,
     "the row clues count 23 black cells but the column clues count 22"),
    ("|.XX.X|", "|.XY.X|", "|.XY.X|", 4, "unexpected 'Y' in the goal"),
    ("|.XX.X|", "|.XX.|", "|.XX.|", 1, "a goal row of 4 cells: expected 5"),
    ("&copy;", "&nosuch;", "&nosuch;", 12, "the entity '&nosuch;' is not defined"),
    ("</clues>", "</clue>", "</clue>", 3, "not well-formed XML (mismatched tag)"),
    ('<!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">',
     '<!DOCTYPE pbn [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>', "<!DOCTYPE", None,
     "an entity declaration (<!ENTITY lol ...>) is not read"),
    ('<!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">',
     '<!DOCTYPE pbn [<!ENTITY ext SYSTEM "file:///etc/passwd">]>', "<!DOCTYPE", None, "entity declaration"),
    ('<clues type="rows">', '<clues type="lines">', '<clues type="lines">', 1, "expected type \"rows\""),
])
def test_webpbn_errors_are_located(old, new, needle, column, words):
    assert WEBPBN_1.count(old) >= 1
    text = WEBPBN_1.replace(old, new, 1)
    message = str(error_of(ng.parse_text, text, "pbn.xml"))
    where = f"pbn.xml, line {line_of(text, needle)}, column "
    assert message.startswith(where + (f"{column}: " if column else "")), message
    assert words in message
    assert len(message) < 400


# -- colours in the .non format -----------------------------------------------------------------------
COLOUR_NON = """title "two colours"
color a #ff0000
color b #00ff00
width 2
height 1
rows
1a,1b
columns
1a
1b
"""


@pytest.mark.parametrize("text, where, words", [
    (COLOUR_NON, "line 3, column 7", "(a second colour 'b'; the first, 'a', is at line 2)"),
    (COLOUR_NON.replace("color a #ff0000\ncolor b #00ff00\n", ""), "line 5, column 1",
     "(the block '1a' has the colour 'a'; the file declares no colour)"),
    (COLOUR_NON.replace("color b #00ff00\n", ""), "line 6, column 4",
     "(the block '1b' has the colour 'b'; the file declares only 'a')"),
])
def test_colour_non_files_are_refused_where_the_colour_shows(text, where, words):
    message = str(error_of(ng.parse_text, text, "c.non"))
    assert message == f"c.non, {where}: {COLOUR} {words}"


def test_a_non_file_of_one_declared_colour_is_black_and_white():
    text = "color a #000000\nwidth 3\nheight 1\nrows\n1a,1\ncolumns\n1a\n0\n1\ngoal \"a01\"\n"
    puzzle = ng.parse_text(text)
    assert (puzzle.rows, puzzle.columns, puzzle.goal) == (((1, 1),), ((1,), (), (1,)), ("#.#",))


# -- .nonpack bundles -----------------------------------------------------------------------------------
PACK = """title "one"
width 1
height 1
rows
1
columns
1
====
title "two"
width 2
height 1
rows
2
columns
1
1
  ====
3x1:1/0/1/1.1
"""


def test_a_nonpack_bundle_reads_every_puzzle(tmp_path):
    path = tmp_path / "three.nonpack"
    path.write_text(PACK)
    for puzzles in (ng.parse_pack(path), ng.parse_pack(str(path)), ng.parse_pack(PACK)):
        assert [p.title for p in puzzles] == ["one", "two", None]
        assert [p.rows for p in puzzles] == [((1,),), ((2,),), ((1, 1),)]
    one = tmp_path / "one.non"
    one.write_text(PACK[:PACK.index("====")])
    assert ng.parse_pack(one) == [ng.parse(one)]                   # a file without a divider: one puzzle
    message = str(error_of(ng.parse, path))
    assert message.startswith(f"{path}, line 8, column 1: a '====' divider") and "parse_pack" in message


@pytest.mark.parametrize("old, new, where, words", [
    ("2\ncolumns\n1\n1\n", "2\ncolumns\n1\nx\n", "line 14, column 1", "'width 2' needs 2 column clue lines"),
    ("rows\n2\n", "rows\n3\n", "line 13, column 1", "the clue 3 needs 3 cells"),
    ("3x1:1/0/1/1.1", "3x1:1/0/1/1.1.1", "line 18, column 11", "row 0's clue 1.1.1 needs 5 cells"),
    ("3x1:1/0/1/1.1", "3x1:1/0/1/1", "line 18, column 11", "the row clues count 1"),
    ("====\ntitle \"two\"", "====\n\n====\ntitle \"two\"", "line 8, column 1",
     "an empty part of the bundle: expected a puzzle after this divider, found another divider (line 10)"),
    ("3x1:1/0/1/1.1\n", "3x1:1/0/1/1.1\n====\n", "line 19, column 1",
     "expected a puzzle after this divider, found the end of the file"),
    ('title "one"', '====\ntitle "one"', "line 1, column 1", "a divider before the first puzzle"),
])
def test_pack_errors_name_the_line_in_the_whole_file(old, new, where, words):
    text = PACK.replace(old, new, 1)
    message = str(error_of(ng.parse_pack, text))
    assert message.startswith(f"<text>, {where}: "), message
    assert words in message


# -- escapes and licences in .non metadata ---------------------------------------------------------------
ESCAPED = """catalogue "A &amp; B"
title "Tom &amp; Jerry &quot;live&quot; &#39;97 &#x263A; &#9731; &copy;"
by "X &lt;x@example.org&gt;"
copyright "&copy; 2004"
license "CC-BY-3.0"
width 1
height 1
rows
1
columns
1
"""


def test_html_escapes_are_read_and_written_back():
    puzzle = ng.parse_text(ESCAPED)
    assert puzzle.catalogue == "A & B"
    assert puzzle.title == "Tom & Jerry \"live\" '97 \u263a \u2603 ©"
    assert puzzle.by == "X <x@example.org>" and puzzle.copyright == "© 2004"
    text = ng.to_non(puzzle)
    assert 'catalogue "A &amp; B"' in text and 'title "Tom &amp; Jerry &quot;live&quot; \'97' in text
    again = ng.parse_text(text)
    assert again.title == puzzle.title and again.metadata == puzzle.metadata
    assert ng.to_non(again) == text
    literal = ng.parse({"rows": [[1]], "columns": [[1]], "title": "&amp; stays &amp;", "by": 'a "b"'})
    back = ng.parse_text(ng.to_non(literal))
    assert back.title == "&amp; stays &amp;" and back.by == 'a "b"'


def test_an_spdx_licence_is_written_bare_and_read_both_ways():
    quoted, bare = ng.parse_text(ESCAPED), ng.parse_text(ESCAPED.replace('license "CC-BY-3.0"', "license CC-BY-3.0"))
    assert quoted.license == bare.license == "CC-BY-3.0"
    assert "\nlicense CC-BY-3.0\n" in ng.to_non(quoted) and '"CC-BY-3.0"' not in ng.to_non(quoted)
    assert ng.parse_text(ng.to_non(quoted)).license == "CC-BY-3.0"
    shipped = qlib.data_path("nonogram-webpbn-1.non")
    assert "\nlicense CC-BY-3.0\n" in ng.to_non(ng.parse(shipped))
    free = ng.parse_text(ESCAPED.replace('license "CC-BY-3.0"', 'license "free for non-commercial use & more"'))
    assert '\nlicense "free for non-commercial use &amp; more"\n' in ng.to_non(free)
    assert ng.parse_text(ng.to_non(free)).license == "free for non-commercial use & more"


# -- sgt-puzzles game IDs ----------------------------------------------------------------------------------
def test_game_ids_as_a_string_and_in_a_file(tmp_path):
    puzzle = ng.parse(qlib.data_path("nonogram-webpbn-6.non"))
    game_id = ng.to_sgt(puzzle)
    assert game_id.startswith("20x20:")
    assert ng.parse(game_id) == ng.Nonogram(puzzle.rows, puzzle.columns)
    path = tmp_path / "scardy.txt"
    path.write_text(game_id + "\n")
    assert ng.parse(path) == ng.parse(game_id)
    ten = "10x10:" + "/".join(["10"] * 10 + ["10"] * 10)
    assert ng.parse(ten).rows == ((10,),) * 10


# -- the command line ----------------------------------------------------------------------------------------
def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "qlib", *args], capture_output=True, text=True, input=stdin,
                          timeout=300)


@pytest.mark.parametrize("puzzle, text, prover", [
    ("nonogram", "width 3\nheight 1\nrows\n1,1\ncolumns\n1\n1\n0\n", "the presolve proved that no grid"),
    ("slitherlink", "33\n33\n", "the presolve proved that no drawing"),
])
def test_check_unique_after_a_proof_of_no_answer_says_no_answer(puzzle, text, prover):
    out = run("solve", puzzle, "-", "--check-unique", "--seed", "1", stdin=text)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert f"no answer: {prover} satisfies every clue" in lines
    assert lines[-1] == "unique: no answer" and "unique: unknown" not in out.stdout
    plain = run("solve", puzzle, "-", "--seed", "1", stdin=text)   # without the check: no unique line
    assert plain.returncode == 1 and "unique:" not in plain.stdout
    data = json.loads(run("solve", puzzle, "-", "--check-unique", "--json", "--seed", "1", stdin=text).stdout)
    assert (data["status"], data["stop_reason"], data["unique"]) == ("unsolved", "no_answer", None)


def test_the_command_line_reads_the_new_forms(tmp_path):
    path = tmp_path / "1.xml"
    path.write_text(WEBPBN_1)
    out = run("solve", "nonogram", str(path), "--check-unique", "--seed", "1")
    assert out.returncode == 0 and "unique: yes" in out.stdout and "matches the file's goal" in out.stdout
    shown = run("show", "nonogram", "-", stdin=WEBPBN_1)
    assert shown.returncode == 0 and shown.stdout.startswith('catalogue "webpbn.com #1"\n')
    bad = run("show", "nonogram", "-", stdin=COLOUR_NON)
    assert bad.returncode == 2 and f"<stdin>, line 3, column 7: {COLOUR}" in bad.stderr
    one = run("solve", "slitherlink", "https://puzz.link/p?slither/1/1/4", "--json", "--seed", "1")
    assert one.returncode == 0 and json.loads(one.stdout)["h"] == [[1], [1]]
    url = run("show", "slitherlink", "www.puzz.link/p?slitherlink_play/5/5/cbcbcdd.d#x", "--url")
    assert url.returncode == 0 and url.stdout.strip() == "https://puzz.link/p?slither/5/5/cbcbcdd.d"


XML_ALPHABET = st.sampled_from(list("<>/=\"' \n&;#|.X0123456789abcxyz!?[]-") +
                               ["<count>", "</count>", "<line>", "</line>", "<line/>", "color=\"red\"", "&copy;",
                                "<!ENTITY a 'b'>", "<!DOCTYPE pbn [", "]>", "<puzzle>", "</puzzle>", "\u00e9"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, len(WEBPBN_1)), st.integers(0, 3), XML_ALPHABET), max_size=3),
       as_bytes=st.booleans())
def test_fuzz_webpbn_raises_only_located_errors(edits, as_bytes):
    text = WEBPBN_1
    for at, cut, new in edits:
        text = text[:at] + new + text[at + cut:]
    try:
        puzzle = ng.parse_bytes(text.encode(), "f.xml") if as_bytes else ng.parse_text(text, "f.xml")
    except ng.NonogramError as error:
        message = str(error)
        assert message.startswith("f.xml, line ") and ", column " in message and len(message) < 400, message
    else:
        assert isinstance(puzzle, ng.Nonogram)


@pytest.mark.parametrize("encoding", ["bogus-enc", "rot13", "hex", "base64", "zlib", "utf-16", "utf-32"])
def test_webpbn_xml_with_an_encoding_it_is_not_written_in_is_a_located_error(tmp_path, encoding):
    """A name Python does not know, a codec that is not a text encoding, or a multi-byte encoding
    declared in a file of single bytes: an error at the declaration's value, exit 2 from the CLI."""
    text = WEBPBN_1.replace('<?xml version="1.0"?>', f'<?xml version="1.0" encoding="{encoding}"?>')
    path = tmp_path / "declared.xml"
    path.write_bytes(text.replace("&copy;", "(c)").encode("ascii"))
    message = str(error_of(ng.parse, path))
    assert message.startswith(f"{path}, line 1, column 31: ") and repr(encoding) in message and "expected" in message
    proc = subprocess.run([sys.executable, "-m", "qlib", "solve", "nonogram", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "column 31" in proc.stderr


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"])
def test_webpbn_xml_in_a_multi_byte_encoding_reads_as_utf8_does(codec):
    """With a byte order mark, or the first bytes of '<?' in UTF-16/32 (XML 1.0, appendix F)."""
    name = codec.removesuffix("-le").removesuffix("-be").removesuffix("-sig")
    text = WEBPBN_1.replace('<?xml version="1.0"?>', f'<?xml version="1.0" encoding="{name}"?>')
    assert ng.parse_bytes(text.encode(codec)) == ng.parse_text(WEBPBN_1)


def test_webpbn_bytes_not_in_their_encoding_are_a_located_error():
    data = WEBPBN_1.replace("&copy;", "\xa9").encode("latin-1")   # UTF-8 by default: 0xA9 is no UTF-8 byte
    message = str(error_of(ng.parse_bytes, data, "x.xml"))
    line = line_of(WEBPBN_1, "&copy;", 1)
    assert message.startswith(f"x.xml, line {line}, column ") and "byte 0xa9 is not utf-8" in message


def test_a_board_side_over_max_side_is_refused_where_it_starts():
    from qlib.puzzles.slitherlink.syntax import MAX_SIDE

    wide = "." * (MAX_SIDE + 1) + "\n"
    assert str(error_of(parse_text, wide, "w.txt")).startswith(f"w.txt, line 1, column {MAX_SIDE + 1}: ")
    tall = ".\n" * (MAX_SIDE + 1)
    assert str(error_of(parse_text, tall, "t.txt")).startswith(f"t.txt, line {MAX_SIDE + 1}, column 1: ")
    with pytest.raises(ValueError, match=str(MAX_SIDE)):
        sl.Board(((None,) * (MAX_SIDE + 1),))
    assert parse_text(("." * MAX_SIDE + "\n") * 2).cols == MAX_SIDE   # the largest side is read
