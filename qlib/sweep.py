"""Sweeps: one function run over many tasks in parallel processes, on dask.distributed.

A task is a dict of keyword arguments; :func:`run_sweep` calls ``function(**task)``
for every task and returns the results in task order.  The module knows nothing
of puzzles: the task function lives with its puzzle (for example
``qlib.puzzles.slitherlink.sweep_task``).

Three choices keep a sweep reproducible and safe:

* every task carries its own ``seed``.  ``Client.map`` assumes a pure function
  and would run identical tasks once; the tasks are submitted with
  ``pure=False``, so each runs, and a seed is always explicit;
* the default cluster is a :class:`distributed.LocalCluster` of processes with
  one thread each and ``NUMBA_NUM_THREADS=1`` (and one OpenMP/MKL/OpenBLAS
  thread), set through the nanny's pre-spawn environment: Dask limits its own
  threads, not numba's, and the parallelism comes from the processes;
* the ``warm`` callable runs once in the calling process before the fan-out.
  It fills numba's on-disk cache, which the workers then only read: several
  processes compiling and writing the same cache entries at once can crash.

``scheduler="serial"`` runs the tasks one after another in this process, without
Dask (for comparison and tests); a scheduler address, or the environment variable
``QLIB_DASK_SCHEDULER``, sends them to an existing cluster instead.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import sys
import uuid
from collections.abc import Callable, Iterable, Mapping

from . import validate

__all__ = ["run_sweep", "local_cluster", "check_tasks", "SCHEDULER_ENV", "WORKER_ENV"]

#: Environment variable naming the scheduler address :func:`run_sweep` uses by default.
SCHEDULER_ENV = "QLIB_DASK_SCHEDULER"

#: Environment of every worker process of :func:`local_cluster`: one thread for numba and
#: the BLAS libraries, so that the worker processes do not compete for the cores.
WORKER_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1"}


def check_tasks(function: Callable, tasks: Iterable[Mapping]) -> list[dict]:
    """The tasks as a list of dicts, checked before any process starts.

    Each task must be a mapping with a ``seed`` (ValueError without one), an integer
    (TypeError otherwise), whose keys ``function`` accepts (TypeError otherwise, as a
    direct call would raise).
    """
    signature = inspect.signature(function)
    checked = []
    for k, task in enumerate(tasks):
        if not isinstance(task, Mapping):
            raise TypeError(f"task {k} is a {type(task).__name__}, expected a dict of keyword arguments")
        task = dict(task)
        if task.get("seed") is None:
            raise ValueError(f"task {k} has no 'seed': every task needs its own seed")
        validate.integer(f"the seed of task {k}", task["seed"])
        try:
            signature.bind(**task)
        except TypeError as error:
            raise TypeError(f"task {k} does not fit {getattr(function, '__name__', function)}(): {error}") from None
        checked.append(task)
    return checked


@contextlib.contextmanager
def _environ(values: Mapping[str, str]):
    """Set environment variables for the duration of the block, then restore them."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def local_cluster(n_workers: int | None = None):
    """A started LocalCluster of ``n_workers`` processes (default: the cores) with one thread each.

    Every worker starts with :data:`WORKER_ENV`, passed as dask's
    ``distributed.nanny.pre-spawn-environ``.  The nanny lets a variable already in
    this process's environment win over that setting, and writes the result into
    this process's environment before spawning; both are undone once the workers
    run, so this process keeps its own numba thread count (numba refuses to change
    it once its threads started).  The cluster listens on 127.0.0.1 only and logs
    errors only.  Use it as ``with local_cluster(2) as cluster:``, or call
    ``cluster.close()`` when done.
    """
    import dask
    from distributed import LocalCluster

    n = (os.cpu_count() or 1) if n_workers is None else validate.integer("n_workers", n_workers, minimum=1)
    env = {**dask.config.get("distributed.nanny.pre-spawn-environ", default={}), **WORKER_ENV}
    env = {k: str(v) for k, v in env.items() if v is not None}
    with dask.config.set({"distributed.nanny.pre-spawn-environ": env}), _environ(env):
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                            scheduler_port=0, dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)


def run_sweep(function: Callable, tasks: Iterable[Mapping], *, scheduler=None, n_workers: int | None = None,
              progress: bool = True, warm: Callable[[], object] | None = None) -> list:
    """``[function(**task) for task in tasks]``, computed in parallel processes.

    ``function`` must be importable by the workers (a module-level function) and
    return picklable results.  ``tasks``: dicts of keyword arguments, each with an
    explicit integer ``seed`` (see :func:`check_tasks`).  ``scheduler``: None (the
    default) uses ``$QLIB_DASK_SCHEDULER`` if set, else starts a
    :func:`local_cluster` of ``n_workers`` processes for this sweep; an address
    (``"tcp://host:8786"``) or a cluster object uses that cluster, whose workers
    keep their own environment; ``"serial"`` runs every task here, in order,
    without Dask.  ``warm`` runs once here before any task (for example a numba
    warm-up).  ``progress`` shows distributed's text progress bar when standard
    output is a terminal; inside a Jupyter kernel, in a pipe, or when ``progress``
    is False, nothing is printed.  A task that raises makes the sweep raise the
    same exception.  Worker processes are spawned, and they import a script's
    main module again: call run_sweep under ``if __name__ == "__main__":``.
    """
    tasks = check_tasks(function, tasks)
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    if n_workers is not None and scheduler is not None:
        raise ValueError("n_workers sizes the LocalCluster run_sweep starts; it does not apply to "
                         f"scheduler={scheduler!r}")
    if warm is not None:
        warm()
    if scheduler == "serial":
        return _serial(function, tasks, progress)
    if scheduler is None:
        with local_cluster(n_workers) as cluster:
            return _on_dask(function, tasks, cluster, progress)
    return _on_dask(function, tasks, scheduler, progress)


def _call(task: dict, function: Callable):
    return function(**task)


def _show_progress(progress: bool) -> bool:
    from distributed.utils import is_kernel

    return bool(progress) and not is_kernel() and sys.stdout.isatty()


def _on_dask(function, tasks, scheduler, progress):
    from distributed import Client
    from distributed import progress as progress_bar

    name = getattr(function, "__name__", "task")
    keys = [f"{name}-{uuid.uuid4().hex}" for _ in tasks]   # unique: identical tasks still all run
    with Client(scheduler, set_as_default=False) as client:
        futures = client.map(_call, tasks, function=function, key=keys, pure=False)
        if _show_progress(progress) and futures:
            progress_bar(futures, notebook=False, scheduler=client.scheduler.address)
        return client.gather(futures)


def _serial(function, tasks, progress):
    show = progress and sys.stdout.isatty()
    results = []
    for k, task in enumerate(tasks, start=1):
        results.append(function(**task))
        if show:
            done = 40 * k // len(tasks)
            print(f"\r[{'#' * done}{' ' * (40 - done)}] {k}/{len(tasks)}", end="", flush=True)
    if show and tasks:
        print()
    return results
