"""Tests of qlib.puzzles.slitherlink.bonus: the straight-edge bonus QUBO and its exact analysis.

The blog (/work/shared/seeds/slitherlink-tytan-bonus-blog.ja.txt) reports
energies without the constant term: example 1 gives -64.08 for the answer and
-64.06 for the runner-up (two loops); example 2 gives -36.10 twice (a
multi-loop state ties the answer).  Here they are checked by enumerating every
valid state, not by sampling.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink import bonus
from qlib.puzzles.loops import split_loops

EX1 = qlib.data_path("slitherlink-5x5-blog-ex1.txt")
EX2 = qlib.data_path("slitherlink-5x5-blog-ex2.txt")


def test_bonus_model_shape_and_offset():
    for path, offset in ((EX1, 64.0), (EX2, 36.0)):      # the offsets the blog prints
        bm = bonus.build_bonus_model(path)
        assert bm.model.var_count == 60 + 36              # edges + one s per lattice point
        assert bm.offset == offset
        assert bm.model.objective.degree == 2
        assert not bm.model.constraints
        # a straight pair shares one point (cross term 2 of the degree square) and no clue
        # cell, so its coefficient is 2 - 0.01
        pairs = [t for t, c in bm.model.objective.terms.items() if len(t) == 2 and abs(c - 1.99) < 1e-12]
        assert len(pairs) == len(bm.board.grid.straight_pairs) == 2 * 6 * 4


def test_blog_minimal_example_1x3():
    # The blog's warm-up: a 1x3 board with a 2 in the middle; the answer -4.04
    # (offset 4) beats the two separate squares' -4.00.
    ranked = bonus.lowest_states([".2."])
    assert [(r.num_loops, r.straight, round(r.offset_energy, 6)) for r in ranked] == [(1, 4, -4.04), (2, 0, -4.0)]
    assert bonus.verdict([".2."])["verdict"] == "separates"


def test_example_1_separates():
    v = bonus.verdict(EX1)
    assert v["verdict"] == "separates"
    assert v["num_single_loop"] == 1
    answer, other = v["answer"], v["best_other"]
    assert answer.straight == 8 and answer.loop_lengths == [34]
    assert answer.offset_energy == pytest.approx(-64.08)
    assert other.num_loops == 2 and other.loop_lengths == [28, 6]
    assert other.offset_energy == pytest.approx(-64.06)
    assert v["gap"] == pytest.approx(0.02)
    assert [r.single_loop for r in v["lowest"]] == [True]
    board = sl.parse(EX1)
    assert sl.check(board, *board.grid.to_hv(answer.state)) == []


def test_example_2_ties():
    v = bonus.verdict(EX2)
    assert v["verdict"] == "ties"
    assert v["num_single_loop"] == 1
    answer, other = v["answer"], v["best_other"]
    assert answer.offset_energy == pytest.approx(-36.10) == other.offset_energy
    assert answer.straight == other.straight == 10
    assert answer.loop_lengths == [32]
    assert other.num_loops == 2 and other.loop_lengths == [18, 14]
    assert len(v["lowest"]) == 2 and v["gap"] == 0
    assert v["num_states"] == 14
    board = sl.parse(EX2)
    assert sl.check(board, *board.grid.to_hv(answer.state)) == []


@pytest.mark.parametrize("path", [EX1, EX2])
def test_reported_energies_match_the_compiled_model(path):
    bm = bonus.build_bonus_model(path)
    ranked = bonus.lowest_states(path)
    for r in ranked:
        assert bonus.model_energy(bm, r.state) == pytest.approx(r.energy, abs=1e-9)
        assert bonus.model_energy(bm, r.state) - bm.offset == pytest.approx(r.offset_energy, abs=1e-9)
    # A state that breaks the rules costs more: no edges at all leaves every clue unmet.
    assert bonus.model_energy(bm, np.zeros(60, dtype=np.uint8)) == pytest.approx(bm.offset)
    # With s_p free, deg/2 is its best value: the exact minimum over s equals model_energy.
    # No term holds two s variables, so the energy is a part without s plus one part per s_p
    # (given the edges), and the minimum over all 2**36 s is the sum of the minima per point.
    compiled = bm.compiled
    s_ids = {x.id for x in bm.s.ravel()}
    assert all(sum((lit >> 1) in s_ids for lit in t) <= 1 for t in bm.model.objective.terms)
    s_cols = [compiled.index(x) for x in bm.s.ravel()]
    g = bm.board.grid
    rng = np.random.default_rng(5)
    masks = [r.state for r in ranked] + [rng.integers(0, 2, g.num_edges).astype(np.uint8) for _ in range(20)]
    for mask in masks:
        state = np.zeros(compiled.var_count, dtype=np.uint8)
        for e, x in enumerate(bm.edges):
            state[compiled.index(x)] = mask[e]
        for col in s_cols:               # coordinate-wise minimum: exact for a separable energy
            energies = []
            for bit in (0, 1):
                state[col] = bit
                energies.append(compiled.energy(state))
            state[col] = int(np.argmin(energies))
        assert compiled.energy(state) == pytest.approx(bonus.model_energy(bm, mask), abs=1e-9)
        # and the best s_p is the one nearest deg/2 (a point of degree 1 ties; 3 and 4 take 1)
        deg = g.degrees(mask)
        for p, col in enumerate(s_cols):
            if deg[p] != 1:
                assert state[col] == min(deg[p] // 2, 1)


def test_enumeration_matches_brute_force_on_small_boards():
    for rows in (["2.", ".."], ["3.", ".1"], ["..", ".."], ["3..", "2..", "32."]):
        board = sl.parse(rows)
        g = board.grid
        found = {m.tobytes() for m in bonus.enumerate_states(board)}
        if g.num_edges <= 16:
            brute = set()
            for bits in itertools.product((0, 1), repeat=g.num_edges):
                m = np.array(bits, dtype=np.uint8)
                deg = g.degrees(m)
                counts = m.astype(int)[g.cell_edges].sum(axis=1)
                if np.isin(deg, (0, 2)).all() and all(counts[i * board.cols + j] == n for i, j, n in board.clue_cells):
                    brute.add(m.tobytes())
            assert found == brute
        else:
            assert len(found) == 7
    empty = bonus.enumerate_states(["..", ".."])
    # unclued 2x2: every even subgraph with no degree-4 point: 2**4 cell sets minus the 2 checkerboards
    assert len(empty) == 14


def test_every_enumerated_state_is_valid_and_ranked():
    board = sl.parse(EX2)
    ranked = bonus.lowest_states(board)
    assert [r.straight for r in ranked] == sorted((r.straight for r in ranked), reverse=True)
    for r in ranked:
        problems = sl.check(board, *board.grid.to_hv(r.state))
        assert all("loops" in p for p in problems)     # only "several loops" can be wrong
        assert len(split_loops(r.state, board.grid.endpoints)) == r.num_loops
    assert len(bonus.lowest_states(board, top=3)) == 3


def test_without_a_bonus_everything_ties():
    v = bonus.verdict(EX1, bonus=0.0)
    assert v["verdict"] == "ties"


def test_enumeration_limit():
    with pytest.raises(RuntimeError, match="limit"):
        bonus.enumerate_states(["...", "...", "..."], limit=5)


def test_unique_answer_check_on_boards_without_one():
    v = bonus.verdict(["33.33"])   # only a two-loop state
    assert v["verdict"] == "no_unique_answer" and v["num_single_loop"] == 0


BOARD10 = qlib.data_path("slitherlink-10x10-qbpp.txt")


def test_10x10_the_bonus_loses():
    # Every clue and degree state of the book's 10x10 board: the single loop (the answer) has 30
    # straight pairs, while 1906 multi-loop states have more; the 8 lowest (42 pairs) have 4 or 5 loops.
    board = sl.parse(BOARD10)
    v = bonus.verdict(board)
    assert v["verdict"] == "loses"
    assert v["num_states"] == 4304 and v["num_single_loop"] == 1
    answer, best = v["answer"], v["best_other"]
    assert answer.straight == 30 and answer.loop_lengths == [64]
    assert best.straight == 42 and best.loop_lengths == [58, 10, 8, 4]
    assert v["gap"] == pytest.approx(-0.12)
    assert sum(r.energy < answer.energy for r in v["ranked"]) == 1906
    assert sorted(r.num_loops for r in v["lowest"]) == [4, 4, 4, 4, 5, 5, 5, 5]
    bm = bonus.build_bonus_model(board)
    assert bonus.model_energy(bm, answer.state) == pytest.approx(-0.30)
    assert bonus.model_energy(bm, best.state) == pytest.approx(-0.42)
    assert sl.check(board, *board.grid.to_hv(best.state)) == ["4 loops (lengths 58 8 4 10), expected exactly one"]
    # the answer is the one the SAT solver proves
    from qlib.puzzles.slitherlink.exact import solve_exact
    assert np.array_equal(solve_exact(board).mask, answer.state)
    # distinct states, each breaking at most "one loop"
    masks = np.array([r.state for r in v["ranked"]])
    assert len({m.tobytes() for m in masks}) == len(masks)
    degrees = np.stack([board.grid.degrees(m) for m in masks[::97]])
    assert np.isin(degrees, (0, 2)).all()


def test_loop_lengths_match_split_loops():
    board = sl.parse(EX2)
    masks = np.array(bonus.enumerate_states(board))
    lengths = bonus.loop_lengths(masks, board.grid)
    for m, got in zip(masks, lengths):
        assert got == sorted((len(lp) for lp in split_loops(m, board.grid.endpoints)), reverse=True)
    assert bonus.loop_lengths(np.zeros(board.grid.num_edges, dtype=np.uint8), board.grid) == [[]]
    broken = masks[0].copy()
    broken[np.flatnonzero(broken)[0]] = 0                    # two points of degree 1
    with pytest.raises(ValueError, match="degree 0 or 2"):
        bonus.loop_lengths(broken, board.grid)


def _swap_states(k):
    """The four boundaries of the swap theorem on the (2k+3)^2 board: S, S - c, T, T + c."""
    from qlib.puzzles.slitherlink.display import cell_edges_mask

    n = 2 * k + 3
    S = np.zeros((n, n), dtype=np.uint8)
    S[k + 1] = 1
    T = 1 - S
    c = np.zeros((n, n), dtype=np.uint8)
    c[k + 1, k + 1] = 1
    return n, [cell_edges_mask(x) for x in (S, S ^ c, T, T ^ c)]


def _energy(expr, board, mask):
    bm = bonus.build_bonus_model(board, 0.0)
    return expr.evaluate({x.id: int(b) for x, b in zip(bm.edges, mask)})


@pytest.mark.parametrize("k", [1, 2, 3])
def test_swap_theorem(k):
    n, (s, s_c, t, t_c) = _swap_states(k)
    board = sl.parse(["." * n] * n)
    assert [len(x) for x in bonus.loop_lengths(np.array([s, s_c, t, t_c]), board.grid)] == [1, 2, 2, 1]
    for seed in range(3):
        F = bonus.window_energy(board, k, seed)
        d_s = _energy(F, board, s_c) - _energy(F, board, s)
        d_t = _energy(F, board, t_c) - _energy(F, board, t)
        assert d_s == pytest.approx(d_t, abs=1e-9)
        assert abs(d_s) > 1e-6                      # the swap does change the energy
    # the bonus (2-local) too, for k >= 2: it prefers S to S - c and so T to T + c
    bm = bonus.build_bonus_model(board, 0.01)
    if k >= 2:
        d = [bonus.model_energy(bm, b) - bonus.model_energy(bm, a) for a, b in ((s, s_c), (t, t_c))]
        assert d[0] == pytest.approx(d[1]) == pytest.approx(0.04)
    # an energy whose windows are wider than k breaks the equality: the theorem needs locality
    F = bonus.window_energy(board, n, 0)
    assert _energy(F, board, s_c) - _energy(F, board, s) != pytest.approx(_energy(F, board, t_c) - _energy(F, board, t))


def test_window_energy_terms_stay_in_windows():
    board = sl.parse(["....", "....", "...."])
    g = board.grid
    k = 2
    F = bonus.window_energy(board, k, 3)
    label = {x.id: g_index for g_index, x in enumerate(bonus.build_bonus_model(board, 0.0).edges)}
    windows = []
    for i in range(board.rows - k + 1):
        for j in range(board.cols - k + 1):
            cells = [(i + a) * board.cols + j + b for a in range(k) for b in range(k)]
            windows.append({int(e) for c in cells for e in g.cell_edges[c]})
    assert F.degree == 2 and F.term_count > 0
    for term in F.terms:
        edges = {label[lit >> 1] for lit in term}
        assert any(edges <= w for w in windows)
    assert F.terms == bonus.window_energy(board, k, 3).terms          # seeded
    assert F.terms != bonus.window_energy(board, k, 4).terms
    with pytest.raises(ValueError, match="window size"):
        bonus.window_energy(board, 4, 0)


@pytest.mark.parametrize("limit, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError),
                                          ("10", TypeError)])
def test_enumerate_states_rejects_bad_limits(limit, error):
    # a wrong type is a TypeError, a value out of range a ValueError (qlib.validate)
    with pytest.raises(error, match="limit must be an integer"):
        bonus.enumerate_states(qlib.data_path("slitherlink-5x5-blog-ex1.txt"), limit=limit)
