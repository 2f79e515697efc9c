"""Slitherlink boards: the :class:`Board` type and the formats it is read from and written to.

:func:`parse` reads a file (a :class:`pathlib.Path` or a file name), a
puzz.link URL or an sgt-puzzles Loopy game ID; :func:`parse_text` reads the text
of a board; :func:`parse_url` a puzz.link / pzprjs URL
(``https://puzz.link/p?slither/COLS/ROWS/BODY``), which :meth:`Board.to_url <qlib.puzzles.slitherlink.Board.to_url>`
writes; :func:`parse_loopy` a game ID of Simon Tatham's Loopy
(``10x10t0:b2a211...``, what ``sgt-loopy --generate 1 '10x10t0dh#SEED'`` prints),
which :meth:`Board.to_loopy <qlib.puzzles.slitherlink.Board.to_loopy>` writes.  Every error is a
:class:`~qlib.puzzles.slitherlink.SlitherlinkError` whose
message reads ``NAME, line N, column M: what was found and what was expected``
(a file that cannot be opened at all: ``NAME: why``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..loops import Grid, grid
from ..sourcefile import decode_utf8, read_bytes
from . import loopy
from . import syntax
from .syntax import FOUR, MAX_SIDE, SPACE, SlitherlinkError, SlitherlinkFileNotFoundError

#: The characters of a cell in the row format: '.' (no clue) and the clues 0-3.
CLUE_CHARS = ".0123"
#: The character of a clue whose number is unknown ("?", ``.`` in a puzz.link URL) in the text formats.
UNKNOWN_CHAR = "?"


# -----------------------------------------------------------------------------
# Boards and parsing
# -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Board:
    """A Slitherlink board: ``clues[i][j]`` is 0-3 or None (no clue).

    A clue 4 is taken on a 1x1 board only, whose answer is then the four sides of its
    cell (``syntax.FOUR``, the message, says why a larger board with a 4 is refused).
    ``unknown`` holds the cells ``(i, j)`` whose clue is "?" (pzprjs's unknown number,
    ``.`` in a puzz.link URL, ``?`` in the text formats): such a cell's clue is None, for
    a "?" puts no bound on how many of its sides the loop uses, and every solver and
    counter reads it as a cell without a clue.  The set is kept so that the board is
    written back as it was read (``to_url``, ``to_text``); it takes part in
    ``==`` but not in ``repr``.
    """

    clues: tuple
    unknown: frozenset = field(default=frozenset(), repr=False)

    def __post_init__(self):
        clues = tuple(tuple(row) for row in self.clues)
        if not clues or not clues[0]:
            raise ValueError("a board needs at least one row and one column")
        width = len(clues[0])
        if len(clues) > MAX_SIDE or width > MAX_SIDE:
            raise ValueError(f"a {len(clues)}x{width} board: a side may be at most {MAX_SIDE} (as in every "
                             "format qlib reads and writes)")
        one_cell = len(clues) == 1 and width == 1
        for i, row in enumerate(clues):
            if len(row) != width:
                raise ValueError(f"row {i} has {len(row)} cells, expected {width} like row 0")
            for j, c in enumerate(row):
                if c is not None and (isinstance(c, bool) or c not in (0, 1, 2, 3, 4)):
                    raise ValueError(f"clue ({i},{j}) is {c!r}; clues are 0, 1, 2, 3 or None")
                if c == 4 and not one_cell:
                    raise ValueError(f"clue ({i},{j}): {FOUR}")
        try:
            unknown = frozenset((int(i), int(j)) for i, j in self.unknown)
        except (TypeError, ValueError):
            raise TypeError(f"unknown must hold (row, column) pairs, got {self.unknown!r}") from None
        for i, j in sorted(unknown):
            if not (0 <= i < len(clues) and 0 <= j < width):
                raise ValueError(f"unknown cell ({i},{j}) is outside the {len(clues)}x{width} board")
            if clues[i][j] is not None:
                raise ValueError(f"unknown cell ({i},{j}) has the clue {clues[i][j]!r}: a '?' cell has no number")
        object.__setattr__(self, "clues", tuple(tuple(None if c is None else int(c) for c in row)
                                                for row in clues))
        object.__setattr__(self, "unknown", unknown)

    @property
    def rows(self) -> int:
        """Rows of cells."""
        return len(self.clues)

    @property
    def cols(self) -> int:
        """Columns of cells."""
        return len(self.clues[0])

    @property
    def grid(self) -> Grid:
        """Edge/point arrays of this board's lattice (:class:`qlib.puzzles.loops.Grid`)."""
        return grid(self.rows, self.cols)

    @property
    def clue_cells(self) -> list[tuple[int, int, int]]:
        """``(i, j, n)`` for every clue, row-major."""
        return [(i, j, n) for i, row in enumerate(self.clues) for j, n in enumerate(row) if n is not None]

    def to_text(self) -> str:
        """The board in the one-row-per-line format ('.' for no clue, '?' for an unknown one)."""
        return "\n".join("".join(_cell_char(self, i, j, ".") for j in range(self.cols))
                         for i in range(self.rows)) + "\n"

    def to_url(self) -> str:
        """The board as a puzz.link URL, ``https://puzz.link/p?slither/COLS/ROWS/BODY``.

        The body is pzprjs's encoding of Slitherlink clues, cell by cell row-major from
        the top left: ``0``-``4`` a clue; ``5``-``9`` a clue (minus 5) and one blank;
        ``a``-``e`` a clue (minus 10) and two blanks; ``g``-``z`` 1 to 20 blanks; ``.`` an
        unknown clue ("?").  It is the string pzprjs itself writes (``encode4Cell`` and,
        after a body that ends in ``.``, the ``/`` its ``outputURLData`` adds), so that URLs
        compare equal: every form :func:`parse_url` reads has this canonical form.
        """
        body = _encode_body(self)
        return f"https://puzz.link/p?slither/{self.cols}/{self.rows}/{body}" + ("" if body[-1].isalnum() else "/")

    @classmethod
    def from_url(cls, url: str) -> "Board":
        """The board of a puzz.link / pzprjs Slitherlink URL (see :func:`parse_url`)."""
        return parse_url(url)

    def to_loopy(self) -> str:
        """The board as a game ID of Simon Tatham's Loopy (sgt-puzzles), ``COLSxROWSt0:DESCRIPTION``.

        ``t0`` is Loopy's square grid.  The description lists the cells row-major from
        the top left: a digit is a clue, a letter ``a``-``z`` a run of 1 to 26 cells
        without a clue (longer runs are split, ``z`` first), as Loopy's own
        ``state_to_text`` writes it, so IDs compare equal.  ``sgt-loopy`` opens it
        (``sgt-loopy '10x10t0:...'``); :func:`parse_loopy` reads it back.  Loopy has no
        unknown clue: a "?" cell (in ``unknown``) is written as a cell without a clue.
        """
        return f"{self.cols}x{self.rows}t0:{loopy.encode(self.clues)}"

    @classmethod
    def from_loopy(cls, game_id: str) -> "Board":
        """The board of a Loopy game ID (see :func:`parse_loopy`)."""
        return parse_loopy(game_id)

    def __str__(self):
        return render_text(self)


