"""The measurements behind the Experiments chapter: writes results/experiments.json.

    make experiments                      # or: .venv/bin/python benchmarks/experiments.py --seeds 40

* outer: the source's loop elimination (HUBO form) on the 10x10 over many seeds:
  iterations, loop lengths and seconds of every iteration;
* lazy: qlib's loop cuts during one search: cuts and seconds per seed;
* hubo_vs_qubo: time to the verified answer of the HUBO form and of the pure
  QUBO form (slack variables, auxiliary degree variables) on the same boards;
* cpu_vs_gpu: the outer method on both backends, when a GPU is present.

Every (board, method, seed) run is one task of ``qlib.sweep.run_sweep`` with
``slitherlink.sweep_task``: by default on a Dask LocalCluster with one worker
process per core, each with one numba thread (``--workers`` changes the count,
``--scheduler ADDRESS`` uses an existing cluster, ``--serial`` runs in this
process).  The CPU-GPU comparison always runs in this process, one run at a
time.  Every answer is checked with ``slitherlink.is_solution``.  Times are wall
seconds after JIT loading (``jit_seconds`` reports it apart) on the machine that
ran the script (see "machine" and "sweep"); runs that share the cores run side
by side, so their times include that competition.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from qlib.puzzles import slitherlink
from qlib.solvers import gpu
from qlib.sweep import SCHEDULER_ENV, run_sweep

OUT = Path(__file__).resolve().parent / "results" / "experiments.json"
TEN = "slitherlink-10x10-qbpp.txt"
FIVES = ("slitherlink-5x5-blog-ex1.txt", "slitherlink-5x5-blog-ex2.txt")
#: The (form, method) pairs the tasks use: their kernels are loaded once before the fan-out.
KERNELS = (("hubo", "outer"), ("hubo", "lazy"), ("qubo", "outer"))


def warm() -> None:
    """Compile or load every kernel the tasks use, in this process, before any worker starts."""
    for form, method in KERNELS:
        slitherlink.warmup(form, method)


def task(group, file, method, form, seed, cap, **extra) -> tuple[tuple, dict]:
    """One run: its place in the results (``group``) and the keyword arguments of ``sweep_task``."""
    return group, dict(file=file, method=method, formulation=form, seed=seed, time_limit=cap, max_iterations=1000, **extra)


def cpu_tasks(args) -> list[tuple[tuple, dict]]:
    """The (board, method, seed) runs of every CPU section, capped ones first (they take longest)."""
    runs = []
    for file in (*FIVES, TEN):
        seeds = range(args.qubo_seeds if file != TEN else max(2, args.qubo_seeds // 3))
        for form in ("qubo", "hubo"):
            runs += [task(("hubo_vs_qubo", file, form), file, "outer", form, s, args.qubo_cap) for s in seeds]
    runs += [task(("outer",), TEN, "outer", "hubo", s, 120.0) for s in range(args.seeds)]
    runs += [task(("lazy",), TEN, "lazy", "hubo", s, 120.0) for s in range(args.seeds)]
    return runs


def gather(runs, results) -> dict:
    """The results of ``runs`` in the layout of experiments.json."""
    out = dict(outer=[], lazy=[], hubo_vs_qubo=dict(boards={}))
    for (group, *where), result in zip((g for g, _ in runs), results):
        if group == "hubo_vs_qubo":
            file, form = where
            out["hubo_vs_qubo"]["boards"].setdefault(file, dict(hubo=[], qubo=[]))[form].append(result)
        else:
            out[group].append(result)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=40, help="seeds of the 10x10 runs")
    parser.add_argument("--qubo-seeds", type=int, default=10)
    parser.add_argument("--qubo-cap", type=float, default=20.0, help="seconds per pure-QUBO run")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", default=os.environ.get(SCHEDULER_ENV),
                       help=f"Dask scheduler to use (default: ${SCHEDULER_ENV}, else a new LocalCluster)")
    where.add_argument("--serial", action="store_true", help="run every task in this process, without Dask")
    parser.add_argument("--workers", type=int, default=None, help="LocalCluster processes (default: the cores)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.workers and (args.serial or args.scheduler):
        parser.error("--workers sizes the LocalCluster; it does not apply to --serial or --scheduler")

    scheduler = "serial" if args.serial else args.scheduler or None
    workers = None if scheduler else (args.workers or os.cpu_count())
    runs = cpu_tasks(args)
    start = time.perf_counter()
    results = run_sweep(slitherlink.sweep_task, [t for _, t in runs], scheduler=scheduler, n_workers=workers,
                        warm=warm)
    wall = time.perf_counter() - start
    out = gather(runs, results)
    print(f"{len(runs)} runs in {wall:.0f} s", flush=True)

    command = (f"benchmarks/experiments.py --seeds {args.seeds} --qubo-seeds {args.qubo_seeds} "
               f"--qubo-cap {args.qubo_cap:g}")
    command += " --serial" if args.serial else f" --scheduler {scheduler}" if scheduler else ""
    command += f" --workers {args.workers}" if args.workers else ""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from provenance import code_fingerprint, qlib_commit  # the commit (and a dirty flag), the code measured

    results = dict(machine=dict(platform=platform.platform(), cpus=os.cpu_count(),
                                python=platform.python_version(),
                                gpu=gpu.device_name() if gpu.is_available() else None),
                   command=command, qlib=qlib_commit(), measured=code_fingerprint("experiments.json"),
                   sweep=dict(scheduler=scheduler or "LocalCluster", workers=workers,
                              numba_threads_per_worker=1 if scheduler is None else None,
                              runs=len(runs), wall_seconds=wall))
    results["outer"], results["lazy"] = out["outer"], out["lazy"]
    results["hubo_vs_qubo"] = dict(cap_seconds=args.qubo_cap, boards=out["hubo_vs_qubo"]["boards"])
    if gpu.is_available():   # in this process, one run at a time: the GPU is not shared between workers
        backends = dict(cpu=dict(options=dict(algorithm="sa")), gpu=dict(backend="gpu"))
        results["cpu_vs_gpu"] = {
            name: run_sweep(slitherlink.sweep_task, [task(None, TEN, "outer", "hubo", s, 120.0, **extra)[1]
                                                     for s in range(10)], scheduler="serial")
            for name, extra in backends.items()}
    else:
        results["cpu_vs_gpu"] = None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(f"written to {args.out}")


if __name__ == "__main__":   # the guard matters: Dask's worker processes re-import this file
    main()
