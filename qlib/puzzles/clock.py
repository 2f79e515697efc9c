"""Deadlines for the puzzles' Python steps: building a model, encoding a SAT formula.

Those steps run in plain Python and can take seconds on a large board, so a
solve's ``time_limit`` would not hold if they ran to the end.  They look at the
clock now and then (:func:`check`) and raise :class:`TimeUp` once the deadline
has passed; the solve catches it and reports stop reason "time_limit".
A solve runs with the cyclic garbage collector paused (:func:`gc_paused`):
building a model makes tens of thousands of objects, and in a process that
already holds millions, one full collection can stall a step for longer than
the slack a ``time_limit`` allows.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time

__all__ = ["TimeUp", "check", "gc_paused"]

_paused = [0, False]   # (solves now inside gc_paused, whether the collector was on before the first)
_lock = threading.Lock()


class TimeUp(Exception):
    """A step passed its deadline before it finished."""


def check(deadline: float | None) -> None:
    """Raise :class:`TimeUp` once ``deadline`` (a ``time.perf_counter()`` value; None: none) has passed."""
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeUp


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector for the block; the last of nested or concurrent blocks resumes it.

    Reference counting still frees every object that is not in a cycle; cycles
    made inside wait for the next collection after the block.
    """
    with _lock:
        if _paused[0] == 0:
            _paused[1] = gc.isenabled()
            gc.disable()
        _paused[0] += 1
    try:
        yield
    finally:
        with _lock:
            _paused[0] -= 1
            if _paused[0] == 0 and _paused[1]:
                gc.enable()
