"""A Slitherlink QUBO whose ground states are exactly the single-loop answers.

The clue and degree rules of :mod:`~qlib.puzzles.slitherlink.model` are local and allow several loops.
A local rule on the edge variables alone cannot tell one loop from two, but a
model with auxiliary variables can: this one orders the points along the loop,
after the subtour elimination of Miller, Tucker and Zemlin (MTZ) for the
travelling salesman problem.

Variables, on a board with ``E`` edges and ``P`` lattice points:

* ``x_e``: the edge variables of :func:`~qlib.puzzles.slitherlink.model.build_model`
  (``h[i][j]``, ``v[i][j]``);
* ``arc[e][0]``, ``arc[e][1]``: edge ``e`` drawn as a *forward arc* from its
  first end point to its second, or from the second to the first;
* ``close[e]``: edge ``e`` is the *closing edge*, the one edge of the loop that is
  not a forward arc; only the sides of one *anchor* cell may close the loop
  (the cell with the largest clue: every answer draws at least one of its
  sides), or every edge when the board has no positive clue;
* ``pos[p][k]``: the position ``u_p`` of point ``p`` along the loop in ``B``
  binary digits, ``u_p = sum_k 2**k pos[p][k]`` in ``0 .. U = 2**B - 1``
  (:func:`position_bits`: ``B = bit_length(L // 2)`` for the longest loop ``L``
  the lattice allows).

Native constraints (all linear, so each squares to a quadratic penalty):

* clue: ``sum(x_e around the cell) == n``; degree: ``deg(p) == one_of(0, 2)``;
* use: ``x_e == arc[e][0] + arc[e][1] + close[e]`` (a drawn edge is one of the three);
* one closing edge: ``sum(close) == 1``;
* in: at most one forward arc enters each point;
* order: ``-U <= u_q - u_p - M arc[e][0] + M arc[e][1] <= U`` for ``e = (p, q)``
  with ``M = U + 1``: a forward arc ``p -> q`` forces ``u_q >= u_p + 1``, one
  ``q -> p`` forces ``u_p >= u_q + 1``, and an edge that is neither leaves the
  positions free (two positions always differ by at most ``U``).

Why exactly the single loops: a cycle without the closing edge has only
forward arcs; with at most one entering each of its points they run around
the cycle in one direction, and the positions would have to increase all the
way round.  So every cycle holds the closing edge, and there is one.  A single
loop of ``L`` edges is met by closing it at an anchor side: the other
``L - 1`` edges form a path, whose arcs run away from its middle point in
both directions, with positions ``0, 1, ..., L / 2`` counted from there.

:func:`qlib.expand_cons` turns the constraints into a pure QUBO: one
auxiliary per point for the degree rule, one slack bit per point for ``in``,
``B + 1`` slack bits per edge for ``order``, nothing for the equalities.
That is ``O(E log P)`` variables and ``O(E log**2 P)`` terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import qlib
from qlib.constraints import Model
from qlib.expr import Expr

from ..loops import Grid, split_loops
from ..result import ModelSizes
from .board import Board, parse
from .rules import is_solution

__all__ = ["SingleLoopModel", "build_single_loop_model", "position_bits", "anchor_cell", "best_slack",
           "CompletionSearch"]


def position_bits(board) -> int:
    """``B``: the binary digits of a position, enough for the longest loop the lattice allows.

    A loop of ``L`` edges needs positions up to ``L / 2`` (the forward arcs run
    both ways from one point to the closing edge), so ``B = bit_length(L // 2)``
    for the longest ``L``: the even number ``P`` or ``P - 1`` (every loop on the
    lattice has even length).  ``B`` digits allow loops of up to ``2**(B+1) - 2`` edges.
    """
    board = parse(board)
    points = board.grid.num_points
    longest = points - points % 2
    return max(1, (longest // 2).bit_length())


def anchor_cell(board) -> tuple[int, int, int] | None:
    """``(i, j, n)`` of the clue cell whose sides may close the loop: the largest clue, first in
    row-major order among equals; None when no clue is positive (then every edge may)."""
    board = parse(board)
    best = None
    for i, j, n in board.clue_cells:
        if n > 0 and (best is None or n > best[2]):
            best = (i, j, n)
    return best


@dataclass
class SingleLoopModel(ModelSizes):
    """The single-loop encoding of a board (see the module docstring).

    ``model``: the pure QUBO (``qlib.expand_cons`` of ``native``); ``native``: the
    same rules as native constraints.  ``edges`` (E,), ``arcs`` (E, 2) and
    ``positions`` (P, B) are object arrays of variables; ``closing`` maps each
    edge that may close the loop to its variable.  ``bits`` is ``B``, ``big_m``
    is ``M = 2**B``; ``anchor`` the cell of :func:`~.single_loop.anchor_cell`.
    """

    board: Board
    model: Model
    native: Model
    edges: np.ndarray
    arcs: np.ndarray
    closing: dict
    positions: np.ndarray
    grid: Grid
    bits: int
    big_m: int
    anchor: tuple | None
    _search: object = field(default=None, repr=False, compare=False)

    def decode(self, solution) -> np.ndarray:
        """The edge mask (uint8, flat edge order) of a :class:`qlib.Solution` of ``model`` or ``native``
        (or of a ``{label: 0/1}`` state)."""
        return np.array([_value(solution, x) for x in self.edges], dtype=np.uint8)

    def position(self, state, p: int) -> int:
        """The position ``u_p`` of lattice point ``p`` in a :class:`qlib.Solution` or a ``{label: 0/1}`` state."""
        return sum(_value(state, b) << k for k, b in enumerate(self.positions[p]))

    def draw(self, state, ax=None):
        """Draw a state (a :class:`qlib.Solution` or ``{label: 0/1}``): the drawn edges, each forward
        arc as an arrow, the closing edge in red, and the position of every point on the drawing.
        Returns the Axes."""
        from .display import draw

        g = self.grid
        mask = np.array([_value(state, x) for x in self.edges], dtype=np.uint8)
        ax = draw(self.board, *g.to_hv(mask), ax=ax, loops=[])
        ij = np.array([g.point_ij(p) for p in range(g.num_points)], dtype=float)
        for e in np.flatnonzero(mask):
            a, b = g.endpoints[e]
            if e in self.closing and _value(state, self.closing[e]):
                ax.plot(ij[[a, b], 1], ij[[a, b], 0], color="tab:red", lw=3, zorder=4)
            for k, (tail, head) in enumerate(((a, b), (b, a))):
                if _value(state, self.arcs[e, k]):
                    mid = (ij[tail] + ij[head]) / 2
                    step = (ij[head] - ij[tail]) * 0.2
                    ax.annotate("", xy=(mid[1] + step[1], mid[0] + step[0]), xytext=(mid[1] - step[1], mid[0] - step[0]),
                                arrowprops=dict(arrowstyle="-|>", color="tab:blue", lw=1.5), zorder=5)
        for p in np.flatnonzero(g.degrees(mask)):
            ax.text(ij[p, 1] + 0.12, ij[p, 0] - 0.12, str(self.position(state, p)), fontsize=8, color="tab:blue",
                    ha="left", va="bottom", zorder=6)
        return ax

    def sizes(self) -> dict:
        """Variables by kind, terms and constraints of both forms.

        ``edge_vars``, ``arc_vars``, ``closing_vars``, ``position_vars`` (the
        native variables), ``aux_vars`` (what ``expand_cons`` added: slack bits
        and the degree auxiliaries), ``vars`` and ``terms`` of the QUBO,
        ``native_terms`` (the constraints' left-hand sides) and ``constraints``.
        """
        return dict(edge_vars=self.edges.size, arc_vars=self.arcs.size, closing_vars=len(self.closing),
                    position_vars=self.positions.size, aux_vars=len(self.model.report["slack_vars"]),
                    vars=self.model.var_count, terms=self.model.term_count,
                    native_terms=self.native.term_count, constraints=len(self.native.constraints),
                    max_degree=self.model.objective.degree)

    def completion(self, mask, form: str = "qubo") -> dict | None:
        """An energy-0 state of ``model`` (``form="qubo"``) or ``native`` (``"native"``) whose
        edges are ``mask``, as ``{label: 0/1}``; None when ``mask`` is not an answer.

        The loop is closed at its first anchor side (in walking order), the
        forward arcs run away from the middle point of the remaining path, and
        each point's position is its distance from there along the path; every
        other position is 0.  None also when the loop is longer than ``bits``
        allow.  For the QUBO the slack bits then take their best values, one
        constraint at a time (see :func:`~.single_loop.best_slack`).
        """
        if form not in ("qubo", "native"):
            raise ValueError(f"form must be 'qubo' or 'native', got {form!r}")
        g = self.grid
        mask = g.as_mask(mask)
        if not is_solution(self.board, *g.to_hv(mask)):
            return None
        loop = [int(e) for e in split_loops(mask, g.endpoints)[0]]
        if len(loop) > 2 * self.big_m - 2:
            return None   # more than the positions allow: too few bits (``bits=``)
        start = next(k for k, e in enumerate(loop) if e in self.closing)
        loop = loop[start:] + loop[:start]      # the closing edge first
        state = {x.label: 0 for x in self.native_vars()}
        for e in loop:
            state[self.edges[e].label] = 1
        state[self.closing[loop[0]].label] = 1
        # the path p_0, ..., p_{L-1} from one end of the closing edge round to the other
        a, b = (int(p) for p in g.endpoints[loop[0]])
        path = [a if a in g.endpoints[loop[1]] else b]
        for e in loop[1:]:
            a, b = (int(p) for p in g.endpoints[e])
            path.append(b if path[-1] == a else a)
        middle = (len(loop) - 1) // 2   # the source: arcs run away from it, positions |k - middle|
        for k, e in enumerate(loop[1:]):
            tail, head = (path[k], path[k + 1]) if k >= middle else (path[k + 1], path[k])
            state[self.arcs[e, 0 if tail == g.endpoints[e, 0] else 1].label] = 1
        for k, p in enumerate(path):
            for bit, var in enumerate(self.positions[p]):
                state[var.label] = (abs(k - middle) >> bit) & 1
        if form == "native":
            return state
        return best_slack(self.model, state)

    def native_vars(self) -> list:
        """Every variable of ``native``: edges, arcs, closing edges, positions."""
        return list(self.edges) + list(self.arcs.ravel()) + list(self.closing.values()) + list(self.positions.ravel())

    def admits(self, mask) -> bool:
        """Whether some values of every other variable satisfy all of ``native`` with the edges at
        ``mask``: whether the QUBO has an energy-0 state with these edges.  Decided by an exact
        search over the model's own rows (:class:`~.single_loop.CompletionSearch`), not by the reasoning of
        :meth:`completion`."""
        if self._search is None:
            self._search = CompletionSearch(self)
        return self._search.admits(mask)


def _value(state, var) -> int:
    """The value of ``var`` in a :class:`qlib.Solution` or a ``{label: 0/1}`` state."""
    return int(state[var.label]) if isinstance(state, dict) else int(state[var])


def best_slack(model: Model, state: dict) -> dict:
    """``state`` completed with the best values of the auxiliaries that :func:`qlib.expand_cons` added
    to ``model`` (its ``report["slack_by_constraint"]``), exactly: each constraint's auxiliaries
    occur in its own penalty only, so each group is minimised alone over its ``2**b`` values."""
    groups = list(model.report["slack_by_constraint"].values())
    group_of = {qlib.var(label).id: g for g, labels in enumerate(groups) for label in labels}
    known = {qlib.var(label).id: int(v) for label, v in state.items()}
    reduced = [dict() for _ in groups]   # per group: {tuple of its aux ids: coefficient}
    for term, coef in model.objective.terms.items():
        ids = [lit >> 1 for lit in term]   # expand_cons leaves plain literals only
        aux = [i for i in ids if i in group_of]
        if not aux or any(not known.get(i, 0) for i in ids if i not in group_of):
            continue
        owners = {group_of[i] for i in aux}
        if len(owners) != 1:
            raise ValueError("a term couples the auxiliaries of two constraints; they cannot be set one by one")
        part = reduced[owners.pop()]
        part[tuple(aux)] = part.get(tuple(aux), 0) + coef
    out = dict(state)
    for labels, part in zip(groups, reduced):
        local = {qlib.var(label).id: k for k, label in enumerate(labels)}
        values = (np.arange(1 << len(labels))[:, None] >> np.arange(len(labels))[None, :]) & 1
        energy = np.zeros(len(values))
        for term, coef in part.items():
            energy += coef * values[:, [local[i] for i in term]].all(axis=1)
        out.update(zip(labels, (int(b) for b in values[int(np.argmin(energy))])))
    return out


def build_single_loop_model(board, *, bits: int | None = None, anchor: bool = True) -> SingleLoopModel:
    """The single-loop encoding of ``board``: native constraints and their pure QUBO.

    ``bits``: the binary digits of each position (default :func:`~.single_loop.position_bits`;
    ``bits`` digits allow only loops of at most ``2**(bits + 1) - 2`` edges).  ``anchor``: let
    only the sides of the :func:`~.single_loop.anchor_cell` close the loop (False: any edge).
    """
    board = parse(board)
    g = board.grid
    B = position_bits(board) if bits is None else int(bits)
    if B < 1:
        raise ValueError(f"bits must be at least 1, got {bits!r}")
    M = 1 << B
    U = M - 1
    R, C, E, P = board.rows, board.cols, g.num_edges, g.num_points
    h, v = qlib.var("h", R + 1, C), qlib.var("v", R, C + 1)
    edges = np.concatenate([h.ravel(), v.ravel()])
    arcs = qlib.var("arc", E, 2)
    pos = qlib.var("pos", P, B)
    cell = anchor_cell(board) if anchor else None
    candidates = g.cell_edges[cell[0] * C + cell[1]] if cell else range(E)
    closing = {int(e): qlib.var(f"close[{int(e)}]") for e in sorted(candidates)}

    def u(p):
        return qlib.sum([(1 << k) * pos[p, k] for k in range(B)])

    items = []
    for i, j, n in board.clue_cells:
        items.append(qlib.cons(qlib.sum([edges[e] for e in g.cell_edges[i * C + j]]) == n, label=f"clue ({i},{j})"))
    for p in range(P):
        i, j = g.point_ij(p)
        incident = [int(e) for e in g.point_edges[p] if e >= 0]
        items.append(qlib.cons(qlib.sum([edges[e] for e in incident]) == qlib.one_of(0, 2), label=f"point ({i},{j})"))
        entering = [arcs[e, 0] if g.endpoints[e, 1] == p else arcs[e, 1] for e in incident]
        items.append(qlib.cons(qlib.sum(entering) <= 1, label=f"in ({i},{j})"))
    for e in range(E):
        use = arcs[e, 0] + arcs[e, 1] + (closing[e] if e in closing else 0)
        items.append(qlib.cons(edges[e] - use == 0, label=f"use {g.edge_name(e)}"))
    items.append(qlib.cons(qlib.sum(list(closing.values())) == 1, label="one closing edge"))
    for e in range(E):
        p, q = (int(k) for k in g.endpoints[e])
        order = u(q) - u(p) - M * arcs[e, 0] + M * arcs[e, 1]
        items.append(qlib.cons(order == qlib.between(-U, U), label=f"order {g.edge_name(e)}"))
    native = Model(Expr(), items)
    return SingleLoopModel(board, qlib.expand_cons(native), native, edges, arcs, closing, pos, g, B, M, cell)


class CompletionSearch:
    """Exact: whether the auxiliaries of a :class:`SingleLoopModel` can satisfy every native row
    with the edge variables fixed.

    It reads the rows of ``native``, all linear: the rows without positions
    are checked during a depth-first search over the arc and closing
    variables (a point's edges together, so that its rows are decided early),
    each row pruned as soon as the range of its left-hand side misses its
    allowed set; the ``order`` rows, once their arcs are set, read
    ``lo <= u_q - u_p <= hi``, and a system of such difference constraints
    with ``0 <= u <= U`` has an integer solution exactly when its constraint
    graph has no negative cycle (Bellman-Ford), checked whenever a row
    tighter than the bounds is added.
    """

    def __init__(self, slm: SingleLoopModel):
        self.U = slm.big_m - 1
        position = {var.id: (p, 1 << k) for p, row in enumerate(slm.positions) for k, var in enumerate(row)}
        self.edge_ids = [x.id for x in slm.edges]
        g = slm.grid
        order, seen = [], set()
        for p in range(g.num_points):
            for e in g.point_edges[p]:
                if e >= 0 and e not in seen:
                    seen.add(e)
                    order += [slm.arcs[e, 0].id, slm.arcs[e, 1].id] + ([slm.closing[e].id] if e in slm.closing else [])
        self.order = order
        step = {vid: k for k, vid in enumerate(order)}
        self.rows = []                                  # (intervals, constant, {var id: coef}): rows without positions
        self.rows_of = {vid: [] for vid in order}       # the rows each searched variable is in
        self.closes = {vid: [] for vid in order}        # the order rows whose last arc it is
        for con in slm.native.constraints:
            const, coefs = _linear(con)
            plain = {v: c for v, c in coefs.items() if v not in position}
            if len(plain) == len(coefs):
                for v in plain:
                    if v in self.rows_of:
                        self.rows_of[v].append(len(self.rows))
                self.rows.append((con.allowed.intervals(), const, plain))
                continue
            sign = {}
            for v, c in coefs.items():
                if v in position:
                    p, w = position[v]
                    sign.setdefault(p, set()).add(c / w)
            if sorted(map(tuple, sign.values())) != [(-1.0,), (1.0,)] or len(coefs) - len(plain) != 2 * slm.bits:
                raise ValueError(f"row {con.label!r} is not lo <= u_q - u_p + (other variables) <= hi")
            q = next(r for r, s in sign.items() if s == {1.0})
            p = next(r for r, s in sign.items() if s == {-1.0})
            (lo, hi), = con.allowed.intervals()
            self.closes[order[max(step[v] for v in plain)]].append((const, plain, p, q, lo, hi))

    def admits(self, mask) -> bool:
        """Whether some values of the searched variables and positions satisfy every row."""
        values = dict(zip(self.edge_ids, (int(b) for b in mask)))
        return all(self._can_hold(r, values) for r in range(len(self.rows))) and self._search(0, values, [])

    def _can_hold(self, r, values) -> bool:
        intervals, lo, plain = self.rows[r]
        hi = lo
        for v, c in plain.items():
            if v in values:
                lo, hi = lo + c * values[v], hi + c * values[v]
            else:
                lo, hi = lo + min(c, 0), hi + max(c, 0)
        return any(a <= hi + 1e-9 and lo - 1e-9 <= b for a, b in intervals)

    def _search(self, k, values, arcs) -> bool:
        if k == len(self.order):
            return True
        vid = self.order[k]
        for bit in (0, 1):
            values[vid] = bit
            if not all(self._can_hold(r, values) for r in self.rows_of[vid]):
                continue
            more = self._differences(self.closes[vid], values)
            if more is None or (more and not self._positions_exist(arcs + more)):
                continue
            if self._search(k + 1, values, arcs + more):
                return True
        del values[vid]
        return False

    def _differences(self, rows, values):
        """``rows`` as constraint-graph arcs ``(i, j, w)``, ``u_j - u_i <= w``, where tighter than the
        bounds; None when one of them can never hold."""
        out = []
        for const, plain, p, q, lo, hi in rows:
            shift = const + sum(c * values[v] for v, c in plain.items())
            low, high = lo - shift, hi - shift
            if low > high:
                return None
            if high < self.U:
                out.append((p, q, high))
            if low > -self.U:
                out.append((q, p, -low))
        return out

    def _positions_exist(self, arcs) -> bool:
        """No negative cycle among ``arcs`` and the bounds ``0 <= u <= U`` (node -1 is the zero)."""
        nodes = {i for a in arcs for i in a[:2]}
        arcs = arcs + [(-1, i, self.U) for i in nodes] + [(i, -1, 0) for i in nodes]
        dist = dict.fromkeys(nodes | {-1}, 0)
        for _ in range(len(dist)):
            changed = False
            for i, j, w in arcs:
                if dist[i] + w < dist[j]:
                    dist[j] = dist[i] + w
                    changed = True
            if not changed:
                return True
        return False


def _linear(con):
    """``(constant, {var id: coefficient})`` of a constraint's linear left-hand side over plain variables."""
    coefs = {}
    for term, c in con.lhs.terms.items():
        if not term:
            continue
        if len(term) != 1 or term[0] & 1:
            raise ValueError(f"row {con.label!r} is not linear in plain variables")
        coefs[term[0] >> 1] = coefs.get(term[0] >> 1, 0) + c
    return con.lhs.constant_term, coefs
