"""Slitherlink: one closed loop along the lattice edges, with clue counts per cell.

Formulation (after the QUBO++ tutorial and Nakahara et al., CANDAR 2026): one
binary variable per lattice edge, ``h[i][j]`` for the horizontal edge from point
``(i, j)`` to ``(i, j + 1)`` and ``v[i][j]`` for the vertical edge from ``(i, j)``
to ``(i + 1, j)``.  A clue ``n`` in cell ``(i, j)`` says
``h[i][j] + h[i+1][j] + v[i][j] + v[i][j+1] == n``; every lattice point has
degree 0 or 2.  These two local rules allow several disjoint loops; "exactly
one loop" is global, so :func:`solve` removes extra loops by iterating: solve,
split the state into loops, accept a loop that satisfies every clue on its own,
otherwise forbid every loop found and solve again, warm-started from the last
state.

``form="cells"`` is a second formulation: one variable per cell, 1 inside the
loop and 0 outside (the border's outside is 0).  An edge is drawn where its two
cells differ (``a + b - 2ab``), so lattice-point degrees are even by
construction; a penalty on every 2x2 checkerboard rules out degree 4.  Its
energy-0 states are again unions of disjoint loops, and the same outer
iteration removes the extra ones, but here a single flip can merge two loops
or split one (turning a cell between them inside or outside), which the edge
form needs several flips and several violated rules for.

The verbs match the other puzzle modules: :func:`parse`, :func:`build_model`,
:func:`solve`, :func:`decode`, :func:`check`, :func:`render_text`, :func:`draw`.
Edges also have a flat index (all ``h`` row-major, then all ``v``); see
:mod:`qlib.puzzles.loops` for the geometry arrays.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from dataclasses import dataclass, field
from functools import reduce
from operator import mul
from pathlib import Path
from typing import Callable

import numpy as np

import qlib
from qlib.constraints import Model
from qlib.expr import Expr
from qlib.solvers.focused import LazyCuts
from qlib.solvers.hooks import loop_hook_data

from .loops import DegreeError, Grid, grid, loop_satisfies_clues, split_loops

__all__ = [
    "Board", "SlitherlinkError", "SlitherlinkModel", "SlitherlinkResult", "METHODS", "FORMS", "SOLVE_FORMS",
    "parse", "build_model", "model_sizes", "forbid_loop", "solve", "decode", "check",
    "is_solution", "render_text", "draw", "split_loops", "loop_satisfies_clues",
]

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


# -----------------------------------------------------------------------------
# Models
# -----------------------------------------------------------------------------
@dataclass
class SlitherlinkModel:
    """A board's qlib model with its edge variables.

    ``h`` ((R+1) x C) and ``v`` (R x (C+1)) are object arrays of variables;
    ``edges`` holds the same variables in the flat edge order of ``grid``;
    ``aux`` the degree auxiliaries ``y`` ((R+1) x (C+1)) of the QUBO form, else None.
    In the ``cells`` form ``cells`` (R x C) holds the cell variables and
    ``h``, ``v`` and ``edges`` hold each edge's expression in them (an
    :class:`~qlib.Expr`, the XOR of the two cells it separates).
    """

    board: Board
    model: Model
    h: np.ndarray
    v: np.ndarray
    edges: np.ndarray
    grid: Grid
    form: str = "cons"
    aux: np.ndarray | None = None
    cells: np.ndarray | None = None

    @property
    def var_count(self) -> int:
        return self.model.var_count

    @property
    def term_count(self) -> int:
        return self.model.term_count


def _edge_vars(board: Board):
    R, C = board.rows, board.cols
    h = qlib.var("h", R + 1, C)
    v = qlib.var("v", R, C + 1)
    edges = np.concatenate([h.ravel(), v.ravel()])
    return h, v, edges


def _degree_expr(g: Grid, edges, p: int) -> Expr:
    return qlib.sum([edges[e] for e in g.point_edges[p] if e >= 0])


def _clue_expr(g: Grid, edges, board: Board, i: int, j: int) -> Expr:
    return qlib.sum([edges[e] for e in g.cell_edges[i * board.cols + j]])


def build_model(board, form: str = "cons") -> SlitherlinkModel:
    """Clue and degree constraints of ``board``.

    ``form="cons"``: native constraints, ``cons(clue sum == n, label="clue (i,j)")``
    and ``cons(deg == one_of(0, 2), label="point (i,j)")``.
    ``form="qubo"``: the pure QUBO of the source: ``(clue sum - n)**2`` per clue
    and ``(deg - 2*y[i][j])**2`` per point with one auxiliary ``y`` per point
    (what :func:`qlib.expand_cons` makes of the ``cons`` form).
    ``form="cells"``: cell variables ``c[i][j]`` (1 inside the loop), native
    clue constraints on the edges' XOR expressions, and a penalty of 1 on
    each 2x2 block coloured like a checkerboard (see the module docstring).
    """
    board = parse(board)
    if form not in ("cons", "qubo", "cells"):
        raise ValueError(f"unknown form {form!r}; choose 'cons' (native constraints), 'qubo' or 'cells'")
    if form == "cells":
        return _build_cells(board)
    g = board.grid
    h, v, edges = _edge_vars(board)
    if form == "cons":
        items = [qlib.cons(_clue_expr(g, edges, board, i, j) == n, label=f"clue ({i},{j})")
                 for i, j, n in board.clue_cells]
        for p in range(g.num_points):
            i, j = g.point_ij(p)
            items.append(qlib.cons(_degree_expr(g, edges, p) == qlib.one_of(0, 2), label=f"point ({i},{j})"))
        return SlitherlinkModel(board, Model(Expr(), items), h, v, edges, g, form)
    y = qlib.var("y", board.rows + 1, board.cols + 1)
    terms: dict = {}
    parts = [(_clue_expr(g, edges, board, i, j) - n) ** 2 for i, j, n in board.clue_cells]
    for p in range(g.num_points):
        i, j = g.point_ij(p)
        parts.append((_degree_expr(g, edges, p) - 2 * y[i, j]) ** 2)
    for part in parts:
        for t, c in part.terms.items():
            terms[t] = terms.get(t, 0) + c
    objective = Expr(terms).simplify_as_binary()
    model = Model(objective, [], {"aux_vars": [a.label for a in y.ravel()]})
    return SlitherlinkModel(board, model, h, v, edges, g, form, aux=y)


def _edge_sides(board: Board) -> np.ndarray:
    """The two cells beside each edge (E x 2, flat cell numbers, flat edge order); -1 is the outside."""
    R, C = board.rows, board.cols
    number = np.full((R + 2, C + 2), -1, dtype=np.int64)
    number[1:-1, 1:-1] = np.arange(R * C).reshape(R, C)
    h = np.stack([number[:-1, 1:-1], number[1:, 1:-1]], axis=-1).reshape(-1, 2)   # above, below
    v = np.stack([number[1:-1, :-1], number[1:-1, 1:]], axis=-1).reshape(-1, 2)   # left, right
    return np.concatenate([h, v])


def _build_cells(board: Board) -> SlitherlinkModel:
    g = board.grid
    R, C = board.rows, board.cols
    cells = qlib.var("c", R, C)
    flat = cells.ravel()

    def xor(a, b) -> Expr:  # the edge between cells a and b (-1: the outside, always 0)
        if a < 0 or b < 0:
            return Expr.constant(0) + flat[max(a, b)]
        return flat[a] + flat[b] - 2 * flat[a] * flat[b]
    edges = np.empty(g.num_edges, dtype=object)
    edges[:] = [xor(a, b) for a, b in _edge_sides(board)]
    items = [qlib.cons(qlib.sum([edges[e] for e in g.cell_edges[i * C + j]]) == n, label=f"clue ({i},{j})")
             for i, j, n in board.clue_cells]
    objective = Expr()
    for i in range(R - 1):
        for j in range(C - 1):
            a, b, c, d = cells[i, j], cells[i, j + 1], cells[i + 1, j], cells[i + 1, j + 1]
            objective = objective + a * d * ~b * ~c + ~a * ~d * b * c
    nh = (R + 1) * C
    h = edges[:nh].reshape(R + 1, C)
    v = edges[nh:].reshape(R, C + 1)
    return SlitherlinkModel(board, Model(objective, items), h, v, edges, g, "cells", cells=cells)


def _inside_cells(board: Board, loop) -> np.ndarray:
    """Cells enclosed by ``loop`` (flat bool), by the parity of vertical loop edges to their left."""
    R, C = board.rows, board.cols
    on = np.zeros(board.grid.num_edges, dtype=bool)
    on[np.asarray(loop, dtype=np.int64)] = True
    nh = (R + 1) * C
    vertical = on[nh:].reshape(R, C + 1)[:, :C]
    return (np.cumsum(vertical, axis=1) % 2).astype(bool).ravel()


def _forbid_cells(sm: SlitherlinkModel, loop) -> Expr:
    """Products of cell literals that are 1 exactly when ``loop`` bounds a region.

    Every cell along the loop is fixed: those inside it 1 and those outside 0
    (the loop encloses an inside region), or the reverse (it encloses a hole);
    a loop along the border can only do the first.
    """
    inside = _inside_cells(sm.board, loop)
    along = _edge_sides(sm.board)[np.asarray(loop, dtype=np.int64)].ravel()
    flat = sm.cells.ravel()
    literals = [(flat[k], bool(inside[k])) for k in np.unique(along[along >= 0])]
    region = reduce(mul, [x if ins else ~x for x, ins in literals], Expr.constant(1))
    if (along < 0).any():  # along the border
        return region
    return region + reduce(mul, [~x if ins else x for x, ins in literals], Expr.constant(1))


def model_sizes(board) -> dict:
    """Variables and terms of the HUBO (native constraints) and pure QUBO forms.

    ``{"hubo": {...}, "qubo": {...}}``, each with ``vars``, ``aux_vars``,
    ``terms`` (non-constant terms: constraint left-hand sides for ``hubo``,
    the objective for ``qubo``), ``constraints`` and ``max_degree``.
    Forbidding a loop later adds, per loop of ``L`` edges, one term of degree
    ``L`` (hubo), one constraint (inequality), or ``bit_length(L-1)`` slack
    variables and a squared penalty (qubo).
    """
    board = parse(board)
    out = {}
    for key, form in (("hubo", "cons"), ("qubo", "qubo")):
        sm = build_model(board, form)
        m = sm.model
        degree = max([m.objective.degree] + [c.lhs.degree for c in m.constraints])
        out[key] = dict(vars=m.var_count, aux_vars=0 if sm.aux is None else sm.aux.size,
                        terms=m.term_count, constraints=len(m.constraints), max_degree=degree)
    return out


# -----------------------------------------------------------------------------
# Forbidding loops
# -----------------------------------------------------------------------------
#: How :func:`forbid_loop` forbids a loop in an edge model (``build_model`` forms "cons" and "qubo").
FORMS = ("hubo", "inequality", "qubo")
#: The forms :func:`solve` takes: those, and the cell formulation with its own loop terms.
SOLVE_FORMS = FORMS + ("cells",)


def _loop_tag(loop) -> str:
    data = ",".join(str(int(e)) for e in sorted(int(e) for e in loop))
    return hashlib.sha1(data.encode()).hexdigest()[:10]


def forbid_loop(sm: SlitherlinkModel, loop, form: str = "hubo", *, label: str | None = None):
    """What to add to a model so that the state containing all of ``loop`` costs 1 more.

    * ``"hubo"``: the product of the loop's edge variables (an :class:`~qlib.Expr`
      with one term of degree ``len(loop)``);
    * ``"inequality"``: ``cons(sum(x_e) <= len(loop) - 1)`` (a native constraint);
    * ``"qubo"``: that inequality expanded by :func:`qlib.expand_cons` to a
      squared penalty with binary slack variables (an Expr of degree 2); the
      slack variables get labels unique to this loop.

    * ``"cells"`` (for a model of ``build_model(board, "cells")``): products of
      cell literals, 1 when the loop bounds an inside region or a hole
      (:func:`_forbid_cells`).

    All are 0 unless every edge of the loop is selected, and then 1 (for
    the qubo form: 1 at the best slack values; for the cells form: in every
    state without a 2x2 checkerboard).
    """
    loop = [int(e) for e in np.asarray(loop).ravel()]
    if not loop:
        raise ValueError("cannot forbid an empty loop")
    if len(set(loop)) != len(loop):
        raise ValueError("a loop lists each edge once; this one repeats edges")
    bad = [e for e in loop if not 0 <= e < sm.grid.num_edges]
    if bad:
        raise ValueError(f"edge indices {bad[:5]} are outside 0..{sm.grid.num_edges - 1}")
    if (form == "cells") != (sm.form == "cells"):
        raise ValueError(f"form {form!r} does not fit a model built in the {sm.form!r} form; "
                         "a cells model takes form='cells' and only it")
    if form == "cells":
        return _forbid_cells(sm, loop)
    tag = _loop_tag(loop)
    label = label or f"loop {len(loop)} edges from {sm.grid.edge_name(min(loop))} #{tag}"
    xs = [sm.edges[e] for e in loop]
    if form == "hubo":
        return reduce(mul, xs[1:], Expr.constant(1) * xs[0])
    ineq = qlib.cons(qlib.sum(xs) <= len(loop) - 1, label=label)
    if form == "inequality":
        return ineq
    if form == "qubo":
        return qlib.expand_cons(ineq, prefix=f"_loop_{tag}").objective  # slack labels unique to this loop
    raise ValueError(f"unknown form {form!r}; choose one of {', '.join(SOLVE_FORMS)}")


# -----------------------------------------------------------------------------
# Decoding and checking
# -----------------------------------------------------------------------------
def decode(sm: SlitherlinkModel, solution) -> np.ndarray:
    """The selected-edge mask (uint8, flat edge order) of a :class:`qlib.Solution`."""
    compiled = solution.compiled
    if sm.form == "cells":
        colour = np.zeros(sm.cells.size + 1, dtype=np.uint8)   # the last entry is the outside (index -1)
        for k, x in enumerate(sm.cells.ravel()):
            try:
                colour[k] = solution.state[compiled.index_by_id(x.id)]
            except KeyError:  # a cell in no clue and no 2x2 block (a board one cell wide): outside
                pass
        sides = _edge_sides(sm.board)
        return colour[sides[:, 0]] ^ colour[sides[:, 1]]
    try:
        pos = np.array([compiled.index_by_id(x.id) for x in sm.edges], dtype=np.int64)
    except KeyError as missing:
        raise ValueError(f"the solution has no value for an edge: {missing}") from None
    return solution.state[pos].astype(np.uint8)


def _mask_of(board: Board, h, v) -> np.ndarray:
    return board.grid.from_hv(h, v)


def check(board, h, v) -> list[str]:
    """Problems of the drawing ``(h, v)``: clue mismatches, bad degrees, not one loop.

    An empty list means ``(h, v)`` solves the puzzle.
    """
    board = parse(board)
    g = board.grid
    mask = _mask_of(board, h, v)
    problems = []
    counts = mask.astype(np.int64)[g.cell_edges].sum(axis=1)
    for i, j, n in board.clue_cells:
        k = int(counts[i * board.cols + j])
        if k != n:
            problems.append(f"clue ({i},{j}) is {n} but {k} of its sides are drawn")
    deg = g.degrees(mask)
    bad = np.flatnonzero((deg != 0) & (deg != 2))
    for p in bad:
        i, j = g.point_ij(p)
        problems.append(f"point ({i},{j}) has degree {int(deg[p])}, expected 0 or 2")
    if not mask.any():
        problems.append("no edge is drawn: expected one loop")
    elif not bad.size:
        loops = split_loops(mask, g.endpoints)
        if len(loops) > 1:
            lengths = " ".join(str(len(lp)) for lp in loops)
            problems.append(f"{len(loops)} loops (lengths {lengths}), expected exactly one")
    return problems


def is_solution(board, h, v) -> bool:
    """Whether ``(h, v)`` is one loop satisfying every clue."""
    return not check(board, h, v)


# -----------------------------------------------------------------------------
# The iterative solver
# -----------------------------------------------------------------------------
@dataclass
class SlitherlinkResult:
    """What :func:`solve` found.

    ``status`` is "solved" or "unsolved"; ``stop_reason`` one of "answer",
    "max_iterations", "time_limit", "no_zero_energy_state", "empty_state" (a
    zero-energy state without any loop: the clues allow the empty drawing, and
    no loop was found).  ``h``/``v`` hold the
    answer loop when solved, else the last state found (all zeros if none).
    ``iterations`` has one dict per solve: ``iteration``, ``energy``, ``loops``
    (loop lengths, None if the state could not be split), ``seconds``,
    ``solver_seconds``, ``seed``, ``state`` (edge 0/1 vector), ``forbidden``
    (loops forbidden after it), ``var_count``, ``term_count``, ``solver_stop``.
    ``var_count``/``term_count`` are those of the last model solved.
    """

    status: str
    stop_reason: str
    h: list
    v: list
    iterations: list
    seconds: float
    backend: str
    seed: int | None
    var_count: int
    term_count: int
    loop: list | None
    answer_state: np.ndarray | None
    form: str = "hubo"
    method: str = "outer"
    board: Board | None = field(default=None, repr=False)

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def render(self) -> str:
        return render_text(self.board, self.h, self.v)

    def summary(self) -> str:
        lines = [f"{self.status} ({self.stop_reason}) in {len(self.iterations)} iteration(s), "
                 f"{self.seconds:.2f} s, form={self.form}, backend={self.backend}, seed={self.seed}"]
        for it in self.iterations:
            loops = " ".join(map(str, it["loops"])) if it["loops"] is not None else "-"
            lines.append(f"iteration {it['iteration']}: energy = {it['energy']:g}, loops = {loops}")
        return "\n".join(lines)


@dataclass
class _Run:
    """Shared state and helpers of one :func:`solve` call; a method drives it."""

    board: Board
    form: str
    backend: str
    seed: int
    time_limit: float
    max_iterations: int
    solver_options: dict
    method: str
    sm: SlitherlinkModel = None
    start: float = 0.0
    iterations: list = field(default_factory=list)
    model: Model = None
    forbidden: int = 0

    def __post_init__(self):
        self.start = time.perf_counter()
        self.sm = build_model(self.board, self.form if self.form in ("qubo", "cells") else "cons")
        self.model = self.sm.model

    @property
    def grid(self) -> Grid:
        return self.sm.grid

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        return self.time_limit - self.elapsed()

    def solve_once(self, initial_state=None):
        """One qlib.solve of the current model with the remaining time; returns (solution, mask)."""
        k = len(self.iterations)
        seed = (self.seed + k) % (1 << 63)
        sol = qlib.solve(self.model, backend=self.backend, seed=seed, time_limit=max(self.remaining(), 1e-3),
                         target_energy=0, initial_state=initial_state, **self.solver_options)
        return sol, decode(self.sm, sol)

    def split(self, mask):
        """Loops of ``mask``, or None if some point has degree other than 0 or 2."""
        try:
            return split_loops(mask, self.grid.endpoints)
        except DegreeError:
            return None

    def record(self, sol, mask, loops, t0) -> dict:
        rec = dict(iteration=len(self.iterations) + 1, energy=float(sol.energy),
                   loops=None if loops is None else [len(lp) for lp in loops],
                   seconds=time.perf_counter() - t0, solver_seconds=sol.info.get("seconds"),
                   seed=sol.info.get("seed"), state=mask.copy(), forbidden=0,
                   var_count=sol.compiled.num_vars, term_count=sol.compiled.model.term_count,
                   solver_stop=sol.info.get("stop_reason"))
        self.iterations.append(rec)
        return rec

    def answer_loop(self, loops):
        for lp in loops or ():
            if loop_satisfies_clues(self.board, lp):
                return lp
        return None

    def forbid(self, loops) -> None:
        """Add a penalty for every loop to the current model."""
        for lp in loops:
            self.model = self.model + forbid_loop(self.sm, lp, self.form)
        self.forbidden += len(loops)
        if self.iterations:
            self.iterations[-1]["forbidden"] = len(loops)

    def result(self, stop_reason: str, loop=None) -> SlitherlinkResult:
        g = self.grid
        if loop is not None:
            state = np.zeros(g.num_edges, dtype=np.uint8)
            state[np.asarray(loop)] = 1
            shown, answer = state, state
        else:
            shown = self.iterations[-1]["state"] if self.iterations else np.zeros(g.num_edges, dtype=np.uint8)
            answer = None
        h, v = g.to_hv(shown)
        last = self.iterations[-1] if self.iterations else None
        return SlitherlinkResult(
            status="solved" if loop is not None else "unsolved", stop_reason=stop_reason, h=h, v=v,
            iterations=self.iterations, seconds=self.elapsed(), backend=self.backend, seed=self.seed,
            var_count=last["var_count"] if last else self.model.var_count,
            term_count=last["term_count"] if last else self.model.term_count,
            loop=None if loop is None else [int(e) for e in loop], answer_state=answer,
            form=self.form, method=self.method, board=self.board)


_ZERO = 1e-9


def _outer(run: _Run) -> SlitherlinkResult:
    """The tutorial's iteration: a full solve per round, forbidding every loop found."""
    previous = None
    while True:
        if len(run.iterations) >= run.max_iterations:
            return run.result("max_iterations")
        if run.remaining() <= 1e-3:
            return run.result("time_limit")
        t0 = time.perf_counter()
        sol, mask = run.solve_once(previous)
        if sol.energy > _ZERO:
            run.record(sol, mask, run.split(mask), t0)
            exact = sol.info.get("stop_reason") == "complete"
            if exact or run.remaining() <= 1e-3:
                return run.result("no_zero_energy_state")
            continue  # not an answer; try again with the time left
        loops = split_loops(mask, run.grid.endpoints)  # energy 0: every degree is 0 or 2
        run.record(sol, mask, loops, t0)
        if not loops:
            return run.result("empty_state")
        answer = run.answer_loop(loops)
        if answer is not None:
            return run.result("answer", answer)
        run.forbid(loops)
        previous = sol


