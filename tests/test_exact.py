"""The SAT reference solver (qlib.puzzles.slitherlink.exact) against the backtracking counter."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pysat")

import qlib  # noqa: E402
from qlib.puzzles import slitherlink as sl  # noqa: E402
from qlib.puzzles.loops import split_loops  # noqa: E402
from qlib.puzzles.slitherlink.counter import count_solutions  # noqa: E402
from qlib.puzzles.slitherlink.exact import ExactResult, count_exact, solve_exact  # noqa: E402

HAND_MADE = ["slitherlink-5x5-blog-ex1.txt", "slitherlink-5x5-blog-ex2.txt", "slitherlink-10x10-qbpp.txt"]


def empty(rows, cols):
    return sl.Board(((None,) * cols,) * rows)


def ok(board, mask):
    return sl.check(board, *board.grid.to_hv(mask)) == []


def test_shipped_table_matches_files():
    for name, entry in sl.SHIPPED.items():
        n, s = entry["size"], entry["seed"]
        assert name == f"slitherlink-{n}x{n}-gen-s{s}.txt"
        assert entry["status"] == "proved"
    sizes = [entry["size"] for entry in sl.SHIPPED.values()]
    for n in (15, 20, 25, 30):
        assert sizes.count(n) >= 5


@pytest.mark.parametrize("name", HAND_MADE + sorted(sl.SHIPPED))
def test_shipped_board_unique_both_ways(name):
    board = sl.parse(qlib.data_path(name))
    res = solve_exact(board, time_limit=60)
    assert isinstance(res, ExactResult) and res.status == "solved" and res.solved
    assert res.mask.dtype == np.uint8 and res.mask.shape == (board.grid.num_edges,)
    assert ok(board, res.mask)
    assert res.iterations >= 1 and res.seconds > 0
    assert res.iterations == 1 or res.loop_clauses >= 1   # a second SAT call follows only new loop clauses
    count, status, masks = count_exact(board, limit=2, time_limit=60)
    assert (count, status) == (1, "exact")
    assert np.array_equal(masks[0], res.mask)
    ref = sl.count_solutions(board, limit=2, time_limit=60)
    assert ref.unique, ref
    assert np.array_equal(ref.solutions[0], res.mask)


def _cases():
    shapes = [(2, 2), (2, 3), (3, 3), (3, 4), (4, 4), (4, 5), (5, 5)]
    for r, c in shapes:
        for seed in range(5):
            for fraction in (0.2, 0.5, 0.8):
                yield r, c, seed, fraction


@pytest.mark.parametrize("rows, cols, seed, fraction", list(_cases()))
def test_counts_agree_on_random_small_boards(rows, cols, seed, fraction):
    board, _ = sl.generate_dense(rows, cols, seed, fraction)
    ref = sl.count_solutions(board, limit=3, time_limit=None)
    count, status, masks = count_exact(board, limit=3, time_limit=60)
    assert (count, status) == (ref.count, ref.status), board.to_text()
    assert len(masks) == count
    for m in masks:
        assert ok(board, m)
    for m in ref.solutions:
        assert ok(board, m)
    assert len({m.tobytes() for m in masks}) == count          # distinct answers
    if status == "exact":                                      # then both found every answer
        assert sorted(m.tobytes() for m in masks) == sorted(m.tobytes() for m in ref.solutions)
    res = solve_exact(board, time_limit=60)
    assert res.status == ("unsat" if count == 0 else "solved")
    if count:
        assert ok(board, res.mask)


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)])
def test_counts_agree_without_clues(rows, cols):
    board = empty(rows, cols)
    for limit in (3, 60):
        ref = sl.count_solutions(board, limit=limit, time_limit=None)
        count, status, masks = count_exact(board, limit=limit, time_limit=60)
        assert (count, status) == (ref.count, ref.status)
        assert all(ok(board, m) for m in masks)
        assert len({m.tobytes() for m in masks}) == count


def test_every_loop_of_an_empty_2x3_by_brute_force():
    board = empty(2, 3)
    g = board.grid
    E = g.num_edges
    states = ((np.arange(1 << E)[:, None] >> np.arange(E)) & 1).astype(np.uint8)     # every edge subset
    inc = np.zeros((E, g.num_points), dtype=np.int64)
    inc[np.arange(E), g.endpoints[:, 0]] = 1
    inc[np.arange(E), g.endpoints[:, 1]] = 1
    deg = states.astype(np.int64) @ inc
    states = states[np.all((deg == 0) | (deg == 2), axis=1) & states.any(axis=1)]
    brute = {m.tobytes() for m in states if len(split_loops(m, g.endpoints)) == 1}
    count, status, masks = count_exact(board, limit=1000)
    assert status == "exact" and count == len(brute)
    assert {m.tobytes() for m in masks} == brute


@pytest.mark.parametrize("text, needs_cuts", [("33\n33\n", False), ("00\n00\n", False), ("..3\n3.3\n", True),
                                              ("...\n311\n", True)])
def test_no_single_loop_is_unsat(text, needs_cuts):
    board = sl.parse(text)
    ref = sl.count_solutions(board, limit=2, time_limit=None)
    assert (ref.count, ref.status) == (0, "exact")
    res = solve_exact(board)
    assert res.status == "unsat" and res.mask is None and not res.solved
    assert (res.loop_clauses > 0) == needs_cuts                 # some need the lazy loop clauses to prove it
    assert count_exact(board, limit=2)[:2] == (0, "exact")


def test_time_limit():
    board = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    res = solve_exact(board, time_limit=1e-9)
    assert res.status == "time_limit" and res.mask is None
    assert count_exact(board, time_limit=1e-9) == (0, "unknown", [])
    assert count_exact(board, time_limit=1e-9).stop_reason == "time_limit"


def test_bad_arguments():
    board = empty(2, 2)
    for bad, error in ((0, ValueError), (-1.0, ValueError), (float("inf"), ValueError), (float("nan"), ValueError),
                       (True, TypeError), ("1", TypeError), (None, TypeError)):
        with pytest.raises(error, match="time_limit"):
            solve_exact(board, time_limit=bad)
        with pytest.raises(error, match="time_limit"):
            count_exact(board, time_limit=bad)
    for bad, error in ((0, ValueError), (-2, ValueError), (True, TypeError), (1.5, TypeError), ("2", TypeError),
                       (None, TypeError)):
        with pytest.raises(error, match="limit"):
            count_exact(board, limit=bad)
    for bad in (42, None, "", "3\n4\n"):
        with pytest.raises(ValueError):
            solve_exact(bad)


def test_check_unique_on_an_empty_board_finds_a_second_answer_by_sat():
    """An empty 30 x 30 board has countless answers: the check blocks the answer and SAT draws another
    single loop at once (the backtracking counter took seconds there, and ran out at 40 x 40)."""
    board = sl.parse_text("\n".join(["." * 30] * 30) + "\n")
    result = sl.solve(board, seed=1, check_unique=True, time_limit=20)
    assert result.solved and result.unique is False
    second = result.second_answer
    h, v = board.grid.to_hv(second)
    assert sl.is_solution(board, h, v) and not np.array_equal(second, board.grid.from_hv(result.h, result.v))


def test_check_unique_proves_a_unique_board_by_sat():
    board = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    result = sl.solve(board, seed=1, check_unique=True)
    assert result.solved and result.unique is True and result.second_answer is None
    assert count_solutions(board, limit=2).count == 1   # the backtracking counter agrees
