"""Tests of qlib.puzzles.slitherlink.generator and .counter: random loops, clues, the exact counter, the generators."""

from __future__ import annotations

import time

import numpy as np
import pytest

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.loops import clue_counts, grid, split_loops
from qlib.puzzles.slitherlink import bonus, counter, generator

TEN = "slitherlink-10x10-qbpp.txt"
TEN_ANSWER_LENGTH = 64          # the tutorial's answer is one loop of 64 edges


def empty(rows, cols):
    return sl.Board(((None,) * cols,) * rows)


def single_loops(board):
    """Every single-loop answer by brute force (bonus.enumerate_states lists all clue+degree states)."""
    g = board.grid
    return [s for s in bonus.enumerate_states(board) if s.any() and len(split_loops(s, g.endpoints)) == 1]


@pytest.mark.parametrize("rows, cols", [(1, 1), (2, 3), (5, 5), (7, 4), (12, 12), (20, 20)])
def test_random_loop_is_one_simple_loop(rows, cols):
    g = grid(rows, cols)
    for seed in range(4):
        mask = sl.random_loop(rows, cols, seed)
        assert mask.shape == (g.num_edges,) and mask.dtype == np.uint8
        assert set(np.unique(g.degrees(mask)).tolist()) <= {0, 2}
        assert len(split_loops(mask, g.endpoints)) == 1
        region = generator.random_region(rows, cols, seed)
        assert np.array_equal(sl.random_loop(rows, cols, seed), mask)      # deterministic
        if rows * cols >= 25:
            assert 0.35 <= region.mean() <= 0.65


def test_random_loop_seeds_differ():
    masks = {sl.random_loop(10, 10, s).tobytes() for s in range(5)}
    assert len(masks) == 5


def test_board_from_mask_has_the_loops_clues():
    g = grid(6, 8)
    for seed in range(3):
        mask = sl.random_loop(6, 8, seed)
        board = sl.board_from_mask(mask, 6, 8)
        clues = [list(row) for row in board.clues]
        assert len(clues) == 6 and all(len(r) == 8 for r in clues)
        assert sl.check(board, *board.grid.to_hv(mask)) == []
        for i in range(6):
            for j in range(8):
                assert clues[i][j] == int(mask[g.cell_edges[i * 8 + j]].sum())
        assert clue_counts(mask, g.cell_edges).reshape(6, 8).tolist() == clues
        keep = np.arange(48).reshape(6, 8) % 3 == 0
        part = sl.board_from_mask(mask, 6, 8, keep)
        assert all((part.clues[i][j] is None) != keep[i, j] for i in range(6) for j in range(8))


def test_count_ten_by_ten_unique_and_matches_solver():
    board = sl.parse(qlib.data_path(TEN))
    res = sl.count_solutions(board, limit=2, time_limit=30)
    assert res.status == "exact" and res.count == 1 and res.value == 1 and res.unique
    answer = res.solutions[0]
    assert sl.check(board, *board.grid.to_hv(answer)) == []
    assert int(answer.sum()) == TEN_ANSWER_LENGTH
    found = sl.solve(board, seed=0, time_limit=30)
    assert found.solved
    assert np.array_equal(found.answer_state, answer)


def test_count_two_on_empty_2x2():
    res = sl.count_solutions(empty(2, 2), limit=2)
    assert res.value == 2 and res.status == "limit" and len(res.solutions) == 2
    for s in res.solutions:
        assert len(split_loops(s, grid(2, 2).endpoints)) == 1
    # every loop on the 3x3 lattice: 4 unit squares, 2+2 dominoes, 4 L-trominoes, the 2x2 square
    assert sl.count_solutions(empty(2, 2), limit=100).value == 13
    # simple cycles of the 4x4 grid graph (OEIS A140517)
    assert sl.count_solutions(empty(3, 3), limit=10_000).value == 213


