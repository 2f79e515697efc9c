"""The shared solution count: one type and one set of status words for every counter."""

import pickle

import numpy as np
import pytest

from qlib.puzzles import nonogram as ng
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.count import Count, CountStatus, StopReason
from qlib.puzzles.slitherlink.exact import count_exact


def test_status_follows_the_stop_reason():
    assert Count([1, 2], limit=2, stop_reason="limit", seconds=0).status is CountStatus.LIMIT
    assert Count([1], limit=2, stop_reason="exhausted", seconds=0).status is CountStatus.EXACT
    for stop in ("time_limit", "max_nodes", "interrupted"):
        c = Count([1], limit=2, stop_reason=stop, seconds=0)
        assert c.status is CountStatus.UNKNOWN and c.value == "unknown" and c.unique is None
    with pytest.raises(ValueError):
        Count([], limit=2, stop_reason="tired", seconds=0)


def test_a_count_unpacks_compares_and_pickles_as_a_triple():
    c = Count(["a"], limit=2, stop_reason=StopReason.EXHAUSTED, seconds=0.5, nodes=7)
    count, status, solutions = c
    assert (count, status, solutions) == (1, "exact", ["a"]) and c == (1, "exact", ["a"]) and c[:2] == (1, "exact")
    assert len(c) == 3 and c.unique is True and c.nodes == 7
    back = pickle.loads(pickle.dumps(c))
    assert back == c and back.nodes == 7 and back.seconds == 0.5 and back.stop_reason is StopReason.EXHAUSTED


def test_every_counter_returns_a_count_with_the_same_words():
    board = sl.Board(((3, None), (None, None)))          # a 2x2 board with several answers
    backtrack = sl.count_solutions(board, limit=100)
    sat = count_exact(board, limit=100)
    assert type(backtrack) is type(sat) is Count
    assert backtrack.status == sat.status == "exact" and backtrack.count == sat.count > 1
    assert {m.tobytes() for m in backtrack.solutions} == {np.asarray(m, dtype=np.uint8).tobytes() for m in sat.solutions}
    grids = ng.count_solutions(ng.parse(([[1], [1]], [[1], [1]])), limit=3)
    assert type(grids) is Count and grids[:2] == (2, "exact") and grids.stop_reason == "exhausted"
    assert ng.count_solutions(ng.parse(([[1], [1]], [[1], [1]])), limit=1).status == "limit"
