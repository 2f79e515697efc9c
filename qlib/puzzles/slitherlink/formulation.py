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
from functools import lru_cache, reduce
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
    form: str = "cons"
    aux: np.ndarray | None = None
    cells: np.ndarray | None = None
    presolve: object = None
    class_vars: np.ndarray | None = None

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


def build_model(board, form: str = "cons", *, presolve=False) -> SlitherlinkModel:
    """Clue and degree constraints of ``board``.

    ``form="cons"`` (also ``"hubo"`` and ``"inequality"``, which differ only in
    how a loop is later forbidden): native constraints,
    ``cons(clue sum == n, label="clue (i,j)")`` and
    ``cons(deg == one_of(0, 2), label="point (i,j)")``.
    ``form="qubo"``: the pure QUBO of the source: ``(clue sum - n)**2`` per clue
    and ``(deg - 2*y[i][j])**2`` per point with one auxiliary ``y`` per point
    (what :func:`qlib.expand_cons` makes of the ``cons`` form).
    ``form="cells"``: cell variables ``c[i][j]`` (1 inside the loop), native
    clue constraints on the edges' XOR expressions, and a penalty of 1 on
    each 2x2 block coloured like a checkerboard (see the module docstring).
    With ``presolve=True`` (cells only) the cells that :func:`.presolve.presolve`
    puts in one parity class share one variable, and the outside's class is
    fixed, so the model holds only what the rules leave open; a
    :class:`~.presolve.Presolve` of ``board`` in its place is used as it is.
    """
    board = parse(board)
    if form in ("hubo", "inequality"):
        form = "cons"
    if form not in ("cons", "qubo", "cells"):
        raise ValueError(f"unknown form {form!r}; choose 'cons' (native constraints), 'qubo' or 'cells'")
    if presolve and form != "cells":
        raise ValueError("presolve=True builds the cell formulation; pass form='cells'")
    if form == "cells":
        return _build_cells(board, presolve)
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


@lru_cache(maxsize=16)
def _positive_clues(board: Board) -> np.ndarray:
    """(i, j) of every clue 1-3 (K x 2)."""
    return np.array([(i, j) for i, j, n in board.clue_cells if n > 0], dtype=np.int64).reshape(-1, 2)


def _build_cells(board: Board, use_presolve) -> SlitherlinkModel:
    from .presolve import Presolve, identity, presolve

    g = board.grid
    R, C = board.rows, board.cols
    if isinstance(use_presolve, Presolve):
        pre = use_presolve
        if pre.cell_class.shape != (R * C,) or pre.edges.shape != (g.num_edges,):
            raise ValueError(f"the presolve given is of another board size, not {R}x{C}")
    else:
        pre = presolve(board) if use_presolve else identity(board)
    class_vars = [qlib.var(f"c[{r // C}][{r % C}]") for r in pre.representative]
    literal = np.empty(R * C, dtype=object)   # each cell's value: a constant, a class variable or its negation
    for k in range(R * C):
        cls, par = int(pre.cell_class[k]), int(pre.cell_parity[k])
        literal[k] = Expr.constant(par) if cls < 0 else (~class_vars[cls] if par else class_vars[cls])
    zero = Expr.constant(0)

    def xor(a, b) -> Expr:  # the edge between cells a and b (-1: the outside, always 0)
        la = zero if a < 0 else literal[a]
        lb = zero if b < 0 else literal[b]
        if a >= 0 and b >= 0 and pre.cell_class[a] == pre.cell_class[b]:
            return Expr.constant(int(pre.cell_parity[a] ^ pre.cell_parity[b]))
        return (la + lb - 2 * la * lb).simplify_as_binary()
    edges = np.empty(g.num_edges, dtype=object)
    edges[:] = [xor(a, b) for a, b in edge_sides(board)]
    items = []
    for i, j, n in board.clue_cells:
        lhs = qlib.sum([edges[e] for e in g.cell_edges[i * C + j]])
        if lhs.degree == 0:   # decided by the presolve (broken only when it proved the board infeasible)
            if lhs.constant_term != n and pre.status == "open":
                raise AssertionError(f"presolve left clue ({i},{j}) broken; this is a bug")
            continue
        items.append(qlib.cons(lhs == n, label=f"clue ({i},{j})"))
    objective = Expr()
    cell = literal.reshape(R, C)
    for i in range(R - 1):
        for j in range(C - 1):
            a, b, c, d = cell[i, j], cell[i, j + 1], cell[i + 1, j], cell[i + 1, j + 1]
            objective = objective + a * d * _not(b) * _not(c) + _not(a) * _not(d) * b * c
    objective = objective.simplify_as_binary()
    nh = (R + 1) * C
    h = edges[:nh].reshape(R + 1, C)
    v = edges[nh:].reshape(R, C + 1)
    return SlitherlinkModel(board, Model(objective, items), h, v, edges, g, "cells", cells=cell,
                            presolve=pre, class_vars=np.array(class_vars + [None], dtype=object)[:-1])


