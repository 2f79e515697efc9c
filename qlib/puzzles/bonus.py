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
degree pruning, exact), and :func:`lowest_states` / :func:`verdict` rank them by
the bonus energy, which for such a state (and the best ``s_p = deg/2``) is
``-bonus * (number of straight pairs)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import qlib
from qlib.constraints import Model
from qlib.expr import Expr

from .loops import split_loops, straight_pairs
from .slitherlink import Board, parse

__all__ = ["BonusModel", "RankedState", "build_bonus_model", "enumerate_states", "lowest_states",
           "verdict", "model_energy"]


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
        if self._compiled is None:
            self._compiled = qlib.compile(self.model)
        return self._compiled


def build_bonus_model(board, bonus: float = 0.01) -> BonusModel:
    """The blog's pure QUBO with straight-pair bonus ``bonus`` (0 gives the plain QUBO)."""
    board = parse(board)
    if not bonus >= 0:
        raise ValueError(f"bonus must be >= 0, got {bonus!r}")
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
    state = np.zeros(compiled.num_vars, dtype=np.uint8)
    for e, x in enumerate(bm.edges):
        state[compiled.index(x)] = mask[e]
    for p in range(g.num_points):
        i, j = g.point_ij(p)
        state[compiled.index(bm.s[i, j])] = 1 if deg[p] >= 2 else 0
    return float(compiled.energy(state))


def enumerate_states(board, *, limit: int | None = None) -> list[np.ndarray]:
    """Every edge state with all clues met and every point of degree 0 or 2 (exact).

    Depth-first over the lattice points in row-major order: at point ``(i, j)``
    the edges to the left and above are already fixed, so choosing the right
    and down edges fixes its degree (at most two choices); each choice is
    pruned as soon as a clue cell can no longer reach its number.  Raises
    ``RuntimeError`` if there are more than ``limit`` states.
    """
    board = parse(board)
    g = board.grid
    R, C = board.rows, board.cols
    E = g.num_edges
    clue = np.full(R * C, -1, dtype=np.int64)
    for i, j, n in board.clue_cells:
        clue[i * C + j] = n
    cells_of_edge: list[list[int]] = [[] for _ in range(E)]
    for c, es in enumerate(g.cell_edges):
        for e in es:
            cells_of_edge[int(e)].append(c)
    count = [0] * (R * C)
    undecided = [4] * (R * C)
    clue_l = clue.tolist()
    mask = [0] * E
    out: list[np.ndarray] = []

    def place(e, val) -> bool:
        mask[e] = val
        ok = True
        for c in cells_of_edge[e]:
            undecided[c] -= 1
            count[c] += val
            n = clue_l[c]
            if n >= 0 and (count[c] > n or count[c] + undecided[c] < n):
                ok = False
        return ok

    def unplace(e, val):
        mask[e] = 0
        for c in cells_of_edge[e]:
            undecided[c] += 1
            count[c] -= val

    W = C + 1
    P = g.num_points
    nh = g.num_h

    def rec(p):
        if p == P:
            if limit is not None and len(out) >= limit:
                raise RuntimeError(f"more than {limit} valid states; raise `limit`")
            out.append(np.array(mask, dtype=np.uint8))
            return
        i, j = divmod(p, W)
        din = (mask[i * C + j - 1] if j > 0 else 0) + (mask[nh + (i - 1) * W + j] if i > 0 else 0)
        right = i * C + j if j < C else -1
        down = nh + i * W + j if i < R else -1
        for r in ((0, 1) if right >= 0 else (0,)):
            for d in ((0, 1) if down >= 0 else (0,)):
                if din + r + d not in (0, 2):
                    continue
                ok = True
                placed = []
                for e, val in ((right, r), (down, d)):
                    if e >= 0:
                        placed.append((e, val))
                        if not place(e, val):
                            ok = False
                            break
                if ok:
                    rec(p + 1)
                for e, val in reversed(placed):
                    unplace(e, val)

    rec(0)
    return out


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
    ranked = []
    for mask in enumerate_states(board, limit=limit):
        straight = straight_pairs(mask, g.straight_pairs)
        loops = split_loops(mask, g.endpoints)
        lengths = sorted((len(lp) for lp in loops), reverse=True)
        energy = -bonus * straight
        ranked.append(RankedState(energy, energy - offset, straight, len(loops), lengths, mask))
    ranked.sort(key=lambda r: (r.energy, -r.straight, r.num_loops, tuple(-r.state.astype(int))))
    return ranked if top is None else ranked[:top]


def verdict(board, bonus: float = 0.01) -> dict:
    """Does the bonus make the unique single-loop answer the unique lowest state?

    Returns a dict: ``verdict`` ("separates": the answer alone is lowest; "ties":
    the answer shares the lowest energy with another state; "loses": some
    other state is strictly lower; "no_unique_answer": the board does not have
    exactly one single-loop state), ``answer`` and ``best_other`` (RankedState),
    ``gap`` (best other energy minus answer energy; > 0 means separated),
    ``lowest`` (every state at the lowest energy), ``num_states``,
    ``num_single_loop``, ``offset`` and ``message``.
    """
    board = parse(board)
    ranked = lowest_states(board, bonus)
    offset = float(sum(n * n for _, _, n in board.clue_cells))
    singles = [r for r in ranked if r.single_loop]
    out = dict(num_states=len(ranked), num_single_loop=len(singles), offset=offset, bonus=bonus,
               answer=None, best_other=None, gap=None, lowest=[], verdict="no_unique_answer")
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
