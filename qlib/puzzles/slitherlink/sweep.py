"""One Slitherlink solve as a sweep task: plain, JSON-able results for :func:`qlib.sweep.run_sweep`."""

from __future__ import annotations

from pathlib import Path

import qlib

from .board import parse
from .rules import is_solution
from .solve import solve


def sweep_task(file: str, method: str | None = None, formulation: str = "cells", *, seed: int, time_limit: float = 60.0,
               max_iterations: int | None = None, backend: str = "cpu", options: dict | None = None) -> dict:
    """Solve the board ``file`` (a file shipped in ``qlib/data`` or a path) once with ``seed``.

    ``method``, ``formulation``, ``time_limit``, ``max_iterations`` and ``backend`` go to
    :func:`~.solve.solve`, ``options`` (a dict) to the backend.  Returns the task's
    own arguments and ``solved`` (the answer passed :func:`~.rules.is_solution`),
    ``status``, ``stop_reason``, ``found_by``, ``seconds`` (after JIT loading, which
    ``jit_seconds`` reports), ``iterations`` (solves run), ``loops`` (loop lengths
    of each iteration's state), ``iteration_seconds``, ``cuts`` (loops forbidden
    or cut in all), ``var_count`` and ``term_count`` of the last model, and
    ``answer``: the flat edge indices of the answer loop (None when unsolved), so
    that the answer can be checked again from the stored results.
    """
    board = parse(Path(file) if Path(file).is_file() else qlib.data_path(file))
    r = solve(board, method=method, formulation=formulation, seed=seed, time_limit=time_limit, max_iterations=max_iterations,
              backend=backend, **(options or {}))
    return dict(file=str(file), method=r.method, formulation=r.formulation, backend=r.backend, seed=int(seed),
                solved=bool(r.solved and is_solution(board, r.h, r.v)), status=r.status,
                stop_reason=r.stop_reason, found_by=r.found_by, seconds=float(r.seconds),
                iterations=len(r.iterations),
                loops=[None if it["loops"] is None else [int(n) for n in it["loops"]] for it in r.iterations],
                iteration_seconds=[float(it["seconds"]) for it in r.iterations],
                cuts=int(sum(it.get("forbidden", 0) for it in r.iterations)),
                var_count=int(r.var_count), term_count=int(r.term_count),
                jit_seconds=float(r.timings.get("jit_seconds", 0.0)),
                answer=None if r.loop is None else sorted(int(e) for e in r.loop))
