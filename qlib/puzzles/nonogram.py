"""Nonogram as a binary polynomial, with the blocks' shifts as domain walls.

A line (row or column) of length ``n`` with clue ``r_0, ..., r_{m-1}`` packs its
blocks to the left with one white cell between them: block ``k`` then starts at
``e_k = r_0 + ... + r_{k-1} + k`` and ``d = n - sum(r) - (m - 1)`` cells of slack
remain.  In any solution block ``k`` sits ``t_k`` cells right of ``e_k``, with
``0 <= t_0 <= t_1 <= ... <= d`` (blocks cannot overtake each other).

Each shift is a domain wall over ``d`` variables: ``y[k, p] = 1`` iff ``t_k > p``,
so a shift is a run of ones followed by zeros.  Two quadratic penalties keep
the walls well formed, without auxiliary variables:

* shape, ``~y[k, p] * y[k, p+1]``: a one after a zero;
* order, ``y[k, p] * ~y[k+1, p]``: block ``k`` shifted further than block ``k+1``.

With ``Y(q) = 1`` for ``q < 0``, ``y[k, q]`` for ``0 <= q < d`` and ``0`` for
``q >= d``, block ``k`` covers cell ``j`` iff ``Y(j - e_k - r_k) - Y(j - e_k) = 1``
(the wall lies between the two marks), so the colour of a cell seen from its
line is a *linear* form in the variables.  The model asks, for every cell, that
the colour seen from its row equal the colour seen from its column.  It has
energy 0 exactly at the grids that satisfy every clue, and each such grid has
exactly one zero-energy state.

Puzzles are read from the ``.non`` text format or from Python lists of clues;
see :func:`parse`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import qlib

from .sourcefile import decode_utf8, read_bytes

__all__ = [
    "Nonogram", "NonogramError", "NonogramFileNotFoundError", "NonogramModel", "NonogramResult",
    "parse", "parse_text", "to_non", "write", "count_solutions", "METADATA_KEYS",
    "build_model", "solve", "decode", "encode", "check", "is_solution",
    "render_text", "draw", "row_colour", "col_colour", "line_slack", "packed_starts",
    "blocks_of",
]

FORMS = ("cons", "qubo")
BLACK, WHITE = "#", "."


class NonogramError(ValueError):
    """A puzzle that cannot be read or cannot be a nonogram; the message says where and why."""


class NonogramFileNotFoundError(NonogramError, FileNotFoundError):
    """No file at the path given: a :class:`NonogramError` that is also a :class:`FileNotFoundError`."""


#: The ``.non`` keys kept in :attr:`Nonogram.metadata` (``title`` has its own attribute).
METADATA_KEYS = ("catalogue", "by", "copyright", "license")


@dataclass(frozen=True)
class Nonogram:
    """The clues of a nonogram: ``rows[i]`` lists row ``i``'s block lengths left to
    right, ``columns[j]`` column ``j``'s top to bottom; an empty tuple is an all-white line.

    ``metadata`` holds the ``.non`` keys ``catalogue``, ``by``, ``copyright`` and
    ``license`` that were given (also as properties of the same names); ``goal`` is
    the answer the file states, as rows of '#' and '.', or None.  Neither takes
    part in ``==`` or ``hash``: two puzzles with the same clues and title are equal.
    """

    rows: tuple[tuple[int, ...], ...]
    columns: tuple[tuple[int, ...], ...]
    title: str | None = None
    metadata: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    goal: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.columns)

    @property
    def catalogue(self) -> str | None:
        return self.metadata.get("catalogue")

    @property
    def by(self) -> str | None:
        return self.metadata.get("by")

    @property
    def copyright(self) -> str | None:
        return self.metadata.get("copyright")

    @property
    def license(self) -> str | None:
        return self.metadata.get("license")

    def __repr__(self):
        name = f"{self.title!r}, " if self.title else ""
        return f"Nonogram({name}{self.height}x{self.width})"


# -- line arithmetic -----------------------------------------------------------
def line_slack(clue: Sequence[int], length: int) -> int:
    """Free cells of a line once its blocks are packed left: how far each block may shift."""
    if not clue:
        return length
    return length - sum(clue) - (len(clue) - 1)


def packed_starts(clue: Sequence[int]) -> list[int]:
    """Start of every block when the blocks are packed to the left (one gap between them)."""
    starts, position = [], 0
    for length in clue:
        starts.append(position)
        position += length + 1
    return starts


def blocks_of(cells: Sequence[bool]) -> tuple[int, ...]:
    """The clue a line of cells (truthy = black) would have."""
    runs, current = [], 0
    for black in cells:
        if black:
            current += 1
        elif current:
            runs.append(current)
            current = 0
    if current:
        runs.append(current)
    return tuple(runs)


def _clue_text(clue) -> str:
    return ",".join(map(str, clue)) if clue else "0"


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


def parse(source) -> Nonogram:
    """Read a nonogram from a ``.non`` file, a mapping ``{"rows": [...], "columns": [...]}``
    or a pair ``(rows, columns)``.

    A file is a :class:`pathlib.Path` or a file name (str).  A str is never guessed
    to be a text: use :func:`parse_text` for the text of a ``.non`` file; only a str
    that holds a line break (which no file name does) is still read as a text.

    The ``.non`` format has ``width N`` and ``height N`` lines, a ``rows`` line
    followed by one line per row (block lengths separated by commas; ``0`` or an
    empty line for an all-white row), and a ``columns`` section alike.  ``title``,
    ``catalogue``, ``by``, ``copyright`` and ``license`` are kept (see
    :class:`Nonogram`), ``goal`` (the answer, ``width * height`` digits 0/1 row by row,
    quoted or not) too; other lines are ignored.  Files are UTF-8 (a byte-order
    mark is skipped).  Errors raise :class:`NonogramError` naming the file (or
    ``<text>``), the line and the column; a missing file raises
    :class:`NonogramFileNotFoundError` (also a FileNotFoundError).
    """
    if isinstance(source, Nonogram):
        return source
    if isinstance(source, os.PathLike):
        return _parse_file(source)
    if isinstance(source, str):
        if "\n" in source or "\r" in source:
            return parse_text(source)
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
                goal = _as_strings(_normalise_grid(goal))
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
    """Read a nonogram from the text of a ``.non`` file (see :func:`parse`).

    ``name`` stands for the text in error messages.  A leading byte-order mark is skipped.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_text() takes a str, got {type(text).__name__}")
    return _parse_text(text.removeprefix("\ufeff"), name)


