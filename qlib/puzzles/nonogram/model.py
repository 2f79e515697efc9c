"""The domain-wall model: a nonogram as a binary polynomial whose zero-energy states are its answers.

See the package docstring for the formulation.  :func:`build_model` also takes
cells already decided (``known``, e.g. by propagation): each line's walls then
span only the shifts those cells allow, the other wall positions become the
constants 0 and 1, and the model shrinks to the cells still open.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import qlib

from .. import clock
from ..result import ModelSizes
from .parsing import parse
from .puzzle import BLACK, WHITE, Nonogram, clue_text, normalise_grid, line_slack, packed_starts

#: The formulations :func:`build_model` takes (``formulation="cons"`` or ``"qubo"``).
FORMULATIONS = ("cons", "qubo")


@dataclass
class NonogramModel(ModelSizes):
    """A nonogram's :class:`qlib.Model` and its domain-wall variables.

    ``row_vars[i]`` is row ``i``'s variable array of shape (blocks, slack): entry
    ``[k, p]`` is 1 iff block ``k`` sits more than ``p`` cells right of its
    left-packed start.  ``col_vars[j]`` is the same for column ``j``, shifting down.
    In a model built with ``known`` cells, an entry the known cells decide is
    the int 0 or 1 instead of a variable.  ``known`` is then the grid of decided
    cells as rows of '#', '.' and '?' (undecided), else None.
    """

    puzzle: Nonogram
    model: qlib.Model
    row_vars: tuple
    col_vars: tuple
    formulation: str = "cons"
    known: tuple[str, ...] | None = None


def _line_vars(name: str, clue, length: int, shifts=None) -> np.ndarray:
    """The walls of one line; ``shifts`` ((lowest, highest) per block) turns the positions
    outside each block's range into constants."""
    if not clue:
        return np.empty((0, 0), dtype=object)
    if shifts is None:
        return qlib.var(name, len(clue), line_slack(clue, length))
    walls = np.empty((len(clue), line_slack(clue, length)), dtype=object)
    for k, (low, high) in enumerate(shifts):
        for p in range(walls.shape[1]):
            walls[k, p] = 1 if p < low else 0 if p >= high else qlib.Var(f"{name}[{k}][{p}]")
    return walls


def _not(wall):
    return 1 - wall if isinstance(wall, int) else ~wall


def _shifted_past(walls: np.ndarray, k: int, q: int):
    """``Y(q)``: 1 if block ``k`` shifted more than ``q`` cells (constant outside 0..d-1)."""
    if q < 0:
        return 1
    if q >= walls.shape[1]:
        return 0
    return walls[k, q]


def line_colour(walls: np.ndarray, clue, position: int) -> qlib.Expr:
    """Colour (1 black, 0 white) of the cell at ``position`` of a line, as a linear form.

    Block ``k`` (packed start ``e``, length ``n``) covers the cell when it shifted more
    than ``position - e - n`` cells but not more than ``position - e``: its share is
    ``Y(position - e - n) - Y(position - e)``.  The terms are summed in one dict (this
    runs once per cell and line, so the build of a 50x50 model spends most of its time here).
    """
    terms: dict = {}
    for start, length, k in zip(packed_starts(clue), clue, range(len(clue))):
        offset = position - start
        for wall, sign in ((_shifted_past(walls, k, offset - length), 1), (_shifted_past(walls, k, offset), -1)):
            if isinstance(wall, int):
                if wall:
                    terms[()] = terms.get((), 0) + sign
            else:
                for t, c in wall.terms.items():
                    terms[t] = terms.get(t, 0) + sign * c
    return qlib.Expr({t: c for t, c in terms.items() if c})


def line_penalty(walls: np.ndarray) -> qlib.Expr:
    """Quadratic penalty, 0 iff every block's wall is well formed and shifts never decrease."""
    blocks, slack = walls.shape
    parts, constant = [], 0   # the products of constant walls are summed apart, as ints (far cheaper)
    for k in range(blocks):
        for p in range(slack - 1):
            part = _not(walls[k, p]) * walls[k, p + 1]  # a one after a zero
            if isinstance(part, int):
                constant += part
            else:
                parts.append(part)
    for k in range(blocks - 1):
        for p in range(slack):
            part = walls[k, p] * _not(walls[k + 1, p])  # block k shifted past block k+1
            if isinstance(part, int):
                constant += part
            else:
                parts.append(part)
    return qlib.sum(parts) + constant


