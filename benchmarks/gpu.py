"""The GPU backend against the CPU: one device check that fits 8 minutes of device time.

    python3 benchmarks/gpu.py                      # on a machine with an NVIDIA GPU (within --budget: 400 s)
    QLIB_COMMIT=<hash> python3 benchmarks/gpu.py   # a copy of the tree without git: name its commit
    python3 benchmarks/gpu.py --simulate --quick   # anywhere: tiny sizes under numba's CUDA simulator (a test)

First it installs what benchmarks/gpu-requirements.txt names and cannot be
imported (pip; a failure is reported and the run goes on: without CuPy the
arrays live in numba's device arrays), compiles the kernels (reported apart),
then solves Slitherlink boards with the focused search alone (the loop cuts as
lazy cuts, no complete search beside it): the seed 10x10 board of the QUBO++
tutorial and the 30x30 and 50x50 workload boards of benchmarks/boards/ (qlib's minimal-clue boards, which
leave the search hundreds of classes after the method alone's presolve, and sgt-loopy's hard 50x50), on the
CPU (one replica per core) and on the GPU (several replica counts and pooling
intervals: :func:`plan`), and anneals
a large QUBO (the 50x50 Nonogram of the workloads as a plain QUBO) on both.
Every answer is checked by the puzzle's checker.  It prints one table:
replicas, updates per second (focused steps, or annealing sweeps x variables),
time to the answer, and the GPU/CPU ratios; and a line per GPU run saying where
its time went (kernel, uploads, downloads).  ``--budget`` seconds in all: a row
that would not fit is skipped, and says so.  ``--out`` (default ``$OUT/gpu.json``
when ``OUT`` is set) takes the results as JSON.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = Path(__file__).resolve().parent / "gpu-requirements.txt"
BOARDS = Path(__file__).resolve().parent / "boards"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--simulate", action="store_true",
                   help="run under numba's CUDA simulator (also when NUMBA_ENABLE_CUDASIM=1 is set)")
    p.add_argument("--quick", action="store_true", help="tiny sizes (what the simulator can run in seconds)")
    p.add_argument("--budget", type=float, default=None, help="seconds in all (default 400, quick 60)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-install", action="store_true", help="skip the pip step")
    p.add_argument("--out", type=Path, default=None)
    return p.parse_args(argv)


def install(log) -> list[dict]:
    """pip-install each requirement whose module cannot be imported; never raises."""
    out = []
    for line in REQUIREMENTS.read_text().splitlines():
        spec, _, comment = line.partition("#")
        spec = spec.strip()
        if not spec:
            continue
        module = comment.split("import:")[-1].strip() if "import:" in comment else spec.split("==")[0]
        if importlib.util.find_spec(module) is not None:
            out.append(dict(requirement=spec, status="present"))
            continue
        t0 = time.perf_counter()
        try:
            res = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                  "--retries", "0", "--timeout", "15", spec], capture_output=True, text=True,
                                 timeout=240)   # no network: fail fast, go on
            status = "installed" if res.returncode == 0 else "failed: " + (res.stderr.strip().splitlines() or ["?"])[-1]
        except (OSError, subprocess.SubprocessError) as error:
            status = f"failed: {error}"
        importlib.invalidate_caches()
        out.append(dict(requirement=spec, status=status, seconds=round(time.perf_counter() - t0, 1)))
    for r in out:
        log(f"install: {r['requirement']}: {r['status']}")
    return out


def commit_record() -> dict:
    """The qlib commit of this tree: git's, else ``QLIB_COMMIT`` (a copy of the tree sent to a device machine
    has no git; the command that sends it names the commit)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from provenance import qlib_commit

    record = qlib_commit()
    if not record.get("commit") and os.environ.get("QLIB_COMMIT"):
        record = dict(commit=os.environ["QLIB_COMMIT"], dirty=None, changed=[], source="QLIB_COMMIT")
    return record


