"""The puzzle: :class:`Nonogram`, its errors, line arithmetic and checking a grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

BLACK, WHITE = "#", "."


class NonogramError(ValueError):
    """A puzzle that cannot be read or cannot be a nonogram; the message says where and why."""


class NonogramFileNotFoundError(NonogramError, FileNotFoundError):
    """No file at the path given: a :class:`NonogramError` that is also a :class:`FileNotFoundError`."""


#: The ``.non`` keys kept in ``Nonogram.metadata`` (``title`` has its own attribute).
METADATA_KEYS = ("catalogue", "by", "copyright", "license")


def _metadata(key: str, note: str = "") -> property:
    """A read-only property for the metadata field ``key`` (None when the file has none)."""
    return property(lambda self: self.metadata.get(key), doc=f"The ``{key}`` metadata field{note}, or None.")


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

    height = property(lambda self: len(self.rows), doc="Rows of the grid.")
    width = property(lambda self: len(self.columns), doc="Columns of the grid.")
    catalogue = _metadata("catalogue")
    by = _metadata("by", " (the author)")
    copyright = _metadata("copyright")
    license = _metadata("license")

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


def clue_text(clue) -> str:
    """A clue as the ``.non`` format writes it: ``3,1`` (``0`` for an empty line)."""
    return ",".join(map(str, clue)) if clue else "0"


# -- grids -----------------------------------------------------------------------
def normalise_grid(grid) -> list[list[bool]]:
    """A grid (strings of '#'/'.', or rows of 0/1 or bools) as rows of bools."""
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


def as_strings(cells) -> tuple[str, ...]:
    """Rows of bools as strings of '#' (black) and '.' (white)."""
    return tuple("".join(BLACK if c else WHITE for c in row) for row in cells)
