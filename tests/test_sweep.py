"""Tests of qlib.sweep: the same results on Dask as serially, explicit seeds, one numba thread per worker.

One LocalCluster of two processes serves the whole module; it is started with a
NUMBA_NUM_THREADS already in this process's environment, which the workers must
not inherit.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import uuid

import numpy as np
import pytest

pytest.importorskip("distributed")

import qlib
from qlib.puzzles import slitherlink
from qlib.sweep import WORKER_ENV, check_tasks, local_cluster, run_sweep

TIMINGS = ("seconds", "iteration_seconds", "jit_seconds")
FIVES = ("slitherlink-5x5-blog-ex1.txt", "slitherlink-5x5-blog-ex2.txt")


@pytest.fixture(scope="module")
def parent_threads():
    """This process's numba thread count, also written into its environment."""
    import numba

    return str(numba.config.NUMBA_NUM_THREADS)


@pytest.fixture(scope="module")
def cluster(parent_threads):
    saved = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = parent_threads
    try:
        with local_cluster(2) as c:
            assert os.environ["NUMBA_NUM_THREADS"] == parent_threads   # restored once the workers run
            yield c
    finally:
        if saved is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = saved


# Task functions: module level, so the worker processes import them by name.
def draw(seed, tag=None):
    """A number drawn from ``seed`` and a token unique to this call."""
    return dict(seed=seed, tag=tag, value=random.Random(seed).random(), call=uuid.uuid4().hex)


def threads(seed):
    import numba

    return dict(config=numba.config.NUMBA_NUM_THREADS, running=numba.get_num_threads(), pid=os.getpid(),
                **{k: os.environ.get(k) for k in WORKER_ENV})


def slow_echo(seed, delay):
    time.sleep(delay)
    return seed


def fail(seed):
    raise ValueError(f"task {seed} failed")


def small_sweep():
    """Outer and lazy loop elimination (edge form) on the two 5x5 boards, two seeds each."""
    return [dict(file=f, method=m, formulation="hubo", seed=s, time_limit=30.0)
            for f in FIVES for m in ("outer", "lazy") for s in (0, 1)]


def test_dask_gives_the_serial_results(cluster):
    tasks = small_sweep()
    serial = run_sweep(slitherlink.sweep_task, tasks, scheduler="serial")
    dask = run_sweep(slitherlink.sweep_task, tasks, scheduler=cluster, progress=False)
    assert all(r["solved"] for r in serial)
    for task, a, b in zip(tasks, serial, dask, strict=True):
        assert (b["file"], b["method"], b["seed"]) == (task["file"], task["method"], task["seed"])
        assert {k: v for k, v in a.items() if k not in TIMINGS} == {k: v for k, v in b.items() if k not in TIMINGS}
        assert len(b["iteration_seconds"]) == b["iterations"] == len(b["loops"])
    json.dumps(dask)   # plain results


def test_stored_answer_is_the_answer():
    r = slitherlink.sweep_task("slitherlink-5x5-blog-ex1.txt", "outer", "hubo", seed=3)
    board = slitherlink.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))
    mask = np.zeros(board.grid.num_edges, dtype=np.uint8)
    mask[r["answer"]] = 1
    assert r["solved"] and slitherlink.is_solution(board, *board.grid.to_hv(mask))
    mask[r["answer"][0]] = 0
    assert not slitherlink.is_solution(board, *board.grid.to_hv(mask))


def test_every_task_runs_with_its_own_seed(cluster):
    tasks = [dict(seed=0, tag="a"), dict(seed=0, tag="a"), dict(seed=1, tag="a")]
    a, b, c = run_sweep(draw, tasks, scheduler=cluster, progress=False)
    assert a["call"] != b["call"]              # identical tasks both ran (not deduplicated as pure)
    assert a["value"] == b["value"] == random.Random(0).random()
    assert c["value"] == random.Random(1).random() != a["value"]
    with pytest.raises(ValueError, match="seed"):
        run_sweep(draw, [dict(tag="no seed")], scheduler="serial")
    with pytest.raises(TypeError, match="seed"):
        run_sweep(draw, [dict(seed=True)], scheduler="serial")


def test_workers_run_one_numba_thread(cluster, parent_threads):
    results = run_sweep(threads, [dict(seed=s) for s in range(4)], scheduler=cluster, progress=False)
    assert {r["pid"] for r in results} <= _worker_pids(cluster)
    for r in results:
        assert r["config"] == r["running"] == 1
        assert all(r[k] == v for k, v in WORKER_ENV.items())
    assert os.environ["NUMBA_NUM_THREADS"] == parent_threads   # this process's own setting is untouched


def _worker_pids(cluster):
    from distributed import Client

    with Client(cluster, set_as_default=False) as client:
        return set(client.run(os.getpid).values())


def test_results_come_back_in_task_order(cluster):
    delays = [0.6, 0.4, 0.2, 0.0]   # later tasks finish first
    assert run_sweep(slow_echo, [dict(seed=k, delay=d) for k, d in enumerate(delays)],
                     scheduler=cluster, progress=False) == [0, 1, 2, 3]


def test_environment_variable_names_the_scheduler(cluster, monkeypatch):
    monkeypatch.setenv("QLIB_DASK_SCHEDULER", cluster.scheduler_address)
    pids = {r["pid"] for r in run_sweep(threads, [dict(seed=0), dict(seed=1)], progress=False)}
    assert pids <= _worker_pids(cluster) and os.getpid() not in pids
    monkeypatch.setenv("QLIB_DASK_SCHEDULER", "serial")
    assert run_sweep(threads, [dict(seed=0)])[0]["pid"] == os.getpid()


def test_a_failing_task_raises(cluster):
    with pytest.raises(ValueError, match="task 2 failed"):
        run_sweep(fail, [dict(seed=2)], scheduler=cluster, progress=False)


def test_unknown_keywords_raise_before_anything_starts():
    unreachable = "tcp://127.0.0.1:9"   # would fail only on connecting
    with pytest.raises(TypeError, match="sead"):
        run_sweep(slitherlink.sweep_task, [dict(file=FIVES[0], seed=0, sead=1)], scheduler=unreachable)
    with pytest.raises(TypeError):
        run_sweep(draw, [dict(seed=0)], scheduler="serial", workers=2)
    with pytest.raises(TypeError, match="dict"):
        check_tasks(draw, [0])
    with pytest.raises(ValueError, match="n_workers"):
        run_sweep(draw, [dict(seed=0)], scheduler="serial", n_workers=2)
    with pytest.raises(ValueError, match="n_workers"):
        local_cluster(0)


def test_generic_module_knows_no_puzzle():
    code = ("import sys, qlib.sweep; "
            "print(sorted(m for m in sys.modules if m.startswith(('qlib.puzzles', 'distributed', 'dask'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
