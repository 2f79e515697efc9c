"""The exact Slitherlink counter: backtracking over the edges with propagation and probing.

:func:`count_solutions` counts a board's single-loop answers up to a limit; with
``limit=2`` it proves a board unique or finds a second answer.  A node cap and a
time limit make it answer "unknown" instead of running on.
:class:`BacktrackSearch` is the same search, resumable for a node budget at a
time (the default solver interleaves it with its local search).

A search's data is a :class:`SearchState` of three named tuples that the numba
kernels of :mod:`.propagation` take: the :class:`Lattice` (the board's fixed
tables, from :func:`lattice`), the :class:`Rules` (the arrays the rules change)
and the :class:`Search` (the search's own arrays).  :func:`root_state` builds it
for a board, the one place that sets a search up (:class:`BacktrackSearch`,
:func:`count_solutions` and the presolve go through it, and the memory check
adds up its table of arrays); :func:`propagate` and :func:`probe` run the root
node's rules on it (the presolve of :mod:`.presolve` is that root node without
branching).  The kernels pause after a node budget and resume, so the Python
side can watch the clock.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from ... import validate
from ..count import Count
from ..loops import grid
from . import propagation as K
from .branching import run as run_search
from .board import parse

__all__ = ["Lattice", "Rules", "Search", "SearchState", "lattice", "root_state", "propagate", "probe", "refutes",
           "shortest_refuted", "shortest_refuted_each", "copy_state", "nodes", "BacktrackSearch", "count_solutions",
           "CHUNK_SECONDS"]


class Lattice(NamedTuple):
    """The board's fixed tables, in the edge and point order of :func:`qlib.puzzles.loops.grid`.

    ``ends`` (E, 2) end points; ``ec`` (E, 2) the cells beside each edge,
    ascending, -1 padded, and ``ecd`` the same with the outside as cell NC;
    ``pe`` (P, 4) each point's edges, ascending, -1 padded; ``ce`` (NC, 4) each
    cell's top, bottom, left and right edges; ``bnd`` the edges on the border;
    ``P``, ``NC``, ``E`` the numbers of points, cells and edges.
    """

    ends: np.ndarray
    ec: np.ndarray
    ecd: np.ndarray
    pe: np.ndarray
    ce: np.ndarray
    bnd: np.ndarray
    P: int
    NC: int
    E: int


class Rules(NamedTuple):
    """The arrays the propagation rules read and change (:mod:`.propagation` says what each holds).

    Edge values ``st``, points ``pt``, cells ``cl``, inside/outside classes
    ``uf``, the undo trails (``trail``, ``mtrail``, ``utrail``), the
    propagation ``queue`` and the scalars ``sc``.  A tuple of its own so that
    the rules' kernels, called for every edge set, take only these arrays.
    """

    st: np.ndarray
    pt: np.ndarray
    cl: np.ndarray
    uf: np.ndarray
    trail: np.ndarray
    mtrail: np.ndarray
    utrail: np.ndarray
    queue: np.ndarray
    sc: np.ndarray


class Search(NamedTuple):
    """The search's own arrays, beside the :class:`Rules`.

    The reach check's ``seen`` and ``stack``, the decisions ``lv``, the
    answers kept ``sols`` (uint8), probing scratch (``mk``, ``mv``,
    ``common``, ``equiv``) and the first value each decision tries (``hint``).
    """

    seen: np.ndarray
    stack: np.ndarray
    lv: np.ndarray
    sols: np.ndarray
    mk: np.ndarray
    mv: np.ndarray
    common: np.ndarray
    hint: np.ndarray
    equiv: np.ndarray


class SearchState(NamedTuple):
    """One search on one board, as :func:`root_state` builds it: its :class:`Lattice`, :class:`Rules`
    and :class:`Search` (the kernels take the three apart, each only what it uses)."""

    lattice: Lattice
    rules: Rules
    search: Search


def _sizes(rows: int, cols: int, keep: int) -> tuple[int, int, int, dict]:
    """(E, P, NC, {field: shape}) of a search on a ``rows`` x ``cols`` board keeping ``keep`` answers.

    The one table of the search's arrays: :func:`root_state` allocates the
    :class:`SearchState` from it and the memory check adds it up.
    """
    E = rows * (cols + 1) + (rows + 1) * cols
    P = (rows + 1) * (cols + 1)
    NC = rows * cols
    border = 2 * (rows + cols)
    logn = int(math.log2(NC + 1)) + 2
    queue = 6 * E + P + NC + 4 * (NC + 1 + border) * logn + 16
    shapes = dict(st=(E,), pt=(P, 4), cl=(NC, 4), uf=(NC + 1, 4), trail=(E,), mtrail=(2 * E + 2, 3),
                  utrail=(E + 1,), queue=(queue,), sc=(K.NSC,), seen=(P,), stack=(P + 1,), lv=(E + 1, 6),
                  sols=(keep, E), mk=(E,), mv=(E,), common=(2 * E,), hint=(E,), equiv=(E,))
    return E, P, NC, shapes


def _check_memory(rows: int, cols: int, keep: int) -> None:
    """The search's arrays for a ``rows`` x ``cols`` board keeping ``keep`` answers must fit the budget.

    Adds up :func:`_sizes` (what :func:`root_state` allocates), the
    :class:`Lattice` and NumPy's temporaries while building it.
    """
    from ...limits import check_allocation, format_bytes

    E, P, NC, shapes = _sizes(rows, cols, keep)
    state = sum(math.prod(shape) for name, shape in shapes.items() if name != "sols")
    tables = E * 6 + P * 4 + NC * 4 + 2 * (rows + cols)       # the Lattice
    scratch = E * 3 + P * 4 + NC * 4                          # NumPy's temporaries while building it
    search = 8 * (state + tables + scratch)
    answers = keep * E
    what = (f"the exact counter's search on a {rows}x{cols} board ({E} edges): arrays {format_bytes(search)} "
            f"+ store={keep} answers x {E} bytes")
    check_allocation(search + answers, what)


def lattice(rows: int, cols: int) -> Lattice:
    """The :class:`Lattice` of a ``rows`` x ``cols`` board.

    Built with NumPy (not from ``grid``, whose Python loops take most of a
    second on a 200x200 board), so the search starts at once and a short time
    limit holds.
    """
    R, C = rows, cols
    W = C + 1
    nh = (R + 1) * C
    E, P, NC = nh + R * W, (R + 1) * W, R * C
    hi, hj = np.divmod(np.arange(nh, dtype=np.int64), C)            # horizontal edge (i, j)
    vi, vj = np.divmod(np.arange(R * W, dtype=np.int64), W)         # vertical edge (i, j)
    ends = np.empty((E, 2), dtype=np.int64)
    ends[:nh, 0] = hi * W + hj
    ends[:nh, 1] = hi * W + hj + 1
    ends[nh:, 0] = vi * W + vj
    ends[nh:, 1] = (vi + 1) * W + vj
    # cells beside an edge: above/below a horizontal one, left/right of a vertical one
    side = np.full((E, 2), -1, dtype=np.int64)
    side[:nh, 0] = np.where(hi > 0, (hi - 1) * C + hj, -1)
    side[:nh, 1] = np.where(hi < R, hi * C + hj, -1)
    side[nh:, 0] = np.where(vj > 0, vi * C + vj - 1, -1)
    side[nh:, 1] = np.where(vj < C, vi * C + vj, -1)
    ec = _compact(side)
    ecd = np.where(ec >= 0, ec, NC)
    bnd = np.flatnonzero((ec >= 0).sum(axis=1) == 1).astype(np.int64)
    # a point's edges in ascending order: left, right (horizontal), up, down (vertical)
    pi, pj = np.divmod(np.arange(P, dtype=np.int64), W)
    around = np.stack([np.where(pj > 0, pi * C + pj - 1, -1), np.where(pj < C, pi * C + pj, -1),
                       np.where(pi > 0, nh + (pi - 1) * W + pj, -1), np.where(pi < R, nh + pi * W + pj, -1)],
                      axis=1)
    pe = _compact(around)
    ci, cj = np.divmod(np.arange(NC, dtype=np.int64), C)
    ce = np.stack([ci * C + cj, (ci + 1) * C + cj, nh + ci * W + cj, nh + ci * W + cj + 1], axis=1)
    return Lattice(ends, ec, ecd, pe, ce, bnd, int(P), int(NC), int(E))


def _compact(rows: np.ndarray) -> np.ndarray:
    """Each row's entries >= 0 moved to the front, in order, the rest -1."""
    order = np.argsort(rows < 0, axis=1, kind="stable")
    return np.ascontiguousarray(np.take_along_axis(rows, order, axis=1))