def _cell_char(board: Board, i: int, j: int, blank: str) -> str:
    """How the text formats write cell (i, j): its clue, '?' for an unknown one, else ``blank``."""
    c = board.clues[i][j]
    if c is not None:
        return str(c)
    return UNKNOWN_CHAR if (i, j) in board.unknown else blank


# Lines end at "\n", "\r\n" or "\r" only: str.splitlines() also splits at form feeds,
# U+2028 and other characters, and its line numbers would then disagree with editors'.
_NEWLINE = re.compile(r"\r\n|\r|\n")
_URL_STARTS = ("http://", "https://", "puzz.link/", "www.puzz.link/", "pzv.jp/", "pzprxs.vercel.app/")
# A Loopy game ID: a number, then parameter letters and digits, then ':' ('#' for a seed ID), or
# the parameters alone in full (WxHtT, the description missing).  A file name such as
# "10x10.txt" starts the same way but has neither; a row of clues holds only '.' and 0-3.
_LOOPY_ID = re.compile(r"[0-9]+[0-9a-z]*[:#]|[0-9]+x[0-9]+t[0-9]+(d[a-z])?\Z")


def _lines(text: str) -> list[str]:
    lines = _NEWLINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    return lines


def _decode(data: bytes, name: str, error=None) -> str:
    return decode_utf8(data, name, error=error or SlitherlinkError)


