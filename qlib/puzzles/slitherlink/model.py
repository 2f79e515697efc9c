"""Slitherlink as qlib models: the edge formulation (the source's) and the cell formulation.

Edge formulation: one binary variable per lattice edge, ``h[i][j]`` for the horizontal
edge from point ``(i, j)`` to ``(i, j + 1)`` and ``v[i][j]`` for the vertical
edge from ``(i, j)`` to ``(i + 1, j)``.  A clue ``n`` in cell ``(i, j)`` says
``h[i][j] + h[i+1][j] + v[i][j] + v[i][j+1] == n``; every lattice point has
degree 0 or 2.

Cell formulation: one variable per cell, 1 inside the loop and 0 outside (the
border's outside is 0).  An edge is drawn where its two cells differ
(``a + b - 2ab``), so lattice-point degrees are even by construction; a
penalty on every 2x2 checkerboard rules out degree 4.  A single flip can
merge two loops or split one, which the edge form needs several flips and
several violated rules for.

Both forms' zero-energy states are unions of disjoint loops; "exactly one
loop" is global and is enforced by forbidding loops (:func:`.formulation.forbid_loop`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

import qlib
from qlib.constraints import Model
from qlib.expr import Expr

from .. import clock
from ..loops import Grid
from ..result import ModelSizes
from .board import Board, parse

# -----------------------------------------------------------------------------
# Models
# -----------------------------------------------------------------------------
@dataclass
class SlitherlinkModel(ModelSizes):
    """A board's qlib model with its edge variables.

    ``h`` ((R+1) x C) and ``v`` (R x (C+1)) are object arrays of variables;
    ``edges`` holds the same variables in the flat edge order of ``grid``;
    ``aux`` the degree auxiliaries ``y`` ((R+1) x (C+1)) of the QUBO formulation, else None.
    In the ``cells`` form ``cells`` (R x C) holds each cell's value as an
    expression (a class variable, its negation, or a constant where the
    presolve decided it), ``class_vars`` the variables, ``presolve`` the
    :class:`~.presolve.Presolve` behind them, and ``h``, ``v`` and ``edges``
    hold each edge's expression (an :class:`~qlib.Expr`, the XOR of the two
    cells it separates).
    """

    board: Board
    model: Model
    h: np.ndarray
    v: np.ndarray
    edges: np.ndarray
    grid: Grid
    formulation: str = "cons"
    aux: np.ndarray | None = None
    cells: np.ndarray | None = None
    presolve: object = None
    class_vars: np.ndarray | None = None


def _var_rows(label: str, rows: int, cols: int, deadline) -> np.ndarray:
    """``qlib.var(label, rows, cols)``, a row at a time with a look at the clock between rows."""
    out = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        clock.check(deadline)
        out[i] = qlib.var(f"{label}[{i}]", cols)
    return out


def _edge_vars(board: Board, deadline=None):
    R, C = board.rows, board.cols
    h = _var_rows("h", R + 1, C, deadline)
    v = _var_rows("v", R, C + 1, deadline)
    edges = np.concatenate([h.ravel(), v.ravel()])
    return h, v, edges


def _degree_expr(g: Grid, edges, p: int) -> Expr:
    return qlib.sum([edges[e] for e in g.point_edges[p] if e >= 0])


def _clue_expr(g: Grid, edges, board: Board, i: int, j: int) -> Expr:
    return qlib.sum([edges[e] for e in g.cell_edges[i * board.cols + j]])


def build_model(board, formulation: str = "cons", *, presolve=False, deadline: float | None = None) -> SlitherlinkModel:
    """Clue and degree constraints of ``board``.

    ``formulation="cons"`` (also ``"hubo"`` and ``"inequality"``, which differ only in
    how a loop is later forbidden): native constraints,
    ``cons(clue sum == n, label="clue (i,j)")`` and
    ``cons(deg == one_of(0, 2), label="point (i,j)")``.
    ``formulation="qubo"``: the pure QUBO of the source: ``(clue sum - n)**2`` per clue
    and ``(deg - 2*y[i][j])**2`` per point with one auxiliary ``y`` per point
    (what :func:`qlib.expand_cons` makes of the ``cons`` formulation).
    ``formulation="cells"``: cell variables ``c[i][j]`` (1 inside the loop), native
    clue constraints on the edges' XOR expressions, and a penalty of 1 on
    each 2x2 block coloured like a checkerboard (see the module docstring).
    With ``presolve=True`` (cells only) the cells that :func:`.presolve.presolve`
    puts in one parity class share one variable, and the outside's class is
    fixed, so the model holds only what the rules leave open; a
    :class:`~.presolve.Presolve` of ``board`` in its place is used as it is.
    ``deadline`` (a ``time.perf_counter()`` value) makes a build still running
    then raise :class:`qlib.puzzles.clock.TimeUp`, so that a solve keeps its
    time limit on a large board.
    """
    board = parse(board)
    if formulation in ("hubo", "inequality"):
        formulation = "cons"
    if formulation not in ("cons", "qubo", "cells"):
        raise ValueError(f"unknown formulation {formulation!r}; choose 'cons' (native constraints), 'qubo' or 'cells'")
    if presolve and formulation != "cells":
        raise ValueError("presolve=True builds the cell formulation; pass formulation='cells'")
    if formulation == "cells":
        return _build_cells(board, presolve, deadline)
    g = board.grid
    h, v, edges = _edge_vars(board, deadline)
    if formulation == "cons":
        items = [_every(k, deadline) or qlib.cons(_clue_expr(g, edges, board, i, j) == n, label=f"clue ({i},{j})")
                 for k, (i, j, n) in enumerate(board.clue_cells)]
        for p in range(g.num_points):
            _every(p, deadline)
            i, j = g.point_ij(p)
            items.append(qlib.cons(_degree_expr(g, edges, p) == qlib.one_of(0, 2), label=f"point ({i},{j})"))
        return SlitherlinkModel(board, Model(Expr(), items), h, v, edges, g, formulation)
    y = _var_rows("y", board.rows + 1, board.cols + 1, deadline)
    terms: dict = {}
    parts = [_every(k, deadline) or (_clue_expr(g, edges, board, i, j) - n) ** 2
             for k, (i, j, n) in enumerate(board.clue_cells)]
    for p in range(g.num_points):
        _every(p, deadline)
        i, j = g.point_ij(p)
        parts.append((_degree_expr(g, edges, p) - 2 * y[i, j]) ** 2)
    for k, part in enumerate(parts):
        _every(k, deadline)
        for t, c in part.terms.items():
            terms[t] = terms.get(t, 0) + c
    objective = Expr(terms).simplify_as_binary()
    model = Model(objective, [], {"aux_vars": [a.label for a in y.ravel()]})
    return SlitherlinkModel(board, model, h, v, edges, g, formulation, aux=y)


def edge_sides(board: Board) -> np.ndarray:
    """The two cells beside each edge (E x 2, flat cell numbers, flat edge order); -1 is the outside."""
    return _edge_sides(board.rows, board.cols)


@lru_cache(maxsize=16)
def _edge_sides(R: int, C: int) -> np.ndarray:
    number = np.full((R + 2, C + 2), -1, dtype=np.int64)
    number[1:-1, 1:-1] = np.arange(R * C).reshape(R, C)
    h = np.stack([number[:-1, 1:-1], number[1:, 1:-1]], axis=-1).reshape(-1, 2)   # above, below
    v = np.stack([number[1:-1, :-1], number[1:-1, 1:]], axis=-1).reshape(-1, 2)   # left, right
    out = np.concatenate([h, v])
    out.flags.writeable = False
    return out


def _every(k: int, deadline) -> None:
    """Look at the clock at every 512th item of a loop (:func:`qlib.puzzles.clock.check`)."""
    if k % 512 == 511:
        clock.check(deadline)


def _build_cells(board: Board, use_presolve, deadline=None) -> SlitherlinkModel:
    from .presolve import Presolve, identity, presolve

    g = board.grid
    R, C = board.rows, board.cols
    if isinstance(use_presolve, Presolve):
        pre = use_presolve
        if pre.cell_class.shape != (R * C,) or pre.edges.shape != (g.num_edges,):
            raise ValueError(f"the presolve given is of another board size, not {R}x{C}")
    else:
        pre = presolve(board, deadline=deadline) if use_presolve else identity(board)
    class_vars = [qlib.var(f"c[{r // C}][{r % C}]") for r in pre.representative]
    literal = np.empty(R * C, dtype=object)   # each cell's value: a constant, a class variable or its negation
    for k in range(R * C):
        cls, par = int(pre.cell_class[k]), int(pre.cell_parity[k])
        literal[k] = Expr.constant(par) if cls < 0 else (~class_vars[cls] if par else class_vars[cls])
    # the same cells as literal codes (2 * variable id + negation) or constants (-1, -2: 0, 1), for the
    # expressions below, built term by term: the terms (and their order) that the arithmetic on
    # ``literal`` gives, at a fraction of its cost on a large board
    ids = np.array([v.id for v in class_vars] + [0], dtype=np.int64)   # (the outside's class reads the last)
    cls = pre.cell_class
    codes = np.where(cls < 0, -1 - pre.cell_parity.astype(np.int64), 2 * ids[cls] + pre.cell_parity)
    code = codes.tolist()
    edges = np.empty(g.num_edges, dtype=object)
    edges[:] = [_every(k, deadline) or _xor(a, b, code, cls) for k, (a, b) in enumerate(edge_sides(board).tolist())]
    items = []
    for k, (i, j, n) in enumerate(board.clue_cells):
        _every(k, deadline)
        lhs = qlib.sum([edges[e] for e in g.cell_edges[i * C + j]])
        if lhs.degree == 0:   # decided by the presolve (broken only when it proved the board infeasible)
            if lhs.constant_term != n and pre.status == "open":
                raise AssertionError(f"presolve left clue ({i},{j}) broken; this is a bug")
            continue
        items.append(qlib.cons(lhs == n, label=f"clue ({i},{j})"))
    cell = literal.reshape(R, C)
    objective = qlib.sum(_checkerboards(codes.reshape(R, C), deadline)).simplify_as_binary()
    nh = (R + 1) * C
    h = edges[:nh].reshape(R + 1, C)
    v = edges[nh:].reshape(R, C + 1)
    return SlitherlinkModel(board, Model(objective, items), h, v, edges, g, "cells", cells=cell,
                            presolve=pre, class_vars=np.array(class_vars + [None], dtype=object)[:-1])


def _xor(a: int, b: int, code: list, cls: np.ndarray) -> Expr:
    """The edge between cells ``a`` and ``b`` (-1: the outside, always 0): ``la + lb - 2 la lb`` on their
    values, with its terms in the order that arithmetic gives them.  ``code``: each cell's literal code,
    or -1 / -2 for the constants 0 / 1."""
    if a >= 0 and b >= 0 and cls[a] == cls[b]:
        return Expr.constant((code[a] ^ code[b]) & 1 if code[a] >= 0 else code[a] != code[b])
    la = -1 if a < 0 else code[a]
    lb = -1 if b < 0 else code[b]
    if la < 0 and lb < 0:
        return Expr.constant(la != lb)
    if la < 0:
        return Expr({(lb,): 1} if la == -1 else {(): 1, (lb,): -1})
    if lb < 0:
        return Expr({(la,): 1} if lb == -1 else {(la,): -1, (): 1})
    return Expr({(la,): 1, (lb,): 1, (min(la, lb), max(la, lb)): -2})


def _checkerboards(code: np.ndarray, deadline=None) -> list:
    """The checkerboard penalties ``a d ~b ~c`` and ``~a ~d b c`` of every 2x2 block ``[[a, b], [c, d]]``
    that the constants do not zero, row by row, as :func:`_xor`'s ``code`` gives the cells (R x C)."""
    clock.check(deadline)
    a, b, c, d = code[:-1, :-1], code[:-1, 1:], code[1:, :-1], code[1:, 1:]
    zero, one = -1, -2
    first = (a != zero) & (d != zero) & (b != one) & (c != one)
    second = (a != one) & (d != one) & (b != zero) & (c != zero)
    out = []
    for k, (i, j) in enumerate(zip(*np.nonzero(first | second))):
        _every(k, deadline)
        blk = [int(a[i, j]), int(d[i, j]), int(b[i, j]), int(c[i, j])]
        for pos, neg, on in ((blk[:2], blk[2:], first[i, j]), (blk[2:], blk[:2], second[i, j])):
            if on:   # the constants 1 drop out; a negated literal is the code with its last bit flipped
                out.append(Expr({tuple(sorted([v for v in pos if v >= 0] + [v ^ 1 for v in neg if v >= 0])): 1}))
    return out


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
    for key, formulation in (("hubo", "cons"), ("qubo", "qubo")):
        sm = build_model(board, formulation)
        m = sm.model
        degree = max([m.objective.degree] + [c.lhs.degree for c in m.constraints])
        out[key] = dict(vars=m.var_count, aux_vars=0 if sm.aux is None else sm.aux.size,
                        terms=m.term_count, constraints=len(m.constraints), max_degree=degree)
    return out