def root_state(board, *, keep: int = 0, exclude=None, hint=None) -> SearchState:
    """The :class:`SearchState` of ``board`` before any decision.

    The one place a search is set up (:class:`BacktrackSearch` and the
    presolve start here).  Room for ``keep`` answers; ``exclude`` and ``hint``
    as in :func:`count_solutions`.  The arrays are checked against the memory
    budget (:func:`qlib.limits.check_allocation`) before they are made.  The
    queue holds every point and cell, so the first :func:`propagate` applies
    every rule.
    """
    board = parse(board)
    keep = validate.integer("keep", keep, minimum=0)
    R, C = board.rows, board.cols
    _check_memory(R, C, keep)
    lat = lattice(R, C)
    P, NC = lat.P, lat.NC
    _, _, _, shapes = _sizes(R, C, keep)
    a = {name: np.zeros(shape, dtype=np.uint8 if name == "sols" else np.int64) for name, shape in shapes.items()}
    a["st"][:] = -1
    pt = a["pt"]                                   # on, undecided, mate, path length
    pt[:, 1] = (lat.pe >= 0).sum(axis=1)
    pt[:, 2] = np.arange(P)
    cl = a["cl"]                                   # on, undecided, clue (-1: none), excluded count
    cl[:, 1] = 4
    cl[:, 2:] = -1
    for i, j, n in board.clue_cells:
        cl[i * C + j, 2] = n
    if exclude is not None:
        i, j, n = exclude
        if not (0 <= i < R and 0 <= j < C) or n not in (0, 1, 2, 3):
            raise ValueError(f"exclude must be (row, col, count) inside the board with count 0-3, got {exclude!r}")
        if board.clues[i][j] is not None:
            raise ValueError(f"exclude names cell ({i},{j}), which has a clue")
        cl[i * C + j, 3] = n
    uf = a["uf"]                                   # parent, parity, size, next member
    uf[:, 0] = np.arange(NC + 1)
    uf[:, 2] = 1
    uf[:, 3] = np.arange(NC + 1)
    sc = a["sc"]
    sc[K.NBAD] = int((cl[:, 2] > 0).sum() + (cl[:, 3] == 0).sum())   # cells whose rule fails at count 0
    a["queue"][:P + NC] = np.arange(P + NC)
    sc[K.QT] = P + NC
    a["hint"][:] = -1
    if hint is not None:
        a["hint"][:] = grid(R, C).as_mask(hint)
    sc[K.MODE] = K.PROPAGATE
    return SearchState(lat, Rules(**{name: a[name] for name in Rules._fields}),
                       Search(**{name: a[name] for name in Search._fields}))


