"""nonogram.solve and count_solutions against an independent exact oracle: answers, stop
reasons, the reduced model, determinism, the time limit and Ctrl-C.

The oracle (:func:`answers`) is plain Python, row placements with column pruning: it
shares no code with the numba engine it checks.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

import qlib
from qlib.puzzles import nonogram as ng
from qlib.puzzles.nonogram import lines
from qlib.puzzles.nonogram.engine import Engine

# random 30x30 grid, half black (numpy default_rng(25)): the default (SAT beside probing) answers it
# in about 10 s and backtracking finds nothing in 30 s: a hard puzzle for limits of a second or less
HARD_30 = ("30x30:5.2.2.1.2.1/1.2.2.1.1.3.1.1/1.1.1.1.1.2.3.1.1.2/1.2.5.2.1.2.2/6.1.1.2.1.1.1.1/2.3.1.1.3.3.2.1/"
           "3.2.1.1.1.2.2.2/1.1.2.1.1.2.1.1/2.3.2.1.2.1.1.3/1.1.1.2.1.1.1.1.1.2/3.1.2.1.4/4.1.4.2.1.2.1.1/"
           "1.2.2.1.1.1.4/1.1.1.3.1.3.1.4/2.1.1.2.1.2.2/1.2.1.3.1.2.1.1/1.2.2.1.3.1.1.1/5.1.2.1.3.2/"
           "1.1.1.1.2.1.1.3.1.2/2.2.4.1.1.1.1.3/5.1.2.1.1.1.2.1/1.1.1.2.1.4.1.2/5.1.5.1.2/2.2.3.1.4.3.2.3/"
           "1.2.7.1.1.3/5.3.2.1.2.1/2.3.2.2.1.1.1/3.2.1.1.5.4.1/2.3.1.2.1.3.1/1.1.1.1.1.1.1.8/6.2.1.1.4.3/"
           "1.3.1.1.1.2.2.2.3/3.1.1.2.1.2.5.2.1/2.2.1.1.2.1.1.2.1/1.4.2.1.4.2.1.2.3/1.2.1.1.1.3.7/"
           "2.1.1.1.1.1.2.1/1.2.2.1.2.1/1.1.1.2.1.4.1.1/1.2.1.2.2.1.1.1.1.1/1.2.2.2.2.2.2.1/"
           "2.2.1.1.1.1.1.1.1.2.1.1.1/1.1.1.1.1.1.1.3.2.1/2.1.1.4.1.3.3.1/1.1.4.2.1.1.1.1.1/1.1.3.3.2.3/"
           "1.2.1.2.1.2.1.2.2/1.1.2.1.1.4.1.1/1.1.1.5.2.3.1/4.3.1.1.1.2/1.1.3.2.3.1.1.1.1.1/1.1.1.1.1.2.2.1/"
           "2.2.3.1.1.3.3/3.3.1.2.1.3/2.2.3.3.1.1.1.2/1.1.3.1.2.1.1/2.1.3.2.3.1/1.1.1.3.4.3.1/"
           "1.1.1.4.3.1.1.1.2/1.1.3.3.3.1.1.1")
# no answer (SAT agrees), but propagation and probing cannot see it: backtracking proves it
NO_ANSWER_14x18 = (
    [[2, 2, 6, 1], [3, 1, 2, 1], [3, 2, 1, 1, 2], [1, 1, 1, 2, 1], [3, 1, 1, 2, 1], [3, 2, 1], [1, 1, 2, 3, 1],
     [1, 2, 1, 1, 2], [1, 2, 2, 3], [1, 1, 1, 1, 2, 1, 1], [2, 1, 1, 1, 3, 1], [1, 1, 1, 1], [1, 1, 1, 2, 2, 1],
     [1, 5, 2, 1]],
    [[3, 2], [3, 1, 1, 3], [5, 1, 2], [1, 2], [1, 2, 2, 1], [1, 1, 2], [1, 1, 1, 2], [1, 2, 2, 1], [1, 1, 2, 3],
     [3, 2, 1, 2], [1, 2, 3, 1], [1, 1, 1, 1], [1, 4, 1, 2], [5, 2, 1], [1, 1, 3], [3, 1], [3, 1, 1],
     [1, 1, 2, 3]])
PERMUTATIONS_12 = ([[1]] * 12, [[1]] * 12)   # 12! answers: the model search finds one first


def _random_grid_clues(seed: int, size: int):
    """The clues of a random size x size grid (half black)."""
    grid = np.random.default_rng(seed).random((size, size)) < 0.5
    return ([list(ng.blocks_of(row)) for row in grid], [list(ng.blocks_of(grid[:, j])) for j in range(size)])


RANDOM_15 = _random_grid_clues(7, 15)   # line solving decides a third of its cells


# -- the oracle ------------------------------------------------------------------
def placements(clue, n):
    """Every line of length n (tuples of 0/1) whose blocks are ``clue``."""
    out = []

    def place(k, cells):
        if k == len(clue):
            out.append(tuple(cells + [0] * (n - len(cells))))
            return
        rest = sum(clue[k + 1:]) + len(clue) - k - 1
        for start in range(len(cells), n - clue[k] - rest + 1):
            line = cells + [0] * (start - len(cells)) + [1] * clue[k]
            place(k + 1, line + [0] if k + 1 < len(clue) else line)

    place(0, [])
    return out


def answers(puzzle):
    """Every answer, as tuples of '#'/'.' strings: rows by placement, columns checked on the way."""
    h, w = puzzle.height, puzzle.width
    rows = [placements(list(c), w) for c in puzzle.rows]
    column_lines = [set(placements(list(c), h)) for c in puzzle.columns]
    column_prefixes = [[{line[:i] for line in column_lines[j]} for i in range(h + 1)] for j in range(w)]
    found = []

    def rec(i, chosen):
        if i == h:
            found.append(tuple("".join("#" if v else "." for v in row) for row in chosen))
            return
        for row in rows[i]:
            if all(tuple(r[j] for r in chosen) + (row[j],) in column_prefixes[j][i + 1] for j in range(w)):
                rec(i + 1, chosen + [row])

    rec(0, [])
    return found


def blocks(cells):
    return list(ng.blocks_of(cells))


def random_puzzles(count, seed, largest=6):
    """Small puzzles: clues of a random grid (an answer exists) or rows of one grid and columns
    of a shuffle of it (the totals agree; often no answer)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        h, w = (int(v) for v in rng.integers(1, largest + 1, size=2))
        grid = rng.random((h, w)) < rng.uniform(0.3, 0.7)
        other = grid
        if rng.random() < 0.5:
            other = grid.ravel().copy()
            rng.shuffle(other)
            other = other.reshape(h, w)
        out.append(ng.parse(([blocks(r) for r in grid], [blocks(other[:, j]) for j in range(w)])))
    return out


