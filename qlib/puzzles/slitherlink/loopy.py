"""Simon Tatham's Loopy (sgt-puzzles) game IDs on the square grid: reading and writing the clues.

The formats here deal in clue rows (tuples of 0-3 or None); :mod:`.board` makes the
:class:`~.board.Board`.
"""

from __future__ import annotations

from . import syntax
from .syntax import FOUR, MAX_SIDE

_LOOPY_RUN = "abcdefghijklmnopqrstuvwxyz"  # 1 to 26 cells without a clue
_LOOPY_DIFFICULTIES = "enth"  # easy, normal, tricky, hard
_LOOPY_FORM = "a Loopy game ID reads WIDTHxHEIGHTt0:DESCRIPTION, e.g. 10x10t0:b2a211b22e..."


def parse_loopy(game_id: str, name: str = "<loopy>") -> tuple:
    """The board of a game ID of Simon Tatham's Loopy (sgt-puzzles), on the square grid.

    Read: ``WIDTHxHEIGHTt0:DESCRIPTION``, what ``sgt-loopy --generate N '10x10t0dh#SEED'``
    prints (the width, the number of columns, comes first).  As in Loopy's
    ``decode_params``, ``xHEIGHT`` (default: the width), ``tTYPE`` (default 0) and a
    difficulty ``dX`` (``e``, ``n``, ``t`` or ``h``; ignored) are optional.  Only the
    square grid ``t0`` is read: another grid type is an error.  DESCRIPTION lists the
    cells row-major from the top left: ``0``-``3`` a clue, ``a``-``z`` a run of 1 to 26
    cells without a clue.  A clue 4 (but on a 1x1 board), the clues above 4 (``5``-``9``, ``A``-``Z``) that
    Loopy's other grids use, the grid description (``..._``) of its aperiodic grids
    and a random-seed ID (``PARAMS#SEED``, which names a puzzle only through
    sgt-loopy's generator) are not accepted.  Errors raise :class:`~qlib.puzzles.slitherlink.SlitherlinkError`
    naming ``name``, line 1 and the column in the ID.  Returns the clue rows
    (:func:`qlib.puzzles.slitherlink.parse_loopy` makes the :class:`~qlib.puzzles.slitherlink.Board`).
    """
    if not isinstance(game_id, str):
        raise TypeError(f"parse_loopy() takes a str, got {type(game_id).__name__}")
    if "\n" in game_id or "\r" in game_id:
        syntax.fail(name, 1, 1, f"a game ID is one line: {_LOOPY_FORM}")
    return decode_line(game_id, name, 1)