_RESULT = {K.OK: "ok", K.FAIL: "fail", K.SOLVED: "solved", K.PAUSE: "ok"}


def propagate(state: SearchState, *, connect: bool = True) -> str:
    """Apply the rules to a fixed point from what is queued (everything, in a fresh :func:`root_state`).

    Clue, degree, single-loop and inside/outside parity rules, and with
    ``connect`` the reach check.  Returns "ok" (nothing broke), "solved" (an
    answer closed: the rest of the edges are off) or "fail" (no answer agrees).
    What it decides stays in ``state``; each pass counts as a node.
    """
    lat, rs, sr = state
    return _RESULT[int(K.fix(bool(connect), lat, rs, sr.seen, sr.stack))]


def probe(state: SearchState, max_nodes: int | None = None, *, connect: bool = True,
          equivalences: bool = True) -> str:
    """Failed-edge probing of every undecided edge, after :func:`propagate`, until nothing changes.

    Each edge is tried on and off with full propagation: a value that fails
    fixes the other one, and a value both tries imply is fixed.  With
    ``equivalences`` (the default), an edge the two tries set to opposite values
    is tied to the probed one, and the classes of cells that this ties join.
    ``max_nodes`` caps it (None: to a fixed point); a capped pass keeps what it
    fixed, all implied by the rules.  The backtracking search's own probes do
    not take equivalences, so its nodes stay as they were.  Returns "ok", "solved" or "fail" as
    :func:`propagate` does.
    """
    max_nodes = validate.integer("max_nodes", max_nodes, minimum=0, none=True)
    stop = (1 << 62) if max_nodes is None else nodes(state) + max_nodes
    r, _ = K.probe(np.int64(stop), bool(connect), bool(equivalences), *state)
    return _RESULT[int(r)]


