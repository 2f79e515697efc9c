"""Reading and writing puzzles: the ``.non`` text format and its ``.nonpack`` bundles, Python
clues, and the dispatch to sgt-puzzles game IDs (:mod:`.sgt`) and webpbn's XML (:mod:`.webpbn`)."""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..sourcefile import decode_utf8, read_bytes
from . import sgt, webpbn
from .puzzle import (BLACK, METADATA_KEYS, WHITE, Nonogram, NonogramError, NonogramFileNotFoundError,
                     as_strings, clue_text, normalise_grid)


# -- parsing -------------------------------------------------------------------
# Every message about a text reads "NAME, line N, column M: what was found, what was expected";
# one about a file that cannot be opened "NAME: why"; one about Python clues "<clues>: rows[i]: ...".
_NUMBER = re.compile(r"[+-]?[0-9]+\Z")  # ASCII digits only: str.isdigit() and \d take any script's
_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TOKEN = re.compile(r"[^, \t]+")
_FIRST = re.compile(r"[ \t]*([^ \t]*)")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_SPACE = " \t"
_MAX_DIGITS = 6  # no line of a nonogram is a million cells long; and int() of 4301+ digits raises
_MAPPING_KEYS = {"rows", "columns", "cols", "title", "width", "height", "goal", *METADATA_KEYS}
_COLOUR_KEYS = ("color", "colour")
_COLOUR_BLOCK = re.compile(r"([0-9]+)([^0-9,+\- \t])\Z")  # '3b': a block of 3 in the colour 'b'
_COLOUR = "a colour puzzle: qlib reads black-and-white nonograms only"
#: The line that separates two puzzles of a ``.nonpack`` bundle (nonogram-db's FORMAT.md, "Bundling").
PACK_DIVIDER = "===="
_SPDX = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*\Z")  # an SPDX licence code, which .non writes unquoted


def parse(source) -> Nonogram:
    """Read a nonogram from a ``.non`` file, a webpbn XML file, an sgt-puzzles game ID, a mapping
    ``{"rows": [...], "columns": [...]}`` or a pair ``(rows, columns)``.

    A file is a :class:`pathlib.Path` or a file name (str).  A str is never guessed
    to be a text: use :func:`parse_text` for the text of a ``.non`` file; only a str
    that holds a line break (which no file name does) is still read as a text, and
    a str that starts like a game ID (digits, then ``x`` or ``:``, as in
    ``10x10:2.1/3/...``; see :mod:`.sgt`) is read as one, the way a Slitherlink
    path may be a puzz.link URL.  A file (or text) that holds a game ID is read as
    one too, and one whose name ends in ``.xml`` or whose text starts with ``<``
    (``<?xml``, ``<puzzleset>``) is webpbn's XML export, read by :mod:`.webpbn`
    (black and white only; one puzzle: :func:`~qlib.puzzles.nonogram.parsing.parse_pack` reads a puzzleset of several).

    The ``.non`` format has ``width N`` and ``height N`` lines, a ``rows`` line
    followed by one line per row (block lengths separated by commas; ``0`` or an
    empty line for an all-white row), and a ``columns`` section alike.  ``title``,
    ``catalogue``, ``by``, ``copyright`` and ``license`` are kept (see
    :class:`~qlib.puzzles.nonogram.Nonogram`; quoted or not, HTML escapes such as ``&amp;`` and ``&#39;``
    read as the characters they stand for), ``goal`` (the answer, ``width * height``
    digits 0/1 row by row, quoted or not) too; other lines are ignored.  A colour
    puzzle (two ``color`` lines, or a block such as ``3b`` of a colour that no lone
    ``color`` line declares) is refused where it shows; a block of the one declared
    colour is black.  A ``====`` line (a ``.nonpack`` bundle) is refused: see
    :func:`~qlib.puzzles.nonogram.parsing.parse_pack`.  Files are UTF-8 (a byte-order mark is skipped).  Errors raise
    :class:`~qlib.puzzles.nonogram.NonogramError` naming the file (or
    ``<text>``), the line and the column; a missing file raises
    :class:`~qlib.puzzles.nonogram.NonogramFileNotFoundError` (also a FileNotFoundError).
    """
    if isinstance(source, Nonogram):
        return source
    if isinstance(source, os.PathLike):
        return _parse_file(source)
    if isinstance(source, str):
        if "\n" in source or "\r" in source:
            return parse_text(source)
        if sgt.looks_like_id(source):
            return sgt.parse_sgt(source, "<game id>")
        return _parse_file(source)
    if isinstance(source, Mapping):
        unknown = set(source) - _MAPPING_KEYS
        if unknown:
            raise NonogramError(f"<clues>: unknown key(s) {sorted(map(str, unknown))}; "
                                f"expected 'rows', 'columns' and optionally 'title'")
        if "rows" not in source or ("columns" not in source and "cols" not in source):
            raise NonogramError("<clues>: expected both 'rows' and 'columns'")
        columns = source["columns"] if "columns" in source else source["cols"]
        puzzle = _from_clues(source["rows"], columns, source.get("title"),
                             source.get("width"), source.get("height"))
        metadata = {key: str(source[key]) for key in METADATA_KEYS if source.get(key) is not None}
        goal = source.get("goal")
        if goal is not None:
            try:
                goal = as_strings(normalise_grid(goal))
            except (TypeError, ValueError) as err:
                raise NonogramError(f"<clues>: goal: {err}") from None
            if len(goal) != puzzle.height or any(len(row) != puzzle.width for row in goal):
                raise NonogramError(f"<clues>: goal: expected {puzzle.height} rows of {puzzle.width} cells")
        return Nonogram(puzzle.rows, puzzle.columns, puzzle.title, metadata, goal)
    if isinstance(source, (tuple, list)) and len(source) == 2:
        return _from_clues(source[0], source[1], None, None, None)
    raise NonogramError(
        f"cannot read a nonogram from {type(source).__name__}: give a path, "
        f"{{'rows': [...], 'columns': [...]}} or (rows, columns) (the text of a .non file goes to parse_text())"
    )


