"""Where the QUBO method's time goes, on the boards no one here made: the method alone, many seeds.

    .venv/bin/python benchmarks/method_alone.py                       # qlibgen 30x30 and 40x40, seeds 1-20
    .venv/bin/python benchmarks/method_alone.py --boards qlibgen-20x20-s1.txt --seeds 5

``slitherlink.solve(board, complete=False)`` (the presolve, the cell model and the
focused search with lazy cuts; no SAT, no backtracking) on each board of
benchmarks/boards/, one run per seed, after a warm-up run that is not counted.
Per board: runs and successes, the median, p90 and max of the whole solve, and
the medians of its parts: the presolve, building the model, the separation
calls (finding loops, ring cuts, shortening them by the rules) and the rest of
the search (the focused steps), with the separation calls, the cuts and the
winning replica's steps.  The bench (benchmarks/run.py) puts the same runs
beside exact SAT; this script says where their time goes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qlib.puzzles import slitherlink  # noqa: E402


def runs(board, seeds, cap):
    """One record per seed: the solve's seconds and the parts of its time."""
    slitherlink.solve(board, seed=0, complete=False, time_limit=cap)   # kernels loaded, not counted
    out = []
    for seed in seeds:
        r = slitherlink.solve(board, seed=seed, complete=False, time_limit=cap)
        it = r.iterations[-1] if r.iterations else {}
        search = r.timings.get("search_seconds", 0.0)
        separation = it.get("separation_seconds") or 0.0
        out.append(dict(solved=r.solved, seconds=r.seconds, presolve=r.timings.get("presolve_seconds", 0.0),
                        build=r.timings.get("build_seconds", 0.0), separation=separation,
                        steps=search - separation, calls=it.get("separation_calls") or 0,
                        cuts=it.get("forbidden", 0), winner=it.get("steps_of_winner") or 0,
                        found_by=r.found_by))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", nargs="+", default=["qlibgen-30x30-s1.txt", "qlibgen-40x40-s1.txt"],
                        help="file names under benchmarks/boards/")
    parser.add_argument("--seeds", type=int, default=20, help="seeds 1..N")
    parser.add_argument("--cap", type=float, default=60.0, help="time_limit of each run, seconds")
    args = parser.parse_args(argv)
    print("| board | runs | solved | median s | p90 s | max s | presolve | build | separation | steps "
          "| calls | cuts | winner steps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.boards:
        rows = runs(slitherlink.parse(ROOT / "benchmarks" / "boards" / name), range(1, args.seeds + 1), args.cap)
        sec = np.array([r["seconds"] for r in rows])
        med = {k: float(np.median([r[k] for r in rows])) for k in ("presolve", "build", "separation", "steps",
                                                                    "calls", "cuts", "winner")}
        print(f"| {name} | {len(rows)} | {sum(r['solved'] for r in rows)} | {np.median(sec):.3f} | "
              f"{np.percentile(sec, 90):.3f} | {sec.max():.3f} | {med['presolve']:.3f} | {med['build']:.3f} | "
              f"{med['separation']:.3f} | {med['steps']:.3f} | {med['calls']:.0f} | {med['cuts']:.0f} | "
              f"{med['winner']:.0f} |")
    print("\nseconds: the whole solve (median, p90, max over the seeds); the parts are medians over the seeds: "
          "presolve, building the model, the separation calls, and the rest of the search (the focused "
          "steps); the separation calls, the cuts the winning replica took and its steps are medians too.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