def refutes(state: SearchState, cells, values, *, connect: bool = True) -> bool:
    """Whether the rules refute "cell ``cells[k]`` lies inside the loop exactly when ``values[k]`` is 1" in
    ``state`` (each cell a flat index): True only when propagating those values fails, so that no answer
    agrees with all of them.  ``state`` is left as it was."""
    cells, values = _cell_values(state, cells, values)
    lat, rs, sr = state
    return bool(K.refute(cells, values, bool(connect), lat, rs, sr.seen, sr.stack))


def shortest_refuted(state: SearchState, cells, values, *, connect: bool = True) -> np.ndarray:
    """Indices ``k`` of a subset of "``cells`` take ``values``" (as in :func:`refutes`) that the rules still
    refute and from which no single cell can go; every index when the rules do not refute the whole.
    ``state`` is left as it was."""
    cells, values = _cell_values(state, cells, values)
    lat, rs, sr = state
    return K.shorten(cells, values, bool(connect), lat, rs, sr.seen, sr.stack)


def copy_state(state: SearchState) -> SearchState:
    """A copy of ``state`` that the rules can change on their own (the lattice, which they only read, is shared)."""
    lat, rs, sr = state
    return SearchState(lat, Rules(*(a.copy() for a in rs)), Search(*(a.copy() for a in sr)))


def shortest_refuted_each(states, pairs, *, connect: bool = True) -> list:
    """:func:`shortest_refuted` of each ``(cells, values)`` pair, the pairs taken in turn by threads that each
    hold one of ``states`` (equal copies of one state, :func:`copy_state`): the same answers as one state
    gives, since each refutation leaves its state as it was."""
    pairs = [_cell_values(states[0], c, v) for c, v in pairs]
    out = [None] * len(pairs)
    used = max(1, min(len(states), len(pairs)))
    errors = []
    turn = itertools.count()   # next() holds the GIL: each pair goes to one thread

    def work(t):
        lat, rs, sr = states[t]
        try:
            for k in iter(turn.__next__, None):
                if k >= len(pairs) or errors:
                    break
                out[k] = K.shorten(*pairs[k], bool(connect), lat, rs, sr.seen, sr.stack)
        except BaseException as err:   # re-raised in the caller's thread
            errors.append(err)

    helpers = [_helpers(used - 1).submit(work, t) for t in range(1, used)]
    try:
        work(0)
    finally:
        for helper in helpers:
            helper.result()
    if errors:
        raise errors[0]
    return out


_HELPERS: dict = {}


def _helpers(n: int) -> ThreadPoolExecutor:
    """``n`` threads that stay for the process's life (a shortening takes a millisecond or so, and starting a
    thread for it costs as much), one pool per process: a forked child makes its own."""
    key = (os.getpid(), n)
    pool = _HELPERS.get(key)
    if pool is None:
        pool = _HELPERS[key] = ThreadPoolExecutor(max_workers=n, thread_name_prefix="qlib-shorten")
    return pool


