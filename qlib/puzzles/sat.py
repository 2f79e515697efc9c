"""CaDiCaL through pysat, in budgeted slices that a Ctrl-C cannot break.

The puzzles' exact solvers (:mod:`qlib.puzzles.slitherlink.exact`,
:mod:`qlib.puzzles.nonogram.exact`) call the SAT solver here.  Called from the
main thread, pysat's ``solve_limited`` installs a SIGINT handler that jumps out
of CaDiCaL mid-search; the solver is then left broken (its destructor can crash
or deadlock).  :func:`solve_slice` runs each slice on a helper thread, where
pysat installs no handler: a Ctrl-C reaches Python's own handler, the slice ends
within its conflict budget, and ``KeyboardInterrupt`` is raised after it, with
the solver intact.
"""

from __future__ import annotations

import threading

__all__ = ["solver_class", "solver_name", "solve_slice"]

#: pysat solver classes, newest first: the first one installed is used.
SOLVERS = ("Cadical300", "Cadical195", "Cadical153")


def solver_class():
    """The newest pysat CaDiCaL class installed."""
    try:
        from pysat import solvers
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("qlib's exact solvers need python-sat, a dependency of qlib: pip install -e .") from exc
    for name in SOLVERS:
        cls = getattr(solvers, name, None)
        if cls is not None:
            return cls
    raise ImportError(f"the installed python-sat has none of {', '.join(SOLVERS)}; "
                      "pip install -c requirements/constraints.txt -e . for the pinned version")


def solver_name() -> str:
    """The name of the pysat CaDiCaL class used (e.g. ``"Cadical195"``)."""
    return solver_class().__name__


def solve_slice(solver, conflicts: int):
    """``solver.solve_limited()`` within ``conflicts`` conflicts: True (a model), False (unsat) or None
    (the budget ran out; the next call goes on).  A Ctrl-C meanwhile raises ``KeyboardInterrupt`` once
    the slice has ended, and the solver can still be used and deleted."""
    solver.conf_budget(int(conflicts))
    out = []

    def run():
        try:
            out.append(solver.solve_limited())
        except BaseException as exc:   # raised again on the caller's thread
            out.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    interrupted = False
    while True:
        try:
            worker.join()
            break
        except KeyboardInterrupt:   # wait for the slice: the solver must not be touched while it runs
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]
