"""qlib against peer samplers on the book's workloads: prints a table, writes JSON.

    make bench                                   # everything, 10 seeds, 10 s cap per peer run
    .venv/bin/python benchmarks/run.py --seeds 3 --cap 5 --only sl5-ex1 nono-native
    .venv/bin/python benchmarks/run.py --only sl10 --solvers qlib-cells --merge   # add one row

Every run of every solver is checked: a Slitherlink run counts as a success only
when its answer passes ``slitherlink.check`` (one loop, every clue), a Nonogram
run only when its grid satisfies every clue, a first-iteration run only at
energy 0.  A run that fails within the cap counts at the cap.  Times are wall
seconds after JIT warm-up; the compile time is measured separately, in a fresh
process with an empty numba cache.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import qlib  # noqa: E402
from qlib.puzzles import nonogram, slitherlink  # noqa: E402

RESULTS = HERE / "results" / "latest.json"


# -- workloads -----------------------------------------------------------------
def _slitherlink_full(file, method, form, backend, **options):
    board = slitherlink.parse(qlib.data_path(file))

    def run(seed, cap):
        r = slitherlink.solve(board, method=method, form=form, backend=backend, seed=seed, time_limit=cap,
                              max_iterations=1000, **options)
        ok = r.status == "solved" and slitherlink.is_solution(board, r.h, r.v)
        return ok, dict(iterations=len(r.iterations), cuts=r.iterations[-1].get("forbidden") if r.iterations else 0)
    return run


def _slitherlink_first(file, form, backend, **options):
    board = slitherlink.parse(qlib.data_path(file))
    model = slitherlink.build_model(board, form).model
    compiled = qlib.compile(model)

    def run(seed, cap):
        sol = qlib.solve(compiled, backend=backend, seed=seed, time_limit=cap, target_energy=0, **options)
        return abs(sol.energy) < 1e-9, {}
    return run


def _nonogram(form, backend, **options):
    puzzle = nonogram.parse(qlib.data_path("nonogram-15x15-qbpp-logo.non"))

    def run(seed, cap):
        r = nonogram.solve(puzzle, form=form, backend=backend, seed=seed, time_limit=cap, **options)
        return r.status == "solved", {}
    return run


def workloads(include_gpu: bool):
    """{workload: {solver: run(seed, cap) -> (ok, extra)}}; the first solver of each is qlib's default."""
    from peers import PEERS

    sa = dict(algorithm="sa")
    w = {}
    for name, file in [("sl5-ex1", "slitherlink-5x5-blog-ex1.txt"), ("sl5-ex2", "slitherlink-5x5-blog-ex2.txt"),
                       ("sl10", "slitherlink-10x10-qbpp.txt")]:
        w[name] = {
            "qlib-lazy": _slitherlink_full(file, "lazy", "hubo", "cpu"),
            "qlib-outer": _slitherlink_full(file, "outer", "hubo", "cpu"),
            "qlib-outer-sa": _slitherlink_full(file, "outer", "hubo", "cpu", **sa),
            "qlib-cells": _slitherlink_full(file, "outer", "cells", "cpu"),
            "dwave-sa": _slitherlink_full(file, "outer", "qubo", PEERS["dwave-sa"]),
            "openjij-sa": _slitherlink_full(file, "outer", "qubo", PEERS["openjij-sa"]),
            "openjij-hubo": _slitherlink_full(file, "outer", "hubo", PEERS["openjij-hubo"]),
        }
        if include_gpu:
            w[name]["qlib-gpu-outer"] = _slitherlink_full(file, "outer", "hubo", "gpu")
    w["sl10-first"] = {
        "qlib-focused": _slitherlink_first("slitherlink-10x10-qbpp.txt", "cons", "cpu"),
        "qlib-sa": _slitherlink_first("slitherlink-10x10-qbpp.txt", "cons", "cpu", **sa),
        "dwave-sa": _slitherlink_first("slitherlink-10x10-qbpp.txt", "qubo", PEERS["dwave-sa"]),
        "openjij-sa": _slitherlink_first("slitherlink-10x10-qbpp.txt", "qubo", PEERS["openjij-sa"]),
        "openjij-hubo": _slitherlink_first("slitherlink-10x10-qbpp.txt", "cons", PEERS["openjij-hubo"]),
    }
    w["nono-native"] = {"qlib-focused": _nonogram("cons", "cpu"), "qlib-sa": _nonogram("cons", "cpu", **sa)}
    w["nono-qubo"] = {
        "qlib-sa": _nonogram("qubo", "cpu"),
        "dwave-sa": _nonogram("qubo", PEERS["dwave-sa"]),
        "openjij-sa": _nonogram("qubo", PEERS["openjij-sa"]),
    }
    if include_gpu:
        w["nono-native"]["qlib-gpu"] = _nonogram("cons", "gpu")
        w["sl10-first"]["qlib-gpu"] = _slitherlink_first("slitherlink-10x10-qbpp.txt", "cons", "gpu")
    for path in sorted((Path(qlib.__file__).parent / "data").glob("slitherlink-[12][05]x*-gen*.txt")):
        w[path.stem.replace("slitherlink-", "sl")] = {"qlib-lazy": _slitherlink_full(path.name, "lazy", "hubo", "cpu"),
                                                      "qlib-cells": _slitherlink_full(path.name, "outer", "cells", "cpu")}
    return w