def _cell_values(state, cells, values):
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=np.int64)
    NC = state.lattice.NC
    if cells.shape != values.shape or (cells.size and (cells.min() < 0 or cells.max() >= NC)):
        raise ValueError(f"cells must be flat cell indices 0..{NC - 1}, one value each")
    return cells, values


def probing(state: SearchState) -> bool:
    """Whether the last :func:`probe` stopped at its ``max_nodes`` mid-pass (the next one goes on from there)."""
    return bool(state.rules.sc[K.PACTIVE])


def nodes(state: SearchState) -> int:
    """Propagations to a fixed point so far in ``state``, probes included."""
    return int(state.rules.sc[K.NODES])


#: What one numba call of :func:`count_solutions` aims to last when a time limit is set.
CHUNK_SECONDS = 0.02
_INT64_MAX = (1 << 63) - 1


class BacktrackSearch:
    """The exact counter's search on one board, resumable: :meth:`~BacktrackSearch.advance` runs it for a node budget.

    Holds the search's :class:`~qlib.puzzles.slitherlink.counter.Lattice` and
    :class:`~qlib.puzzles.slitherlink.counter.SearchState` (see
    :func:`count_solutions` for the propagation and the options).  The search
    is deterministic: the same board, options and budgets give the same nodes,
    answers and order, so a caller can interleave it with another search and
    still get repeatable results.  ``status`` is "running" until the search
    ends: "exhausted" (every branch closed: ``count`` is the number of
    answers) or "limit" (``limit`` answers found).
    """

    def __init__(self, board, limit: int = 2, *, connect: bool = True, probe_depth: int = 1_000_000,
                 store: int = 10, exclude=None, hint=None):
        board = parse(board)
        limit = validate.integer("limit", limit, minimum=1)
        store = validate.integer("store", store, minimum=0)
        probe_depth = validate.integer("probe_depth", probe_depth)
        self.board, self.limit = board, limit
        self.state = root_state(board, keep=min(limit, store), exclude=exclude, hint=hint)
        self.E = self.state.lattice.E
        self.connect = bool(connect)
        self.probe_depth = int(max(-1, min(probe_depth, _INT64_MAX)))
        self.sc = self.state.rules.sc
        self.sols = self.state.search.sols
        self.status = "running"

    @property
    def nodes(self) -> int:
        """Propagations to a fixed point so far, probes included."""
        return int(self.sc[K.NODES])

    @property
    def count(self) -> int:
        """Answers found so far (at most ``limit``)."""
        return int(min(self.sc[K.COUNT], self.limit))

    @property
    def solutions(self) -> list:
        """The answers found and kept (uint8 edge masks), in the order found."""
        return [self.sols[k].copy() for k in range(min(self.count, len(self.sols)))]

    def advance(self, node_stop: int | None = None, deadline: float | None = None, chunk: int = 2_000) -> str:
        """Search until it ends, ``nodes`` reaches ``node_stop`` or ``time.perf_counter()`` passes ``deadline``.

        Returns the status: "exhausted", "limit", or "running" (stopped by the
        budget or the clock; call again to go on).  The kernel runs in calls
        of at most ``chunk`` nodes, fewer near the deadline (each call aims at
        ``CHUNK_SECONDS``, from the speed measured so far), so the clock is
        read often on large boards too.
        """
        if self.status != "running":
            return self.status
        kernel_limit = int(min(self.limit, _INT64_MAX))        # no count gets there; numba takes int64
        step = int(chunk) if deadline is None else int(min(chunk, 8))   # the first calls measure the speed
        sc = self.sc
        while True:
            stop = sc[K.NODES] + step
            if node_stop is not None:
                if sc[K.NODES] >= node_stop:
                    return self.status
                stop = min(stop, int(node_stop))
            nodes0, c0 = int(sc[K.NODES]), time.perf_counter()
            mode = run_search(stop, kernel_limit, self.connect, self.probe_depth, *self.state)
            now = time.perf_counter()
            if mode == K.DONE:
                self.status = "limit" if sc[K.COUNT] >= self.limit else "exhausted"
                return self.status
            if deadline is not None:
                if now >= deadline:
                    return self.status
                # the next call: about CHUNK_SECONDS of nodes at the speed just seen, and no more than the time left
                rate = max(int(sc[K.NODES]) - nodes0, 1) / max(now - c0, 1e-6)
                step = int(min(chunk, max(1, rate * min(CHUNK_SECONDS, 0.9 * (deadline - now)))))