def _read_bytes(path, error=None, not_found=None) -> bytes:
    return read_bytes(path, error=error or SlitherlinkError, not_found=not_found or SlitherlinkFileNotFoundError,
                      what="a puzzle file")


def _is_url(text: str) -> bool:
    return text.strip(SPACE).lower().startswith(_URL_STARTS)


def parse(source) -> Board:
    """Read a board from a file, a puzz.link URL, a Loopy game ID, a list of row strings, or a :class:`Board`.

    ``source`` is a :class:`pathlib.Path` or a file name (str), a str starting with
    ``http://``, ``https://``, ``puzz.link/``, ``www.puzz.link/``, ``pzv.jp/`` or
    ``pzprxs.vercel.app/`` (read by :func:`parse_url`), a str
    that starts with a number and has a ':' after its parameters (an sgt-puzzles
    Loopy game ID such as ``10x10t0:b2a211...``, read by :func:`parse_loopy`), a list of
    row strings, or a Board (returned unchanged).  A str is never guessed to be a text:
    use :func:`parse_text` for the text of a board; only a str that holds a line break
    (which no file name does) or is empty is still read as a text, for older callers.

    Row format: one line per row, '.' for no clue, digits 0-3 for clues, '?' for a
    clue whose number is unknown (see :class:`Board`; blank lines are skipped).
    Lattice format, as drawn by :func:`render_text` and the tutorial: rows of
    ``+   +   +`` alternating with rows holding each clue centred in its 4-character
    cell; drawn edges (``---``, ``|``) are ignored.  In both, a 1x1 board may hold the
    clue 4.  A file may also hold a single puzz.link URL or a single Loopy game
    ID (on one line; only the square grid ``t0``).  Files are UTF-8 (a
    byte-order mark is skipped).  Errors raise :class:`~qlib.puzzles.slitherlink.SlitherlinkError`, whose
    message names the file (``<text>``, ``<url>``), the line and the column; a
    missing file raises :class:`~qlib.puzzles.slitherlink.SlitherlinkFileNotFoundError` (also a FileNotFoundError).
    """
    if isinstance(source, Board):
        return source
    if isinstance(source, os.PathLike):
        return _parse_file(source)
    if isinstance(source, str):
        if source == "" or "\n" in source or "\r" in source:
            return parse_text(source)
        if _is_url(source):
            return parse_url(source)
        if _LOOPY_ID.match(source.strip(SPACE)):
            return parse_loopy(source)
        return _parse_file(source)
    if isinstance(source, (list, tuple)):
        lines = []
        for k, item in enumerate(source):
            if not isinstance(item, str):
                raise TypeError(f"a board as a list must hold strings; item {k} is {type(item).__name__}")
            lines.append(item.rstrip("\r\n"))
        return _parse_lines("<text>", lines)
    raise TypeError(f"parse() takes a path, a puzz.link URL, a Loopy game ID, a list of row strings or a Board, "
                    f"got {type(source).__name__} (the text of a board goes to parse_text())")


def _parse_file(path) -> Board:
    name = os.fspath(path)
    return _parse_lines(name, _lines(_decode(_read_bytes(path), name)))