def row_colour(nm: NonogramModel, i: int, j: int) -> qlib.Expr:
    """Colour of cell (i, j) seen from row ``i``: a linear form in the row's variables."""
    return line_colour(nm.row_vars[i], nm.puzzle.rows[i], j)


def col_colour(nm: NonogramModel, i: int, j: int) -> qlib.Expr:
    """Colour of cell (i, j) seen from column ``j``: a linear form in the column's variables."""
    return line_colour(nm.col_vars[j], nm.puzzle.columns[j], i)


def known_cells(puzzle: Nonogram, known) -> np.ndarray:
    """``known`` as an int8 array of shape (height, width): -1 undecided, 0 white, 1 black.

    Takes rows of '#', '.' and '?' (strings), or numbers -1/0/1 (None is -1)."""
    if isinstance(known, str):
        known = known.split()
    rows = []
    for row in known:
        if isinstance(row, str):
            bad = set(row) - {BLACK, WHITE, "?"}
            if bad:
                raise ValueError(f"known cells are '{BLACK}', '{WHITE}' or '?' (undecided), got {sorted(bad)}")
            rows.append([1 if c == BLACK else 0 if c == WHITE else -1 for c in row])
        else:
            values = [-1 if v is None else int(v) for v in row]
            if any(v not in (-1, 0, 1) for v in values):
                raise ValueError("known cells are 1 (black), 0 (white) or -1 (undecided)")
            rows.append(values)
    if len(rows) != puzzle.height or any(len(r) != puzzle.width for r in rows):
        raise ValueError(f"known must be {puzzle.height} rows of {puzzle.width} cells")
    return np.array(rows, dtype=np.int8).reshape(puzzle.height, puzzle.width)


def _shift_ranges(puzzle: Nonogram, grid: np.ndarray):
    """Per line, per block, the (lowest, highest) shift the decided cells of ``grid`` allow."""
    from . import lines, placements

    clues = lines.flatten(puzzle.rows, puzzle.columns)
    work = lines.new_work(clues)
    lo = np.zeros(clues.lengths.size, dtype=np.int64)
    hi = np.zeros(clues.lengths.size, dtype=np.int64)
    bad = placements.block_ranges(clues, grid.ravel(), work, lo, hi)
    if bad >= 0:
        kind, index = ("row", bad) if bad < puzzle.height else ("column", bad - puzzle.height)
        raise ValueError(f"the known cells leave {kind} {index} no placement of its clue")
    ranges = []
    for l, clue in enumerate(puzzle.rows + puzzle.columns):
        b0 = int(clues.starts[l])
        ranges.append([(int(lo[b0 + k]) - e, int(hi[b0 + k]) - e) for k, e in enumerate(packed_starts(clue))])
    return ranges


#: Constraints expanded at a time (formulation "qubo"), with a look at the clock between batches.
_BATCH = 256
#: Objective terms expanded at a time (about 0.05 s each).
_OBJECTIVE_BATCH = 8192


def _expand(model, deadline) -> qlib.Model:
    """``qlib.expand_cons(model)``, a batch of constraints at a time, so that the build looks at
    the clock between batches and stops at ``deadline``."""
    terms = list(model.objective.terms.items())
    pieces = []
    for b in range(0, max(len(terms), 1), _OBJECTIVE_BATCH):   # the walls' penalties, a batch at a time too
        clock.check(deadline)
        objective = qlib.Expr(dict(terms[b:b + _OBJECTIVE_BATCH]))
        pieces.append(qlib.expand_cons(qlib.Model(objective, [])).objective)
    constraints = list(model.constraints)
    report = dict(model.report, slack_vars=[], slack_by_constraint={})
    for b in range(0, len(constraints), _BATCH):
        clock.check(deadline)
        part = qlib.expand_cons(qlib.Model(qlib.sum([]), constraints[b:b + _BATCH]),
                                prefix=f"{qlib.expand.AUX_PREFIX}{b}")
        pieces.append(part.objective)
        report["slack_vars"] += part.report["slack_vars"]
        report["slack_by_constraint"].update(part.report["slack_by_constraint"])
    clock.check(deadline)
    return qlib.Model(qlib.sum(pieces), [], report)