def plan(quick: bool, cores: int) -> dict:
    """Boards (name, path, formulation, cap, GPU runs: (replicas, options)), the CPU's replica count and the
    annealing workload.  The 30x30 board, the target's, gets the most GPU runs: two replica counts, and one
    run that pools the cuts every 1000 steps rather than every 20,000 (a GPU thread makes far fewer steps a
    second than a CPU core, so the default pools rarely)."""
    import qlib

    ten = qlib.data_path("slitherlink-10x10-qbpp.txt")
    if quick:
        return dict(boards=[("5x5 ex2 (hubo)", qlib.data_path("slitherlink-5x5-blog-ex2.txt"), "hubo", 20.0,
                             [(2, {}), (4, {})]),
                            ("10x10 seed", ten, "cells", 20.0, [(2, {}), (4, dict(share_interval=100))])],
                    cpu_replicas=2, pipeline_replicas=2, qubo=("5x5 picture", None), sa_cpu=(2, 20),
                    sa_gpu=(4, 20), sa_cap=20.0)
    return dict(boards=[("10x10 seed", ten, "cells", 30.0, [(256, {}), (16384, {})]),
                        ("30x30 qlibgen-s1", BOARDS / "qlibgen-30x30-s1.txt", "cells", 40.0,
                         [(2048, {}), (16384, {}), (16384, dict(share_interval=1000))]),
                        ("50x50 qlibgen-s1", BOARDS / "qlibgen-50x50-s1.txt", "cells", 40.0,
                         [(16384, dict(share_interval=1000))]),
                        ("50x50 loopy-dh-s1", BOARDS / "loopy-50x50-dh-s1.loopy", "cells", 20.0,
                         [(2048, dict(share_interval=1000))])],
                cpu_replicas=cores, pipeline_replicas=256,
                qubo=("50x50 pattern-s1 QUBO", BOARDS / "pattern-50x50-s1.non"),
                sa_cpu=(cores, 200), sa_gpu=(1024, 200), sa_cap=40.0)


def focused_row(board, spec, sm, compiled, backend, replicas, seed, cap, cores, options=None):
    """One focused search with the board's loop cuts (and ``options``); the answer checked by
    ``slitherlink.is_solution``."""
    import qlib
    from qlib.puzzles import slitherlink as sl
    from qlib.solvers.focused import LazyCuts

    options = dict(options or {})
    if backend == "cpu":
        options["num_threads"] = min(cores, replicas)
    sol = qlib.solve(compiled, backend=backend, algorithm="focused", seed=seed, target_energy=0, time_limit=cap,
                     num_replicas=replicas, lazy_cuts=LazyCuts(spec.separation(sm, compiled)), **options)
    mask = spec.decode_state(sm, compiled, sol.state)
    ok = sol.info["stop_reason"] == "accepted" and sl.is_solution(board, *board.grid.to_hv(mask))
    info = sol.info
    seconds = float(info["seconds"])
    return dict(backend=backend, replicas=replicas, seconds=seconds, answered=bool(ok),
                time_to_answer=seconds if ok else None, updates=int(info["flips"]),
                updates_per_second=info["flips"] / max(seconds, 1e-9), stop=info["stop_reason"],
                cuts=info["num_cuts"], pool_cuts=info.get("pool_cuts"), separation_calls=info["separation_calls"],
                separation_seconds=info.get("separation_seconds"),
                device=info.get("device"), device_seconds=info.get("device_seconds"),
                launches=info.get("kernel_launches"))


def sa_row(compiled, backend, replicas, sweeps, seed, cap, cores):
    """One annealing round of ``sweeps`` sweeps on every replica; updates = replicas x sweeps x variables."""
    import qlib

    options = dict(num_threads=min(cores, replicas)) if backend == "cpu" else {}
    sol = qlib.solve(compiled, backend=backend, algorithm="sa", seed=seed, time_limit=cap, num_replicas=replicas,
                     num_sweeps=sweeps, max_rounds=1, **options)
    seconds = float(sol.info["seconds"])
    complete = sol.info["stop_reason"] == "max_rounds"
    updates = replicas * sweeps * compiled.var_count if complete else None
    return dict(backend=backend, replicas=replicas, sweeps=sweeps, seconds=seconds, energy=float(sol.energy),
                stop=sol.info["stop_reason"], updates=updates,
                updates_per_second=None if updates is None else updates / max(seconds, 1e-9),
                accepted_flips=int(sol.info["flips"]), device=sol.info.get("device"),
                device_seconds=sol.info.get("device_seconds"), launches=sol.info.get("kernel_launches"))


def qubo_model(qubo):
    import qlib
    from qlib.puzzles import nonogram as ng

    name, path = qubo
    if path is None:   # the workloads' 5x5 picture
        picture = (".###.", "#...#", "#####", "#...#", ".###.")
        puzzle = ng.Nonogram(tuple(ng.blocks_of([c == "#" for c in row]) for row in picture),
                             tuple(ng.blocks_of([row[j] == "#" for row in picture]) for j in range(5)))
    else:
        puzzle = ng.parse(path)
    return qlib.compile(ng.build_model(puzzle, formulation="qubo").model)


