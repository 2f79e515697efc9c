"""Tests of qlib.puzzles.bonus: the straight-edge bonus QUBO and its exact analysis.

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
from qlib.puzzles import bonus
from qlib.puzzles import slitherlink as sl
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
        state = np.zeros(compiled.num_vars, dtype=np.uint8)
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