def _not(literal: Expr) -> Expr:
    """The negation of a literal or a constant, as a native literal (a positive term stays positive)."""
    (term, coef), = literal.terms.items() if literal.terms else (((), 0),)
    if not term:
        return Expr.constant(1 - coef)
    return Expr({(term[0] ^ 1,): 1})


def _inside_cells(board: Board, loop) -> np.ndarray:
    """Cells enclosed by ``loop`` (flat bool), by the parity of vertical loop edges to their left."""
    R, C = board.rows, board.cols
    on = np.zeros(board.grid.num_edges, dtype=bool)
    on[np.asarray(loop, dtype=np.int64)] = True
    nh = (R + 1) * C
    vertical = on[nh:].reshape(R, C + 1)[:, :C]
    return (np.cumsum(vertical, axis=1) % 2).astype(bool).ravel()


def _loop_regions(sm: SlitherlinkModel, loop):
    """The cell values that draw ``loop``: [(cells, values)] for the region it encloses and, for a
    loop off the border, the reverse (a hole).  Only the cells along the loop are listed."""
    inside = _inside_cells(sm.board, loop)
    along = edge_sides(sm.board)[np.asarray(loop, dtype=np.int64)].ravel()
    cells = np.unique(along[along >= 0])
    values = inside[cells].astype(np.int64)
    out = [(cells, values)]
    if not (along < 0).any():
        out.append((cells, 1 - values))
    return out


def _region_literals(sm: SlitherlinkModel, cells, values):
    """``cells`` taking ``values`` as literals of the class variables: (class, negated) pairs,
    or None when a fixed cell or two cells of one class make it impossible."""
    pre = sm.presolve
    wanted = {}
    for k, val in zip(cells.tolist(), values.tolist()):
        cls, par = int(pre.cell_class[k]), int(pre.cell_parity[k])
        if cls < 0:
            if par != val:
                return None
            continue
        var_value = val ^ par
        if wanted.setdefault(cls, var_value) != var_value:
            return None
    return [(cls, 1 - value) for cls, value in sorted(wanted.items())]


def _forbid_cells(sm: SlitherlinkModel, loop) -> Expr:
    """Products of cell literals that are 1 exactly when ``loop`` bounds a region.

    Every cell along the loop is fixed: those inside it 1 and those outside 0
    (the loop encloses an inside region), or the reverse (it encloses a hole);
    a loop along the border can only do the first.
    """
    total = Expr()
    for cells, values in _loop_regions(sm, loop):
        lits = _region_literals(sm, cells, values)
        if lits is None:
            continue
        term = Expr.constant(1)
        for cls, neg in lits:
            term = term * (~sm.class_vars[cls] if neg else sm.class_vars[cls])
        total = total + term
    return total


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


