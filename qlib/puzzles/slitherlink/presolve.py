"""Slitherlink presolve: what the rules alone decide before any search.

The root node of the exact counter (:mod:`.counter`) without its
branching: clue, degree, single-loop, inside/outside parity and reach
propagation to a fixed point, then failed-edge probing within a node budget
(:data:`PROBE_NODES`, or to a fixed point).  A probe that sets another edge
to opposite values on its two tries has proved the two edges equal (or
opposite); where that ties two classes of cells, they join.  Every single-loop
answer agrees with what it decides, so a model built on the result has the
same answers and fewer variables.

Besides decided edges it yields the cells' *parity classes*: cells known to lie
on the same side of the loop, or on opposite sides, are joined (the outside of
the board is a class of its own, always 0).  The cell formulation gives one
variable per class that does not hold the outside.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ... import validate
from . import counter
from .board import Board, parse


@dataclass(frozen=True)
class Presolve:
    """What :func:`presolve` decided.

    ``status``: "open" (a search is still needed), "solved" (propagation found
    the answer: ``edges`` is its mask), "empty" (every edge is off: the clues
    allow only the empty drawing) or "infeasible" (proved: no single loop
    meets the clues).  ``edges``: per edge -1 undecided, 0 off, 1 on.
    ``cell_class`` (R*C): a class number per cell, -1 for the outside's class;
    ``cell_parity`` (R*C): 1 where the cell is on the other side from its
    class's representative (for the outside's class: the cell's value).
    ``representative``: the first cell of each class, row-major.
    ``state``: the rules' state at the presolve's fixed point (status "open"
    only), against which :func:`.counter.refutes` tests cell values: the cell
    formulation shortens its loop cuts with it.
    """

    status: str
    edges: np.ndarray
    cell_class: np.ndarray
    cell_parity: np.ndarray
    representative: np.ndarray
    seconds: float
    state: counter.SearchState | None = field(default=None, repr=False, compare=False)
    #: shortened cuts by the cut they came from (the same loop is met again and again)
    shortened: dict = field(default_factory=dict, repr=False, compare=False)
    #: copies of ``state``, one per extra thread that shortens cuts
    copies: list = field(default_factory=list, repr=False, compare=False)

    @property
    def fixed_fraction(self) -> float:
        """Share of the edges decided."""
        return float((self.edges >= 0).mean())

    @property
    def num_classes(self) -> int:
        """Classes other than the outside's: the cell formulation's variables."""
        return len(self.representative)


#: The probing budget of :func:`presolve` beside a complete search, in nodes (a probe tries an edge
#: both ways: 2 nodes, each a propagation over the board).  Without one (``solve(complete=False)``)
#: the presolve probes to a fixed point under the deadline: with the probes' equivalences that
#: decides sgt-loopy's hard 30x30 to 60x60 boards but for 0-340 classes (0.05-0.5 s here).  Beside
#: SAT the cap stays: probing to a fixed point (without equivalences, and with the reach check at
#: every node) cost more than a SAT solve on 40x40 and 50x50 boards (0.4-1.3 s against 0.2-1.0 s
#: here), while propagation alone takes milliseconds;
#: this budget decides every shipped board up to 10x10 and keeps the presolve under about 40 ms at
#: 50x50.  The default solve of the bench's Slitherlink boards (benchmarks/boards and the shipped
#: 20x20-30x30, two seeds each) took 15.9 s in all with it, 22.8 s with full probing.
PROBE_NODES = 1000


#: Probing nodes between the first two looks at the clock when :func:`presolve` has a deadline; the step
#: then doubles while a step takes under :data:`PROBE_SECONDS`, so that the clock is read every few
#: milliseconds whatever a node costs (a 200 x 200 board's node is a propagation over 80,000 edges).
PROBE_STEP = 25

#: Seconds of probing under which the next step between two looks at the clock doubles.
PROBE_SECONDS = 0.002


def presolve(board, *, probe: bool = True, probe_nodes: int | None = -1, deadline: float | None = None) -> Presolve:
    """Decide what propagation and (with ``probe``) failed-edge probing decide on ``board``.

    The exact counter's root node (:func:`.counter.root_state`,
    :func:`.counter.propagate`, :func:`.counter.probe`) without branching, so a
    model built on the result keeps every answer.  ``probe_nodes`` caps the
    probing (nodes; None: probe to a fixed point; the default, -1:
    ``PROBE_NODES``).  What a capped pass has decided is still implied by the
    rules, so every answer agrees with it.  ``deadline`` (a ``time.perf_counter()``
    value) stops the probing there too, keeping what it has decided.
    """
    board = parse(board)
    if probe_nodes == -1:
        probe_nodes = PROBE_NODES
    probe_nodes = validate.integer("probe_nodes", probe_nodes, minimum=0, none=True)
    t0 = time.perf_counter()
    state = counter.root_state(board)
    r = counter.propagate(state)
    if r == "ok" and probe:
        r = _probe(state, probe_nodes, deadline)
    st = state.rules.st.copy()
    status = {"ok": "open", "solved": "solved"}.get(r, "infeasible")
    if status == "open" and (st >= 0).all():   # every edge decided, no loop closed: only the empty drawing
        status = "empty"
    if status == "solved":
        st = np.where(st == 1, 1, 0)
    cell_class, cell_parity, representative = _classes(state.rules.uf, state.lattice.NC)
    return Presolve(status, st, cell_class, cell_parity, representative, time.perf_counter() - t0,
                    state if status == "open" else None)


def _probe(state, budget: int | None, deadline: float | None) -> str:
    """:func:`.counter.probe` for ``budget`` nodes, looking at the clock every few milliseconds when there
    is a ``deadline`` (:data:`PROBE_STEP`, :data:`PROBE_SECONDS`).

    To a fixed point (``budget`` None) it probes first without the reach check, whose walk over the
    whole board dominates a node, then with it: the same fixed point on sgt-loopy's hard boards, in
    a third to an eighth of the time (60x60: 0.23 s against 1.94 s)."""
    phases = (False, True) if budget is None else (True,)
    for connect in phases:
        r = _probe_phase(state, budget, deadline, connect)
        if r != "ok" or (deadline is not None and time.perf_counter() >= deadline):
            return r
    return r


def _probe_phase(state, budget: int | None, deadline: float | None, connect: bool) -> str:
    if deadline is None:
        return counter.probe(state, budget, connect=connect)
    stop = None if budget is None else counter.nodes(state) + budget
    size = PROBE_STEP
    now = time.perf_counter()
    while True:
        step = size if stop is None else min(size, stop - counter.nodes(state))
        if step <= 0 or now >= deadline:
            return "ok"
        r = counter.probe(state, step, connect=connect)
        if r != "ok" or not counter.probing(state):
            return r
        then, now = now, time.perf_counter()
        if now - then < PROBE_SECONDS:   # a pause resumes exactly where it stopped: only the clock's reads change
            size *= 2


def _classes(uf: np.ndarray, NC: int):
    """Class number and parity of every cell from the counter's union-find (row NC is the outside).

    Classes are numbered in the order of their first cell; the roots and the
    parities to them come by pointer doubling, in O(log depth) array passes."""
    parent = uf[:NC + 1, 0].astype(np.int64)
    parity = np.where(parent == np.arange(NC + 1), 0, uf[:NC + 1, 1]).astype(np.int64)
    while True:
        grand = parent[parent]
        if (grand == parent).all():
            break
        parity ^= parity[parent]
        parent = grand
    root = parent
    inside = root[:NC] != root[NC]
    cells = np.flatnonzero(inside)
    roots, first = np.unique(root[cells], return_index=True)
    order = np.argsort(first, kind="stable")
    representative = cells[first[order]].astype(np.int64)
    number = np.empty(len(roots), dtype=np.int64)
    number[order] = np.arange(len(roots))
    cell_class = np.full(NC, -1, dtype=np.int64)
    cell_class[cells] = number[np.searchsorted(roots, root[cells])]
    reference = np.full(NC, parity[NC], dtype=np.int64)   # the outside is 0
    reference[cells] = parity[representative[cell_class[cells]]]
    cell_parity = (parity[:NC] ^ reference).astype(np.uint8)
    return cell_class, cell_parity, representative


def identity(board: Board) -> Presolve:
    """No presolve: every cell its own class (the plain cell formulation)."""
    NC = board.rows * board.cols
    return Presolve("open", np.full(board.grid.num_edges, -1, dtype=np.int64), np.arange(NC, dtype=np.int64),
                    np.zeros(NC, dtype=np.uint8), np.arange(NC, dtype=np.int64), 0.0)