def test_count_agrees_with_brute_force():
    rng = np.random.default_rng(7)
    for trial in range(40):
        rows, cols = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        mask = sl.random_loop(rows, cols, trial)
        keep = rng.random((rows, cols)) < rng.uniform(0.1, 0.7)
        board = sl.board_from_mask(mask, rows, cols, keep)
        want = single_loops(board)
        for connect, probe in ((True, 10**6), (False, -1)):
            res = sl.count_solutions(board, limit=10**6, connect=connect, probe_depth=probe, time_limit=None)
            assert res.status == "exact" and res.count == len(want), (trial, board.to_text())
        got = sl.count_solutions(board, limit=10**6, store=10**6, time_limit=None)
        assert sorted(s.tobytes() for s in got.solutions) == sorted(s.tobytes() for s in want)


def test_exclude_counts_only_answers_off_that_count():
    board = empty(2, 2)
    # loops through cell (0,0) with 2 sides drawn: 2 dominoes, 2 L's, the big square
    res_all = sl.count_solutions(board, limit=100, store=100)
    g = grid(2, 2)
    two = sum(1 for s in res_all.solutions if s[g.cell_edges[0]].sum() == 2)
    res = sl.count_solutions(board, limit=100, exclude=(0, 0, 2))
    assert res.count == 13 - two
    with pytest.raises(ValueError):
        sl.count_solutions(sl.Board(((1, None), (None, None))), exclude=(0, 0, 1))


def test_small_generated_board_unique():
    mask = sl.random_loop(5, 5, 3)
    board = sl.board_from_mask(mask, 5, 5)
    res = sl.count_solutions(board)
    assert res.unique and np.array_equal(res.solutions[0], mask)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generate_6x6_unique(seed):
    board, mask = sl.generate(6, 6, seed)
    assert board.rows == board.cols == 6
    assert len(board.clue_cells) < 36
    res = sl.count_solutions(board, limit=2, time_limit=30)
    assert res.unique
    assert np.array_equal(res.solutions[0], mask)
    assert sl.check(board, *board.grid.to_hv(mask)) == []
    # brute force agrees
    states = single_loops(board)
    assert len(states) == 1 and np.array_equal(states[0], mask)


def test_generate_same_seed_same_board():
    a = sl.generate(6, 6, 11)
    b = sl.generate(6, 6, 11)
    c = sl.generate(6, 6, 12)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    assert a[0] != c[0]
    assert sl.generate_dense(8, 8, 5, 0.5)[0] == sl.generate_dense(8, 8, 5, 0.5)[0]


def test_generate_tiny_boards():
    for rows, cols in ((1, 2), (2, 1), (1, 7), (2, 2), (3, 2)):
        for seed in range(3):
            board, mask = sl.generate(rows, cols, seed)
            assert len(single_loops(board)) == 1
            assert sl.check(board, *board.grid.to_hv(mask)) == []


def test_generate_keep_floor():
    board, mask = sl.generate(6, 6, 4, keep=0.8)
    assert len(board.clue_cells) >= 0.8 * 36
    assert sl.count_solutions(board).unique


def test_generate_dense():
    board, mask = sl.generate_dense(8, 8, 3, fraction=0.5)
    assert len(board.clue_cells) == 32
    assert sl.check(board, *board.grid.to_hv(mask)) == []
    with pytest.raises(ValueError):
        sl.generate_dense(8, 8, 3, fraction=1.5)


class _TickingClock:
    """A stand-in for the ``time`` module whose clock moves ``tick`` seconds at every reading."""

    def __init__(self, tick):
        self.now, self.tick = 1000.0, tick

    def perf_counter(self):
        self.now += self.tick
        return self.now


def test_limits_give_unknown(monkeypatch):
    board = empty(30, 30)
    clock = _TickingClock(0.002)
    monkeypatch.setattr(counter, "time", clock)   # the counter's clock, as the test sets it
    res = sl.count_solutions(board, limit=10**9, time_limit=0.01)
    assert res.status == "unknown" and res.value == "unknown" and res.stop_reason == "time_limit"
    assert 0.01 <= res.seconds <= 0.01 + 3 * clock.tick   # it stopped at the first reading past the deadline
    monkeypatch.undo()   # the real clock again for the node-budget checks below
    res = sl.count_solutions(board, limit=10**9, max_nodes=100, time_limit=None)
    assert res.value == "unknown" and res.stop_reason == "max_nodes"
    res = sl.count_solutions(board, limit=10**9, max_nodes=5000, time_limit=None, probe_depth=-1)
    assert res.value == "unknown" and res.stop_reason == "max_nodes" and res.nodes <= 5000


