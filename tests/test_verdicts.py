"""Every verdict of slitherlink.solve is true: stop reasons against two exact references.

The references are the SAT solver (:mod:`qlib.puzzles.slitherlink.exact`) and the
backtracking counter (:func:`qlib.puzzles.slitherlink.counter.count_solutions`), two
different methods; they must agree with each other first.  Since the default
solve runs SAT beside the focused search, the counter is the independent one
for its verdicts, and every answer is checked by :func:`slitherlink.check`.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink import exact, generator

SMALL = [(1, 1), (1, 2), (1, 4), (2, 2), (2, 3), (3, 3), (3, 4), (4, 4), (4, 5), (5, 5), (6, 6)]
MEDIUM = [(7, 7), (8, 8), (7, 13), (10, 10), (12, 12)]


def _random_clues(rows, cols, rng, density):
    """Clues drawn at random: most such boards have no answer."""
    return sl.Board(tuple(tuple(int(rng.integers(0, 4)) if rng.random() < density else None for _ in range(cols))
                          for _ in range(rows)))


def _from_loop(rows, cols, seed, rng, keep):
    """A random loop's clues, a random share kept: at least one answer (often several)."""
    mask = generator.random_loop(rows, cols, seed)
    return generator.board_from_mask(mask, rows, cols, keep=rng.random((rows, cols)) < keep)


def _boards():
    rng = np.random.default_rng(2026)
    out = []
    seed = 0
    for rows, cols in SMALL:
        for _ in range(14):
            seed += 1
            out.append(_random_clues(rows, cols, rng, float(rng.uniform(0.05, 0.6))))
            if rows * cols >= 2:
                out.append(_from_loop(rows, cols, seed, rng, float(rng.uniform(0.0, 0.9))))
    for rows, cols in MEDIUM:
        for _ in range(12):
            seed += 1
            out.append(_random_clues(rows, cols, rng, float(rng.uniform(0.02, 0.3))))
            out.append(_from_loop(rows, cols, seed, rng, float(rng.uniform(0.2, 0.8))))
    return out


BOARDS = _boards()


def _reference(board):
    """(has an answer, a mask or None), with the two exact references agreeing."""
    sat = exact.solve_exact(board, time_limit=30)
    count = sl.count_solutions(board, limit=1, time_limit=30)
    assert sat.status in ("solved", "unsat") and count.status in ("exact", "limit")
    assert sat.solved == (count.count == 1), f"the exact references disagree on\n{board.to_text()}"
    return sat.solved


def test_the_board_set_has_boards_with_and_without_answers():
    has = [_reference(b) for b in BOARDS]
    assert len(BOARDS) >= 300
    assert 80 <= sum(has) <= len(BOARDS) - 80


@pytest.mark.parametrize("index", range(0, len(BOARDS), 1))
def test_default_verdict_agrees_with_the_exact_references(index):
    board = BOARDS[index]
    solvable = _reference(board)
    result = sl.solve(board, seed=index, time_limit=30)
    if solvable:
        assert (result.status, result.stop_reason) == ("solved", "answer"), board.to_text()
        assert sl.check(board, result.h, result.v) == []
        assert result.found_by in ("presolve", "search", "sat")
    else:
        assert (result.status, result.stop_reason) == ("unsolved", "no_answer"), board.to_text()
        assert result.found_by in ("presolve", "sat")


@pytest.mark.parametrize("index", range(0, len(BOARDS), 7))
def test_backtrack_verdict_agrees_with_the_exact_references(index):
    board = BOARDS[index]
    solvable = _reference(board)
    result = sl.solve(board, seed=index, time_limit=30, complete="backtrack")
    assert result.stop_reason == ("answer" if solvable else "no_answer")
    if solvable:
        assert sl.check(board, result.h, result.v) == []


