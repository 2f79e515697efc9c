"""The straight-edge bonus heuristic for Slitherlink, and an exact check of it.

A pure QUBO (after a TYTAN blog post): per lattice point ``(deg - 2*s_p)**2``
with one auxiliary ``s_p``, per clue ``(sum of the cell's 4 edges - n)**2``, and
a small bonus ``-bonus * x_a * x_b`` for every pair of collinear edges meeting
at a point (two consecutive horizontal edges in a row, two consecutive vertical
edges in a column).  The hope: splitting one loop into several adds corners and
loses straight runs, so the single loop should have the lowest energy.

Whether it does is a property of the board, not something to sample for:
:func:`enumerate_states` lists *every* edge state that satisfies the clues
with all degrees in {0, 2} (depth-first over the lattice points with clue and
degree pruning, exact, in numba), and :func:`lowest_states` / :func:`verdict`
rank them by the bonus energy, which for such a state (and the best
``s_p = deg/2``) is ``-bonus * (number of straight pairs)``.

:func:`window_energy` draws a random energy whose terms each see one k x k
window of cells: the stand-in for "any local energy" in the book's proof that
no such energy can tell one loop from several on every board.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

import qlib
from qlib import validate
from qlib.constraints import Model
from qlib.expr import Expr

from .board import Board, parse

__all__ = ["BonusModel", "RankedState", "build_bonus_model", "enumerate_states", "lowest_states",
           "verdict", "model_energy", "loop_lengths", "window_energy"]


@dataclass
class BonusModel:
    """The bonus QUBO of a board: ``model.objective`` is the whole energy.

    ``offset`` is its constant term (the sum of the squared clues): a QUBO
    library that reports energies without the constant (as TYTAN does) shows
    ``energy - offset``.
    """

    board: Board
    model: Model
    h: np.ndarray
    v: np.ndarray
    s: np.ndarray
    edges: np.ndarray
    bonus: float
    offset: float
    _compiled: object = None

    @property
    def compiled(self):
        """``qlib.compile(model)``, made once on first use (energies of many states reuse it)."""
        if self._compiled is None:
            self._compiled = qlib.compile(self.model)
        return self._compiled


def build_bonus_model(board, bonus: float = 0.01) -> BonusModel:
    """The blog's pure QUBO with straight-pair bonus ``bonus`` (0 gives the plain QUBO)."""
    board = parse(board)
    bonus = validate.number("bonus", bonus, minimum=0)
    g = board.grid
    h = qlib.var("h", board.rows + 1, board.cols)
    v = qlib.var("v", board.rows, board.cols + 1)
    s = qlib.var("s", board.rows + 1, board.cols + 1)
    edges = np.concatenate([h.ravel(), v.ravel()])
    parts = []
    for i, j, n in board.clue_cells:
        parts.append((qlib.sum([edges[e] for e in g.cell_edges[i * board.cols + j]]) - n) ** 2)
    for p in range(g.num_points):
        i, j = g.point_ij(p)
        deg = qlib.sum([edges[e] for e in g.point_edges[p] if e >= 0])
        parts.append((deg - 2 * s[i, j]) ** 2)
    for a, b in g.straight_pairs:
        parts.append(-bonus * edges[a] * edges[b])
    terms: dict = {}
    for part in parts:
        for t, c in part.terms.items():
            terms[t] = terms.get(t, 0) + c
    objective = Expr(terms).simplify_as_binary()
    model = Model(objective, [], {"aux_vars": [x.label for x in s.ravel()]})
    return BonusModel(board, model, h, v, s, edges, float(bonus), float(objective.constant_term))


def model_energy(bm: BonusModel, mask) -> float:
    """``qlib.compile(model).energy`` of an edge state, with every ``s_p`` at its best value.

    For a point of degree ``d`` the best ``s_p`` is the one nearest ``d / 2``
    (``d = 1`` ties: both give 1).
    """
    g = bm.board.grid
    mask = g.as_mask(mask)
    deg = g.degrees(mask)
    compiled = bm.compiled
    state = np.zeros(compiled.var_count, dtype=np.uint8)
    for e, x in enumerate(bm.edges):
        state[compiled.index(x)] = mask[e]
    for p in range(g.num_points):
        i, j = g.point_ij(p)
        state[compiled.index(bm.s[i, j])] = 1 if deg[p] >= 2 else 0
    return float(compiled.energy(state))