def test_the_oracle_agrees_with_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(40):
        h, w = (int(v) for v in rng.integers(1, 4, size=2))
        grid = rng.random((h, w)) < 0.5
        puzzle = ng.parse(([blocks(r) for r in grid], [blocks(grid[:, j]) for j in range(w)]))
        brute = [g for bits in itertools.product(".#", repeat=h * w)
                 for g in [tuple("".join(bits[i * w:(i + 1) * w]) for i in range(h))] if ng.is_solution(puzzle, g)]
        assert sorted(answers(puzzle)) == sorted(brute)


# -- the line solver ---------------------------------------------------------------
def test_line_solver_against_every_placement():
    rng = np.random.default_rng(11)
    for _ in range(1500):
        n = int(rng.integers(1, 11))
        clue = blocks(rng.random(n) < 0.5)
        cells = [-1 if rng.random() < 0.6 else int(rng.random() < 0.5) for _ in range(n)]
        fitting = [p for p in placements(clue, n) if all(c in (-1, v) for c, v in zip(cells, p))]
        expected = None if not fitting else [
            fitting[0][q] if all(f[q] == fitting[0][q] for f in fitting) else -1 for q in range(n)]
        clues = lines.flatten([tuple(clue)], [()] * n)
        work = lines.new_work(clues, np.array([cells], dtype=np.int8))
        lines._clear_queue(work)
        lines._push(work, 0)
        status = lines.propagate(clues, work, work.stat[lines.WORK] + 1)   # the row alone
        got = None if status == lines.CONTRADICTION else [int(v) for v in work.grid]
        assert got == expected, (clue, cells)