def forbid_loop(sm: SlitherlinkModel, loop, form: str | None = None, *, label: str | None = None):
    """What to add to a model so that the state containing all of ``loop`` costs 1 more.

    ``form`` (default: the one ``sm`` was built for; "hubo" for the edge model):

    * ``"hubo"``: the product of the loop's edge variables (an :class:`~qlib.Expr`
      with one term of degree ``len(loop)``);
    * ``"inequality"``: ``cons(sum(x_e) <= len(loop) - 1)`` (a native constraint);
    * ``"qubo"``: that inequality expanded by :func:`qlib.expand_cons` to a
      squared penalty with binary slack variables (an Expr of degree 2); the
      slack variables get labels unique to this loop;
    * ``"cells"`` (for a model of ``build_model(board, "cells")``): products of
      cell literals, 1 when the loop bounds an inside region or a hole.

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
    if form is None:
        form = "cells" if sm.form == "cells" else "qubo" if sm.form == "qubo" else "hubo"
    if form not in FORMULATIONS:
        raise ValueError(f"unknown form {form!r}; choose one of {', '.join(SOLVE_FORMS)}")
    if (form == "cells") != (sm.form == "cells"):
        raise ValueError(f"form {form!r} does not fit a model built in the {sm.form!r} form; "
                         "a cells model takes form='cells' and only it")
    return FORMULATIONS[form].forbid(sm, loop, label=label)


def _forbid_edges(sm: SlitherlinkModel, loop, form: str, label):
    tag = _loop_tag(loop)
    label = label or f"loop {len(loop)} edges from {sm.grid.edge_name(min(loop))} #{tag}"
    xs = [sm.edges[e] for e in loop]
    if form == "hubo":
        return reduce(mul, xs[1:], Expr.constant(1) * xs[0])
    ineq = qlib.cons(qlib.sum(xs) <= len(loop) - 1, label=label)
    if form == "inequality":
        return ineq
    return qlib.expand_cons(ineq, prefix=f"_loop_{tag}").objective  # slack labels unique to this loop


# -----------------------------------------------------------------------------
# Decoding and checking
# -----------------------------------------------------------------------------
def decode(sm: SlitherlinkModel, solution) -> np.ndarray:
    """The selected-edge mask (uint8, flat edge order) of a :class:`qlib.Solution`."""
    return formulation_of(sm).decode_state(sm, solution.compiled, solution.state)


# -----------------------------------------------------------------------------
# Formulations: one object per form, with one meaning each
# -----------------------------------------------------------------------------
class Formulation:
    """How a form builds its model, reads edges from a state, and forbids a loop.

    ``build(board)``: the :class:`SlitherlinkModel`; ``decode_state(sm,
    compiled, state)``: the edge mask; ``forbid(sm, loop)``: what to add to the
    model (outer iteration); ``loop_literals(sm, compiled, loop)``: the same
    as cuts for the lazy search, lists of ``(columns, negated)``;
    ``encode_loop(sm, compiled, loop, state)``: a state drawing just ``loop``;
    ``separation(sm, compiled)``: the lazy search's separation function.
    """

    name = ""
    lazy = True

    def build(self, board, **options) -> SlitherlinkModel:
        raise NotImplementedError

    def decode_state(self, sm, compiled, state) -> np.ndarray:
        raise NotImplementedError

    def forbid(self, sm, loop, *, label=None):
        raise NotImplementedError

    def loop_literals(self, sm, compiled, loop, state=None) -> list:
        raise NotImplementedError

    def encode_loop(self, sm, compiled, loop, state) -> np.ndarray:
        raise NotImplementedError

    def separation(self, sm, compiled):
        from .separation import LoopSeparation

        return LoopSeparation(self, sm, compiled)

    def compile(self, sm, model=None):
        """The compiled ``model`` (default ``sm.model``) with a column for every variable a cut may name."""
        return qlib.compile(sm.model if model is None else model)

    def empty_literals(self, sm, compiled) -> list:
        """Cuts forbidding the empty drawing (never an answer): [] where no state draws it."""
        raise NotImplementedError

    def forbid_empty(self, sm):
        """What to add to the model so that the empty drawing costs 1 more (outer iteration)."""
        raise NotImplementedError


_LAST_COLUMNS: list = [None, None, None]


def _columns(compiled, variables) -> np.ndarray:
    """Model columns of ``variables`` (-1 where the model has none: the variable is in no term).

    The last answer is kept: a search asks the same question of the same model many times.
    """
    if _LAST_COLUMNS[0] is compiled and _LAST_COLUMNS[1] is variables:
        return _LAST_COLUMNS[2]
    out = _compute_columns(compiled, variables)
    _LAST_COLUMNS[:] = [compiled, variables, out]
    return out


def _compute_columns(compiled, variables) -> np.ndarray:
    out = np.full(len(variables), -1, dtype=np.int64)
    for k, x in enumerate(variables):
        try:
            out[k] = compiled.index_by_id(x.id)
        except KeyError:
            pass
    return out


class EdgeFormulation(Formulation):
    """The source's edge variables; ``cut`` is how a loop is forbidden ("hubo", "inequality", "qubo")."""

    def __init__(self, cut: str):
        self.name = self.cut = cut
        self.model_form = "qubo" if cut == "qubo" else "cons"
        self.lazy = cut != "qubo"   # product cuts would leave the pure QUBO

    def build(self, board, **options):
        return build_model(board, self.model_form, **options)

    def _edge_columns(self, sm, compiled):
        cols = _columns(compiled, sm.edges)
        if (cols < 0).any():
            raise ValueError(f"the solution has no value for edge {sm.edges[int(np.argmax(cols < 0))]!r}")
        return cols

    def decode_state(self, sm, compiled, state):
        return np.asarray(state)[self._edge_columns(sm, compiled)].astype(np.uint8)

    def forbid(self, sm, loop, *, label=None):
        return _forbid_edges(sm, loop, self.cut, label)

    def loop_literals(self, sm, compiled, loop, state=None):
        cols = self._edge_columns(sm, compiled)[np.asarray(loop, dtype=np.int64)]
        return [(cols, np.zeros(len(cols), dtype=np.int64))]

    def empty_literals(self, sm, compiled):
        cols = self._edge_columns(sm, compiled)
        return [(cols, np.ones(len(cols), dtype=np.int64))]

    def forbid_empty(self, sm):
        xs = list(sm.edges)
        if self.cut == "hubo":
            return reduce(mul, [~x for x in xs[1:]], Expr.constant(1) * ~xs[0])
        ineq = qlib.cons(qlib.sum(xs) >= 1, label="not the empty drawing")
        if self.cut == "inequality":
            return ineq
        return qlib.expand_cons(ineq, prefix="_empty").objective

    def encode_loop(self, sm, compiled, loop, state):
        out = np.array(state, dtype=np.uint8)
        cols = self._edge_columns(sm, compiled)
        out[cols] = 0
        out[cols[np.asarray(loop, dtype=np.int64)]] = 1
        return out