def test_bad_arguments():
    # a value out of range is a ValueError
    with pytest.raises(ValueError):
        sl.random_loop(0, 3, 1)
    with pytest.raises(ValueError):
        sl.random_loop(3, 3, -1)
    with pytest.raises(ValueError):
        sl.generate(1, 1, 0)
    with pytest.raises(ValueError):
        sl.count_solutions(empty(2, 2), limit=0)
    with pytest.raises(ValueError):
        sl.count_solutions(empty(2, 2), time_limit=0)
    with pytest.raises(ValueError, match="chunk"):
        sl.count_solutions(empty(2, 2), chunk=0)
    with pytest.raises(ValueError, match="max_nodes"):
        sl.count_solutions(empty(2, 2), max_nodes=0)
    # a value of the wrong type is a TypeError (qlib.validate)
    with pytest.raises(TypeError, match="rows"):
        sl.random_loop(3.0, 3, 1)
    with pytest.raises(TypeError, match="seed"):
        sl.random_loop(3, 3, True)
    with pytest.raises(TypeError, match="seed"):
        sl.generate_dense(4, 4, "1")
    with pytest.raises(TypeError, match="limit"):
        sl.count_solutions(empty(2, 2), limit=1.5)
    with pytest.raises(TypeError, match="time_limit"):
        sl.count_solutions(empty(2, 2), time_limit="1")
    with pytest.raises(TypeError, match="chunk"):
        sl.count_solutions(empty(2, 2), chunk=True)
    with pytest.raises(TypeError, match="store"):
        sl.count_solutions(empty(2, 2), store=None)


@pytest.mark.parametrize("name", sorted(sl.SHIPPED))
def test_shipped_boards(name):
    board = sl.parse(qlib.data_path(name))
    size = int(name.split("-")[1].split("x")[0])
    assert board.rows == board.cols == size
    entry = shipped(name)
    assert entry.get("size", size) == size
    res = sl.count_solutions(board, limit=2, time_limit=30)
    # the table's word against the counter: "proved" exactly when the search ends with one answer
    assert (entry["status"] == "proved") == res.unique, (entry, res)
    for answer in res.solutions:
        assert sl.check(board, *board.grid.to_hv(answer)) == []


def shipped(name) -> dict:
    """A SHIPPED entry as a dict (it was just the status string before)."""
    entry = sl.SHIPPED[name]
    return dict(entry) if isinstance(entry, dict) else {"status": entry}


def test_shipped_board_is_what_generate_makes():
    # SHIPPED says how each file was made (generate(n, n, seed, ...)); regenerating the quickest checks it
    name = "slitherlink-15x15-gen-s2.txt"
    entry = shipped(name)
    options = {k: entry[k] for k in ("keep", "max_nodes") if k in entry}
    board, mask = sl.generate(15, 15, entry.get("seed", 2), **options)
    assert board == sl.parse(qlib.data_path(name))
    assert sl.count_solutions(board, limit=2, hint=mask).unique


def test_static_tables_match_the_grid():
    # count_solutions builds its tables with NumPy; they must be the Grid's, entry for entry
    for rows, cols in ((1, 1), (1, 6), (6, 1), (2, 3), (7, 4), (12, 12)):
        g = grid(rows, cols)
        lat = counter.lattice(rows, cols)
        E, P, NC, ends, ec, ecd, pe, ce, bnd = lat.E, lat.P, lat.NC, lat.ends, lat.ec, lat.ecd, lat.pe, lat.ce, lat.bnd
        assert (E, P, NC) == (g.num_edges, g.num_points, rows * cols)
        assert np.array_equal(ends, g.endpoints) and np.array_equal(pe, g.point_edges)
        assert np.array_equal(ce, g.cell_edges)
        for e in range(E):
            cells = sorted(c for c in range(NC) if e in g.cell_edges[c])
            assert ec[e].tolist() == cells + [-1] * (2 - len(cells))
            assert ecd[e].tolist() == cells + [NC] * (2 - len(cells))
        assert bnd.tolist() == [e for e in range(E) if (ec[e] >= 0).sum() == 1]