def _probed(puzzle, remember: bool):
    """Probing's fixed point from line solving's: (status, grid, scores of the open cells, line solves).
    Without ``remember`` every probe starts a new epoch, so that no quiet probe is skipped."""
    clues = lines.flatten(puzzle.rows, puzzle.columns)
    work = lines.new_work(clues)
    status = lines.propagate(clues, work, lines.UNLIMITED)
    before = int(work.stat[lines.WORK])
    while status == lines.OK:
        status = lines.probe(clues, work, lines.UNLIMITED if remember else work.stat[lines.WORK] + 1)
        if status != lines.PAUSED:
            break
        work.stat[lines.EPOCH] += 1
        status = lines.OK
    open_cells = work.grid == -1
    return status, work.grid.copy(), work.score[open_cells].copy(), int(work.stat[lines.WORK]) - before


def test_probing_skips_only_the_probes_that_would_decide_nothing(monkeypatch):
    """A quiet probe is not repeated while the lines its tries solved stay as they were: the fixed
    point, the contradictions and the branching scores are those of probing every cell every round,
    with fewer line solves.  A puzzle too large for that memory (QUIET_BYTES) probes every cell."""
    saved = 0
    for seed in range(40):
        puzzle = ng.Nonogram(*_random_grid_clues(seed, 12 + seed % 9))
        status, grid, scores, work = _probed(puzzle, remember=True)
        status0, grid0, scores0, work0 = _probed(puzzle, remember=False)
        assert status == status0 and np.array_equal(grid, grid0), seed
        if status == lines.OK:
            assert np.array_equal(scores, scores0), seed
        assert work <= work0
        saved += work0 - work
        if seed % 4 == 0:
            with monkeypatch.context() as m:
                m.setattr(lines, "QUIET_BYTES", 0)
                assert lines.new_work(lines.flatten(puzzle.rows, puzzle.columns)).quiet_lines.shape[0] == 0
                status1, grid1, scores1, work1 = _probed(puzzle, remember=True)
            assert (status1, work1) == (status0, work0) and np.array_equal(grid1, grid0), seed
            assert np.array_equal(scores1, scores0)
    assert saved > 0


# -- answers and stop reasons against the oracle ----------------------------------------
@pytest.mark.parametrize("complete", ["sat", "backtrack"])
def test_count_and_solve_against_the_oracle(complete):
    kinds = set()
    for puzzle in random_puzzles(300, seed=5):
        expected = answers(puzzle)
        count, status, grids = ng.count_solutions(puzzle, limit=1000)
        assert status == "exact" and count == len(expected) and sorted(grids) == sorted(expected), puzzle
        result = ng.solve(puzzle, seed=0, time_limit=20, check_unique=True, complete=complete)
        kinds.add((result.stop_reason, result.found_by))
        if expected:
            assert (result.status, result.stop_reason) == ("solved", "answer")
            assert result.found_by in ("presolve", complete, "search")
            assert ng.check(puzzle, result.grid) == [] and result.grid in expected
            assert result.unique is (len(expected) == 1)
            if len(expected) == 1:
                assert result.grid == expected[0] and result.second_answer is None
            else:
                assert result.second_answer in expected and result.second_answer != result.grid
        else:
            assert (result.status, result.stop_reason, result.grid) == ("unsolved", "no_answer", None)
            assert result.found_by in ("presolve", complete)
        if result.found_by == "presolve" and result.solved:
            assert len(expected) == 1   # propagation only deduces: its answer is the only one
    assert ("answer", "presolve") in kinds and ("no_answer", "presolve") in kinds
    assert ("answer", complete) in kinds