# -- measuring -------------------------------------------------------------------
def compile_seconds() -> dict:
    """First call of every CPU kernel in a fresh process: with an empty numba cache, and with it warm."""
    code = ("import time; t = time.perf_counter(); import qlib; from qlib.puzzles import slitherlink as sl; "
            "qlib.warmup(); b = sl.parse(qlib.data_path('slitherlink-5x5-blog-ex1.txt')); "
            "sl.solve(b, seed=0, time_limit=30); print(time.perf_counter() - t)")
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for key in ("cold_cache_seconds", "warm_cache_seconds"):
            res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            out[key] = float(res.stdout.strip().splitlines()[-1])
    return out


def measure(run, seeds, cap):
    times, ok_count, extras = [], 0, []
    for seed in range(seeds):
        t = time.perf_counter()
        ok, extra = run(seed, cap)
        dt = time.perf_counter() - t
        ok_count += ok
        times.append(dt if ok else max(dt, cap))
        extras.append(extra)
    return dict(times=times, successes=ok_count, runs=seeds, median=statistics.median(times),
                min=min(times), max=max(times), extras=extras)


def table(results) -> str:
    lines = ["| workload | solver | success | median s | range s | qlib / peer (speed-up) |",
             "|---|---|---|---|---|---|"]
    for workload, solvers in results["workloads"].items():
        best = min((r["median"] for name, r in solvers.items() if name.startswith("qlib")), default=None)
        for name, r in solvers.items():
            ratio = "" if name.startswith("qlib") or best is None else \
                f"{best / r['median']:.3g} ({r['median'] / best:.3g}x)"
            lines.append(f"| {workload} | {name} | {r['successes']}/{r['runs']} | {r['median']:.3f} | "
                         f"{r['min']:.3f}-{r['max']:.3f} | {ratio} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--cap", type=float, default=10.0, help="seconds per peer run")
    parser.add_argument("--qlib-cap", type=float, default=20.0, help="seconds per qlib run")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument("--solvers", nargs="*", help="solver names to run (default: all)")
    parser.add_argument("--merge", action="store_true",
                        help="update these entries in the existing --out file instead of replacing it")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    from qlib.solvers import gpu

    results = dict(machine=dict(platform=platform.platform(), cpus=os.cpu_count(), python=platform.python_version(),
                                gpu=gpu.device_name() if gpu.is_available() else None),
                   seeds=args.seeds, peer_cap_seconds=args.cap, qlib_cap_seconds=args.qlib_cap, compile=compile_seconds(), workloads={})
    print(f"JIT compile (fresh process, empty cache): {results['compile']['cold_cache_seconds']:.1f} s; "
          f"with the cache: {results['compile']['warm_cache_seconds']:.1f} s", flush=True)
    if args.merge and args.out.exists():
        previous = json.loads(args.out.read_text())
        if (previous["seeds"], previous["peer_cap_seconds"], previous["qlib_cap_seconds"]) != \
                (args.seeds, args.cap, args.qlib_cap):
            raise SystemExit(f"--merge: {args.out} was measured with other --seeds/--cap/--qlib-cap")
        results["workloads"] = previous["workloads"]
    qlib.warmup()
    for workload, solvers in workloads(gpu.is_available()).items():
        if args.only and workload not in args.only:
            continue
        measured = results["workloads"].setdefault(workload, {})
        for name, run in solvers.items():
            if args.solvers and name not in args.solvers:
                continue
            run(10_000, 5.0)  # warm-up: compile this path's kernels, outside the measurement
            cap = args.qlib_cap if name.startswith("qlib") else args.cap
            r = measure(run, args.seeds, cap)
            measured[name] = r
            print(f"{workload:12s} {name:15s} {r['successes']:2d}/{r['runs']}  median {r['median']:.3f} s  "
                  f"range {r['min']:.3f}-{r['max']:.3f}", flush=True)
    order = {w: list(solvers) for w, solvers in workloads(gpu.is_available()).items()}
    results["workloads"] = {w: {n: r[n] for n in order.get(w, []) + sorted(set(r) - set(order.get(w, []))) if n in r}
                            for w, r in results["workloads"].items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print()
    print(table(results))
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