def parse_bytes(data: bytes, name: str = "<bytes>") -> Board:
    """Read a board from the bytes of a puzzle file (UTF-8; a byte that is not is reported by line and column)."""
    return parse_text(_decode(data, name), name)


def parse_text(text: str, name: str = "<text>") -> Board:
    """Read a board from the text of a puzzle file (see :func:`parse` for the formats).

    ``name`` stands for the text in error messages.  A leading byte-order mark is skipped.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_text() takes a str, got {type(text).__name__}")
    return _parse_lines(name, _lines(text.removeprefix("\ufeff")))


def _parse_lines(name: str, lines: list[str]) -> Board:
    numbered = [(k + 1, line.rstrip(SPACE)) for k, line in enumerate(lines)]
    content = [(n, line) for n, line in numbered if line.strip(SPACE)]
    if not content:
        syntax.fail(name, 1, 1, "empty input: expected rows of clues ('.' or 0-3), one row per line")
    if len(content) == 1 and _is_url(content[0][1]):
        lineno, line = content[0]
        return _parse_url(line, name, lineno)
    if len(content) == 1 and _LOOPY_ID.match(content[0][1].strip(SPACE)):
        lineno, line = content[0]
        return _loopy_board(line, name, lineno)
    if content[0][1].lstrip(SPACE).startswith("+"):
        return _parse_lattice(name, numbered, content)
    return _parse_rows(name, content)


def _board(name, rows, unknown, four) -> Board:
    """The Board of the clue rows read; ``four`` is where the first clue 4 stood ((line, column) or None)."""
    if four is not None and (len(rows) > 1 or len(rows[0]) > 1):
        syntax.fail(name, four[0], four[1], FOUR)
    return Board(tuple(rows), frozenset(unknown))


def _parse_rows(name, content) -> Board:
    rows, unknown, four = [], [], None
    first_line = None
    for lineno, line in content:
        indent = len(line) - len(line.lstrip(SPACE))
        body = line.strip(SPACE)
        row = []
        if len(rows) == MAX_SIDE:
            syntax.fail(name, lineno, indent + 1, f"a board has at most {MAX_SIDE} rows (as in every format): "
                                                  f"expected the end of the board after row {MAX_SIDE}")
        for k, ch in enumerate(body):
            col = indent + k + 1
            if k == MAX_SIDE:
                syntax.fail(name, lineno, col, f"a row has at most {MAX_SIDE} cells (as in every format): "
                                               "expected the end of the row")
            if ch == ".":
                row.append(None)
            elif ch in "01234":
                row.append(int(ch))
                if ch == "4" and four is None:
                    four = (lineno, col)
            elif ch == UNKNOWN_CHAR:
                unknown.append((len(rows), len(row)))
                row.append(None)
            else:
                syntax.fail(name, lineno, col, f"unexpected character {ch!r}: expected '.' (no clue), a clue 0-3 "
                                               f"or '?' (a clue whose number is unknown)")
        if rows and len(row) != len(rows[0]):
            width = len(rows[0])
            col = indent + min(len(row), width) + 1
            what = "another cell" if len(row) < width else "the end of the row"
            syntax.fail(name, lineno, col, f"row has {len(row)} cells but line {first_line} has {width}: "
                                     f"expected {what} (rows must all be the same length)")
        if not rows:
            first_line = lineno
        rows.append(tuple(row))
    return _board(name, rows, unknown, four)


def _parse_lattice(name, numbered, content) -> Board:
    first, last = content[0][0], content[-1][0]
    block = [(n, line) for n, line in numbered if first <= n <= last]
    indent = min(len(line) - len(line.lstrip(SPACE)) for _, line in content)
    block = [(n, line[indent:]) for n, line in block]

    def fail(n, k, message):
        syntax.fail(name, n, indent + k + 1, message)

    n0, top = block[0]
    if len(top) < 5 or (len(top) - 1) % 4:
        fail(n0, len(top), "a lattice row must read '+   +   + ... +' (4 characters per cell)")
    cols = (len(top) - 1) // 4

    def point_row(n, line):
        early = f"the lattice row ends early: expected {cols} cells ('+' every 4 characters) as in line {n0}"
        for k in range(4 * cols + 1):
            if k >= len(line):
                fail(n, k, early)
            if k % 4 == 0:
                if line[k] != "+":
                    fail(n, k, f"expected '+' (a lattice point), found {line[k]!r}")
            elif k % 4 == 1:
                seg = line[k:k + 3]
                if seg not in ("   ", "---"):
                    if len(seg) < 3 and not seg.strip(" -"):
                        fail(n, len(line), early)
                    fail(n, k, f"expected '   ' or '---' between two points, found {seg!r}")
        if len(line) > 4 * cols + 1:
            fail(n, 4 * cols + 1, f"expected the end of the lattice row ({cols} cells, as in line {n0})")

    clues, unknown, fours = [], [], []

    def cell_row(n, line):
        if len(line) > 4 * cols + 1:
            fail(n, 4 * cols + 1, f"expected the end of the row ({cols} cells, as in line {n0})")
        line = line.ljust(4 * cols + 1)
        row = []
        for j in range(cols + 1):
            if line[4 * j] not in " |":
                fail(n, 4 * j, f"expected ' ' or '|' (a vertical edge), found {line[4 * j]!r}")
            if j == cols:
                break
            for k in (4 * j + 1, 4 * j + 3):
                if line[k] != " ":
                    fail(n, k, f"expected a space: a clue sits in the middle of its cell, found {line[k]!r}")
            ch = line[4 * j + 2]
            if ch in " .":
                row.append(None)
            elif ch in "01234":
                row.append(int(ch))
                if ch == "4":
                    fours.append((n, indent + 4 * j + 3))
            elif ch == UNKNOWN_CHAR:
                unknown.append((len(clues), len(row)))
                row.append(None)
            else:
                fail(n, 4 * j + 2, f"unexpected character {ch!r}: expected a clue 0-3, '?' (an unknown clue) "
                                   f"or a space")
        clues.append(tuple(row))

    for k, (n, line) in enumerate(block):
        (point_row if k % 2 == 0 else cell_row)(n, line)
    if len(block) % 2 == 0:
        n = block[-1][0] + 1
        syntax.fail(name, n, indent + 1, "expected a closing lattice row '+   +   + ... +' after the last row of cells")
    if len(block) < 3:
        syntax.fail(name, n0 + 1, indent + 1, "expected a row of cells after the first lattice row")
    return _board(name, clues, unknown, fours[0] if fours else None)


# -----------------------------------------------------------------------------
# puzz.link / pzprjs URLs
# -----------------------------------------------------------------------------
_BLANK_RUN = "ghijklmnopqrstuvwxyz"  # 1 to 20 cells without a clue
# pzprjs's names of the puzzle (pzpr.variety: the pid 'slither' and its kanpen alias 'slitherlink'), and the
# mode suffixes its URL parser takes off the name (parser.js, parseURLType)
_PIDS = ("slither", "slitherlink")
_MODES = ("_edit", "_play")
_QUERY_OPTION = re.compile(r"(\w+)=(\w+)&")  # ?type=editor&slither/... : options before the puzzle's name
_PFLAG = re.compile(r"[A-Za-z]+\Z")           # the option letters of pzprjs's 'pflag' segment (slither: 'f')


def parse_url(url: str, name: str = "<url>") -> Board:
    """The board of a puzz.link / pzprjs Slitherlink URL.

    Read as pzprjs reads it (``parser.js`` and ``decode4Cell``):
    ``https://puzz.link/p?slither/COLS/ROWS/BODY`` (columns first; cells row-major
    from the top left) on any host (``puzz.link``, ``www.puzz.link``, ``pzv.jp/p.html``,
    ``pzprxs.vercel.app/p``, ...), with or without ``http(s)://``; the puzzle's name
    ``slither`` or ``slitherlink``, either with the mode suffix ``_edit`` or ``_play``;
    options ``NAME=VALUE&`` before the name (``?type=player&slither/...``); a ``v:...``
    segment and a segment of option letters (pzprjs's pflag, such as ``f``) before the
    sizes; a ``#fragment`` (which a browser never hands to pzprjs) is ignored.  BODY
    characters: ``0``-``4`` a clue; ``5``-``9`` the clue c-5 and one blank; ``a``-``e``
    the clue c-10 and two blanks; ``g``-``z`` 1 to 20 blanks; ``.`` a clue whose number
    is unknown ("?", kept in ``Board.unknown``, no constraint on the count).  As in
    pzprjs, a body that ends early leaves the remaining cells without a clue, a run
    may reach past the last cell, and what follows a complete body is ignored.  A
    clue 4 is read on a 1x1 board only (see :class:`Board`).  Unlike pzprjs, which
    reads any other character as one blank cell, qlib refuses it.  Errors raise
    :class:`~qlib.puzzles.slitherlink.SlitherlinkError` naming ``name``, line 1 and the column in the URL.
    :meth:`Board.to_url <qlib.puzzles.slitherlink.Board.to_url>` writes the canonical form of every URL read here.
    """
    if not isinstance(url, str):
        raise TypeError(f"parse_url() takes a str, got {type(url).__name__}")
    if "\n" in url or "\r" in url:
        syntax.fail(name, 1, 1, "a URL is one line: expected https://puzz.link/p?slither/COLS/ROWS/BODY")
    return _parse_url(url, name, 1)


def _parse_url(line: str, name: str, lineno: int) -> Board:
    url, fail = syntax.located(line, name, lineno)

    expected = "expected a Slitherlink URL such as https://puzz.link/p?slither/COLS/ROWS/BODY"
    hash_at = url.find("#")
    if hash_at >= 0:
        url = url[:hash_at]  # the fragment: not part of what pzprjs reads
    query = url.find("?")
    if query < 0:
        fail(len(url), f"no '?' in the URL: {expected}")
    at = query + 1
    while True:  # options such as type=player& before the puzzle's name
        option = _QUERY_OPTION.match(url, at)
        if option is None:
            break
        at = option.end()
    # the segments after the options, each with its position in the URL
    segments, position = [], at
    for part in url[at:].split("/"):
        segments.append((position, part))
        position += len(part) + 1
    at, kind = segments.pop(0)
    pid = next((kind[:-len(mode)] for mode in _MODES if kind.endswith(mode)), kind)  # one suffix at most
    if pid not in _PIDS:
        fail(at, f"the URL is for the puzzle type {kind!r}: {expected} (the name slither or slitherlink, "
                 f"optionally with _edit or _play)")
    while segments and ":" in segments[0][1]:
        segments.pop(0)  # a variant or option segment such as 'v:'
    if len(segments) > 2 and _PFLAG.match(segments[0][1]):
        segments.pop(0)  # pzprjs's option letters (pflag), which change nothing in the clues
    sizes = []
    for what in ("the number of columns", "the number of rows"):
        if not segments:
            fail(len(url), f"the URL ends early: expected {what} (COLS/ROWS/BODY after {kind + '/'!r})")
        at, text = segments.pop(0)
        if not text or not text.isascii() or not text.isdigit():
            fail(at, f"expected {what} (a whole number), found {text!r}")
        value = int(text) if len(text) <= 6 else MAX_SIDE + 1
        if not 1 <= value <= MAX_SIDE:
            fail(at, f"expected {what} between 1 and {MAX_SIDE}, found {text}")
        sizes.append(value)
    cols, rows = sizes
    at = segments[0][0] if segments else len(url)
    body = url[at:]
    if body.endswith("/"):
        body = body[:-1]  # the '/' pzprjs writes after a body that does not end in a letter or digit
    count = rows * cols
    cells: list = [None] * count
    unknown, four = [], None
    cell = 0
    for k, ch in enumerate(body):
        if cell >= count:
            break  # pzprjs stops at the last cell and ignores the rest
        if "0" <= ch <= "4":
            clue, skip = ord(ch) - ord("0"), 0
        elif "5" <= ch <= "9":
            clue, skip = ord(ch) - ord("5"), 1
        elif "a" <= ch <= "e":
            clue, skip = ord(ch) - ord("a"), 2
        elif ch in _BLANK_RUN:
            clue, skip = None, _BLANK_RUN.index(ch)
        elif ch == ".":
            clue, skip = None, 0
            unknown.append(divmod(cell, cols))
        else:
            fail(at + k, f"unexpected character {ch!r}: expected a clue 0-4, 5-9 or a-e (a clue followed "
                         f"by blanks), g-z (1 to 20 blanks) or '.' (a clue whose number is unknown)")
        if clue == 4 and four is None:
            four = at + k
        cells[cell] = clue
        cell += 1 + skip
    if four is not None and count > 1:
        fail(four, FOUR)
    return Board(tuple(tuple(cells[i * cols:(i + 1) * cols]) for i in range(rows)), frozenset(unknown))


def _encode_body(board: Board) -> str:
    """pzprjs's ``encode4Cell``: the same string puzz.link writes for these clues."""
    flat = [c for row in board.clues for c in row]
    marked = [c is not None or divmod(k, board.cols) in board.unknown for k, c in enumerate(flat)]
    n = len(flat)
    out, blanks, cell = [], 0, 0
    while cell < n:
        clue = flat[cell]
        piece = ""
        if clue is not None:
            if cell + 1 < n and marked[cell + 1]:
                piece = "01234"[clue]
            elif cell + 2 < n and marked[cell + 2]:
                piece = "56789"[clue]
                cell += 1
            else:
                piece = "abcde"[clue]
                cell += 2
        elif marked[cell]:
            piece = "."
        else:
            blanks += 1
        if blanks == 0:
            out.append(piece)
        elif piece or blanks == 20:
            out.append(_BLANK_RUN[blanks - 1] + piece)
            blanks = 0
        cell += 1
    if blanks:
        out.append(_BLANK_RUN[blanks - 1])
    return "".join(out)


def render_text(board, h=None, v=None) -> str:
    """The board as text: ``+---+`` / ``|`` for drawn edges, clues centred in cells.

    Same layout as the tutorial's drawings (4 characters per cell, trailing
    spaces stripped); the result ends with a newline.  ``h``/``v`` default to
    no edges.
    """
    board = parse(board)
    g = board.grid
    mask = board.grid.from_hv(h, v)
    R, C = board.rows, board.cols
    out = []
    for i in range(R + 1):
        out.append("".join("+---" if mask[g.h_index(i, j)] else "+   " for j in range(C)) + "+")
        if i == R:
            break
        line = ""
        for j in range(C + 1):
            line += "|" if mask[g.v_index(i, j)] else " "
            if j < C:
                line += f" {_cell_char(board, i, j, ' ')} "
        out.append(line.rstrip())
    return "\n".join(out) + "\n"


def parse_loopy(game_id: str, name: str = "<loopy>") -> Board:
    """The board of a game ID of Simon Tatham's Loopy (sgt-puzzles): ``WIDTHxHEIGHTt0:DESCRIPTION``.

    See :func:`.loopy.parse_loopy` for what is read; errors raise
    :class:`~qlib.puzzles.slitherlink.SlitherlinkError` naming ``name``, line 1 and the column.
    """
    return Board(loopy.parse_loopy(game_id, name))


def _loopy_board(line: str, name: str, lineno: int) -> Board:
    return Board(loopy.decode_line(line, name, lineno))
