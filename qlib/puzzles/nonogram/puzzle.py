"""The puzzle: :class:`Nonogram`, its errors, line arithmetic and checking a grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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


# -- grids -----------------------------------------------------------------------
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


def _as_strings(cells) -> tuple[str, ...]:
    return tuple("".join(BLACK if c else WHITE for c in row) for row in cells)


def check(puzzle, grid) -> list[str]:
    """Every way ``grid`` breaks the clues, as messages; an empty list means it is a solution."""
    from .parsing import parse

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