def count_solutions(board, limit: int = 2, time_limit: float | None = 10.0, max_nodes: int | None = None,
                    chunk: int = 2_000, connect: bool = True,
                    probe_depth: int = 1_000_000, store: int = 10, exclude=None,
                    hint=None) -> Count:
    """Count the single-loop answers of ``board`` exactly, stopping at ``limit``.

    Depth-first search over the edges (undecided / on / off).  After every
    decision a queue propagates, to a fixed point:

    * clue cells: a cell whose count is reached empties its undecided sides,
      one that needs all its undecided sides fills them;
    * lattice points: degree 0 or 2 (a path end with one way on takes it);
    * single loop: an edge that would close a path into a loop is removed
      unless that loop would hold every selected edge and meet every clue; a
      loop that closes that way is an answer (the rest of the edges are off);
    * inside/outside parity: each decided edge says whether its two cells (or
      a cell and the outside) are on the same side of the loop; a union-find
      with parities joins them, and an undecided edge between two cells of one
      class is decided by their parity;
    * reach (``connect``): every selected edge must be reachable from the
      others through undecided-or-on edges; edges out of reach are set off.

    At decision depths up to ``probe_depth`` (default: every depth) each
    undecided edge is also probed: tried on and off with full propagation; a
    value that fails fixes the other one, a value both tries imply is fixed,
    and the search branches on the edge whose tries decided the most edges.
    Otherwise it branches at the path end with fewest open edges.

    ``limit=2`` proves uniqueness (``result.unique``) or finds a second answer.
    ``time_limit`` (seconds, None for none) and ``max_nodes`` (propagations to
    a fixed point, probes included; None for none) stop the search with status
    "unknown".  The search runs in numba calls of at most ``chunk`` nodes,
    fewer when a time limit is set (each call aims at ``CHUNK_SECONDS``, from
    the speed measured so far, and at the time left), and a probing pass pauses
    and resumes at any edge, so the time limit holds on large boards too.  The
    first ``store`` answers found are kept; the arrays are checked against the
    memory budget (:func:`qlib.limits.check_allocation`) before they are made.
    ``exclude=(i, j, n)`` counts only the answers in which cell ``(i, j)`` (a
    cell without clue) does not have ``n`` sides drawn.  ``hint`` (an edge mask)
    is the value each decision tries first (on where no hint is given): an
    answer near the hint is found sooner; the count does not depend on it.
    Returns a :class:`~qlib.puzzles.count.Count` (``nodes``: the nodes searched).
    """
    chunk = validate.integer("chunk", chunk, minimum=1)
    time_limit = validate.time_limit(time_limit, none=True)
    max_nodes = validate.integer("max_nodes", max_nodes, minimum=1, none=True)
    t0 = time.perf_counter()
    search = BacktrackSearch(board, limit, connect=connect, probe_depth=probe_depth, store=store, exclude=exclude,
                             hint=hint)
    deadline = None if time_limit is None else t0 + time_limit
    status = search.advance(max_nodes, deadline, chunk)
    if status == "running":
        stop = "max_nodes" if max_nodes is not None and search.nodes >= max_nodes else "time_limit"
    else:
        stop = status
    return Count(search.solutions, count=search.count, limit=limit, stop_reason=stop, nodes=search.nodes,
                 seconds=time.perf_counter() - t0)