def _read_bytes(path) -> bytes:
    return read_bytes(path, error=NonogramError, not_found=NonogramFileNotFoundError, what="a .non file")


def _decode(data: bytes, name: str) -> str:
    return decode_utf8(data, name, error=NonogramError)


def _parse_file(path) -> Nonogram:
    name = os.fspath(path)
    return _parse_text(_decode(_read_bytes(path), name), name)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


@dataclass
class _Section:
    header_line: int
    lines: list = field(default_factory=list)  # (line number, raw text)


def _parse_text(text: str, name: str) -> Nonogram:
    def fail(line: int, column: int, message: str):
        raise NonogramError(f"{name}, line {line}, column {column}: {message}")

    def at(line: int, column: int = 1):
        return lambda message, offset=None: fail(line, column if offset is None else offset + 1, message)

    sizes: dict[str, tuple[int, int]] = {}  # key -> (value, line)
    sections: dict[str, _Section] = {}
    title, metadata, goal = None, {}, None
    current = None
    lines = _NEWLINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        match = _FIRST.match(raw)
        first = match.group(1)
        if current is not None and not _KEYWORD.match(first):
            current.lines.append((number, raw))
            continue
        current = None
        if not first:
            continue
        key = first.lower()
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
            goal = (number, value_column + (1 if value.startswith('"') else 0), _unquote(value))
        # other lines (colours, notes, unknown keys) carry nothing we need

    last = max(len(lines), 1)
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
                                                                                  else offset + 1, m)),
                       n, len(body) - len(body.lstrip(_SPACE)) + 1) for n, body in entries]

    rows, columns = clues["rows"], clues["columns"]
    for clue, n, column in rows:
        _check_fits(clue, len(columns), "row", at(n, column))
    for clue, n, column in columns:
        _check_fits(clue, len(rows), "column", at(n, column))
    _check_totals([c for c, _, _ in rows], [c for c, _, _ in columns], at(sections["columns"].header_line))
    goal_grid = None
    if goal is not None:
        goal_grid = _parse_goal(goal, len(rows), len(columns), fail)
    return Nonogram(tuple(c for c, _, _ in rows), tuple(c for c, _, _ in columns), title, metadata, goal_grid)