def loop_cuts(sm: SlitherlinkModel, compiled, **options) -> LazyCuts:
    """The loop separation hook of :mod:`qlib.solvers.hooks`, wired to this board's edges."""
    g = sm.grid
    cols = [compiled.index(e) for e in sm.edges]
    clues = sm.board.clue_cells
    data = loop_hook_data(cols, g.endpoints[:, 0], g.endpoints[:, 1], g.num_points,
                          [g.cell_edges[i * sm.board.cols + j] for i, j, _ in clues], [n for _, _, n in clues])
    return LazyCuts("loops", data, **options)


def _lazy(run: _Run) -> SlitherlinkResult:
    """qlib's method: one focused search in which every closed loop met in a
    low-energy state is either accepted (it alone satisfies every clue) or
    forbidden at once by a product term, without restarting the solve."""
    if run.form == "qubo":
        raise ValueError("method='lazy' adds loop cuts as product terms; use form='hubo' or 'inequality' "
                         "(the same energy), or method='outer' for the pure QUBO form")
    if run.form == "cells":
        raise ValueError("method='lazy' cuts loops of edge variables; use method='outer' with form='cells'")
    if run.backend not in ("cpu", "auto"):
        raise ValueError("method='lazy' runs on the CPU backend; use method='outer' for other backends")
    t0 = time.perf_counter()
    compiled = qlib.compile(run.model)
    options = dict(run.solver_options)
    cut_options = {k: options.pop(k) for k in ("hook_energy", "hook_interval", "cut_weight") if k in options}
    lazy = loop_cuts(run.sm, compiled, **{k.replace("hook_", "").replace("cut_", ""): v
                                          for k, v in cut_options.items()})
    sol = qlib.solve(compiled, backend="cpu", algorithm="focused", seed=run.seed, time_limit=max(run.remaining(), 1e-3),
                     target_energy=0, lazy_cuts=lazy, **options)
    mask = decode(run.sm, sol)
    loops = run.split(mask)
    rec = run.record(sol, mask, loops, t0)
    rec["cuts"] = [len(c) for c in sol.info["cuts"]]
    rec["forbidden"] = len(rec["cuts"])
    run.forbidden = len(rec["cuts"])
    if sol.info["stop_reason"] == "accepted" and loops is not None:
        answer = run.answer_loop(loops)
        if answer is not None:
            return run.result("answer", answer)
    if sol.info["stop_reason"] == "target_energy":  # energy 0 and the hook saw no loop
        return run.result("empty_state")
    return run.result("time_limit" if sol.info["stop_reason"] == "time_limit" else "no_zero_energy_state")


