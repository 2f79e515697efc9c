"""One stop-reason vocabulary (qlib.stop): every layer says its words as StopReason, and only its own."""

from __future__ import annotations

import json
import pickle

import pytest

import qlib
from qlib import stop
from qlib.puzzles import nonogram as ng
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.count import Count
from qlib.puzzles.nonogram import exact as ng_exact
from qlib.puzzles.portfolio import STOP_REASONS


def test_each_layer_speaks_a_part_of_one_vocabulary():
    assert set(STOP_REASONS) <= set(stop.PUZZLE)
    assert set(stop.SOLVER) | set(stop.PUZZLE) | set(stop.COUNT) == set(stop.StopReason)
    word = stop.StopReason.TIME_LIMIT
    assert word == "time_limit" and str(word) == "time_limit" and repr(word) == "'time_limit'"
    assert json.dumps({"stop_reason": word}) == '{"stop_reason": "time_limit"}'
    assert pickle.loads(pickle.dumps(word)) is word
    with pytest.raises(ValueError, match="no stop reason"):
        stop.stop_reason("finished")
    with pytest.raises(ValueError, match="no stop reason here"):
        stop.stop_reason("accepted", stop.PUZZLE)
    assert stop.stop_reason(None) is None


def test_a_puzzle_result_checks_its_stop_reason_whenever_it_is_set():
    result = sl.solve(sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt")), seed=1, time_limit=30)
    assert result.solved and result.stop_reason is stop.StopReason.ANSWER
    result.stop_reason = "interrupted"
    assert result.stop_reason is stop.StopReason.INTERRUPTED
    with pytest.raises(ValueError, match="no stop reason here"):
        result.stop_reason = "exhausted"             # a count's word, not a solve's


@pytest.mark.parametrize("options", [dict(num_sweeps=10, num_replicas=2), dict(algorithm="focused", max_steps=1000)])
def test_a_solvers_info_says_a_solver_word(options):
    x = qlib.var("x", 3)
    model = qlib.compile((x[0] + x[1] + x[2] - 1) ** 2)
    solution = qlib.solve(model, seed=1, time_limit=5, **options)
    assert solution.info["stop_reason"] in stop.SOLVER
    assert isinstance(solution.info["stop_reason"], stop.StopReason)


def test_both_puzzles_counters_return_a_count():
    """Nonogram's SAT counter returns a Count, as every other counter does, and agrees with
    ``nonogram.count_solutions``: a 2x2 with clue 1 everywhere has two answers."""
    two = ng.parse(([[1], [1]], [[1], [1]]))
    found = ng_exact.count_exact(two, limit=5)
    assert isinstance(found, Count) and found[:2] == (2, "exact") and found.stop_reason == "exhausted"
    assert found[:2] == ng.count_solutions(two, limit=5)[:2]
    assert ng_exact.count_exact(two, limit=1)[:2] == (1, "limit")
    assert sorted(found.solutions) == sorted(ng.count_solutions(two, limit=5).solutions)