def decode_line(line: str, name: str, lineno: int) -> tuple:
    """The clue rows of a game ID on line ``lineno`` of ``name`` (a tuple of row tuples)."""
    text, fail = syntax.located(line, name, lineno)

    colon = text.find(":")
    seed = text.find("#")
    if seed >= 0 and (colon < 0 or seed < colon):
        fail(seed, "a random-seed ID (PARAMS#SEED) names a puzzle only through sgt-loopy's generator: expected "
                   f"a game ID, PARAMS:DESCRIPTION, which `sgt-loopy --generate 1 'PARAMS#SEED'` prints ({_LOOPY_FORM})")
    if colon < 0:
        fail(len(text), f"the game ID has no ':': expected ':' and the clues after the parameters ({_LOOPY_FORM})")

    # the parameters, as Loopy's decode_params reads them
    k = 0

    def number(what: str) -> int:
        nonlocal k
        start = k
        while k < colon and "0" <= text[k] <= "9":
            k += 1
        digits = text[start:k]
        if not digits:
            found = repr(text[start]) if start < colon else "':'"
            fail(start, f"expected {what} (a whole number), found {found}")
        return int(digits) if len(digits) <= 6 else 10 ** 6

    sizes = [number("the width (the number of columns)")]
    at = [0]
    if k < colon and text[k] == "x":
        k += 1
        at.append(k)
        sizes.append(number("the height (the number of rows) after 'x'"))
    else:
        sizes.append(sizes[0])
        at.append(0)
    for value, position, what in zip(sizes, at, ("width", "height")):
        if not 1 <= value <= MAX_SIDE:
            fail(position, f"expected a {what} between 1 and {MAX_SIDE}, found {value if value < 10 ** 6 else 'more'}")
    cols, rows = sizes
    if k < colon and text[k] == "t":
        k += 1
        start = k
        kind = number("the grid type after 't'")
        if kind != 0:
            fail(start, f"grid type t{kind} is not the square grid: qlib reads only square grids (t0); "
                        "Loopy's other grid types have no Slitherlink board here")
    if k < colon and text[k] == "d":
        k += 1
        if k >= colon or text[k] not in _LOOPY_DIFFICULTIES:
            found = repr(text[k]) if k < colon else "':'"
            fail(k, f"expected a difficulty after 'd' (e easy, n normal, t tricky, h hard), found {found}")
        k += 1
    if k < colon:
        fail(k, f"unexpected {text[k]!r} in the parameters: expected 'x' HEIGHT, 't' GRIDTYPE, 'd' DIFFICULTY "
                f"or the ':' before the clues ({_LOOPY_FORM})")

    # the description: a clue per character, a letter per run of blank cells
    count = rows * cols
    cells: list = [None] * count
    cell = 0
    body = colon + 1
    for k in range(body, len(text)):
        ch = text[k]
        if cell >= count:
            fail(k, f"unexpected {ch!r} after the last of the {cols}x{rows} = {count} cells: expected the end "
                    "of the game ID")
        if "0" <= ch <= "3":
            cells[cell] = int(ch)
            cell += 1
        elif ch == "4" and count == 1:   # the one board a 4 leaves room for
            cells[cell] = 4
            cell += 1
        elif ch == "4":
            fail(k, FOUR)
        elif "5" <= ch <= "9" or "A" <= ch <= "Z":
            value = int(ch) if ch.isdigit() else ord(ch) - ord("A") + 10
            fail(k, f"the clue {ch!r} ({value}) cannot be on a square grid (a cell has 4 sides): expected a clue "
                    "0-3 or a letter a-z (a run of blank cells)")
        elif ch in _LOOPY_RUN:
            run = _LOOPY_RUN.index(ch) + 1
            if cell + run > count:
                fail(k, f"the run {ch!r} of {run} blank cells goes past the last of the {cols}x{rows} = {count} "
                        f"cells ({count - cell} left): expected a shorter run or the end of the game ID")
            cell += run
        elif ch == "_":
            fail(k, "a grid description ('..._' before the clues) belongs to Loopy's aperiodic grids, not to "
                    "the square grid: expected a clue 0-3 or a letter a-z (a run of blank cells)")
        else:
            fail(k, f"unexpected character {ch!r}: expected a clue 0-3 or a letter a-z (a run of 1 to 26 "
                    "blank cells)")
    if cell < count:
        fail(len(text), f"the description ends after {cell} of the {cols}x{rows} = {count} cells: expected "
                        "more clues or blank runs (is the game ID cut short?)")
    return tuple(tuple(cells[i * cols:(i + 1) * cols]) for i in range(rows))


def encode(clues) -> str:
    """Loopy's ``state_to_text`` of the clue rows: a digit per clue, a letter per run of up to 26 blank cells."""
    out, blanks = [], 0
    for clue in (c for row in clues for c in row):
        if clue is None:
            if blanks == len(_LOOPY_RUN):
                out.append(_LOOPY_RUN[-1])
                blanks = 0
            blanks += 1
            continue
        if blanks:
            out.append(_LOOPY_RUN[blanks - 1])
            blanks = 0
        out.append(str(clue))
    if blanks:
        out.append(_LOOPY_RUN[blanks - 1])
    return "".join(out)