#: Solving methods by name: each takes a prepared :class:`_Run` and returns the result.
METHODS: dict[str, Callable[[_Run], SlitherlinkResult]] = {"lazy": _lazy, "outer": _outer}


def solve(board, *, form: str = "hubo", method: str | None = None, backend: str = "cpu", seed: int | None = None,
          time_limit: float = 60.0, max_iterations: int = 100, **solver_options) -> SlitherlinkResult:
    """Solve ``board`` by eliminating multi-loop states.

    ``method=None`` picks ``"outer"`` for ``form="cells"`` and ``"lazy"`` otherwise.

    ``method="lazy"``: one focused search on the clue
    and degree constraints in which every closed loop met in a low-energy state
    is accepted if it alone satisfies every clue, else forbidden at once by a
    product term (lazy cuts; :func:`loop_cuts`).  ``hook_energy``,
    ``hook_interval`` and ``cut_weight`` tune it.

    ``method="outer"``: the source's iteration.  Each iteration solves the clue and degree constraints (plus the loops
    forbidden so far) with ``qlib.solve(..., target_energy=0)``, warm-started
    from the previous solution; splits the state into loops; returns a loop that
    satisfies every clue on its own; otherwise forbids every loop found, in
    ``form`` "hubo" (product term), "inequality" (native ``<=`` constraint),
    "qubo" (pure QUBO: squared penalties and slack variables throughout) or
    "cells" (the cell formulation of :func:`build_model`, whose single flips
    merge and split loops: the fastest on the larger boards).

    ``time_limit`` is the total in seconds (each solve gets what remains);
    ``seed`` seeds iteration ``k`` (from 1) with ``seed + k - 1`` (a random seed
    is drawn and recorded when None).  Other keyword arguments go to the
    backend (e.g. ``num_sweeps``, ``num_replicas`` for ``backend="cpu"``).
    """
    board = parse(board)
    if method is None:
        method = "outer" if form == "cells" else "lazy"
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(map(repr, METHODS))}")
    if form not in SOLVE_FORMS:
        raise ValueError(f"unknown form {form!r}; choose one of {', '.join(map(repr, SOLVE_FORMS))}")
    if not isinstance(time_limit, (int, float)) or not time_limit > 0 or not math.isfinite(time_limit):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or max_iterations < 1:
        raise ValueError(f"max_iterations must be a positive integer, got {max_iterations!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 62))
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    run = _Run(board, form, backend, int(seed), float(time_limit), max_iterations, solver_options, method)
    return METHODS[method](run)


# -----------------------------------------------------------------------------
# Display
# -----------------------------------------------------------------------------
def render_text(board, h=None, v=None) -> str:
    """The board as text: ``+---+`` / ``|`` for drawn edges, clues centred in cells.

    Same layout as the tutorial's drawings (4 characters per cell, trailing
    spaces stripped); the result ends with a newline.  ``h``/``v`` default to
    no edges.
    """
    board = parse(board)
    g = board.grid
    mask = _mask_of(board, h, v)
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
                c = board.clues[i][j]
                line += f" {' ' if c is None else c} "
        out.append(line.rstrip())
    return "\n".join(out) + "\n"


def draw(board, h=None, v=None, ax=None, loops=None, *, linewidth: float = 3.0):
    """Draw the board with matplotlib: lattice dots, clues and the selected edges.

    When the state splits into several loops each gets its own colour (pass
    ``loops``, lists of edge indices, to choose them; selected edges in no
    given loop are drawn grey).  Returns the Axes.
    """
    import matplotlib.pyplot as plt

    board = parse(board)
    g = board.grid
    R, C = board.rows, board.cols
    mask = _mask_of(board, h, v)
    if ax is None:
        _, ax = plt.subplots(figsize=(0.45 * C + 1, 0.45 * R + 1))
    if loops is None and mask.any():
        try:
            loops = split_loops(mask, g.endpoints)
        except DegreeError:
            loops = None
    coords = np.array([g.point_ij(p) for p in range(g.num_points)], dtype=float)  # (i, j)

    def segment(e, **kw):
        a, b = g.endpoints[e]
        ax.plot([coords[a, 1], coords[b, 1]], [coords[a, 0], coords[b, 0]], solid_capstyle="round",
                lw=linewidth, zorder=2, **kw)

    drawn = np.zeros(g.num_edges, dtype=bool)
    if loops is not None and len(loops) > 1:
        palette = plt.get_cmap("tab10").colors
        for k, lp in enumerate(loops):
            for e in np.asarray(lp, dtype=np.int64):
                segment(e, color=palette[k % len(palette)])
                drawn[e] = True
    rest_colour = "0.55" if loops is not None and len(loops) > 1 else "black"
    for e in np.flatnonzero(mask.astype(bool) & ~drawn):
        segment(e, color=rest_colour)
    ax.scatter(coords[:, 1], coords[:, 0], s=12, color="black", zorder=3)
    for i, j, n in board.clue_cells:
        ax.text(j + 0.5, i + 0.5, str(n), ha="center", va="center", fontsize=11, zorder=1)
    ax.set_xlim(-0.5, C + 0.5)
    ax.set_ylim(R + 0.5, -0.5)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
