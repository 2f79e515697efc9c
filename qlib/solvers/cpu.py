"""The CPU backend: numba's parallel kernels on the cores numba may use.

Two algorithms, each a function ``(compiled, options, common) -> (state, info)``
that :func:`qlib.solve` finds in its registry: :func:`run_sa_cpu` (simulated
annealing with restarts, :mod:`qlib.solvers.sa`) and :func:`run_focused_cpu` (the
focused search with optional lazy cuts, :mod:`qlib.solvers.focused`).
Replicas run in parallel on ``num_threads`` threads; a result depends on the
seed, not on the thread count.
"""

from __future__ import annotations

import contextlib
import threading
import time

import numba

from .focused import driver as focused
from .sa import driver as sa
from .sa import kernel as anneal
from .options import default_sweeps
from .start import check_focused_stop, check_replica_memory, start, time_left

__all__ = ["run_sa_cpu", "run_focused_cpu", "choose_algorithm", "check_replica_memory", "PARALLEL_LOCK"]

#: CPU solves from several Python threads of one process take turns: the fork-safe threading
#: layer qlib selects (:mod:`qlib`) aborts on concurrent parallel launches.
PARALLEL_LOCK = threading.Lock()


def choose_algorithm(compiled, target_energy, options: dict) -> str:
    """What ``algorithm="auto"`` runs: "focused" when there is a target and every objective
    coefficient is non-negative (the energy is all penalty), or when lazy cuts are given; else "sa"."""
    penalty_only = bool((compiled.term_coef[:compiled.num_objective_terms] >= 0).all())
    if (target_energy is not None and penalty_only) or options.get("lazy_cuts") is not None:
        return "focused"
    return "sa"


@contextlib.contextmanager
def _parallel(num_threads: int):
    """One parallel launch at a time (:data:`PARALLEL_LOCK`), on ``num_threads`` threads."""
    with PARALLEL_LOCK:   # numba's fork-safe workqueue layer takes one parallel launch at a time
        previous = numba.get_num_threads()
        numba.set_num_threads(num_threads)
        try:
            yield
        finally:
            numba.set_num_threads(previous)


def run_sa_cpu(compiled, options, common):
    """Simulated annealing with restarts (:class:`~qlib.solvers.options.SAOptions`) on the CPU cores."""
    entry = time.perf_counter()
    rng, states, target = start(compiled, options.num_replicas, common)
    kernel = sa.choose_kernel(compiled)    # builds the kernel's arrays: seconds on a dense model
    time_limit = time_left(common, entry)   # setup counts too
    serial = options.num_threads == 1 or options.num_replicas == 1   # no parallel launch per chunk
    round_function = anneal.anneal_serial if serial else anneal.anneal_round
    with _parallel(options.num_threads):
        num_sweeps = options.num_sweeps or default_sweeps(compiled.var_count)
        state, info = sa.run_sa(compiled, rng, states, target, time_limit, num_sweeps=num_sweeps,
                                beta_range=options.beta_range, max_rounds=options.max_rounds,
                                round_function=round_function, kernel=kernel)
    info.update(backend="cpu", num_threads=options.num_threads)
    return state, info


def run_focused_cpu(compiled, options, common):
    """The focused search (:class:`~qlib.solvers.options.FocusedOptions`) on the CPU cores."""
    entry = time.perf_counter()
    check_focused_stop(options, common)
    rng, states, target = start(compiled, options.num_replicas, common)
    time_limit = time_left(common, entry)   # setup counts too
    with _parallel(options.num_threads):
        state, info = focused.run_focused(compiled, rng[:options.num_replicas], states, target, time_limit,
                                          noise=options.noise, tabu_tenure=options.tabu_tenure,
                                          weight_smoothing=options.weight_smoothing,
                                          lazy=options.lazy_cuts, max_steps=options.max_steps,
                                          share_cuts=options.share_cuts, share_interval=options.share_interval)
    info.update(backend="cpu", num_threads=options.num_threads)
    return state, info


#: Names this module had before: each still works for one release, with a DeprecationWarning.
_RENAMED = {"run_sa": "run_sa_cpu", "run_focused": "run_focused_cpu"}


def __getattr__(name):
    """A renamed function under its old name, with a DeprecationWarning."""
    if name in _RENAMED:
        import warnings

        warnings.warn(f"qlib.solvers.cpu.{name} is now {_RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return globals()[_RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