def _fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float):
        if x >= 1e5:
            return f"{x:.3g}"
        return f"{x:.{digits}g}"
    return str(x)


def table(rows) -> str:
    head = ["workload", "search", "backend", "replicas", "setting", "updates/s", "time to answer (s)", "answered",
            "GPU/CPU updates/s", "CPU/GPU time"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r.get("skipped"):
            lines.append(f"| {r['workload']} | {r['search']} | {r['backend']} | {_fmt(r.get('replicas'))} | "
                         f"{r.get('setting', '')} | skipped: {r['skipped']} | | | | |")
            continue
        cpu = next((c for c in rows if c["workload"] == r["workload"] and c["search"] == r["search"]
                    and c["backend"] == "cpu" and not c.get("skipped")), None)
        speed = time_ratio = None
        if r["backend"] == "gpu" and cpu is not None:
            if r.get("updates_per_second") and cpu.get("updates_per_second"):
                speed = r["updates_per_second"] / cpu["updates_per_second"]
            if r.get("time_to_answer") and cpu.get("time_to_answer"):
                time_ratio = cpu["time_to_answer"] / r["time_to_answer"]
        answered = r.get("answered")
        answered = "-" if answered is None else ("yes" if answered else f"no ({r['stop']})")
        if r["search"] == "sa":
            answered = f"energy {r['energy']:g} ({r['stop']})"
        lines.append(f"| {r['workload']} | {r['search']} | {r['backend']} | {r['replicas']} | "
                     f"{r.get('setting', '')} | {_fmt(r.get('updates_per_second'))} | "
                     f"{_fmt(r.get('time_to_answer'))} | {answered} | "
                     f"{_fmt(speed)} | {_fmt(time_ratio)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    simulate = args.simulate or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    if simulate:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"   # before numba.cuda is imported
    budget = args.budget if args.budget is not None else (60.0 if args.quick else 400.0)
    start = time.perf_counter()

    def log(text):
        print(text, flush=True)

    installs = [] if (args.no_install or simulate) else install(log)
    sys.path.insert(0, str(ROOT))
    import numba
    import numpy as np

    import qlib
    from qlib.puzzles import slitherlink as sl
    from qlib.puzzles.slitherlink.formulation import FORMULATIONS
    from qlib.puzzles.slitherlink.presolve import presolve
    from qlib.solvers import gpu

    kind = gpu.device_kind()
    if kind is None:
        log("no CUDA device (and the simulator is off): run with --simulate to try the code path")
        return 2
    cores = os.cpu_count() or 1
    try:
        import cupy
        arrays = f"cupy {cupy.__version__}"
    except Exception:  # noqa: BLE001 - any failure to import CuPy means numba's device arrays
        arrays = "numba device arrays"
    facts = dict(device=gpu.device_name(), kind=kind, cores=cores, numba=numba.__version__, numpy=np.__version__,
                 arrays=arrays, quick=args.quick, seed=args.seed, install=installs)
    log(f"device: {facts['device']} ({kind}); {cores} cores; numba {numba.__version__}; arrays: {arrays}")
    t0 = time.perf_counter()
    qlib.warmup()
    cpu_jit = time.perf_counter() - t0
    t0 = time.perf_counter()
    gpu_jit = gpu.warmup()
    facts["compile_seconds"] = dict(cpu=round(cpu_jit, 2), gpu=round(gpu_jit, 2),
                                    gpu_wall=round(time.perf_counter() - t0, 2))
    log(f"compile: CPU kernels {cpu_jit:.1f} s, GPU kernels {gpu_jit:.1f} s")
    work = plan(args.quick, cores)
    rows = []

    def fits(cap):
        return time.perf_counter() - start + cap <= budget

    for name, path, formulation, cap, gpu_runs in work["boards"]:
        board = sl.parse(path)
        spec = FORMULATIONS[formulation]
        t0 = time.perf_counter()
        # the method alone's model: the presolve probes to a fixed point, as solve(complete=False) does
        sm = spec.build(board, presolve=presolve(board, probe_nodes=None)) if formulation == "cells" else spec.build(board)
        compiled = spec.compile(sm)
        log(f"{name}: {compiled.var_count} variables, {compiled.term_count} terms, {compiled.num_rows} rows "
            f"(built in {time.perf_counter() - t0:.2f} s)")
        runs = [("cpu", work["cpu_replicas"], {})] + [("gpu", p, o) for p, o in gpu_runs]
        for backend, replicas, options in runs:
            setting = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
            row = dict(workload=name, search="focused", backend=backend, replicas=replicas, setting=setting)
            if not fits(cap):
                row["skipped"] = "budget"
            else:
                try:
                    row.update(focused_row(board, spec, sm, compiled, backend, replicas, args.seed, cap, cores,
                                           options))
                except Exception as error:  # noqa: BLE001 - report and go on: one broken row must not hide the rest
                    row["skipped"] = f"{type(error).__name__}: {error}"
            rows.append(row)
            log(f"  {backend} x{replicas} ({setting}): " + (f"skipped ({row['skipped']})" if row.get("skipped") else
                f"{row['stop']} in {row['seconds']:.2f} s, {row['updates_per_second']:.3g} updates/s, "
                f"answered={row['answered']}"))
            if row.get("device_seconds"):
                split = ", ".join(f"{k} {v:.2f} s" for k, v in row["device_seconds"].items())
                log(f"    where the GPU run's time went: {split}; {row['launches']} launches; "
                    f"{row['separation_calls']} separation calls ({row['separation_seconds']:.2f} s), "
                    f"{row['pool_cuts']} cuts in the pool")
    qname, _ = work["qubo"]
    if fits(2 * work["sa_cap"]):
        t0 = time.perf_counter()
        compiled = qubo_model(work["qubo"])
        log(f"{qname}: {compiled.var_count} variables, {compiled.term_count} terms (built in "
            f"{time.perf_counter() - t0:.1f} s)")
        for backend, (replicas, sweeps) in (("cpu", work["sa_cpu"]), ("gpu", work["sa_gpu"])):
            row = dict(workload=qname, search="sa", backend=backend, replicas=replicas)
            if not fits(work["sa_cap"]):
                row["skipped"] = "budget"
            else:
                try:
                    row.update(sa_row(compiled, backend, replicas, sweeps, args.seed, work["sa_cap"], cores))
                except Exception as error:  # noqa: BLE001
                    row["skipped"] = f"{type(error).__name__}: {error}"
            rows.append(row)
            log(f"  sa {backend} x{replicas}: " + (f"skipped ({row['skipped']})" if row.get("skipped") else
                f"{row['stop']} in {row['seconds']:.2f} s, energy {row['energy']:g}"))
            if row.get("device_seconds"):
                split = ", ".join(f"{k} {v:.2f} s" for k, v in row["device_seconds"].items())
                log(f"    where the GPU run's time went: {split}; {row['launches']} launches")
    else:
        rows.append(dict(workload=qname, search="sa", backend="cpu", skipped="budget"))
    # the whole puzzle solve on the GPU: presolve and the complete search on the CPU, the focused search on the GPU
    pipeline = {}
    ten = qlib.data_path("slitherlink-10x10-qbpp.txt")
    for complete in (False, None):
        if complete is None and importlib.util.find_spec("pysat") is None:
            pipeline[str(complete)] = dict(status="skipped: no python-sat for the complete search", verified=None)
            continue
        try:
            r = sl.solve(ten, backend="gpu", seed=args.seed, complete=complete,
                         num_replicas=work["pipeline_replicas"], time_limit=30)
            pipeline[str(complete)] = dict(status=r.status, found_by=r.found_by, backend=r.backend,
                                           verified=sl.is_solution(ten, r.h, r.v), seconds=round(r.seconds, 3))
        except Exception as error:  # noqa: BLE001
            pipeline[str(complete)] = dict(status=f"{type(error).__name__}: {error}")
    log("slitherlink.solve(10x10, backend='gpu'): " + "; ".join(
        f"complete={k}: {v}" for k, v in pipeline.items()))
    log("")
    log(table(rows))
    wall = time.perf_counter() - start
    log(f"\n{len(rows)} rows in {wall:.1f} s (budget {budget:.0f} s)")
    out = args.out or (Path(os.environ["OUT"]) / "gpu.json" if os.environ.get("OUT") else None)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(dict(qlib=commit_record(), facts=facts, rows=rows, pipeline=pipeline, seconds=wall),
                                  indent=1, default=str))
        log(f"written to {out}")
    bad = [r for r in rows if r.get("answered") is False and r["workload"].startswith(("5x5", "10x10"))]
    broken = [r for r in rows if str(r.get("skipped", "")).split(":")[0] not in ("", "budget")]
    unverified = [k for k, v in pipeline.items() if v.get("verified") is False or "Error" in v["status"]]
    return 1 if (bad or broken or unverified) else 0


if __name__ == "__main__":
    sys.exit(main())