def window_energy(board, k: int, seed: int) -> Expr:
    """A random energy in which every term sees the edges of one k x k window of cells (seeded).

    For each k x k window of the board, at every position, each edge of its
    cells gets a linear term and each pair of those edges a product term, with
    coefficients drawn from a standard normal distribution.  The variables are
    the edge variables of :func:`build_bonus_model` (``h[i][j]``, ``v[i][j]``).
    It stands for an arbitrary k-local energy in the book's locality argument,
    which says that swapping one cell's sides changes any such energy by the
    same amount in two states whose edges agree near that cell.
    """
    board = parse(board)
    if not 1 <= validate.integer("k", k) <= min(board.rows, board.cols):
        raise ValueError(f"k must be a window size from 1 to {min(board.rows, board.cols)}, got {k!r}")
    g = board.grid
    edges = np.concatenate([qlib.var("h", board.rows + 1, board.cols).ravel(),
                            qlib.var("v", board.rows, board.cols + 1).ravel()])
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(board.rows - k + 1):
        for j in range(board.cols - k + 1):
            cells = [(i + a) * board.cols + j + b for a in range(k) for b in range(k)]
            window = sorted({int(e) for c in cells for e in g.cell_edges[c]})
            for a, e in enumerate(window):
                parts.append(rng.normal() * edges[e])
                for f in window[a + 1:]:
                    parts.append(rng.normal() * edges[e] * edges[f])
    return qlib.sum(parts)


def enumerate_states(board, *, limit: int | None = None) -> list[np.ndarray]:
    """Every edge state with all clues met and every point of degree 0 or 2 (exact).

    Depth-first over the lattice points in row-major order: at point ``(i, j)``
    the edges to the left and above are already fixed, so choosing the right
    and down edges fixes its degree (at most two choices); each choice is
    pruned as soon as a clue cell can no longer reach its number.  The search
    runs in numba (the 10x10 board's 4304 states take a fraction of a second).
    Raises ``RuntimeError`` if there are more than ``limit`` states.
    """
    masks = _enumerate(parse(board), limit)
    return list(masks)


def _enumerate(board: Board, limit: int | None) -> np.ndarray:
    """The (n, E) uint8 masks of every clue-and-degree state (RuntimeError past ``limit`` of them)."""
    limit = validate.integer("limit", limit, minimum=1, none=True)
    g = board.grid
    clue = np.full(board.rows * board.cols, -1, dtype=np.int64)
    for i, j, n in board.clue_cells:
        clue[i * board.cols + j] = n
    edge_cells = np.full((g.num_edges, 2), -1, dtype=np.int64)   # the one or two cells beside each edge
    for c, es in enumerate(g.cell_edges):
        for e in es:
            edge_cells[e, 0 if edge_cells[e, 0] < 0 else 1] = c
    cap = np.iinfo(np.int64).max if limit is None else int(limit)
    masks, n = _enumerate_kernel(board.rows, board.cols, clue, edge_cells, cap)
    if n < 0:
        raise RuntimeError(f"more than {limit} valid states; raise `limit`")
    return masks


def loop_lengths(masks, grid) -> list[list[int]]:
    """The loop lengths of each state in ``masks`` (n, E), longest first; every degree must be 0 or 2."""
    masks = np.ascontiguousarray(np.atleast_2d(masks), dtype=np.uint8)
    if masks.shape[1] != grid.num_edges:
        raise ValueError(f"edge masks must have {grid.num_edges} entries, got shape {masks.shape}")
    padded = np.concatenate([masks, np.zeros((len(masks), 1), dtype=np.uint8)], axis=1)
    degrees = padded[:, grid.point_edges].sum(axis=2)          # point_edges pads with -1: the zero column
    if not np.isin(degrees, (0, 2)).all():
        raise ValueError("every lattice point needs degree 0 or 2 to split a state into loops")
    flat, counts = _loop_lengths_kernel(masks, grid.point_edges, grid.endpoints)
    return [part.tolist() for part in np.split(flat, np.cumsum(counts)[:-1])] if len(masks) else []