def parse_text(text: str, name: str = "<text>") -> Nonogram:
    """Read a nonogram from the text of a ``.non`` file or an sgt-puzzles game ID (see
    :func:`parse`; a text whose first characters are digits followed by ``x`` or ``:``
    is a game ID, :func:`~.sgt.parse_sgt`).

    ``name`` stands for the text in error messages.  A leading byte-order mark is skipped.
    A text that starts with ``<`` is webpbn's XML (:func:`.webpbn.parse_text`).
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_text() takes a str, got {type(text).__name__}")
    return _parse_text(text.removeprefix("\ufeff"), name)


def _read_bytes(path) -> bytes:
    return read_bytes(path, error=NonogramError, not_found=NonogramFileNotFoundError, what="a .non file")


def _decode(data: bytes, name: str) -> str:
    return decode_utf8(data, name, error=NonogramError)


def parse_bytes(data: bytes, name: str = "<bytes>") -> Nonogram:
    """Read a puzzle from the bytes of a file (UTF-8; a byte that is not is reported by line and column).

    Bytes that start with ``<`` (or a UTF-16/32 byte order mark) are webpbn's XML, in the
    encoding the mark or the XML declaration names.
    """
    if webpbn.looks_like_xml(data):
        return webpbn.parse_bytes(data, name)
    return parse_text(_decode(data, name), name)


def _parse_file(path) -> Nonogram:
    name = os.fspath(path)
    data = _read_bytes(path)
    if name.lower().endswith(".xml") or webpbn.looks_like_xml(data):
        return webpbn.parse_bytes(data, name)
    return _parse_text(_decode(data, name), name)


def parse_pack(source) -> list[Nonogram]:
    """Every puzzle of a ``.nonpack`` bundle, or of a webpbn XML puzzleset, in order.

    ``source`` is a :class:`pathlib.Path` or a file name, or a str holding a line break
    (the text of a bundle).  A bundle is ``.non`` puzzles (or game IDs) separated by a
    line ``====`` (blank space around it allowed), as nonogram-db's FORMAT.md defines it
    ("Bundling") and its ``tools/bundle`` writes it; a file without a divider is a
    bundle of one.  Each puzzle is read as :func:`parse_text` reads it, and an error
    names the line of the whole file; an empty part (two dividers in a row, a divider
    first or last) is an error at its divider.  A file that starts with ``<`` is a
    webpbn puzzleset: all its puzzles.
    """
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        name, data = "<text>", source.removeprefix("\ufeff")
    elif isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        data = _read_bytes(source)
        if name.lower().endswith(".xml") or webpbn.looks_like_xml(data):
            return webpbn.parse_all(data, name)
        data = _decode(data, name)
    else:
        raise TypeError(f"parse_pack() takes a path or the text of a bundle, got {type(source).__name__}")
    if webpbn.looks_like_xml(data):
        return webpbn.parse_all(data, name)
    lines = _NEWLINE.split(data)
    if lines and lines[-1] == "":
        lines.pop()
    parts, start, before = [], 0, None  # (first index, lines, the dividers' line numbers before and after)
    for k, line in enumerate(lines):
        if line.strip(_SPACE) == PACK_DIVIDER:
            parts.append((start, lines[start:k], before, k + 1))
            start, before = k + 1, k + 1
    parts.append((start, lines[start:], before, None))
    puzzles = []
    for first, part, before, after in parts:
        if len(parts) > 1 and not any(line.strip(_SPACE) for line in part):
            if before is None:
                where, what = after, "a divider before the first puzzle: expected a puzzle first"
            else:
                found = "the end of the file" if after is None else f"another divider (line {after})"
                where, what = before, f"an empty part of the bundle: expected a puzzle after this divider, found {found}"
            raise NonogramError(f"{name}, line {where}, column 1: {what}")
        puzzles.append(_parse_text("\n".join(part), name, first + 1))
    return puzzles


def _unquote(value: str) -> str:
    """A value without its quotes, its HTML escapes (``&amp;``, ``&quot;``, ``&#39;``) read."""
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return html.unescape(value)


def _escape(value: str) -> str:
    """A value as a quoted ``.non`` string holds it: '&' and '"' escaped, which :func:`_unquote` reads back."""
    return value.replace("&", "&amp;").replace('"', "&quot;")


@dataclass
class _Section:
    header_line: int
    lines: list = field(default_factory=list)  # (line number, raw text)


def _parse_text(text: str, name: str, first: int = 1) -> Nonogram:
    """The puzzle of ``text``, whose first line is line ``first`` of ``name``."""
    if webpbn.looks_like_xml(text):
        return webpbn.parse_text(text, name)
    if sgt.looks_like_id(text):
        return sgt.parse_sgt(text, name, first_line=first)

    def fail(line: int, column: int, message: str):
        raise NonogramError(f"{name}, line {line}, column {column}: {message}")

    def at(line: int, column: int = 1):
        return lambda message, offset=None: fail(line, column if offset is None else offset + 1, message)

    sizes: dict[str, tuple[int, int]] = {}  # key -> (value, line)
    sections: dict[str, _Section] = {}
    title, metadata, goal = None, {}, None
    colours = []  # (line, column, character) of each colour declared
    current = None
    lines = _NEWLINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    for number, raw in enumerate(lines, start=first):
        match = _FIRST.match(raw)
        word = match.group(1)
        if raw.strip(_SPACE) == PACK_DIVIDER:
            fail(number, match.start(1) + 1, f"a '{PACK_DIVIDER}' divider: this is a .nonpack bundle of several "
                                             "puzzles: expected one puzzle (nonogram.parse_pack reads a bundle)")
        if current is not None and not _KEYWORD.match(word):
            current.lines.append((number, raw))
            continue
        current = None
        if not word:
            continue
        key = word.lower()
        rest = raw[match.end():]
        value_column = match.end() + len(rest) - len(rest.lstrip(_SPACE)) + 1
        value = rest.strip(_SPACE)
        if key in ("rows", "columns"):
            if key in sections:
                fail(number, match.start(1) + 1,
                     f"a second '{key}' section (the first is at line {sections[key].header_line})")
            if value:
                fail(number, value_column, f"expected '{key}' alone on its line, with the clues on the lines below")
            current = sections[key] = _Section(number)
        elif key in ("width", "height"):
            digits = value.lstrip("+")
            if (not _NUMBER.match(value) or len(digits) > _MAX_DIGITS or int(value) <= 0):
                shown = value if len(value) <= 20 else value[:20] + "..."
                fail(number, value_column, f"expected a positive whole number of at most {_MAX_DIGITS} "
                                           f"digits (0-9) after '{key}', got {shown!r}")
            if key in sizes:
                fail(number, match.start(1) + 1, f"a second '{key}' line (the first is at line {sizes[key][1]})")
            sizes[key] = (int(value), number)
        elif key == "title":
            title = _unquote(value) or None
        elif key in METADATA_KEYS:
            if _unquote(value):
                metadata[key] = _unquote(value)
        elif key == "goal":
            quoted = len(value) >= 2 and value[0] == value[-1] == '"'
            goal = (number, value_column + quoted, value[1:-1] if quoted else value)
        elif key in _COLOUR_KEYS:
            char = value.split()[0] if value else ""
            if colours and char != colours[0][2]:
                fail(number, value_column, f"{_COLOUR} (a second colour {char!r}; the first, "
                                           f"{colours[0][2]!r}, is at line {colours[0][0]})")
            colours.append((number, value_column, char))
        # other lines (notes, unknown keys) carry nothing we need
    ink = colours[0][2] if colours else None

    last = first + max(len(lines), 1) - 1
    for key in ("rows", "columns"):
        if key not in sections:
            fail(last, 1, f"expected a '{key}' section (a '{key}' line followed by one clue per line), "
                          f"found the end of the text")
    clues = {}
    for key, size_key in (("rows", "height"), ("columns", "width")):
        section = sections[key]
        if size_key not in sizes:
            fail(section.header_line, 1, f"the '{key}' section needs a '{size_key} N' line, and the text has none")
        expected = sizes[size_key][0]
        entries = section.lines
        while len(entries) > expected and not entries[-1][1].strip(_SPACE):
            entries = entries[:-1]  # blank lines after the last clue separate sections
        if len(entries) != expected:
            where = entries[expected][0] if len(entries) > expected else section.header_line
            fail(where, 1, f"'{size_key} {expected}' needs {expected} {key[:-1]} clue lines after "
                           f"line {section.header_line}, found {len(entries)}")
        clues[key] = [(_parse_clue_line(body, lambda m, offset=None, n=n: fail(n, 1 if offset is None
                                                                                  else offset + 1, m), ink),
                       n, len(body) - len(body.lstrip(_SPACE)) + 1) for n, body in entries]

    rows, columns = clues["rows"], clues["columns"]
    for clue, n, column in rows:
        _check_fits(clue, len(columns), "row", at(n, column))
    for clue, n, column in columns:
        _check_fits(clue, len(rows), "column", at(n, column))
    _check_totals([c for c, _, _ in rows], [c for c, _, _ in columns], at(sections["columns"].header_line))
    goal_grid = None
    if goal is not None:
        goal_grid = _parse_goal(goal, len(rows), len(columns), fail, ink)
    return Nonogram(tuple(c for c, _, _ in rows), tuple(c for c, _, _ in columns), title, metadata, goal_grid)


def _parse_goal(goal, height: int, width: int, fail, ink=None) -> tuple[str, ...]:
    number, column, value = goal
    black = "1" + (ink or "")
    for k, ch in enumerate(value):
        if ch != "0" and ch not in black:
            also = f" or {ink!r} (the puzzle's colour)" if ink else ""
            fail(number, column + k, f"unexpected character {ch!r} in the goal: expected 0 (white) or 1 "
                                     f"(black){also}")
    if len(value) != height * width:
        fail(number, column + min(len(value), height * width),
             f"the goal has {len(value)} cells: expected {height} x {width} = {height * width} "
             f"digits 0/1, row by row")
    return tuple("".join(BLACK if value[i * width + j] != "0" else WHITE for j in range(width))
                 for i in range(height))


def _parse_clue_line(body: str, fail, ink=None) -> tuple[int, ...]:
    """The clue of one line; ``fail(message, offset)`` reports a token at ``body[offset]``.

    ``ink``: the one colour the file declares, whose blocks (``3a``) are black."""
    numbers, offsets = [], []
    for token in _TOKEN.finditer(body):
        text = token.group()
        coloured = _COLOUR_BLOCK.match(text)
        if coloured and coloured.group(2) == ink:
            text = coloured.group(1)
        elif coloured:
            declared = f"the file declares only {ink!r}" if ink else "the file declares no colour"
            fail(f"{_COLOUR} (the block {token.group()!r} has the colour {coloured.group(2)!r}; {declared})",
                 token.start())
        if not _NUMBER.match(text):
            shown = text if len(text) <= 20 else text[:20] + "..."
            fail(f"expected whole numbers (digits 0-9) separated by commas, got {shown!r}", token.start())
        if len(text.lstrip("+-")) > _MAX_DIGITS:
            fail(f"expected a block length of at most {_MAX_DIGITS} digits, got a number of "
                 f"{len(text.lstrip('+-'))} digits", token.start())
        numbers.append(int(text))
        offsets.append(token.start())
    return _normalise_clue(numbers, fail, offsets)


def _normalise_clue(numbers, fail, offsets=None) -> tuple[int, ...]:
    offsets = offsets or [None] * len(numbers)
    for value, offset in zip(numbers, offsets):
        if value < 0:
            fail(f"block lengths cannot be negative, got {value}", offset)
    if numbers == [0]:
        return ()
    if 0 in numbers:
        fail(f"0 stands alone for an empty line; it cannot be a block length in {numbers}",
             offsets[numbers.index(0)])
    return tuple(numbers)


def _check_fits(clue, length: int, kind: str, fail):
    needed = sum(clue) + max(len(clue) - 1, 0)
    if needed > length:
        fail(f"the clue {clue_text(clue)} needs {needed} cells (blocks plus one gap between each), "
             f"but a {kind} has only {length}")


def _check_totals(rows, columns, fail):
    row_total = sum(sum(c) for c in rows)
    column_total = sum(sum(c) for c in columns)
    if row_total != column_total:
        fail(f"the row clues count {row_total} black cells but the column clues count {column_total}")


def _from_clues(rows, columns, title, width, height) -> Nonogram:
    name = "<clues>"

    def read(lines, kind):
        if isinstance(lines, (str, bytes)) or not isinstance(lines, Sequence):
            raise NonogramError(f"{name}: expected a list of {kind} clues, got {type(lines).__name__}")
        out = []
        for index, clue in enumerate(lines):
            def fail(message, offset=None, index=index):
                raise NonogramError(f"{name}: {kind}s[{index}]: {message}")
            if isinstance(clue, (int, np.integer)) and not isinstance(clue, bool):
                clue = [clue]
            if isinstance(clue, str):
                out.append(_parse_clue_line(clue, fail))
                continue
            if not isinstance(clue, Sequence) and not isinstance(clue, np.ndarray):
                fail(f"expected a list of block lengths, got {clue!r}")
            numbers = []
            for value in clue:
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    fail(f"expected whole numbers, got {value!r}")
                numbers.append(int(value))
            out.append(_normalise_clue(numbers, fail))
        return out

    row_clues, column_clues = read(rows, "row"), read(columns, "column")
    for key, expected, actual in (("height", height, len(row_clues)), ("width", width, len(column_clues))):
        if expected is not None and expected != actual:
            raise NonogramError(f"{name}: {key} is {expected} but {actual} clues are given")
    if not row_clues or not column_clues:
        raise NonogramError(f"{name}: a nonogram needs at least one row and one column")
    for index, clue in enumerate(row_clues):
        _check_fits(clue, len(column_clues), "row",
                    lambda m, index=index: _raise(f"{name}: rows[{index}]: {m}"))
    for index, clue in enumerate(column_clues):
        _check_fits(clue, len(row_clues), "column",
                    lambda m, index=index: _raise(f"{name}: columns[{index}]: {m}"))
    _check_totals(row_clues, column_clues, lambda m: _raise(f"{name}: {m}"))
    return Nonogram(tuple(row_clues), tuple(column_clues), title)


def _raise(message: str):
    raise NonogramError(message)


# -- writing the .non format ---------------------------------------------------
def to_non(puzzle) -> str:
    """The puzzle as the text of a ``.non`` file, which :func:`parse_text` reads back equal
    (clues, title, metadata and goal).  An all-white line is written ``0``.

    Values are quoted with ``&`` and ``"`` written as ``&amp;`` and ``&quot;``; a
    ``license`` that is an SPDX code (``CC-BY-3.0``: letters, digits, ``.``, ``+``,
    ``-``) is written bare, as the format writes those, and any other licence quoted."""
    puzzle = parse(puzzle)
    lines = []

    def quoted(key, value):
        if value is None or value == "":
            return
        value = str(value)
        if "\n" in value or "\r" in value:
            raise NonogramError(f"the {key} {value!r} holds a line break; a .non value fits on one line")
        if key == "license" and _SPDX.match(value):
            lines.append(f"{key} {value}")
        else:
            lines.append(f'{key} "{_escape(value)}"')

    quoted("catalogue", puzzle.metadata.get("catalogue"))
    quoted("title", puzzle.title)
    for key in ("by", "copyright", "license"):
        quoted(key, puzzle.metadata.get(key))
    lines += [f"width {puzzle.width}", f"height {puzzle.height}", "", "rows"]
    lines += [clue_text(clue) for clue in puzzle.rows]
    lines += ["", "columns"]
    lines += [clue_text(clue) for clue in puzzle.columns]
    if puzzle.goal is not None:
        bits = "".join("1" if c == BLACK else "0" for row in puzzle.goal for c in row)
        lines += ["", f'goal "{bits}"']
    return "\n".join(lines) + "\n"


def write(puzzle, path) -> Path:
    """Write the puzzle to ``path`` in the ``.non`` format (UTF-8); returns the path."""
    path = Path(path)
    path.write_text(to_non(puzzle), encoding="utf-8")
    return path


def to_sgt(puzzle) -> str:
    """The puzzle as a game ID, ``WxH:`` then the columns' and the rows' clues, which
    ``sgt-pattern`` and :func:`~.parsing.parse_text` read back.  A game ID has no
    title, metadata or goal: those are not written."""
    puzzle = parse(puzzle)
    clues = "/".join(".".join(map(str, clue)) for clue in puzzle.columns + puzzle.rows)
    return f"{puzzle.width}x{puzzle.height}:{clues}"
