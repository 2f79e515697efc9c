"""Forbidding loops, and the formulations :func:`~.solve.solve` runs on.

A *formulation* reads a model's states as edge masks and forbids a loop in
its variables: :class:`EdgeFormulation` for the source's edge variables (a
loop forbidden by a product term, a ``<=`` constraint or a QUBO penalty) and
:class:`CellFormulation` for the cell variables (a loop forbidden by the
region it bounds, or by the stronger ring cut).  :func:`forbid_loop` writes
one such term; the lazy method's separation (:mod:`.separation`) asks a
formulation for the literals of its cuts.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache, reduce
from operator import mul

import numba
import numpy as np

import qlib
from qlib.expr import Expr

from . import counter
from .board import Board
from .model import SlitherlinkModel, build_model, edge_sides
from .rings import ring_cuts

@lru_cache(maxsize=16)
def _positive_clues(board: Board) -> np.ndarray:
    """(i, j) of every clue 1-3 (K x 2)."""
    return np.array([(i, j) for i, j, n in board.clue_cells if n > 0], dtype=np.int64).reshape(-1, 2)


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


def _shorten(sm: SlitherlinkModel, cells, values):
    """A subset of the cut "``cells`` take ``values``" that the rules still refute, shortest first.

    The cut forbids a loop (or traps a component): the rules refute it in the
    presolve's state, as they close a loop that is not the answer.  Cells are
    dropped in blocks, halving the block each pass down to single cells, each
    block only while the rest is still refuted, so the shorter cut stays valid
    (no answer has all its values) and forbids many more states than the loop
    it came from; no single cell of the result can go.  A ring of a hundred
    cells that the rules refute on two or three of them takes a few dozen
    propagations, not a hundred.  Without the presolve's state, or when the
    rules cannot refute the whole cut, the cut stays as it is.  A cut met again
    (the search meets the same loops many times) is looked up, not shortened again.
    """
    return _shorten_all(sm, [(cells, values)])[0]


def _shorten_all(sm: SlitherlinkModel, regions) -> list:
    """:func:`_shorten` of each ``(cells, values)`` of ``regions``; those not met before are shortened
    together, spread over the numba threads (each on its own copy of the presolve's state)."""
    pre = sm.presolve
    if pre is None or pre.state is None:
        return list(regions)
    regions = [(np.asarray(c), np.asarray(v)) for c, v in regions]
    keys = [(c.tobytes(), v.tobytes()) for c, v in regions]
    new = {}
    for key, region in zip(keys, regions):
        if key not in pre.shortened and key not in new:
            new[key] = region
    if new:
        states = _states(pre, min(len(new), numba.get_num_threads()))
        kept = counter.shortest_refuted_each(states, list(new.values()))
        for (key, (c, v)), keep in zip(new.items(), kept):
            pre.shortened[key] = (c[keep], v[keep])
    return [pre.shortened[key] for key in keys]


def _states(pre, n: int) -> list:
    """``n`` copies of the presolve's state for the refutations: the state itself first, copies made once."""
    while len(pre.copies) < n - 1:
        pre.copies.append(counter.copy_state(pre.state))
    return [pre.state] + pre.copies[:n - 1]


# -----------------------------------------------------------------------------
# Forbidding loops
# -----------------------------------------------------------------------------
#: How :func:`forbid_loop` forbids a loop in an edge model (``build_model`` formulations "cons" and "qubo").
EDGE_CUTS = ("hubo", "inequality", "qubo")
#: Every ``cut`` :func:`forbid_loop` takes: the edge cuts, and the cell formulation's loop terms.
CUTS = EDGE_CUTS + ("cells",)


def _loop_tag(loop) -> str:
    data = ",".join(str(int(e)) for e in sorted(int(e) for e in loop))
    return hashlib.sha1(data.encode()).hexdigest()[:10]


def forbid_loop(sm: SlitherlinkModel, loop, cut: str | None = None, *, label: str | None = None):
    """What to add to a model so that the state containing all of ``loop`` costs 1 more.

    ``cut`` (default: the one ``sm`` was built for; "hubo" for the edge model):

    * ``"hubo"``: the product of the loop's edge variables (an :class:`~qlib.Expr`
      with one term of degree ``len(loop)``);
    * ``"inequality"``: ``cons(sum(x_e) <= len(loop) - 1)`` (a native constraint);
    * ``"qubo"``: that inequality expanded by :func:`qlib.expand_cons` to a
      squared penalty with binary slack variables (an Expr of degree 2); the
      slack variables get labels unique to this loop;
    * ``"cells"`` (for a model of ``build_model(board, "cells")``): products of
      cell literals, 1 when the loop bounds an inside region or a hole.

    All are 0 unless every edge of the loop is selected, and then 1 (for
    the qubo cut: 1 at the best slack values; for the cells cut: in every
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
    if cut is None:
        cut = "cells" if sm.formulation == "cells" else "qubo" if sm.formulation == "qubo" else "hubo"
    if cut not in CUTS:
        raise ValueError(f"unknown cut {cut!r}; choose one of {', '.join(CUTS)}")
    if (cut == "cells") != (sm.formulation == "cells"):
        raise ValueError(f"cut {cut!r} does not fit a model built in the {sm.formulation!r} formulation; "
                         "a cells model takes formulation='cells' and only it")
    return FORMULATIONS[cut].forbid(sm, loop, label=label)


def _forbid_edges(sm: SlitherlinkModel, loop, cut: str, label):
    tag = _loop_tag(loop)
    label = label or f"loop {len(loop)} edges from {sm.grid.edge_name(min(loop))} #{tag}"
    xs = [sm.edges[e] for e in loop]
    if cut == "hubo":
        return reduce(mul, xs[1:], Expr.constant(1) * xs[0])
    ineq = qlib.cons(qlib.sum(xs) <= len(loop) - 1, label=label)
    if cut == "inequality":
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

    ``build(board)``: the :class:`~qlib.puzzles.slitherlink.SlitherlinkModel`; ``decode_state(sm,
    compiled, state)``: the edge mask; ``forbid(sm, loop)``: what to add to the
    model (outer iteration); ``loop_literals(sm, compiled, loop)``: the same
    as cuts for the lazy search, lists of ``(columns, negated)``;
    ``encode_loop(sm, compiled, loop, state)``: a state drawing just ``loop``;
    ``separation(sm, compiled)``: the lazy search's separation function.
    """

    name = ""
    lazy = True

    def build(self, board, **options) -> SlitherlinkModel:
        """The board's :class:`~qlib.puzzles.slitherlink.SlitherlinkModel` in this formulation."""
        raise NotImplementedError

    def decode_state(self, sm, compiled, state) -> np.ndarray:
        """The edge mask (uint8, flat edge order) that a state of ``compiled`` draws."""
        raise NotImplementedError

    def forbid(self, sm, loop, *, label=None):
        """What to add to the model to forbid ``loop`` (the outer iteration)."""
        raise NotImplementedError

    def loop_literals(self, sm, compiled, loop, state=None) -> list:
        """Cuts forbidding ``loop`` for the lazy search: a list of ``(columns, negated)`` products."""
        raise NotImplementedError

    def loops_literals(self, sm, compiled, loops, state=None) -> list:
        """:meth:`loop_literals` of each of ``loops``, met together in ``state``, in one list."""
        return [cut for loop in loops for cut in self.loop_literals(sm, compiled, loop, state)]

    def encode_loop(self, sm, compiled, loop, state) -> np.ndarray:
        """``state`` changed to draw just ``loop`` (the outer method's warm start)."""
        raise NotImplementedError

    def separation(self, sm, compiled):
        """The lazy search's separation function for ``sm`` compiled as ``compiled``."""
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
        return self.loops_literals(sm, compiled, [loop], state)

    def loops_literals(self, sm, compiled, loops, state=None):
        cols = _columns(compiled, sm.class_vars)
        regions = []
        rings = [None] * len(loops) if state is None else ring_cuts(
            sm.board, loops, self._colours(sm, compiled, state), edge_sides(sm.board), _positive_clues(sm.board))
        for loop, ring in zip(loops, rings):
            regions.extend([ring] if ring is not None else _loop_regions(sm, loop))
        cuts = []
        for cells, values in _shorten_all(sm, regions):
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

    def encode_loop(self, sm, compiled, loop, state):
        out = np.array(state, dtype=np.uint8)
        inside = _inside_cells(sm.board, loop)
        cols = _columns(compiled, sm.class_vars)
        for cls, cell in enumerate(sm.presolve.representative):
            if cols[cls] >= 0:
                out[cols[cls]] = inside[cell]
        return out


#: Formulations by name (``solve(formulation=...)``); each forbids loops with the cut of its name.
FORMULATIONS = {"cells": CellFormulation(), "hubo": EdgeFormulation("hubo"),
                "inequality": EdgeFormulation("inequality"), "qubo": EdgeFormulation("qubo")}


def formulation_of(sm: SlitherlinkModel) -> Formulation:
    """The formulation that reads ``sm``'s states (edge formulations share one reader)."""
    return FORMULATIONS["cells"] if sm.formulation == "cells" else FORMULATIONS["qubo" if sm.formulation == "qubo" else "hubo"]