@dataclass
class RankedState:
    """A valid edge state with its bonus energy.

    ``energy`` is ``-bonus * straight`` (the model's energy with the best
    ``s_p``); ``offset_energy`` is ``energy - offset``, as a library that drops
    the constant term reports it.
    """

    energy: float
    offset_energy: float
    straight: int
    num_loops: int
    loop_lengths: list
    state: np.ndarray

    @property
    def single_loop(self) -> bool:
        """Whether the state is one loop (an answer of the board)."""
        return self.num_loops == 1


def lowest_states(board, bonus: float = 0.01, *, top: int | None = None,
                  limit: int | None = 2_000_000) -> list[RankedState]:
    """Every valid state (clues met, degrees 0 or 2), lowest bonus energy first.

    Ties in energy are ordered by number of loops, then by state (energies of
    equal straight counts are identical floats, so ties are exact).  ``top``
    keeps only the first ``top`` entries.
    """
    board = parse(board)
    g = board.grid
    offset = float(sum(n * n for _, _, n in board.clue_cells))
    masks = _enumerate(board, limit)
    pairs = g.straight_pairs
    straight = (masks[:, pairs[:, 0]] & masks[:, pairs[:, 1]]).sum(axis=1, dtype=np.int64) if len(pairs) \
        else np.zeros(len(masks), dtype=np.int64)
    lengths = loop_lengths(masks, g)
    loops = np.array([len(x) for x in lengths], dtype=np.int64)
    # energy -bonus * straight falls as straight grows (bonus >= 0), so this is the order by energy; the
    # last key of np.lexsort is the first criterion, and -state orders the states (ones first) column by column
    keys = [-masks[:, e].astype(np.int64) for e in range(g.num_edges - 1, -1, -1)] + [loops, -straight]
    order = np.lexsort(keys) if len(masks) else np.zeros(0, dtype=np.int64)
    if top is not None:
        order = order[:top]
    ranked = []
    for i in order.tolist():
        energy = -bonus * int(straight[i])
        ranked.append(RankedState(energy, energy - offset, int(straight[i]), int(loops[i]), lengths[i], masks[i]))
    return ranked


def verdict(board, bonus: float = 0.01) -> dict:
    """Does the bonus make the unique single-loop answer the unique lowest state?

    Returns a dict: ``verdict`` ("separates": the answer alone is lowest; "ties":
    the answer shares the lowest energy with another state; "loses": some
    other state is strictly lower; "no_unique_answer": the board does not have
    exactly one single-loop state), ``answer`` and ``best_other`` (RankedState),
    ``gap`` (best other energy minus answer energy; > 0 means separated),
    ``lowest`` (every state at the lowest energy), ``ranked`` (every valid state,
    as :func:`lowest_states` ranks them), ``num_states``, ``num_single_loop``,
    ``offset`` and ``message``.
    """
    board = parse(board)
    ranked = lowest_states(board, bonus)
    offset = float(sum(n * n for _, _, n in board.clue_cells))
    singles = [r for r in ranked if r.single_loop]
    out = dict(num_states=len(ranked), num_single_loop=len(singles), offset=offset, bonus=bonus,
               answer=None, best_other=None, gap=None, lowest=[], ranked=ranked, verdict="no_unique_answer")
    if ranked:
        out["lowest"] = [r for r in ranked if r.energy == ranked[0].energy]
    if len(singles) != 1:
        out["message"] = f"{len(singles)} single-loop states: the board has no unique answer"
        return out
    answer = singles[0]
    others = [r for r in ranked if r is not answer]
    out["answer"] = answer
    if not others:
        out.update(verdict="separates", message="the answer is the only valid state")
        return out
    best = others[0]
    out["best_other"] = best
    out["gap"] = best.energy - answer.energy
    if answer.energy < best.energy:
        out["verdict"] = "separates"
        word = "below"
    elif answer.energy == best.energy:
        out["verdict"] = "ties"
        word = "tied with"
    else:
        out["verdict"] = "loses"
        word = "above"
    out["message"] = (f"answer ({answer.straight} straight pairs, energy {answer.energy:g}, "
                      f"{answer.offset_energy:g} without the constant) is {word} the best other state "
                      f"({best.num_loops} loop(s) {best.loop_lengths}, {best.straight} straight pairs, "
                      f"energy {best.energy:g})")
    return out