@pytest.mark.parametrize("complete", ["sat", "backtrack"])
def test_no_answer_proved_by_the_complete_search(complete):
    puzzle = ng.parse(NO_ANSWER_14x18)
    result = ng.solve(puzzle, seed=0, time_limit=60, complete=complete)
    assert (result.status, result.stop_reason, result.found_by) == ("unsolved", "no_answer", complete)
    assert (result.nodes > 0 if complete == "backtrack" else result.conflicts > 0) and 0 < result.decided < 1
    assert ng.count_solutions(puzzle, limit=1, time_limit=60)[:2] == (0, "exact")


def test_answer_found_by_the_search_of_the_open_cells():
    puzzle = ng.parse(PERMUTATIONS_12)   # 12! answers: the search finds one before backtracking does
    result = ng.solve(puzzle, seed=3, time_limit=60, check_unique=True, complete="backtrack")
    assert (result.status, result.stop_reason, result.found_by) == ("solved", "answer", "search")
    assert ng.check(puzzle, result.grid) == [] and result.steps > 0 and result.var_count > 0
    assert result.unique is False and ng.check(puzzle, result.second_answer) == []
    assert result.solution.energy == 0 and result.solution.info["algorithm"] == "search"


def test_the_method_alone_claims_only_what_it_proved():
    """``complete=False``: line solving, then the search of the open cells; no SAT, no backtracking.
    Every answer is an answer, and only line solving may claim that none exists."""
    kinds = set()
    for puzzle in random_puzzles(150, seed=7):
        expected = answers(puzzle)
        result = ng.solve(puzzle, seed=0, time_limit=20, complete=False, max_steps=20_000)
        kinds.add((result.stop_reason, result.found_by))
        assert result.conflicts == 0 and result.nodes == 0 and result.method == "auto"
        if result.solved:
            assert result.found_by in ("presolve", "search") and result.grid in expected
        elif result.stop_reason == "no_answer":
            assert not expected and result.found_by == "presolve"
        else:   # the search ran out of steps: it claims nothing
            assert (result.stop_reason, result.found_by, result.grid) == ("max_steps", None, None)
            assert not expected
    assert {("answer", "presolve"), ("answer", "search"), ("no_answer", "presolve")} <= kinds


def test_the_method_alone_searches_what_line_solving_leaves_open():
    puzzle = ng.parse(PERMUTATIONS_12)   # line solving decides nothing: the model has every cell
    result = ng.solve(puzzle, seed=3, time_limit=60, complete=False)
    assert (result.status, result.stop_reason, result.found_by) == ("solved", "answer", "search")
    assert result.decided == 0 and result.var_count > 0 and result.steps > 0
    assert result.timings["complete_seconds"] == 0 and ng.check(puzzle, result.grid) == []
    hard = ng.parse(RANDOM_15)   # line solving decides part of it; the model holds only the rest
    result = ng.solve(hard, seed=1, time_limit=60, complete=False)
    assert result.found_by == "search" and 0 < result.decided < 1 and ng.check(hard, result.grid) == []
    whole = ng.build_model(hard)
    assert 0 < result.var_count < whole.var_count


# -- the model of the open cells ------------------------------------------------------------
def zero_energy_grids(nm):
    compiled = qlib.compile(nm.model)
    n = compiled.var_count
    states = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.uint8)
    zero = states[np.abs(compiled.energy(states)) < 1e-9]
    return [ng.decode(nm, qlib.Solution(compiled, s)) for s in zero]


