"""qlib.puzzles.sat: a Ctrl-C during a SAT slice raises KeyboardInterrupt after the slice, and the
solver is intact (pysat's own handler would jump out of CaDiCaL and leave it broken)."""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest

from qlib.puzzles.sat import solve_slice, solver_class


def _random_3sat(n, ratio, seed):
    rng = np.random.default_rng(seed)
    return [[int(v) * (1 if rng.random() < 0.5 else -1) for v in rng.choice(np.arange(1, n + 1), 3, replace=False)]
            for _ in range(int(n * ratio))]


def test_a_slice_answers_as_the_solver_does():
    solver = solver_class()(bootstrap_with=[[1, 2], [-1], [-2, 3]])
    try:
        assert solve_slice(solver, 1000) is True and solver.get_model()[:3] == [-1, 2, 3]
        solver.add_clause([-3])
        assert solve_slice(solver, 1000) is False
    finally:
        solver.delete()


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="SIGINT needs the main thread")
def test_ctrl_c_in_a_slice_leaves_the_solver_usable():
    solver = solver_class()(bootstrap_with=_random_3sat(700, 4.26, seed=1))   # hard: far beyond the budget
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            for _ in range(100_000):
                assert solve_slice(solver, 20_000) is None   # never decided within the test
        assert solve_slice(solver, 10) in (None, True, False)   # the solver goes on
    finally:
        timer.cancel()
        solver.delete()
