"""Slitherlink presolve: what the rules alone decide before any search.

The root node of the exact counter (:mod:`.counter`) without its
branching: clue, degree, single-loop, inside/outside parity and reach
propagation to a fixed point, then failed-edge probing within a node budget
(:data:`PROBE_NODES`).  Every single-loop
answer agrees with what it decides, so a model built on the result has the
same answers and fewer variables.

Besides decided edges it yields the cells' *parity classes*: cells known to lie
on the same side of the loop, or on opposite sides, are joined (the outside of
the board is a class of its own, always 0).  The cell formulation gives one
variable per class that does not hold the outside.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

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
    """

    status: str
    edges: np.ndarray
    cell_class: np.ndarray
    cell_parity: np.ndarray
    representative: np.ndarray
    seconds: float

    @property
    def fixed_fraction(self) -> float:
        """Share of the edges decided."""
        return float((self.edges >= 0).mean())

    @property
    def num_classes(self) -> int:
        """Classes other than the outside's: the cell formulation's variables."""
        return len(self.representative)


#: The probing budget of :func:`presolve`, in nodes (a probe tries an edge both ways: 2 nodes, each
#: a propagation over the board).  Probing to a fixed point costs more than a SAT solve on 40x40
#: and 50x50 boards (0.4-1.3 s against 0.2-1.0 s here), while propagation alone takes milliseconds;
#: this budget decides every shipped board up to 10x10 and keeps the presolve under about 40 ms at
#: 50x50.  The default solve of the bench's Slitherlink boards (benchmarks/boards and the shipped
#: 20x20-30x30, two seeds each) took 15.9 s in all with it, 22.8 s with full probing.
PROBE_NODES = 1000


def presolve(board, *, probe: bool = True, probe_nodes: int | None = -1) -> Presolve:
    """Decide what propagation and (with ``probe``) failed-edge probing decide on ``board``.

    The exact counter's root node (:func:`.counter.root_state`,
    :func:`.counter.propagate`, :func:`.counter.probe`) without branching, so a
    model built on the result keeps every answer.  ``probe_nodes`` caps the
    probing (nodes; None: probe to a fixed point; the default, -1:
    ``PROBE_NODES``).  What a capped pass has decided is still implied by the
    rules, so every answer agrees with it.
    """
    board = parse(board)
    if probe_nodes == -1:
        probe_nodes = PROBE_NODES
    probe_nodes = validate.integer("probe_nodes", probe_nodes, minimum=0, none=True)
    t0 = time.perf_counter()
    state = counter.root_state(board)
    r = counter.propagate(state)
    if r == "ok" and probe:
        r = counter.probe(state, probe_nodes)
    st = state.rules.st.copy()
    status = {"ok": "open", "solved": "solved"}.get(r, "infeasible")
    if status == "open" and (st >= 0).all():   # every edge decided, no loop closed: only the empty drawing
        status = "empty"
    if status == "solved":
        st = np.where(st == 1, 1, 0)
    cell_class, cell_parity, representative = _classes(state.rules.uf, state.lattice.NC)
    return Presolve(status, st, cell_class, cell_parity, representative, time.perf_counter() - t0)


def _classes(uf: np.ndarray, NC: int):
    """Class number and parity of every cell from the counter's union-find (row NC is the outside)."""
    root = np.empty(NC + 1, dtype=np.int64)
    parity = np.empty(NC + 1, dtype=np.int64)
    for c in range(NC + 1):
        x, par = c, 0
        while uf[x, 0] != x:
            par ^= int(uf[x, 1])
            x = int(uf[x, 0])
        root[c], parity[c] = x, par
    outside = root[NC]
    number = {}
    cell_class = np.empty(NC, dtype=np.int64)
    cell_parity = np.empty(NC, dtype=np.uint8)
    representative = []
    rep_parity = {}
    for c in range(NC):
        if root[c] == outside:
            cell_class[c] = -1
            cell_parity[c] = parity[c] ^ parity[NC]  # the outside is 0
            continue
        k = number.get(root[c])
        if k is None:
            k = number[root[c]] = len(representative)
            representative.append(c)
            rep_parity[k] = parity[c]
        cell_class[c] = k
        cell_parity[c] = parity[c] ^ rep_parity[k]
    return cell_class, cell_parity, np.asarray(representative, dtype=np.int64)


def identity(board: Board) -> Presolve:
    """No presolve: every cell its own class (the plain cell formulation)."""
    NC = board.rows * board.cols
    return Presolve("open", np.full(board.grid.num_edges, -1, dtype=np.int64), np.arange(NC, dtype=np.int64),
                    np.zeros(NC, dtype=np.uint8), np.arange(NC, dtype=np.int64), 0.0)
