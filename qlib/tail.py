"""The tail of repeated runs: success rate, median, p90, maximum and TTS99.

A randomised search is judged by all its runs, not only the typical one.  Each
function takes the runs' costs (seconds, or steps, rounds, solves: any unit)
and whether each answered; a run that did not answer counts at the cost it
took (its cap), or at infinity where a chapter counts a failure so: the
median, p90 and maximum are then infinite once that many runs failed.

TTS99, the time to solution with probability 0.99, asks: if runs are cut at a
budget ``t`` and repeated from new seeds until one answers, how long until an
answer with probability 0.99?  With ``p(t)`` the share of runs that answered
within ``t`` (the number of runs left unrounded, as is usual),

    TTS99(t) = t * log(0.01) / log(1 - p(t)),   at least t (one run),

and :func:`tts99` reports the best ``t`` among the answered runs' times.  It is
infinite when no run answered, and never below the fastest answer; it can sit
below the median, when a quick budget answers often enough.  Over a small sample
the best budget leans low (a budget that only a lucky run or two beat), so
compare it across rows measured alike.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = ["tts_at", "tts", "tts99", "Tail", "tail"]


def _runs(seconds, solved) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(seconds, dtype=np.float64).ravel()
    ok = np.asarray(solved, dtype=bool).ravel()
    if t.shape != ok.shape:
        raise ValueError(f"seconds and solved need one entry per run, got {t.size} and {ok.size}")
    if t.size == 0:
        raise ValueError("no runs")
    if np.isnan(t).any() or (t < 0).any() or np.isinf(t[ok]).any():
        raise ValueError("seconds must not be negative or nan, and an answered run's must be finite")
    return t, ok


def _quantile(t: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``t`` by linear interpolation between order statistics (numpy's default),
    infinite where it interpolates towards an infinite cost."""
    t = np.sort(t)
    pos = q * (t.size - 1)
    lo, hi = int(math.floor(pos)), int(math.ceil(pos))
    if lo == hi or t[lo] == t[hi]:
        return float(t[lo])
    return float(t[lo] + (pos - lo) * (t[hi] - t[lo]))


def tts_at(budget: float, p: float, probability: float = 0.99) -> float:
    """``budget * log(1 - probability) / log(1 - p)``, at least ``budget``: the time to solution with
    ``probability`` by runs of ``budget`` seconds that each answer with probability ``p`` (0: infinite)."""
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must lie in (0, 1), got {probability!r}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a success rate in [0, 1], got {p!r}")
    if p == 0.0:
        return math.inf
    if p == 1.0:
        return float(budget)
    return float(budget) * max(1.0, math.log(1.0 - probability) / math.log(1.0 - p))


def tts(seconds, solved, probability: float = 0.99) -> float:
    """Time to solution with ``probability`` by runs restarted at the best budget (see the module):
    :func:`tts_at` of each answered run's time and the share of runs answered within it, at its minimum."""
    t, ok = _runs(seconds, solved)
    best = math.inf
    answered = np.sort(t[ok])
    for k, budget in enumerate(answered):
        if k + 1 < answered.size and answered[k + 1] == budget:
            continue                                  # the last of equal times sees them all
        best = min(best, tts_at(budget, (k + 1) / t.size, probability))
    return best


def tts99(seconds, solved) -> float:
    """TTS99: :func:`tts` at probability 0.99."""
    return tts(seconds, solved, 0.99)


class Tail(NamedTuple):
    """The tail of a set of runs (seconds; failures at the time they took)."""

    runs: int
    successes: int
    success_rate: float
    median: float
    p90: float
    max: float
    tts99: float


def tail(seconds, solved) -> Tail:
    """Success rate, median, p90 (linear interpolation) and maximum of every run's cost, and :func:`tts99`;
    a failed run's cost may be infinite."""
    t, ok = _runs(seconds, solved)
    return Tail(int(t.size), int(ok.sum()), float(ok.mean()), _quantile(t, 0.5), _quantile(t, 0.9),
                float(t.max()), tts99(t, ok))