@pytest.mark.parametrize("form", ["hubo", "inequality"])
@pytest.mark.parametrize("index", range(3, len(BOARDS), 29))
def test_edge_forms_claim_only_what_they_found(form, index):
    """Without a complete search an edge form answers or runs out of time; it never claims
    'no answer', and a zero-energy state that is not one loop never ends it."""
    board = BOARDS[index]
    solvable = _reference(board)
    result = sl.solve(board, formulation=form, seed=index, time_limit=0.3)
    assert result.stop_reason in ("answer", "time_limit")
    if result.solved:
        assert solvable and sl.check(board, result.h, result.v) == []
    with_sat = sl.solve(board, formulation=form, seed=index, time_limit=30, complete="sat")
    assert with_sat.stop_reason == ("answer" if solvable else "no_answer")


def test_found_by_and_answer_repeat_for_a_seed_and_thread_count():
    board = sl.parse(qlib.data_path("slitherlink-20x20-gen-s4.txt"))
    runs = [sl.solve(board, seed=3, time_limit=60, num_threads=2) for _ in range(2)]
    assert runs[0].solved and runs[0].found_by == runs[1].found_by
    assert runs[0].h == runs[1].h and runs[0].v == runs[1].v
    assert len(runs[0].iterations) == len(runs[1].iterations)


def test_sat_answers_first_and_no_model_is_built_for_it():
    result = sl.solve(qlib.data_path("slitherlink-10x10-qbpp.txt"), seed=0)
    assert (result.stop_reason, result.found_by) == ("answer", "sat")
    assert result.iterations == [] and (result.var_count, result.term_count) == (0, 0)


def test_the_focused_search_runs_when_the_first_sat_turn_does_not_answer(monkeypatch):
    solve_module = importlib.import_module("qlib.puzzles.slitherlink.solve")
    monkeypatch.setattr(solve_module, "_SAT_WORK_PER_EDGE", 0)   # SAT's first turn: 160 units, too few here
    board = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    result = sl.solve(board, seed=0)
    assert result.solved and sl.check(board, result.h, result.v) == []
    assert result.iterations and result.iterations[0]["steps"] == 600 and result.var_count > 0
    assert result.found_by in ("search", "sat")


# -- the probe's examples ---------------------------------------------------------------
PROBE = "3.2.\n....\n.02.\n2221\n1...\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_board_with_two_answers_is_answered_not_given_up(seed):
    board = sl.parse_text(PROBE)
    assert exact.count_exact(board, limit=2)[:2] == (2, "limit")
    result = sl.solve(board, seed=seed, time_limit=30)
    assert result.solved and sl.check(board, result.h, result.v) == []


def test_the_shipped_25x25_s5_is_solved_at_every_seed():
    board = sl.parse(qlib.data_path("slitherlink-25x25-gen-s5.txt"))
    ref = exact.solve_exact(board).mask
    for seed in range(1, 6):
        result = sl.solve(board, seed=seed, time_limit=60)
        assert result.solved and np.array_equal(board.grid.from_hv(result.h, result.v), ref)


@pytest.mark.parametrize("text", [".", "..", "....", ".\n.\n.\n", "0", "3"])
@pytest.mark.parametrize("form", sl.FORMULATIONS)
def test_boards_whose_cells_model_has_no_variable(text, form):
    """1x1 and 1xN boards: no IndexError, and the verdict of the references."""
    board = sl.parse_text(text)
    solvable = _reference(board)
    result = sl.solve(board, formulation=form, seed=30, time_limit=0.5 if form != "cells" else 30)
    if solvable:
        assert result.solved and sl.check(board, result.h, result.v) == []
    else:
        assert result.stop_reason == ("no_answer" if form == "cells" else "time_limit")


def test_decode_reads_a_model_the_presolve_emptied():
    board = sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))
    sm = sl.build_model(board, "cells", presolve=True)
    assert sm.presolve.status == "solved" and sm.model.var_count == 0
    for options in (dict(backend="exhaustive"), dict(seed=1, target_energy=0, time_limit=1)):
        mask = sl.decode(sm, qlib.solve(sm.model, **options))
        assert sl.check(board, *board.grid.to_hv(mask)) == []


def test_every_class_variable_gets_a_column():
    """A class in no term still gets a column, so a loop cut can name it (no cut is skipped)."""
    for index in range(0, len(BOARDS), 5):
        sm = sl.build_model(BOARDS[index], "cells", presolve=True)
        compiled = sl.FORMULATIONS["cells"].compile(sm)
        assert compiled.var_count == len(sm.class_vars)