def build_model(puzzle, formulation: str = "cons", known=None, *, deadline: float | None = None) -> NonogramModel:
    """The nonogram as a model with energy 0 exactly at its solutions.

    ``formulation="cons"`` keeps one native equality per cell (row colour == column
    colour); ``formulation="qubo"`` expands them with :func:`qlib.expand_cons` into
    squared penalties, a QUBO with no auxiliary variables.  A cell whose colour
    is fixed by both of its lines (no variables on either side) needs no
    constraint; if the two fixed colours differ, the unavoidable penalty 1 goes
    into the objective so that no state reaches energy 0.

    ``known`` (optional: rows of '#', '.' and '?', or -1/0/1 values) gives cells
    taken as decided, e.g. the cells propagation settled (as :func:`~.solver.solve`
    does): every block then keeps only the shifts its line's decided cells allow,
    the wall positions outside that range become constants, and a decided cell
    asks for its colour from its row and from its column separately.  The
    zero-energy states are then the answers that agree with the known cells.
    Known cells that leave a line no placement raise ValueError.  ``deadline`` (a
    ``time.perf_counter()`` value) makes a build still running then raise
    :class:`qlib.puzzles.clock.TimeUp`, so that a solve keeps its time limit on a large puzzle.
    """
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of {', '.join(FORMULATIONS)}")
    puzzle = parse(puzzle)
    grid = None if known is None else known_cells(puzzle, known)
    ranges = [None] * (puzzle.height + puzzle.width) if grid is None else _shift_ranges(puzzle, grid)
    h = puzzle.height
    row_vars = tuple(clock.check(deadline) or _line_vars(f"row{i}", clue, puzzle.width, ranges[i])
                     for i, clue in enumerate(puzzle.rows))
    col_vars = tuple(clock.check(deadline) or _line_vars(f"col{j}", clue, puzzle.height, ranges[h + j])
                     for j, clue in enumerate(puzzle.columns))
    shown = None if grid is None else tuple("".join("?" if v < 0 else BLACK if v else WHITE for v in row)
                                            for row in grid)
    nm = NonogramModel(puzzle, qlib.Model(), row_vars, col_vars, formulation, shown)

    objective = qlib.sum(clock.check(deadline) or line_penalty(walls) for walls in row_vars + col_vars)
    constraints, conflicts = [], []

    def require(difference, label, cell):
        nonlocal objective
        difference = difference.simplify_as_binary()
        if difference.term_count:
            constraints.append(qlib.cons(difference == 0, label=label))
        elif difference.constant_term:
            conflicts.append(cell)
            objective = objective + difference.constant_term ** 2

    # a line whose walls are all constants has one placement, which fits its known cells: those need
    # nothing from it (most of the cells once probing has settled most of the grid)
    row_free = [any(not isinstance(w, int) for w in walls.flat) for walls in row_vars]
    col_free = [any(not isinstance(w, int) for w in walls.flat) for walls in col_vars]
    for i in range(puzzle.height):
        clock.check(deadline)
        for j in range(puzzle.width):
            value = -1 if grid is None else int(grid[i, j])
            if value < 0:
                require(row_colour(nm, i, j) - col_colour(nm, i, j), f"cell ({i},{j})", (i, j))
                continue
            if row_free[i]:
                require(row_colour(nm, i, j) - value, f"cell ({i},{j}) row", (i, j))
            if col_free[j]:
                require(col_colour(nm, i, j) - value, f"cell ({i},{j}) column", (i, j))
    model = qlib.Model(objective, constraints, {"fixed_conflicts": conflicts})
    if formulation == "qubo":
        model = _expand(model, deadline)
    nm.model = model
    return nm


# -- states and grids ----------------------------------------------------------
def decode(nm: NonogramModel, solution) -> tuple[str, ...]:
    """The grid the row variables of ``solution`` describe ('#' where a row colour is 1).

    In a state with broken walls a row colour may be outside {0, 1}; such
    cells read as white, and :func:`~qlib.puzzles.nonogram.check` then reports the row.
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
        raise ValueError(f"{kind} {index}: blocks {clue_text(runs)} do not match "
                         f"the clue {clue_text(clue)}")
    return [s - e for s, e in zip(starts, packed_starts(clue))]


def encode(nm: NonogramModel, grid) -> dict[str, int]:
    """The variable values (label -> 0/1) that represent ``grid``, which must satisfy every clue
    (and, in a model with known cells, agree with them).

    Useful as ``initial_state`` and to check that a known answer has energy 0.
    """
    cells = normalise_grid(grid)
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
                wall, bit = walls[k, p], int(shift > p)
                if isinstance(wall, int):
                    if wall != bit:
                        raise ValueError(f"{kind} {index}: block {k} shifts {shift} cells, outside the "
                                         f"range the model's known cells allow")
                else:
                    values[wall.label] = bit
    return values
