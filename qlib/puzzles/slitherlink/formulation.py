"""Slitherlink as qlib models: the edge formulation (the source's) and the cell formulation.

Edge form: one binary variable per lattice edge, ``h[i][j]`` for the horizontal
edge from point ``(i, j)`` to ``(i, j + 1)`` and ``v[i][j]`` for the vertical
edge from ``(i, j)`` to ``(i + 1, j)``.  A clue ``n`` in cell ``(i, j)`` says
``h[i][j] + h[i+1][j] + v[i][j] + v[i][j+1] == n``; every lattice point has
degree 0 or 2.

Cell form: one variable per cell, 1 inside the loop and 0 outside (the
border's outside is 0).  An edge is drawn where its two cells differ
(``a + b - 2ab``), so lattice-point degrees are even by construction; a
penalty on every 2x2 checkerboard rules out degree 4.  A single flip can
merge two loops or split one, which the edge form needs several flips and
several violated rules for.

Both forms' zero-energy states are unions of disjoint loops; "exactly one
loop" is global and is enforced by forbidding loops (:func:`forbid_loop`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import reduce
from operator import mul

import numpy as np

import qlib
from qlib.constraints import Model
from qlib.expr import Expr

from ..loops import Grid
from .board import Board, parse

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