def test_model_with_known_cells_keeps_exactly_the_answers():
    tried = 0
    for puzzle in random_puzzles(150, seed=9, largest=5):
        expected = answers(puzzle)
        if not expected:
            continue
        engine = Engine(puzzle)
        engine.presolve(time.perf_counter() + 60, probing=False)   # propagation only: cells stay open
        known = engine.cells()
        nm = ng.build_model(puzzle, known=known)
        full = ng.build_model(puzzle)
        assert nm.var_count <= full.var_count
        assert nm.known == tuple("".join("?" if v < 0 else "#" if v else "." for v in row) for row in known)
        if nm.var_count > 14:
            continue
        grids = zero_energy_grids(nm)
        assert len(grids) == len(set(grids)) and sorted(grids) == sorted(expected)
        for grid in expected:
            compiled = qlib.compile(nm.model)
            assert compiled.energy(compiled.as_states(ng.encode(nm, grid))) == 0
        tried += 1
    assert tried >= 50


def test_known_cells_are_checked():
    puzzle = ng.parse(([[1], [1]], [[1], [1]]))
    nm = ng.build_model(puzzle, known=["#?", "??"])
    assert nm.var_count < ng.build_model(puzzle).var_count
    assert zero_energy_grids(nm) == [("#.", ".#")]
    with pytest.raises(ValueError, match="row 0 no placement"):
        ng.build_model(puzzle, known=["##", "??"])
    with pytest.raises(ValueError, match="known cells"):
        ng.build_model(puzzle, known=["x?", "??"])
    with pytest.raises(ValueError, match="2 rows of 2"):
        ng.build_model(puzzle, known=["#?"])
    with pytest.raises(ValueError, match="outside the range"):
        ng.encode(nm, (".#", "#."))


# -- determinism, the time limit, Ctrl-C ------------------------------------------------------
@pytest.mark.parametrize("clues, complete, found_by", [(PERMUTATIONS_12, "backtrack", "search"),
                                                       (NO_ANSWER_14x18, "backtrack", "backtrack"),
                                                       (NO_ANSWER_14x18, "sat", "sat"), (HARD_30, "sat", "sat"),
                                                       (RANDOM_15, False, "search")])
def test_same_seed_and_threads_same_outcome(clues, complete, found_by):
    puzzle = ng.parse(clues)
    runs = [ng.solve(puzzle, seed=11, time_limit=60, num_threads=1, complete=complete) for _ in range(2)]
    assert runs[0].found_by == found_by
    keys = [(r.status, r.stop_reason, r.found_by, r.grid, r.rounds, r.work, r.conflicts, r.nodes, r.steps)
            for r in runs]
    assert keys[0] == keys[1]


@pytest.mark.parametrize("complete", ["sat", False])
def test_time_limit_is_kept_on_a_hard_puzzle(complete):
    puzzle = ng.parse(HARD_30)
    ng.warmup()
    for limit in (0.3, 1.0):
        start = time.perf_counter()
        result = ng.solve(puzzle, seed=1, time_limit=limit, check_unique=True, complete=complete)
        wall = time.perf_counter() - start
        assert (result.status, result.stop_reason, result.found_by) == ("unsolved", "time_limit", None)
        assert result.seconds <= wall and wall < 1.1 * limit + 0.05 + 0.5   # a generous margin
        assert result.timings["jit_seconds"] < 0.5   # warm: nothing compiled against the clock


def test_count_solutions_keeps_its_time_limit():
    start = time.perf_counter()
    count, status, grids = ng.count_solutions(HARD_30, limit=1, time_limit=0.3)
    assert (count, status, grids) == (0, "unknown", [])
    assert time.perf_counter() - start < 0.3 + 0.5