class CellFormulation(Formulation):
    """One variable per cell (or per presolved parity class); a loop is forbidden by its region."""

    name = "cells"

    def __init__(self, presolve: bool = True):
        self.use_presolve = presolve

    def build(self, board, **options):
        options.setdefault("presolve", self.use_presolve)
        return build_model(board, "cells", **options)

    def _colours(self, sm, compiled, state) -> np.ndarray:
        cols = _columns(compiled, sm.class_vars)
        state = np.asarray(state)
        values = np.zeros(len(cols) + 1, dtype=np.uint8)   # one spare: a board with no class indexes it
        values[:len(cols)] = np.where(cols >= 0, state[np.maximum(cols, 0)] if state.size else 0, 0)
        pre = sm.presolve
        return np.where(pre.cell_class < 0, pre.cell_parity,
                        values[np.maximum(pre.cell_class, 0)] ^ pre.cell_parity).astype(np.uint8)

    def decode_state(self, sm, compiled, state):
        colour = np.append(self._colours(sm, compiled, state), np.uint8(0))   # index -1: the outside
        sides = edge_sides(sm.board)
        return colour[sides[:, 0]] ^ colour[sides[:, 1]]

    def forbid(self, sm, loop, *, label=None):
        return _forbid_cells(sm, loop)

    def loop_literals(self, sm, compiled, loop, state=None):
        """Cuts for ``loop``, met in ``state``: the ring cut when it is valid, else the exact region cut.

        The ring cut (with ``state``): let ``S`` be the cells the loop encloses
        and ``N`` the cells next to ``S`` outside it.  If the loop bounds an
        inside region, "N all outside and one cell of S inside" traps an inside
        component in ``S``; no answer does that while a clue of 1-3 lies beyond
        ``S`` and ``N``, for the answer's loop would never reach that clue.  If
        the loop bounds a hole, "N all inside and one cell of S outside" traps
        an outside component away from the border, which no single loop
        leaves.  Either cut forbids every state that traps a component there,
        not only this loop, as subtour cuts do for tours.
        """
        cols = _columns(compiled, sm.class_vars)
        ring = self._ring(sm, compiled, loop, state) if state is not None else None
        regions = [ring] if ring is not None else _loop_regions(sm, loop)
        cuts = []
        for cells, values in regions:
            lits = _region_literals(sm, cells, values)
            if not lits:
                continue
            if any(cols[cls] < 0 for cls, _ in lits):
                raise ValueError("a loop cut names a class variable the compiled model has no column for; "
                                 "compile the model with formulation.compile(sm)")
            cuts.append((np.array([cols[cls] for cls, _ in lits]), np.array([neg for _, neg in lits])))
        return cuts

    def compile(self, sm, model=None):
        return qlib.compile(sm.model if model is None else model, variables=sm.class_vars)

    def _empty_values(self, sm):
        """The class values that draw nothing (every cell outside), or None where no state does."""
        pre = sm.presolve
        outside = pre.cell_class < 0
        if (pre.cell_parity[outside] != 0).any():
            return None                                 # a cell is known to be inside
        values = np.zeros(pre.num_classes, dtype=np.int64)
        inner = ~outside
        np.maximum.at(values, pre.cell_class[inner], pre.cell_parity[inner].astype(np.int64))
        seen_zero = np.zeros(pre.num_classes, dtype=bool)
        seen_zero[pre.cell_class[inner][pre.cell_parity[inner] == 0]] = True
        if (values & seen_zero).any():                  # a class holds cells on both sides
            return None
        return values                                   # value of each class variable, per class

    def empty_literals(self, sm, compiled):
        values = self._empty_values(sm)
        if values is None or not len(values):
            return []
        cols = _columns(compiled, sm.class_vars)
        if (cols < 0).any():
            raise ValueError("the compiled model lacks a class variable; compile it with formulation.compile(sm)")
        return [(cols.copy(), 1 - values)]          # negated literal where the class must be 0

    def forbid_empty(self, sm):
        values = self._empty_values(sm)
        if values is None or not len(values):
            return Expr()
        term = Expr.constant(1)
        for x, val in zip(sm.class_vars, values):
            term = term * (x if val else ~x)
        return term

    def _ring(self, sm, compiled, loop, state):
        """(cells, values) of the ring cut of ``loop`` in ``state``, or None where it is not valid."""
        board = sm.board
        R, C = board.rows, board.cols
        enclosed = _inside_cells(board, loop).reshape(R, C)
        colour = self._colours(sm, compiled, state).reshape(R, C)
        sides = edge_sides(board)[int(loop[0])]
        inner = [k for k in sides if k >= 0 and enclosed.ravel()[k]]
        if not inner:
            return None
        c = inner[0]
        inside_type = bool(colour.ravel()[c])
        grown = enclosed.copy()
        grown[1:, :] |= enclosed[:-1, :]
        grown[:-1, :] |= enclosed[1:, :]
        grown[:, 1:] |= enclosed[:, :-1]
        grown[:, :-1] |= enclosed[:, 1:]
        ring = np.flatnonzero((grown & ~enclosed).ravel())
        if inside_type:
            clues = _positive_clues(board)
            if grown[clues[:, 0], clues[:, 1]].all():
                return None
        ring_value = 0 if inside_type else 1
        cells = np.append(ring, c)
        values = np.append(np.full(len(ring), ring_value, dtype=np.int64), 1 - ring_value)
        return cells, values

    def encode_loop(self, sm, compiled, loop, state):
        out = np.array(state, dtype=np.uint8)
        inside = _inside_cells(sm.board, loop)
        cols = _columns(compiled, sm.class_vars)
        for cls, cell in enumerate(sm.presolve.representative):
            if cols[cls] >= 0:
                out[cols[cls]] = inside[cell]
        return out


#: Formulations by name (``solve(form=...)``).
FORMULATIONS = {"cells": CellFormulation(), "hubo": EdgeFormulation("hubo"),
                "inequality": EdgeFormulation("inequality"), "qubo": EdgeFormulation("qubo")}


def formulation_of(sm: SlitherlinkModel) -> Formulation:
    """The formulation that reads ``sm``'s states (edge forms share one reader)."""
    return FORMULATIONS["cells"] if sm.form == "cells" else FORMULATIONS["qubo" if sm.form == "qubo" else "hubo"]