def _parse_goal(goal, height: int, width: int, fail) -> tuple[str, ...]:
    number, column, value = goal
    for k, ch in enumerate(value):
        if ch not in "01":
            fail(number, column + k, f"unexpected character {ch!r} in the goal: expected 0 (white) or 1 (black)")
    if len(value) != height * width:
        fail(number, column + min(len(value), height * width),
             f"the goal has {len(value)} cells: expected {height} x {width} = {height * width} "
             f"digits 0/1, row by row")
    return tuple("".join(BLACK if value[i * width + j] == "1" else WHITE for j in range(width))
                 for i in range(height))


def _parse_clue_line(body: str, fail) -> tuple[int, ...]:
    """The clue of one line; ``fail(message, offset)`` reports a token at ``body[offset]``."""
    numbers, offsets = [], []
    for token in _TOKEN.finditer(body):
        text = token.group()
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
        fail(f"the clue {_clue_text(clue)} needs {needed} cells (blocks plus one gap between each), "
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
    (clues, title, metadata and goal).  An all-white line is written ``0``."""
    puzzle = parse(puzzle)
    lines = []

    def quoted(key, value):
        if value is None or value == "":
            return
        value = str(value)
        if "\n" in value or "\r" in value:
            raise NonogramError(f"the {key} {value!r} holds a line break; a .non value fits on one line")
        lines.append(f'{key} "{value}"')

    quoted("catalogue", puzzle.metadata.get("catalogue"))
    quoted("title", puzzle.title)
    for key in ("by", "copyright", "license"):
        quoted(key, puzzle.metadata.get(key))
    lines += [f"width {puzzle.width}", f"height {puzzle.height}", "", "rows"]
    lines += [_clue_text(clue) for clue in puzzle.rows]
    lines += ["", "columns"]
    lines += [_clue_text(clue) for clue in puzzle.columns]
    if puzzle.goal is not None:
        bits = "".join("1" if c == BLACK else "0" for row in puzzle.goal for c in row)
        lines += ["", f'goal "{bits}"']
    return "\n".join(lines) + "\n"


def write(puzzle, path) -> Path:
    """Write the puzzle to ``path`` in the ``.non`` format (UTF-8); returns the path."""
    path = Path(path)
    path.write_text(to_non(puzzle), encoding="utf-8")
    return path


# -- counting answers ----------------------------------------------------------
class _OutOfTime(Exception):
    pass


def _line_solve(clue, cells):
    """Cells of one line (-1 unknown, 0 white, 1 black) that every placement of ``clue``
    consistent with the known cells agrees on: the new line, or None when no placement fits.

    A placement is a path through states (i, k): the first ``i`` cells are settled with
    ``k`` blocks placed and cell ``i`` may start a block.  Forward and backward
    reachability mark every cell some full placement makes white or black.
    """
    n, m = len(cells), len(clue)
    white_before = [0] * (n + 1)  # known white cells in cells[:i]
    for i, c in enumerate(cells):
        white_before[i + 1] = white_before[i] + (c == 0)

    def block_fits(i, k):
        end = i + clue[k]
        return end <= n and white_before[end] == white_before[i] and (end == n or cells[end] != 1)

    def after_block(i, k):
        return min(i + clue[k] + 1, n)

    forward = [[False] * (m + 1) for _ in range(n + 1)]
    forward[0][0] = True
    for i in range(n + 1):
        for k in range(m + 1):
            if not forward[i][k]:
                continue
            if i < n and cells[i] != 1:
                forward[i + 1][k] = True
            if k < m and block_fits(i, k):
                forward[after_block(i, k)][k + 1] = True
    if not forward[n][m]:
        return None
    backward = [[False] * (m + 1) for _ in range(n + 1)]
    backward[n][m] = True
    for i in range(n, -1, -1):
        for k in range(m, -1, -1):
            if backward[i][k]:
                continue
            if i < n and cells[i] != 1 and backward[i + 1][k]:
                backward[i][k] = True
            elif k < m and block_fits(i, k) and backward[after_block(i, k)][k + 1]:
                backward[i][k] = True
    can_white = [False] * n
    black_runs = [0] * (n + 1)  # difference array of cells some placement makes black
    for i in range(n + 1):
        for k in range(m + 1):
            if not forward[i][k]:
                continue
            if i < n and cells[i] != 1 and backward[i + 1][k]:
                can_white[i] = True
            if k < m and block_fits(i, k) and backward[after_block(i, k)][k + 1]:
                black_runs[i] += 1
                black_runs[i + clue[k]] -= 1
                if i + clue[k] < n:
                    can_white[i + clue[k]] = True
    out, depth = list(cells), 0
    for i in range(n):
        depth += black_runs[i]
        if out[i] == -1:
            if can_white[i] and not depth:
                out[i] = 0
            elif depth and not can_white[i]:
                out[i] = 1
    return out


def _propagate(puzzle, grid, rows, columns, tick) -> bool:
    """Line-solve the given rows and columns until nothing changes; False on a contradiction."""
    pending = [("r", i) for i in rows] + [("c", j) for j in columns]
    queued = set(pending)
    while pending:
        line = pending.pop()
        queued.discard(line)
        tick()
        kind, index = line
        if kind == "r":
            cells = grid[index]
            new = _line_solve(puzzle.rows[index], cells)
            if new is None:
                return False
            for j, value in enumerate(new):
                if value != cells[j]:
                    cells[j] = value
                    if ("c", j) not in queued:
                        queued.add(("c", j))
                        pending.append(("c", j))
        else:
            cells = [row[index] for row in grid]
            new = _line_solve(puzzle.columns[index], cells)
            if new is None:
                return False
            for i, value in enumerate(new):
                if value != cells[i]:
                    grid[i][index] = value
                    if ("r", i) not in queued:
                        queued.add(("r", i))
                        pending.append(("r", i))
    return True


def count_solutions(puzzle, limit: int = 2, time_limit: float = 10.0):
    """Count the grids that satisfy the clues, exactly, up to ``limit``.

    A line solver (every row and column reduced to the cells all its placements
    consistent with the known cells agree on, repeated until nothing changes)
    with backtracking on an undecided cell.  Returns ``(count, status, grids)``:
    status ``"exact"`` (the search finished: ``count`` is the number of
    answers, all in ``grids``), ``"limit"`` (it stopped at ``limit`` answers:
    there are at least that many) or ``"time_limit"`` (out of time: ``count``
    is a lower bound).  ``grids`` are tuples of '#'/'.' strings like
    :func:`solve`'s.  ``count_solutions(p)[0] == 1`` with status "exact" means
    the puzzle has a unique answer.
    """
    import time

    puzzle = parse(puzzle)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    deadline = time.perf_counter() + float(time_limit)
    calls = [0]

    def tick():
        calls[0] += 1
        if calls[0] % 32 == 0 and time.perf_counter() > deadline:
            raise _OutOfTime

    height, width = puzzle.height, puzzle.width
    found = []
    # depth-first search: each entry a grid and the lines to propagate in it
    stack = [([[-1] * width for _ in range(height)], range(height), range(width))]
    try:
        while stack:
            grid, rows, columns = stack.pop()
            if not _propagate(puzzle, grid, rows, columns, tick):
                continue
            cell = next(((i, j) for i in range(height) for j in range(width) if grid[i][j] == -1), None)
            if cell is None:
                found.append(tuple("".join(BLACK if c else WHITE for c in row) for row in grid))
                if len(found) >= limit:
                    return len(found), "limit", found
                continue
            i, j = cell
            for value in (0, 1):  # black is tried first: popped last-in first-out
                branch = [row[:] for row in grid]
                branch[i][j] = value
                stack.append((branch, (i,), (j,)))
    except _OutOfTime:
        return len(found), "time_limit", found
    return len(found), "exact", found


# -- the model -----------------------------------------------------------------
@dataclass
class NonogramModel:
    """A nonogram's :class:`qlib.Model` and its domain-wall variables.

    ``row_vars[i]`` is row ``i``'s variable array of shape (blocks, slack): entry
    ``[k, p]`` is 1 iff block ``k`` sits more than ``p`` cells right of its
    left-packed start.  ``col_vars[j]`` is the same for column ``j``, shifting down.
    """

    puzzle: Nonogram
    model: qlib.Model
    row_vars: tuple
    col_vars: tuple
    form: str = "cons"

    @property
    def var_count(self) -> int:
        return self.model.var_count

    @property
    def term_count(self) -> int:
        return self.model.term_count


def _line_vars(name: str, clue, length: int) -> np.ndarray:
    if not clue:
        return np.empty((0, 0), dtype=object)
    return qlib.var(name, len(clue), line_slack(clue, length))


def _shifted_past(walls: np.ndarray, k: int, q: int):
    """``Y(q)``: 1 if block ``k`` shifted more than ``q`` cells (constant outside 0..d-1)."""
    if q < 0:
        return 1
    if q >= walls.shape[1]:
        return 0
    return walls[k, q]


def line_colour(walls: np.ndarray, clue, position: int) -> qlib.Expr:
    """Colour (1 black, 0 white) of the cell at ``position`` of a line, as a linear form."""
    parts = []
    for k, (start, length) in enumerate(zip(packed_starts(clue), clue)):
        offset = position - start
        parts.append(_shifted_past(walls, k, offset - length))
        parts.append(-_shifted_past(walls, k, offset))
    return qlib.sum(parts)


def line_penalty(walls: np.ndarray) -> qlib.Expr:
    """Quadratic penalty, 0 iff every block's wall is well formed and shifts never decrease."""
    blocks, slack = walls.shape
    parts = []
    for k in range(blocks):
        for p in range(slack - 1):
            parts.append(~walls[k, p] * walls[k, p + 1])  # a one after a zero
    for k in range(blocks - 1):
        for p in range(slack):
            parts.append(walls[k, p] * ~walls[k + 1, p])  # block k shifted past block k+1
    return qlib.sum(parts)


def row_colour(nm: NonogramModel, i: int, j: int) -> qlib.Expr:
    """Colour of cell (i, j) seen from row ``i``: a linear form in the row's variables."""
    return line_colour(nm.row_vars[i], nm.puzzle.rows[i], j)


def col_colour(nm: NonogramModel, i: int, j: int) -> qlib.Expr:
    """Colour of cell (i, j) seen from column ``j``: a linear form in the column's variables."""
    return line_colour(nm.col_vars[j], nm.puzzle.columns[j], i)


def build_model(puzzle, form: str = "cons") -> NonogramModel:
    """The nonogram as a model with energy 0 exactly at its solutions.

    ``form="cons"`` keeps one native equality per cell (row colour == column
    colour); ``form="qubo"`` expands them with :func:`qlib.expand_cons` into
    squared penalties, a QUBO with no auxiliary variables.  A cell whose colour
    is fixed by both of its lines (no variables on either side) needs no
    constraint; if the two fixed colours differ, the unavoidable penalty 1 goes
    into the objective so that no state reaches energy 0.
    """
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; choose one of {', '.join(FORMS)}")
    puzzle = parse(puzzle)
    row_vars = tuple(_line_vars(f"row{i}", clue, puzzle.width) for i, clue in enumerate(puzzle.rows))
    col_vars = tuple(_line_vars(f"col{j}", clue, puzzle.height) for j, clue in enumerate(puzzle.columns))
    nm = NonogramModel(puzzle, qlib.Model(), row_vars, col_vars, form)

    objective = qlib.sum(line_penalty(walls) for walls in row_vars + col_vars)
    constraints, conflicts = [], []
    for i in range(puzzle.height):
        for j in range(puzzle.width):
            difference = (row_colour(nm, i, j) - col_colour(nm, i, j)).simplify_as_binary()
            if difference.term_count:
                constraints.append(qlib.cons(difference == 0, label=f"cell ({i},{j})"))
            elif difference.constant_term:
                conflicts.append((i, j))
                objective = objective + difference.constant_term ** 2
    model = qlib.Model(objective, constraints, {"fixed_conflicts": conflicts})
    if form == "qubo":
        model = qlib.expand_cons(model)
    nm.model = model
    return nm


# -- states and grids ----------------------------------------------------------
def _normalise_grid(grid) -> list[list[bool]]:
    if isinstance(grid, str):
        grid = grid.split()
    rows = []
    for row in grid:
        if isinstance(row, str):
            bad = set(row) - {BLACK, WHITE}
            if bad:
                raise ValueError(f"grid rows use '{BLACK}' and '{WHITE}', got {sorted(bad)}")
            rows.append([c == BLACK for c in row])
        else:
            rows.append([bool(c) for c in row])
    return rows


def _as_strings(cells: list[list[bool]]) -> tuple[str, ...]:
    return tuple("".join(BLACK if c else WHITE for c in row) for row in cells)


def decode(nm: NonogramModel, solution) -> tuple[str, ...]:
    """The grid the row variables of ``solution`` describe ('#' where a row colour is 1).

    In a state with broken walls a row colour may be outside {0, 1}; such
    cells read as white, and :func:`check` then reports the row.
    """
    puzzle = nm.puzzle
    return tuple(
        "".join(BLACK if solution(row_colour(nm, i, j)) == 1 else WHITE for j in range(puzzle.width))
        for i in range(puzzle.height)
    )


def _line_shifts(cells, clue, kind, index) -> list[int]:
    runs, starts, position = [], [], 0
    while position < len(cells):
        if cells[position]:
            start = position
            while position < len(cells) and cells[position]:
                position += 1
            starts.append(start)
            runs.append(position - start)
        else:
            position += 1
    if tuple(runs) != tuple(clue):
        raise ValueError(f"{kind} {index}: blocks {_clue_text(runs)} do not match "
                         f"the clue {_clue_text(clue)}")
    return [s - e for s, e in zip(starts, packed_starts(clue))]


def encode(nm: NonogramModel, grid) -> dict[str, int]:
    """The variable values (label -> 0/1) that represent ``grid``, which must satisfy every clue.

    Useful as ``initial_state`` and to check that a known answer has energy 0.
    """
    cells = _normalise_grid(grid)
    puzzle = nm.puzzle
    if len(cells) != puzzle.height or any(len(r) != puzzle.width for r in cells):
        raise ValueError(f"the grid must be {puzzle.height} rows of {puzzle.width} cells")
    values: dict[str, int] = {}
    lines = [("row", i, cells[i], puzzle.rows[i], nm.row_vars[i]) for i in range(puzzle.height)]
    lines += [("column", j, [r[j] for r in cells], puzzle.columns[j], nm.col_vars[j])
              for j in range(puzzle.width)]
    for kind, index, line, clue, walls in lines:
        for k, shift in enumerate(_line_shifts(line, clue, kind, index)):
            for p in range(walls.shape[1]):
                values[walls[k, p].label] = int(shift > p)
    return values


def check(puzzle, grid) -> list[str]:
    """Every way ``grid`` breaks the clues, as messages; an empty list means it is a solution."""
    puzzle = parse(puzzle)
    cells = _normalise_grid(grid)
    if len(cells) != puzzle.height or any(len(r) != puzzle.width for r in cells):
        shape = f"{len(cells)} rows of {sorted({len(r) for r in cells})} cells"
        return [f"the grid must be {puzzle.height} rows of {puzzle.width} cells, got {shape}"]
    problems = []
    for i, clue in enumerate(puzzle.rows):
        found = blocks_of(cells[i])
        if found != clue:
            problems.append(f"row {i}: blocks {_clue_text(found)} but the clue is {_clue_text(clue)}")
    for j, clue in enumerate(puzzle.columns):
        found = blocks_of([row[j] for row in cells])
        if found != clue:
            problems.append(f"column {j}: blocks {_clue_text(found)} but the clue is {_clue_text(clue)}")
    return problems


def is_solution(puzzle, grid) -> bool:
    """True iff ``grid`` satisfies every row and column clue."""
    return not check(puzzle, grid)


# -- solving -------------------------------------------------------------------
@dataclass
class NonogramResult:
    """What :func:`solve` found: ``status`` is "solved" only for a zero-energy
    state whose grid passes :func:`check`; ``grid`` is then that grid, else None."""

    status: str
    grid: tuple[str, ...] | None
    solution: qlib.Solution
    seconds: float
    backend: str
    seed: int | None
    var_count: int
    term_count: int
    energy: float
    unique: bool | None = None
    second_answer: tuple[str, ...] | None = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def __str__(self):
        head = (f"{self.status}: energy {self.energy:g}, {self.var_count} variables, "
                f"{self.term_count} terms, {self.seconds:.2f} s on {self.backend}")
        return head + ("\n" + render_text(self.grid) if self.grid else "")


def solve(puzzle, *, form: str = "cons", backend: str = "cpu", seed: int | None = None,
          time_limit: float = 60.0, check_unique: bool = False, **options) -> NonogramResult:
    """Build the model, minimise it down to energy 0 (or until ``time_limit``), decode the grid.

    ``check_unique=True`` then proves with :func:`count_solutions` (within the
    time left, at least 1 s) whether the grid is the only answer:
    ``result.unique`` is True, False (``second_answer`` holds another grid) or
    None (unknown).  ``options`` go to :func:`qlib.solve` (e.g.
    ``num_replicas``, ``num_sweeps``).
    """
    puzzle = parse(puzzle)
    nm = build_model(puzzle, form=form)
    solution = qlib.solve(nm.model, backend=backend, seed=seed, time_limit=time_limit,
                          target_energy=0, **options)
    grid = decode(nm, solution)
    solved = abs(solution.energy) <= 1e-9 and is_solution(puzzle, grid)
    unique = second = None
    if check_unique and solved:
        left = max(1.0, time_limit - float(solution.info.get("seconds", 0.0)))
        count, status, grids = count_solutions(puzzle, limit=2, time_limit=left)
        if status != "time_limit":
            unique = count == 1
            others = [g for g in grids if tuple(g) != tuple(grid)]
            second = tuple(others[0]) if others else None
    return NonogramResult(
        status="solved" if solved else "unsolved",
        grid=grid if solved else None,
        solution=solution,
        seconds=float(solution.info.get("seconds", 0.0)),
        backend=solution.info.get("backend", backend),
        seed=solution.info.get("seed", seed),
        var_count=int(solution.info["var_count"]),
        term_count=int(solution.info["term_count"]),
        energy=float(solution.energy),
        unique=unique,
        second_answer=second,
    )


# -- output --------------------------------------------------------------------
def render_text(grid) -> str:
    """The grid as lines of '#' (black) and '.' (white)."""
    return "\n".join(_as_strings(_normalise_grid(grid)))


def draw(puzzle, grid=None, ax=None):
    """Draw the board on a matplotlib Axes: black cells, a thicker line every five
    cells, row clues on the left and column clues on top.  Returns the Axes."""
    from matplotlib.patches import Rectangle

    puzzle = parse(puzzle)
    height, width = puzzle.height, puzzle.width
    row_labels = [" ".join(map(str, clue)) or "0" for clue in puzzle.rows]
    col_labels = ["\n".join(map(str, clue)) or "0" for clue in puzzle.columns]
    left = 0.3 + 0.32 * max(len(s) for s in row_labels)
    top = 0.3 + 0.55 * max(s.count("\n") + 1 for s in col_labels)
    if ax is None:
        import matplotlib.pyplot as plt

        scale = 0.35
        fig, ax = plt.subplots(figsize=(scale * (width + left) + 0.4, scale * (height + top) + 0.4))
        fig.subplots_adjust(left=0.02, right=0.98, bottom=0.02, top=0.98 if not puzzle.title else 0.92)
    if grid is not None:
        cells = _normalise_grid(grid)
        for i, row in enumerate(cells):
            for j, black in enumerate(row):
                if black:
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor="black", edgecolor="none"))
    for x in range(width + 1):
        ax.plot([x, x], [0, height], color="0.3", lw=1.6 if x % 5 == 0 or x == width else 0.5)
    for y in range(height + 1):
        ax.plot([0, width], [y, y], color="0.3", lw=1.6 if y % 5 == 0 or y == height else 0.5)
    for i, label in enumerate(row_labels):
        ax.text(-0.25, i + 0.5, label, ha="right", va="center", fontsize=8)
    for j, label in enumerate(col_labels):
        ax.text(j + 0.5, -0.2, label, ha="center", va="bottom", fontsize=8, linespacing=1.0)
    ax.set_xlim(-left, width + 0.05)
    ax.set_ylim(height + 0.05, -top)
    ax.set_aspect("equal")
    ax.axis("off")
    if puzzle.title:
        ax.set_title(puzzle.title)
    return ax