# -- numba kernels ------------------------------------------------------------
@njit(cache=True)
def _set_edge(e, val, sign, mask, count, undecided, clue, edge_cells):
    """Set (sign 1) or clear (sign -1) edge ``e`` at ``val``; False if a clue can no longer be met."""
    ok = True
    if e < 0:
        return ok
    mask[e] = val if sign > 0 else 0
    for t in range(2):
        cell = edge_cells[e, t]
        if cell >= 0:
            undecided[cell] -= sign
            count[cell] += sign * val
            k = clue[cell]
            if k >= 0 and (count[cell] > k or count[cell] + undecided[cell] < k):
                ok = False
    return ok


@njit(cache=True)
def _enumerate_kernel(R, C, clue, edge_cells, limit):
    """The depth-first search of enumerate_states: (states, number), number -1 past ``limit``."""
    W = C + 1
    P = (R + 1) * W
    nh = (R + 1) * C
    E = nh + R * W
    mask = np.zeros(E, dtype=np.uint8)
    count = np.zeros(R * C, dtype=np.int64)
    undecided = np.full(R * C, 4, dtype=np.int64)
    choice = np.full(P + 1, -1, dtype=np.int64)    # choice c at a point: right edge c >> 1, down edge c & 1
    out = np.zeros((16, E), dtype=np.uint8)
    n = 0
    p = 0
    while p >= 0:
        if p == P:
            if n >= limit:
                return out[:n], -1
            if n == out.shape[0]:
                bigger = np.zeros((2 * n, E), dtype=np.uint8)
                bigger[:n] = out
                out = bigger
            out[n] = mask
            n += 1
            p -= 1
            continue
        i, j = p // W, p % W
        right = i * C + j if j < C else -1
        down = nh + i * W + j if i < R else -1
        c = choice[p]
        if c >= 0:                                  # undo the choice tried last
            _set_edge(right, c >> 1, -1, mask, count, undecided, clue, edge_cells)
            _set_edge(down, c & 1, -1, mask, count, undecided, clue, edge_cells)
        din = (mask[i * C + j - 1] if j > 0 else 0) + (mask[nh + (i - 1) * W + j] if i > 0 else 0)
        c += 1
        while c < 4:
            r, d = c >> 1, c & 1
            if (r == 0 or right >= 0) and (d == 0 or down >= 0) and (din + r + d == 0 or din + r + d == 2):
                ok = _set_edge(right, r, 1, mask, count, undecided, clue, edge_cells)
                ok = _set_edge(down, d, 1, mask, count, undecided, clue, edge_cells) and ok
                if ok:
                    break
                _set_edge(right, r, -1, mask, count, undecided, clue, edge_cells)
                _set_edge(down, d, -1, mask, count, undecided, clue, edge_cells)
            c += 1
        if c < 4:
            choice[p] = c
            p += 1
            choice[p] = -1
        else:
            choice[p] = -1
            p -= 1
    return out[:n], n


@njit(cache=True)
def _loop_lengths_kernel(masks, point_edges, endpoints):
    """Loop lengths of every state (all degrees 0 or 2): the lengths, flat and longest first within a state,
    and each state's number of loops."""
    n, E = masks.shape
    counts = np.zeros(n, dtype=np.int64)
    flat = np.zeros(max(2 * n, 16), dtype=np.int64)
    seen = np.zeros(E, dtype=np.bool_)
    m = 0
    for s in range(n):
        seen[:] = False
        first = m
        for e0 in range(E):
            if masks[s, e0] == 0 or seen[e0]:
                continue
            length, e, p = 0, e0, endpoints[e0, 0]
            while e >= 0 and not seen[e]:
                seen[e] = True
                length += 1
                p = endpoints[e, 1] if endpoints[e, 0] == p else endpoints[e, 0]
                nxt = -1
                for k in range(4):
                    f = point_edges[p, k]
                    if f >= 0 and f != e and masks[s, f] == 1:
                        nxt = f
                e = nxt
            if m == flat.shape[0]:
                bigger = np.zeros(2 * m, dtype=np.int64)
                bigger[:m] = flat
                flat = bigger
            flat[m] = length
            m += 1
            counts[s] += 1
        flat[first:m] = -np.sort(-flat[first:m])          # longest first
    return flat[:m], counts