def test_ctrl_c_ends_the_solve_as_interrupted(monkeypatch):
    puzzle = ng.parse(HARD_30)
    ng.warmup()   # the kernels run once there, unpatched

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Engine, "backtrack", interrupted)
    result = ng.solve(puzzle, seed=1, time_limit=10, complete="backtrack")
    assert (result.status, result.stop_reason, result.grid) == ("interrupted", "interrupted", None)
    monkeypatch.undo()
    import qlib.puzzles.nonogram.exact as exact_module
    monkeypatch.setattr(exact_module, "solve_slice", interrupted)
    result = ng.solve(puzzle, seed=1, time_limit=10)   # Ctrl-C in SAT, the default complete search
    assert (result.status, result.stop_reason, result.grid) == ("interrupted", "interrupted", None)
    monkeypatch.undo()
    import qlib.puzzles.nonogram.solver as solve_module
    monkeypatch.setattr(solve_module.qlib, "solve", interrupted)
    result = ng.solve(ng.parse(PERMUTATIONS_12), seed=3, time_limit=10, complete="backtrack")   # in the search
    assert (result.status, result.stop_reason) == ("interrupted", "interrupted")


# -- methods and options -------------------------------------------------------------------------
def test_methods_and_their_options():
    puzzle = ng.parse(([[1], [1]], [[1], [1]]))
    assert ng.solve(puzzle, seed=0).method == "auto"
    assert ng.solve(puzzle, seed=0, backend="exhaustive").method == "search"
    assert ng.solve(puzzle, seed=0, max_steps=10_000).method == "search"
    capped = ng.solve(ng.parse(([[1, 1], [0], [1, 1]], [[2], [0], [2]])), method="search", seed=0,
                      max_steps=100)
    assert (capped.status, capped.stop_reason) == ("unsolved", "max_steps")   # only when asked for
    with pytest.raises(ValueError, match="unknown method"):
        ng.solve(puzzle, method="guess")
    with pytest.raises(ValueError, match="method='search'"):
        ng.solve(puzzle, method="auto", backend="exhaustive")
    with pytest.raises(ValueError, match="max_steps"):
        ng.solve(puzzle, method="auto", max_steps=5)
    with pytest.raises(ValueError, match="time_limit"):
        ng.solve(puzzle, time_limit=0)
    with pytest.raises(ValueError, match="seed"):
        ng.solve(puzzle, seed=-1)
    with pytest.raises(TypeError, match="seed"):
        ng.solve(puzzle, seed=True)
    with pytest.raises(TypeError, match="time_limit"):
        ng.solve(puzzle, time_limit="1")
    assert ng.warmup() < 1.0 and isinstance(ng.warmup(), float)
    result = ng.solve(puzzle, seed=0)
    assert str(result).startswith("solved (answer, found by sat)")
    assert ng.solve(puzzle, seed=0, complete="backtrack").found_by == "backtrack"
    assert ng.solve(puzzle, seed=0, complete=False, max_steps=5_000).found_by == "search"   # two answers
    for bad in ("cdcl", True, None):
        with pytest.raises(ValueError, match="complete"):
            ng.solve(puzzle, complete=bad)
    assert set(result.timings) >= {"jit_seconds", "presolve_seconds", "build_seconds", "search_seconds",
                                   "complete_seconds", "unique_seconds", "solve_seconds"}


@pytest.mark.parametrize("options", [{}, {"complete": "backtrack"}, {"complete": False}, {"method": "search"}])
def test_a_result_of_every_method_pickles(options):
    """The default's result held a local function (unpicklable); every method's result now pickles."""
    import pickle

    puzzle = ng.parse(qlib.data_path("nonogram-webpbn-6.non"))
    result = ng.solve(puzzle, seed=1, time_limit=30, **options)
    back = pickle.loads(pickle.dumps(result))
    assert (back.status, back.stop_reason, back.found_by, back.grid) == \
        (result.status, result.stop_reason, result.found_by, result.grid)
    assert back.solved and ng.check(puzzle, back.grid) == []
    assert back.solution.energy == 0   # the answer's model state, built lazily after the round trip
