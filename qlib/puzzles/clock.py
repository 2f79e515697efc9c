"""Deadlines for the puzzles' Python steps: building a model, encoding a SAT formula.

Those steps run in plain Python and can take seconds on a large board, so a
solve's ``time_limit`` would not hold if they ran to the end.  They look at the
clock now and then (:func:`check`) and raise :class:`TimeUp` once the deadline
has passed; the solve catches it and reports stop reason "time_limit".
"""

from __future__ import annotations

import time

__all__ = ["TimeUp", "check"]


class TimeUp(Exception):
    """A step passed its deadline before it finished."""


def check(deadline: float | None) -> None:
    """Raise :class:`TimeUp` once ``deadline`` (a ``time.perf_counter()`` value; None: none) has passed."""
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeUp
