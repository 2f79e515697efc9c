"""The measurements behind the Experiments chapter: writes results/experiments.json.

    make experiments                      # or: .venv/bin/python benchmarks/experiments.py --seeds 40

* outer: the source's loop elimination (HUBO form) on the 10x10 over many seeds:
  iterations, loop lengths and seconds of every iteration;
* lazy: qlib's loop cuts during one search: cuts and seconds per seed;
* hubo_vs_qubo: time to the verified answer of the HUBO form and of the pure
  QUBO form (slack variables, auxiliary degree variables) on the same boards;
* cpu_vs_gpu: the outer method on both backends, when a GPU is present.

Every answer is checked with ``slitherlink.is_solution``.  Times are wall
seconds after JIT warm-up on the machine that ran the script (see "machine").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import qlib
from qlib.puzzles import slitherlink
from qlib.solvers import gpu

OUT = Path(__file__).resolve().parent / "results" / "experiments.json"
TEN = "slitherlink-10x10-qbpp.txt"


def _run(file, seed, cap, **kwargs):
    board = slitherlink.parse(qlib.data_path(file))
    t = time.perf_counter()
    r = slitherlink.solve(board, seed=seed, time_limit=cap, max_iterations=1000, **kwargs)
    seconds = time.perf_counter() - t
    ok = r.status == "solved" and slitherlink.is_solution(board, r.h, r.v)
    return dict(seed=seed, solved=bool(ok), seconds=seconds, iterations=len(r.iterations),
                loops=[it["loops"] for it in r.iterations],
                iteration_seconds=[it["seconds"] for it in r.iterations],
                cuts=r.iterations[-1].get("forbidden", 0) if r.iterations else 0,
                var_count=r.var_count, term_count=r.term_count)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=40, help="seeds of the 10x10 runs")
    parser.add_argument("--qubo-seeds", type=int, default=10)
    parser.add_argument("--qubo-cap", type=float, default=20.0, help="seconds per pure-QUBO run")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    qlib.warmup()
    _run("slitherlink-5x5-blog-ex1.txt", 0, 10)  # compile the lazy and outer paths
    _run("slitherlink-5x5-blog-ex1.txt", 0, 10, method="outer")
    results = dict(machine=dict(platform=platform.platform(), cpus=os.cpu_count(),
                                python=platform.python_version(),
                                gpu=gpu.device_name() if gpu.is_available() else None),
                   command=f"benchmarks/experiments.py --seeds {args.seeds} --qubo-seeds {args.qubo_seeds} "
                           f"--qubo-cap {args.qubo_cap:g}")
    results["outer"] = [_run(TEN, s, 120, method="outer", form="hubo") for s in range(args.seeds)]
    print("outer done", flush=True)
    results["lazy"] = [_run(TEN, s, 120, method="lazy", form="hubo") for s in range(args.seeds)]
    print("lazy done", flush=True)
    hq = {}
    for file in ("slitherlink-5x5-blog-ex1.txt", "slitherlink-5x5-blog-ex2.txt", TEN):
        seeds = range(args.qubo_seeds if file != TEN else max(2, args.qubo_seeds // 3))
        hq[file] = dict(
            hubo=[_run(file, s, args.qubo_cap, method="outer", form="hubo") for s in seeds],
            qubo=[_run(file, s, args.qubo_cap, method="outer", form="qubo") for s in seeds],
        )
        print("hubo_vs_qubo", file, flush=True)
    results["hubo_vs_qubo"] = dict(cap_seconds=args.qubo_cap, boards=hq)
    if gpu.is_available():
        results["cpu_vs_gpu"] = dict(
            cpu=[_run(TEN, s, 120, method="outer", form="hubo", algorithm="sa") for s in range(10)],
            gpu=[_run(TEN, s, 120, method="outer", form="hubo", backend="gpu") for s in range(10)])
    else:
        results["cpu_vs_gpu"] = None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
