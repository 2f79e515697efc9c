"""What every Slitherlink text format shares: its errors, located failures and limits."""

from __future__ import annotations


class SlitherlinkError(ValueError):
    """A puzzle text that cannot be read; the message names the place and what was expected."""


class SlitherlinkFileNotFoundError(SlitherlinkError, FileNotFoundError):
    """No file at the path given: a :class:`SlitherlinkError` that is also a :class:`FileNotFoundError`."""


def fail(name: str, line: int, column: int, message: str):
    """Raise a :class:`SlitherlinkError` located at ``name``, ``line``, ``column`` (from 1)."""
    raise SlitherlinkError(f"{name}, line {line}, column {column}: {message}")


#: Why a clue 4 is refused on a board larger than 1x1, in every format.  Its four sides close a loop by
#: themselves, and a single loop that holds them is that square and nothing more (each corner already has
#: its two edges): the board's only possible answer, which one clue decides.  On a 1x1 board that square
#: is the answer, and a 4 is read there (``Board`` takes it).
FOUR = ("a clue 4 is not accepted on a board larger than 1x1: its four sides close a loop by themselves, "
        "so the only possible answer is the square around this one cell (none if another clue disagrees); "
        "a 4 is read only on a 1x1 board, whose answer that square is")
#: The largest side a board may have, in every format.
MAX_SIDE = 999
#: What counts as blank around a line.
SPACE = " \t"


def located(line: str, name: str, lineno: int):
    """``line`` without its surrounding blanks, and ``fail(position, message)`` for a position in
    that text: it raises at the column the position has in ``line``."""
    lead = len(line) - len(line.lstrip(SPACE))

    def fail_at(position: int, message: str):
        fail(name, lineno, lead + position + 1, message)

    return line.strip(SPACE), fail_at
