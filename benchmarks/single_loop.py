"""The single-loop QUBO over many seeds (results/single_loop.json and .md).

The chapter "A QUBO that allows only single loops" runs each method on two
seeds; this command runs the same methods at the same fixed budgets on
``--seeds`` seeds (default 20), on the chapter's 5x5, 7x7 and 10x10 boards:

* annealing on the pure QUBO (``algorithm="sa"``, 10 rounds);
* the focused search on the native form (300,000 steps);
* the HUBO form with loop elimination (``method="outer"``, 100,000 steps per
  solve, at most 20 solves).

Each run records the energy reached (for loop elimination: that of its last
solve, in the HUBO form with the loops found so far forbidden), the native
rules the final state breaks (single-loop model only), whether the answer was
found and the seconds.  The budgets are counts, so
every run but its seconds repeats on any machine.  About a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import qlib
from qlib.puzzles import slitherlink as sl

OUT = Path(__file__).resolve().parent / "results" / "single_loop.json"
METHODS = ("QUBO, annealing", "native, focused", "HUBO + loop elimination")
BUDGETS = {"QUBO, annealing": dict(algorithm="sa", max_rounds=10),
           "native, focused": dict(algorithm="focused", max_steps=300_000),
           "HUBO + loop elimination": dict(max_steps=100_000, max_iterations=20)}


def boards() -> dict:
    """The chapter's boards: the 5x5 blog example, a generated 7x7 (seed 1) and the 10x10 source puzzle."""
    return {"5 x 5": sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt")),
            "7 x 7": sl.generate(7, 7, 1)[0],
            "10 x 10": sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))}


def run(board, model, method: str, seed: int) -> dict:
    """One run of ``method`` at its budget: energy, rules broken, solved, seconds."""
    if method == "HUBO + loop elimination":
        r = sl.solve(board, formulation="hubo", method="outer", seed=seed, time_limit=600, **BUDGETS[method])
        last = r.iterations[-1]["energy"] if r.iterations else None   # the last solve's, its loops forbidden
        return dict(energy=None if last is None else float(last), broken=None, solved=r.solved,
                    seconds=r.seconds, solves=len(r.iterations))
    form = model.model if method.startswith("QUBO") else model.native
    sol = qlib.solve(qlib.compile(form), seed=seed, target_energy=0, time_limit=600, **BUDGETS[method])
    native = qlib.compile(model.native)
    broken = len(qlib.Solution(native, {y.label: sol[y] for y in model.native_vars()}).violations)
    drawn = sl.is_solution(board, *board.grid.to_hv(model.decode(sol)))
    return dict(energy=float(sol.energy), broken=broken, solved=bool(sol.energy == 0 and drawn),
                edges_draw_the_answer=bool(drawn), seconds=sol.info["seconds"])


def summary(runs: list[dict]) -> dict:
    """Per board and method: solved count, energies (median, p90, max), seconds (median, max)."""
    out = {}
    for name in dict.fromkeys(r["board"] for r in runs):
        for method in METHODS:
            rows = [r for r in runs if r["board"] == name and r["method"] == method]
            energies = [r["energy"] for r in rows if r["energy"] is not None]
            seconds = [r["seconds"] for r in rows]
            out[f"{name} | {method}"] = dict(
                board=name, method=method, runs=len(rows), solved=sum(r["solved"] for r in rows),
                energy_median=float(np.median(energies)) if energies else None,
                energy_p90=float(np.percentile(energies, 90)) if energies else None,
                energy_max=max(energies) if energies else None,
                seconds_median=float(np.median(seconds)), seconds_max=max(seconds))
    return out


def table(rows: dict) -> str:
    lines = ["| board | method | solved | energy median | p90 | max | seconds median | max |",
             "|---|---|---|---|---|---|---|---|"]
    for s in rows.values():
        e = ["-" if s[k] is None else f"{s[k]:g}" for k in ("energy_median", "energy_p90", "energy_max")]
        lines.append(f"| {s['board']} | {s['method']} | {s['solved']}/{s['runs']} | {' | '.join(e)} | "
                     f"{s['seconds_median']:.2f} | {s['seconds_max']:.2f} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from progress import Progress
    from provenance import code_fingerprint, machine, qlib_commit

    sl.solve(sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt")), formulation="hubo", method="outer", seed=0)
    qlib.warmup()
    runs, start = [], time.perf_counter()
    chosen = boards()
    models = {name: sl.build_single_loop_model(b) for name, b in chosen.items()}
    bar = Progress(len(chosen) * len(METHODS) * args.seeds, "single-loop runs")
    for name, board in chosen.items():
        for method in METHODS:
            for seed in range(args.seeds):
                runs.append(dict(board=name, method=method, seed=seed, **run(board, models[name], method, seed)))
                bar.step(f"{name} {method} seed {seed}")
    bar.close()
    rows = summary(runs)
    results = dict(machine=machine(), command=f"benchmarks/single_loop.py --seeds {args.seeds}",
                   qlib=qlib_commit(), measured=code_fingerprint("single_loop.json"),
                   budgets={m: {k: v for k, v in b.items()} for m, b in BUDGETS.items()},
                   seeds=args.seeds, wall_seconds=time.perf_counter() - start, summary=rows, runs=runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    args.out.with_suffix(".md").write_text(
        f"# The single-loop QUBO over {args.seeds} seeds\n\n`{results['command']}` at qlib "
        f"{results['qlib']['commit']}\n\n{table(rows)}\n")
    print(table(rows))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
