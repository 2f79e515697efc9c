"""TTS99 and the tail statistics, on runs whose distribution is known."""

import math

import numpy as np
import pytest

from qlib.tail import tail, tts, tts99, tts_at


def test_a_fixed_success_rate_gives_the_textbook_formula():
    """Runs that answer in 2 s with probability 0.3, else fail at a 60 s cap: 2 * log 0.01 / log 0.7."""
    seconds = [2.0] * 3 + [60.0] * 7
    solved = [True] * 3 + [False] * 7
    assert tts99(seconds, solved) == pytest.approx(2 * math.log(0.01) / math.log(0.7))


def test_the_best_budget_is_chosen():
    """One run answers in 1 s, eight in 10 s, one fails: a 10 s budget (p 0.9, 20 s) beats 1 s (p 0.1, 43.7 s)."""
    seconds = [1.0] + [10.0] * 8 + [60.0]
    solved = [True] * 9 + [False]
    assert tts99(seconds, solved) == pytest.approx(10 * math.log(0.01) / math.log(0.1))
    # at probability 0.5 the short budget wins: 6.6 runs of 1 s against one of 10 s
    assert tts(seconds, solved, 0.5) == pytest.approx(math.log(0.5) / math.log(0.9))


def test_a_quick_majority_puts_tts99_below_a_slow_tail():
    """Nine runs of 1 s and one of 100 s: restarting every second reaches 0.99 in 2 s, not 100 s."""
    seconds, solved = [1.0] * 9 + [100.0], [True] * 10
    assert tts99(seconds, solved) == pytest.approx(2.0)


def test_exponential_run_times_give_log_100_over_the_rate():
    """Memoryless runs, at the exact quantiles of an exponential law (run k of n answers at the time by
    which k of n would): every budget gives log(100) / rate, and so does the best one."""
    rate, n = 2.0, 1000
    k = np.arange(1, n)
    seconds = np.append(-np.log(1 - k / n) / rate, 99.0)   # the last run never answers
    solved = np.append(np.ones(n - 1, dtype=bool), False)
    assert tts99(seconds, solved) == pytest.approx(math.log(100) / rate)


def test_no_answer_is_infinite_and_every_answer_is_one_run_at_least():
    assert tts99([5.0, 5.0], [False, False]) == math.inf
    rng = np.random.default_rng(1)
    for _ in range(50):
        seconds = rng.uniform(0.1, 10, 12)
        solved = rng.random(12) < 0.6
        if solved.any():
            assert tts99(seconds, solved) >= seconds[solved].min()


def test_tail_counts_failures_at_their_time():
    t = tail([1.0, 2.0, 3.0, 60.0], [True, True, True, False])
    assert (t.runs, t.successes, t.success_rate) == (4, 3, 0.75)
    assert t.median == 2.5 and t.max == 60.0 and t.p90 == pytest.approx(np.percentile([1, 2, 3, 60], 90))
    assert t.tts99 == pytest.approx(3 * math.log(0.01) / math.log(0.25))


def test_a_failure_may_cost_infinity():
    """Chapters that count a failed run as infinite get infinite quantiles exactly when the failures reach
    them, and the same TTS99 as with failures at their cap."""
    inf = math.inf
    t = tail([1.0, 2.0, 3.0, inf], [True, True, True, False])
    assert (t.median, t.max) == (2.5, inf) and t.p90 == inf
    assert t.tts99 == tail([1.0, 2.0, 3.0, 60.0], [True, True, True, False]).tts99
    t = tail([1.0] * 9 + [inf], [True] * 9 + [False])
    assert t.median == 1.0 and t.p90 == pytest.approx(1.0 + 0.1 * inf) and t.p90 == inf
    t = tail([inf, inf], [False, False])
    assert (t.success_rate, t.median, t.p90, t.tts99) == (0.0, inf, inf, inf)
    finite = [5.0, 1.0, 3.0, 2.0, 8.0, 13.0, 21.0]
    assert tail(finite, [True] * 7).p90 == pytest.approx(np.percentile(finite, 90))


@pytest.mark.parametrize("seconds, solved", [([], []), ([1.0], [True, False]), ([-1.0], [True]),
                                             ([math.nan], [True]), ([math.inf], [True])])
def test_bad_runs_are_refused(seconds, solved):
    with pytest.raises(ValueError):
        tts99(seconds, solved)


def test_tts_at_is_the_formula_with_one_run_at_least():
    assert tts_at(2.0, 0.0) == math.inf and tts_at(2.0, 1.0) == 2.0
    assert tts_at(2.0, 0.5) == pytest.approx(2.0 * math.log(0.01) / math.log(0.5))   # 13.3 s
    assert tts_at(2.0, 0.995) == 2.0 and tts_at(2.0, 0.99) == pytest.approx(2.0)   # under one run: one run
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError):
            tts_at(1.0, bad)