def test_an_accepted_answer_is_the_state_returned():
    """run_focused's winner is an accepted replica when one exists, and its state is the answer."""
    from qlib.solvers.focused import LazyCuts

    x = qlib.var("acc", 4)
    model = qlib.cons(qlib.sum(x) == 2, label="two")
    compiled = qlib.compile(model)
    wanted = np.array([1, 1, 0, 0], dtype=np.uint8)

    def separate(state, energy):   # accept only `wanted`; any other zero-energy state is left uncut
        return (state, []) if np.array_equal(state, wanted) else (None, [])
    for seed in range(30):
        sol = qlib.solve(compiled, seed=seed, target_energy=0, lazy_cuts=LazyCuts(separate), num_replicas=4,
                         time_limit=5)
        if sol.info["stop_reason"] == "accepted":
            assert np.array_equal(sol.state, wanted)
        else:
            assert sol.info["stop_reason"] == "target_energy" and not np.array_equal(sol.state, wanted)


def test_unknown_options_raise_even_when_the_presolve_answers():
    ex1 = sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))
    with pytest.raises(TypeError, match="foo"):
        sl.solve(ex1, foo=1)
    with pytest.raises(TypeError, match="cut_energy"):   # a lazy-cut option, given to the outer iteration
        sl.solve(ex1, method="outer", cut_energy=1.0)
    from qlib.puzzles import nonogram as ng

    with pytest.raises(TypeError, match="foo"):
        ng.solve(ng.parse(qlib.data_path("nonogram-webpbn-6.non")), foo=1)
    assert sl.solve(ex1, seed=1, cut_interval=10).solved   # a known option still passes


@pytest.mark.parametrize("puzzle", ["slitherlink", "nonogram"])
def test_ctrl_c_during_the_uniqueness_check_keeps_the_answer(puzzle, monkeypatch, capsys):
    """The answer is found and checked before the uniqueness proof starts: a Ctrl-C in the proof
    leaves it standing (status "solved", stop reason "interrupted", ``unique`` None), in the API and
    in the CLI's JSON (exit 130)."""
    from qlib import cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    if puzzle == "slitherlink":
        from qlib.puzzles.slitherlink import exact

        monkeypatch.setattr(exact.SatSearch, "block", interrupted)   # the proof blocks the answer first
        path = qlib.data_path("slitherlink-10x10-qbpp.txt")
        result = sl.solve(sl.parse(path), seed=1, check_unique=True)
        assert sl.is_solution(sl.parse(path), result.h, result.v)
    else:
        from qlib.puzzles import nonogram as ng
        from qlib.puzzles.nonogram import solver

        monkeypatch.setattr(solver, "count_from", interrupted)        # the backtracking proof
        monkeypatch.setattr(solver.SatSearch, "block", interrupted)   # SAT's proof, the default
        path = Path(__file__).parent.parent / "benchmarks" / "boards" / "random-30x30-s0.non"   # two answers
        result = ng.solve(ng.parse(path), seed=1, check_unique=True)
        assert result.found_by != "presolve" and ng.check(ng.parse(path), result.grid) == []
    assert (result.status, result.stop_reason, result.unique) == ("solved", "interrupted", None)
    code = cli.main(["solve", puzzle, str(path), "--check-unique", "--json", "--seed", "1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 130 and data["status"] == "interrupted" and data["unique"] is None
    assert (data["h"] == result.h and data["v"] == result.v) if puzzle == "slitherlink" else data["grid"]


def test_ctrl_c_during_the_presolve_is_not_followed_by_another_presolve(monkeypatch):
    """The interrupted run reports at once (an empty drawing, status "interrupted"): the handler
    builds its result without presolving the board a second time."""
    solve_module = importlib.import_module("qlib.puzzles.slitherlink.solve")
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        raise KeyboardInterrupt

    board = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    sl.solve(board, seed=1)   # warm: the warm-up presolves too
    monkeypatch.setattr(solve_module, "presolve", interrupted)
    result = sl.solve(board, seed=1)
    assert calls == [1]
    assert (result.status, result.stop_reason) == ("interrupted", "interrupted")
    assert not any(map(any, result.h)) and not any(map(any, result.v))
