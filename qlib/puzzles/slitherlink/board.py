"""Slitherlink boards: the :class:`Board` type and the text formats :func:`parse` reads."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..loops import Grid, grid

CLUE_CHARS = ".0123"


# -----------------------------------------------------------------------------
# Boards and parsing
# -----------------------------------------------------------------------------
class SlitherlinkError(ValueError):
    """A puzzle text that cannot be read; the message names the place and what was expected."""


@dataclass(frozen=True)
class Board:
    """A Slitherlink board: ``clues[i][j]`` is 0-3 or None (no clue)."""

    clues: tuple

    def __post_init__(self):
        clues = tuple(tuple(row) for row in self.clues)
        if not clues or not clues[0]:
            raise ValueError("a board needs at least one row and one column")
        width = len(clues[0])
        for i, row in enumerate(clues):
            if len(row) != width:
                raise ValueError(f"row {i} has {len(row)} cells, expected {width} like row 0")
            for j, c in enumerate(row):
                if c is not None and (isinstance(c, bool) or c not in (0, 1, 2, 3)):
                    raise ValueError(f"clue ({i},{j}) is {c!r}; clues are 0, 1, 2, 3 or None")
        object.__setattr__(self, "clues", tuple(tuple(None if c is None else int(c) for c in row)
                                                for row in clues))

    @property
    def rows(self) -> int:
        return len(self.clues)

    @property
    def cols(self) -> int:
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
        """The board in the one-row-per-line format ('.' for no clue)."""
        return "\n".join("".join("." if c is None else str(c) for c in row) for row in self.clues) + "\n"

    def __str__(self):
        from .display import render_text

        return render_text(self)


def _fail(name: str, line: int, column: int, message: str):
    raise SlitherlinkError(f"{name}, line {line}, column {column}: {message}")


_FOUR = ("a clue 4 is not accepted: it asks for all four sides of the cell, which close a 1x1 "
         "loop on their own, so no single loop can pass through any other cell")


def _read(source) -> tuple[str, list[str]]:
    """(name for messages, lines) of a path, a text or a list of lines."""
    if isinstance(source, os.PathLike):
        path = Path(source)
        return str(path), path.read_text().splitlines()
    if isinstance(source, str):
        if "\n" not in source and "\r" not in source and source.strip():
            path = Path(source)
            if path.is_file():
                return str(path), path.read_text().splitlines()
            if "/" in source or os.sep in source or source.endswith(".txt"):
                raise FileNotFoundError(f"no such puzzle file: {source!r}")
        return "<text>", source.splitlines()
    if isinstance(source, (list, tuple)):
        lines = []
        for k, item in enumerate(source):
            if not isinstance(item, str):
                raise TypeError(f"a board as a list must hold strings; item {k} is {type(item).__name__}")
            lines.append(item.rstrip("\r\n"))
        return "<text>", lines
    raise TypeError(f"parse() takes a path, the text of a puzzle or a list of row strings, "
                    f"got {type(source).__name__}")


def parse(source) -> Board:
    """Read a board from a path, a text, a list of row strings, or a lattice drawing.

    Row format: one line per row, '.' for no clue, digits 0-3 for clues
    (blank lines are skipped).  Lattice format, as drawn by :func:`render_text`
    and the tutorial: rows of ``+   +   +`` alternating with rows holding each
    clue centred in its 4-character cell; drawn edges (``---``, ``|``) are
    ignored.  A :class:`Board` is returned unchanged.  Errors raise
    :class:`SlitherlinkError` naming the file (or ``<text>``), line and column.
    """
    if isinstance(source, Board):
        return source
    name, lines = _read(source)
    numbered = [(k + 1, line.rstrip()) for k, line in enumerate(lines)]
    content = [(n, line) for n, line in numbered if line.strip()]
    if not content:
        _fail(name, 1, 1, "empty input: expected rows of clues ('.' or 0-3), one row per line")
    if content[0][1].lstrip().startswith("+"):
        return _parse_lattice(name, numbered, content)
    return _parse_rows(name, content)


def _parse_rows(name, content) -> Board:
    rows = []
    first_line = None
    for lineno, line in content:
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        row = []
        for k, ch in enumerate(body):
            col = indent + k + 1
            if ch == ".":
                row.append(None)
            elif ch in "0123":
                row.append(int(ch))
            elif ch == "4":
                _fail(name, lineno, col, _FOUR)
            else:
                _fail(name, lineno, col, f"unexpected character {ch!r}: expected '.' (no clue) or a clue 0-3")
        if rows and len(row) != len(rows[0]):
            width = len(rows[0])
            col = indent + min(len(row), width) + 1
            what = "another cell" if len(row) < width else "the end of the row"
            _fail(name, lineno, col, f"row has {len(row)} cells but line {first_line} has {width}: "
                                     f"expected {what} (rows must all be the same length)")
        if not rows:
            first_line = lineno
        rows.append(tuple(row))
    return Board(tuple(rows))


def _parse_lattice(name, numbered, content) -> Board:
    first, last = content[0][0], content[-1][0]
    block = [(n, line) for n, line in numbered if first <= n <= last]
    indent = min(len(line) - len(line.lstrip()) for _, line in content)
    block = [(n, line[indent:]) for n, line in block]

    def fail(n, k, message):
        _fail(name, n, indent + k + 1, message)

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

    clues = []

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
            elif ch in "0123":
                row.append(int(ch))
            elif ch == "4":
                fail(n, 4 * j + 2, _FOUR)
            else:
                fail(n, 4 * j + 2, f"unexpected character {ch!r}: expected a clue 0-3 or a space")
        clues.append(tuple(row))

    for k, (n, line) in enumerate(block):
        (point_row if k % 2 == 0 else cell_row)(n, line)
    if len(block) % 2 == 0:
        n = block[-1][0] + 1
        _fail(name, n, indent + 1, "expected a closing lattice row '+   +   + ... +' after the last row of cells")
    if len(block) < 3:
        _fail(name, n0 + 1, indent + 1, "expected a row of cells after the first lattice row")
    return Board(tuple(clues))