def test_pausing_does_not_change_the_search():
    # chunk=1 pauses after every node, in the middle of probing passes too: same nodes, same answers
    boards = [sl.parse(qlib.data_path(TEN)), empty(3, 3), sl.generate(6, 6, 1)[0]]
    for board in boards:
        runs = [sl.count_solutions(board, limit=10**6, time_limit=None, chunk=c, store=300) for c in (1, 3, 10**9)]
        assert len({(r.count, r.nodes, r.status) for r in runs}) == 1
        assert all(len(r.solutions) == len(runs[0].solutions) for r in runs)
        for r in runs[1:]:
            assert all(np.array_equal(a, b) for a, b in zip(runs[0].solutions, r.solutions))


@pytest.mark.parametrize("size, limit", [(100, 0.5), (200, 0.5), (200, 1.5)])
def test_time_limit_holds_on_large_empty_boards(size, limit):
    # one probing pass over every edge of an empty 100x100 board took 2.7 s, a 200x200 one 25 s+
    sl.count_solutions(empty(3, 3))                       # kernels loaded
    t = time.perf_counter()
    res = sl.count_solutions(empty(size, size), limit=10**9, time_limit=limit)
    took = time.perf_counter() - t
    assert res.status == "unknown" and res.stop_reason == "time_limit"
    assert took <= 1.1 * limit + 0.5 and res.seconds <= 1.1 * limit + 0.5
    assert res.nodes > 0


def test_generate_raises_when_its_recount_hits_the_node_cap():
    # with max_nodes=5 the final recount (cap 4 * 5 nodes) cannot finish on this 6x6 board;
    # generate used to return the board as if verified
    with pytest.raises(sl.UnverifiedBoardError, match="could not verify") as info:
        sl.generate(6, 6, 0, max_nodes=5)
    err = info.value
    assert isinstance(err, RuntimeError)
    assert err.count.status == "unknown" and err.count.stop_reason == "max_nodes" and err.count.nodes < 100
    # the same call without the check returns that board; an uncapped count proves it unique
    board, mask = sl.generate(6, 6, 0, max_nodes=5, verify=False)
    assert board == err.board and np.array_equal(mask, err.mask)
    res = sl.count_solutions(board, limit=2, time_limit=None)
    assert res.unique and np.array_equal(res.solutions[0], mask)
    # a cap the recount fits under verifies as before
    board, mask = sl.generate(6, 6, 0, max_nodes=2_000)
    assert sl.count_solutions(board, limit=2, time_limit=None, max_nodes=8_000).unique


def test_generate_final_check_sees_a_second_answer(monkeypatch):
    # a recount that finds two answers is a bug, and must not pass either
    real = generator.count_solutions

    def lying(board, limit=2, **kw):
        res = real(board, limit=limit, **kw)
        if limit == 2 and kw.get("exclude") is None and kw.get("hint") is not None:
            return sl.Count(res.solutions * 2, count=2, stop_reason="limit", limit=2, nodes=res.nodes,
                            seconds=res.seconds)
        return res

    monkeypatch.setattr(generator, "count_solutions", lying)
    with pytest.raises(RuntimeError, match="not unique"):
        sl.generate(5, 5, 1)


def test_unverified_board_error_pickles():
    import pickle

    try:
        sl.generate(6, 6, 0, max_nodes=5)
    except sl.UnverifiedBoardError as err:
        back = pickle.loads(pickle.dumps(err))
        assert str(back) == str(err) and back.board == err.board and np.array_equal(back.mask, err.mask)
        assert back.count.status == "unknown"
    else:
        pytest.fail("generate(6, 6, 0, max_nodes=5) verified its board; the test needs a cap it cannot finish under")


def test_a_random_loop_of_100x100_is_one_loop_that_meets_its_own_clues():
    """The region grows with array candidates and a compiled flood fill (was a Python one, 16 s here)."""
    mask = generator.random_loop(100, 100, 1)
    board = generator.board_from_mask(mask, 100, 100)
    assert len(split_loops(mask, board.grid.endpoints)) == 1
    assert sl.is_solution(board, *board.grid.to_hv(mask))
