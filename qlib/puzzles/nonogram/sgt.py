"""Game IDs of Simon Tatham's Portable Puzzle Collection ("Pattern", ``sgt-pattern``).

A game ID reads ``WxH:DESC`` (or ``N:DESC`` for a square), as
``sgt-pattern --generate 1 '10x10'`` prints it.  ``DESC`` lists ``W + H`` clues,
the columns left to right first, then the rows top to bottom, separated by
``/``; a clue is its block lengths separated by ``.``, and an all-white line's
clue is empty (``2x1:1//1``: column 0 is "1", column 1 empty, the row "1").
This is the layout of ``new_game``/``validate_desc`` in the collection's
``pattern.c``.  The optional suffix ``,...`` of some IDs fixes squares as extra
clues; a :class:`~.puzzle.Nonogram` has no such squares, so it is refused with
a located error.  A lone ``0`` is read as an empty clue too.
"""

from __future__ import annotations

import re

from .puzzle import Nonogram, NonogramError

#: How a game ID starts: a size ("10x10" or "10") followed by ':' or 'x'.
LOOKS_LIKE_ID = re.compile(r"[ \t\r\n]*[0-9]+[x:]")
_MAX_DIGITS = 6
_LINE = re.compile(r"\r\n|\r|\n")


def looks_like_id(text: str) -> bool:
    """Whether ``text`` starts (after blank space) like a game ID rather than a ``.non`` file."""
    return LOOKS_LIKE_ID.match(text) is not None


def parse_sgt(text: str, name: str = "<game id>", *, first_line: int = 1) -> Nonogram:
    """Read the game ID in ``text`` (blank lines and spaces around it are allowed).

    Errors raise :class:`~.puzzle.NonogramError` reading "NAME, line N, column M:
    what was found, what was expected"; ``first_line`` is the number of the text's
    first line in ``NAME`` (a puzzle of a ``.nonpack`` bundle starts further down).
    """
    lines = _LINE.split(text)
    found = [(number, line) for number, line in enumerate(lines, start=first_line) if line.strip(" \t")]
    if not found:
        raise NonogramError(f"{name}, line {first_line}, column 1: expected a game ID 'WxH:clues', found no text")
    number, line = found[0]
    if len(found) > 1:
        extra_number, extra = found[1]
        column = len(extra) - len(extra.lstrip(" \t")) + 1
        raise NonogramError(f"{name}, line {extra_number}, column {column}: expected one game ID, "
                            f"but more text follows the one on line {number}")
    return _parse_line(line, number, name)


def _parse_line(line: str, number: int, name: str) -> Nonogram:
    def fail(position: int, message: str):
        raise NonogramError(f"{name}, line {number}, column {position + 1}: {message}")

    def shown(position: int) -> str:
        return repr(line[position]) if position < len(line) else "the end of the line"

    end = len(line.rstrip(" \t"))
    pos = len(line) - len(line.lstrip(" \t"))

    def digits(pos: int, what: str, expected: str):
        """The number at ``pos`` and the position after it; ``expected`` says what a missing one should be."""
        start = pos
        while pos < end and "0" <= line[pos] <= "9":
            pos += 1
        if pos == start:
            fail(pos, f"expected {expected}, found {shown(pos)}")
        if pos - start > _MAX_DIGITS:
            fail(start, f"expected a {what} of at most {_MAX_DIGITS} digits, got {pos - start} digits")
        return int(line[start:pos]), pos

    def size(pos: int, what: str):
        value, after = digits(pos, what, f"the {what} (digits 0-9)")
        if value <= 0:
            fail(pos, f"expected a positive {what}, got {value}")
        return value, after

    width, pos = size(pos, "width")
    height = width
    if pos < end and line[pos] == "x":
        height, pos = size(pos + 1, "height")
    if pos >= end or line[pos] != ":":
        fail(pos, f"expected ':' after the size '{line[:pos].strip()}' (a game ID reads 'WxH:clues'), "
                  f"found {shown(pos)}")
    pos += 1
    wanted = width + height
    clues, places = [], []   # places: where each clue starts
    while True:
        start = pos
        numbers, offsets = [], []
        if pos < end and "0" <= line[pos] <= "9":
            while True:
                offsets.append(pos)
                value, pos = digits(pos, "block length", "a block length (digits 0-9) after '.'")
                numbers.append(value)
                if pos < end and line[pos] == ".":
                    pos += 1
                    continue
                break
        if numbers == [0]:
            numbers = []
        elif 0 in numbers:
            fail(offsets[numbers.index(0)], f"0 stands alone for an empty line; it cannot be a block "
                                            f"length in {'.'.join(map(str, numbers))}")
        clues.append(tuple(numbers))
        places.append(start)
        if pos >= end:
            break
        if line[pos] == "/":
            if len(clues) == wanted:
                fail(pos, f"expected {wanted} clues ({width} columns, then {height} rows), "
                          f"but a '/' starts clue {wanted + 1}")
            pos += 1
            continue
        if line[pos] == ",":
            fail(pos, "this game ID fixes some squares as extra clues (the ',' section), which a "
                      "Nonogram cannot hold: expected the clues alone")
        fail(pos, f"unexpected character {shown(pos)}: expected digits 0-9, '.' between the block "
                  f"lengths of a clue or '/' between clues")
    if len(clues) != wanted:
        fail(end, f"expected {wanted} clues ({width} columns, then {height} rows), found {len(clues)}")
    columns, rows = clues[:width], clues[width:]
    for index, clue in enumerate(columns):
        _fits(clue, height, f"column {index}", lambda m, p=places[index]: fail(p, m))
    for index, clue in enumerate(rows):
        _fits(clue, width, f"row {index}", lambda m, p=places[width + index]: fail(p, m))
    black_rows, black_columns = sum(map(sum, rows)), sum(map(sum, columns))
    if black_rows != black_columns:
        fail(places[width], f"the row clues count {black_rows} black cells but the column clues "
                            f"count {black_columns}")
    return Nonogram(tuple(rows), tuple(columns))


def _fits(clue, length: int, what: str, fail):
    needed = sum(clue) + max(len(clue) - 1, 0)
    if needed > length:
        fail(f"{what}'s clue {'.'.join(map(str, clue))} needs {needed} cells (blocks plus one gap between "
             f"each), but the line has only {length}")
