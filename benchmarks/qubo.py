"""qlib's annealing against dwave-samplers and OpenJij on plain QUBO / HUBO workloads: prints tables,
writes results/qubo.json and results/qubo.md.

    make bench-qubo                                        # the default run (about 25 min on 2 cores)
    make bench-qubo QUBO_ARGS="--quick"                    # about 20 s: the smallest models, 3 runs
    .venv/bin/python benchmarks/qubo.py --only 'sg2d-*' 'hubo3-*'
    .venv/bin/python benchmarks/qubo.py --reference        # recompute the targets (results/qubo_reference.json)
    .venv/bin/python benchmarks/qubo.py --quick --only sg2d-10x10 --out /tmp/q.json --reference-file /tmp/ref.json

Workloads (benchmarks/qubo_workloads.py): 2D and 3D ±1 spin glasses, ran3 on random graphs,
max-cut on random 3-regular graphs, NAE-3SAT and frustrated loops (dimod.generators), 100 to
10,648 variables, plus random cubic and quartic HUBOs and planted 3-SAT as a cubic penalty
(100 and 1000 variables).  Every model is built from a fixed seed; spin models are converted
to BINARY once and every solver gets that model.  All energies are computed by the bench from
the states a solver returns (one yardstick: the binary polynomial, offset included).

Solvers (rows): ``qlib-sa`` (``qlib.solve(model, algorithm="sa")``), ``qlib-focused``
(``algorithm="focused"``, where qlib's own ``algorithm="auto"`` would pick it: a target and an
energy that is all penalty; n/a elsewhere, with the reason), ``dwave-sa``
(dwave-samplers' SimulatedAnnealingSampler, its default geometric beta schedule; no HUBO: n/a),
``openjij-sa`` (OpenJij's SASampler: ``sample`` on the BQM, ``sample_hubo`` on a HUBO) and
``openjij-sqa`` (SQASampler, 4 Trotter slices by default; no HUBO method: n/a).  Every
sampler parameter but num_sweeps / num_reads is left at its default; every measured call runs
on one thread (qlib: ``num_threads=1``; OpenJij, whose samplers use OpenMP: ``OMP_NUM_THREADS=1``,
set by :func:`main`), except the thread table.

Metrics:

1. Spin updates per second at equal sweeps on one thread: num_sweeps (1000) x variables x
   reads / sampling seconds, reads chosen so that a call does about 10^7 updates (SQA counts
   its Trotter slices: variables x 4), the fastest of 3 identical calls, taken in turns (each solver
   once a turn, so a slow spell of the machine falls on all alike).  Sampling seconds: the solver's own timer where it
   reports one (dwave: ``info["timing"]["sampling_ns"]``; OpenJij: the sum of
   ``info["list_exec_times"]``, or ``info["time"]["sample"]`` for ``sample_hubo``; qlib: the
   first of ``info["sampling_seconds"]``, ``info["sample_seconds"]``, ``info["anneal_seconds"]``
   present, else ``info["seconds"]``, its solve time without JIT, which includes the setup:
   the beta range estimate and the arrays), else the call's wall time; the table names the
   timer.  The wall-time rate is in the JSON and the second ratio column.  Each solver runs
   once on a tiny model first (the warm-up, JIT compile included, reported apart).
2. Time to target (models up to ``--ttt-max-vars`` variables, default 2000): the target is
   the lowest energy any solver reached in the reference runs, or the planted ground energy
   where the generator plants one (floop, sat3).  Reference: every solver the same time
   (``--ref-seconds``, default 2 + n/100 s, at most 12), calls of ``--ref-sweeps`` (10000)
   sweeps x 2 reads with fresh seeds (qlib SA on every core, the peers on one; the focused
   search one run that long).  Cached in results/qubo_reference.json by workload name with a
   fingerprint of the model; recomputed when missing, when the model changed, or with
   ``--reference`` (``--reference --no-rates --no-ttt``: only that, about 7 min for all); a
   bench run that goes below its target lowers the cached one for the next runs (its own
   rows there stay measured against the old target, and a note says so).
   Each sweep-based solver picks num_sweeps from a grid (100/300/1000/3000/10000): per setting,
   calls of K reads (about 0.4 s of work each, seeds apart from the measured ones; more calls
   while the reads have fewer than 4 hits and have taken under 1.5 s, since a hit rate read off
   one or two hits picks a setting by chance) estimate the per-read hit rate p and time t, and
   the setting with the lowest t x ln(0.01)/ln(1-p) wins (none hit: the lowest mean energy).
   Then R independent runs (seeds 0..R-1, default 10),
   each on one thread: qlib: one ``qlib.solve(..., target_energy=, time_limit=cap,
   num_replicas=1, num_threads=1)`` (it restarts until the target and stops as soon as it is
   reached); a peer: calls of the chosen num_sweeps with fresh seeds until a read reaches the
   target or the cap (reads per call: the power of two up to 64 with the lowest expected time
   to the first hit, given the calibration calls' per-call overhead, per-read sampling time and
   hit rate; the table says how many).  OpenJij's ``sample`` on a BQM (SA, SQA) always gets one
   read per call: with a seed, OpenJij 0.12 reseeds every read of a call with it, so k reads
   are one read k times.  Reported: successes / runs, the median and p90 of the runs that hit
   (linear interpolation), and TTS99 (``qlib.tail.tts99``: runs cut at a budget t and repeated,
   t x ln(0.01) / ln(1 - p(t)) with p(t) the share of runs that hit within t, at least one run,
   at the best t among the hits' times; no hit: ∞).  A row whose first ``--give-up`` (5) runs all fail stops there (a row that
   hits in half its runs stops so by chance once in 32; a stop after one failure would decide
   such a row by a coin).  Cap: 1 s up to 200 variables, else 3 s.
3. Threads: qlib SA on the models of at least 10,000 variables, 2 replicas of 1000 sweeps (about
   0.1 s a call) and of 10000 sweeps (about 1 s), on
   1 and on 2 threads (best of 3 calls each): updates/s and the ratio, beside the machine's own
   ratio measured just before (a compute-bound numba ``prange`` over 2 items), since other
   processes on a 2-core machine take a core.  The load average at the start and the end is in
   the header.

Every results file records the qlib commit (dirty or not), the machine and the settings.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from progress import Progress  # noqa: E402
from provenance import code_fingerprint, machine, qlib_commit  # noqa: E402

import qubo_workloads as W  # noqa: E402
from qubo_workloads import EPS, SOLVER_CLASSES, SOLVERS, available  # noqa: E402

RESULTS = HERE / "results" / "qubo.json"
QUICK_RESULTS = HERE / "results" / "qubo-quick.json"
REFERENCE = HERE / "results" / "qubo_reference.json"

GRID_SEED0 = 1000   # calibration reads use seeds 1000+, the measured runs 0..R-1
REF_SEED = 777

FULL = dict(rate_updates=1e7, rate_sweeps=1000, rate_repeats=3, grid=[100, 300, 1000, 3000, 10000], calib_seconds=0.4,
            calib_reads_max=128, calib_hits=4, calib_seconds_max=1.5,
            calib_extend_seconds=6.0, runs=10, runs_max=100, runs_seconds=2.0,
            hits_min=10, row_seconds=60.0, cap_small=1.0, cap=3.0, small_vars=200, give_up=5, ttt_max_vars=2000,
            threads_min_vars=10000, threads_sweeps=[1000, 10000], ref_sweeps=10000, ref_seconds=None, quick=False)
QUICK = dict(FULL, rate_updates=2e6, rate_repeats=1, grid=[100, 1000], calib_seconds=0.15, calib_reads_max=16,
             calib_seconds_max=0.15, calib_extend_seconds=0.3, runs=3, runs_max=3, cap_small=0.5, cap=1.0, threads_min_vars=1000,
             threads_sweeps=[1000, 3000], quick=True)


# -- statistics --------------------------------------------------------------------------
def percentile(values, q: float) -> float:
    """The ``q``-th percentile (0-100), linear interpolation between order statistics (numpy's default)."""
    xs = sorted(values)
    if not xs:
        raise ValueError("percentile of no values")
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def ttt_stats(times, hits, cap: float) -> dict:
    """Success rate, median / p90 of the runs that hit, t_run (median, failures at the cap), TTS99
    (:func:`qlib.tail.tts99`)."""
    from qlib.tail import tts99

    runs = len(times)
    ok = [t for t, h in zip(times, hits) if h]
    p = len(ok) / runs if runs else 0.0
    at_cap = [t if h else max(t, cap) for t, h in zip(times, hits)]   # a failed run costs at least the cap
    return dict(successes=len(ok), runs=runs, success_rate=p,
                median=statistics.median(ok) if ok else None, p90=percentile(ok, 90) if ok else None,
                t_run=statistics.median(at_cap) if runs else math.inf,
                tts99=tts99(at_cap, hits) if runs else math.inf)


# -- phases ------------------------------------------------------------------------------
def warm_up(solvers, log) -> dict:
    """Each solver once on a tiny model (JIT compile, first imports): seconds, reported apart."""
    import qlib

    out = {}
    t = time.perf_counter()
    qlib.warmup()
    out["qlib.warmup"] = time.perf_counter() - t
    tiny = W.tiny_problems()
    for s in solvers.values():
        t = time.perf_counter()
        for p in tiny:
            if s.applies(p):
                continue
            prep = s.prepare(p)
            if s.sweeps:
                s.sample(prep, 10, 2, 0)
            s.run(prep, p, dict(num_sweeps=10), 0, float(p.energies(np.zeros((1, p.n)))[0]) - 1, 0.05)
        out[s.name] = time.perf_counter() - t
    log("warm-up (tiny models, not measured): " + ", ".join(f"{k} {v:.2f} s" for k, v in out.items()))
    return out


def _seconds(s) -> float:
    return s.seconds if s.seconds is not None else s.wall


def rate_of(solver, problem, sweeps, reads, samples) -> dict:
    """The rate of the fastest of ``samples`` (identical calls) by the solver's own timer; every call's
    seconds are listed (``all_seconds``)."""
    s = min(samples, key=_seconds)
    rounds = s.extra.get("rounds") or 1
    updates = sweeps * problem.n * solver.slices * reads * rounds
    e = problem.energies(s.states)
    return dict(sweeps=sweeps, reads=reads, rounds=rounds, updates=updates, seconds=s.seconds, timer=s.timer,
                wall=s.wall, rate=updates / s.seconds if s.seconds else None, wall_rate=updates / s.wall,
                mean_energy=float(e.mean()), min_energy=float(e.min()), all_seconds=[_seconds(x) for x in samples],
                **{k: v for k, v in s.extra.items() if k in ("flips", "beta_range", "kernel")})


def rates_phase(problems, preps, solvers, config, log) -> dict:
    """Each workload's rates: ``rate_repeats`` turns, each solver called once a turn (so a slow spell of the
    machine falls on every solver alike, not on one), the fastest call of each kept."""
    out = {}
    S = config["rate_sweeps"]
    bar = Progress(len(problems), "rates")
    for name, p in problems.items():
        bar.step(name)
        reads = max(1, round(config["rate_updates"] / (S * p.n)))
        row, samples = {}, {}
        for s in solvers.values():
            why = "no sweeps (a focused-search step is not a sweep)" if not s.sweeps else s.applies(p)
            if why:
                row[s.name] = dict(na=why)
            else:
                samples[s.name] = []
        for _ in range(max(1, config["rate_repeats"])):
            for k in list(samples):
                try:
                    samples[k].append(solvers[k].sample(preps[name][k], S, reads, seed=0))
                except Exception as exc:
                    row[k] = dict(na=f"raised {type(exc).__name__}: {exc}")
                    del samples[k]
        for k, got in samples.items():
            row[k] = rate_of(solvers[k], p, S, reads, got)
        out[name] = {s: row[s] for s in solvers if s in row}
        log(f"  rate {name:16s} " + "  ".join(
            f"{k} {v['rate'] / 1e6:.1f}M" if v.get("rate") else f"{k} n/a" for k, v in out[name].items()), flush=True)
    bar.close()
    return out


def machine_threads_check(threads: int) -> dict:
    """The machine's own 1-vs-``threads`` ratio: a compute-bound numba ``prange`` over ``threads`` equal
    items (no memory traffic), so the qlib ratio can be read against what the cores give right now."""
    import numba
    from numba import njit, prange

    @njit(parallel=True)
    def spin(n, out):
        for r in prange(out.shape[0]):
            acc = 0.0
            for i in range(n):
                acc += (i * 0.5) % 3.0
            out[r] = acc

    out = np.zeros(threads)
    previous = numba.get_num_threads()
    try:
        spin(10, out)   # compile
        secs = {}
        for t in (1, threads):
            numba.set_num_threads(t)
            t0 = time.perf_counter()
            spin(20_000_000, out)
            secs[t] = time.perf_counter() - t0
    finally:
        numba.set_num_threads(previous)
    return dict(seconds=secs, ratio=secs[1] / secs[threads], layer=numba.threading_layer())


def threads_phase(problems, preps, solvers, config, log) -> dict:
    import numba

    out = {}
    if "qlib-sa" not in solvers:
        return out
    most = numba.config.NUMBA_NUM_THREADS
    chosen = [n for n, p in problems.items() if p.n >= config["threads_min_vars"]]
    if not chosen and config["quick"] and problems:   # quick: the largest model, to exercise the table
        chosen = [max(problems, key=lambda n: problems[n].n)]
    if not chosen or most < 2:
        return out
    check = machine_threads_check(2)
    log(f"  threads: the machine's compute-bound 2/1 ratio now: {check['ratio']:.2f} ({check['layer']} layer)")
    for name in chosen:
        p = problems[name]
        s, prep = solvers["qlib-sa"], preps[name]["qlib-sa"]
        for sweeps in config["threads_sweeps"]:
            turns = [{t: s.sample(prep, sweeps, 2, seed=0, threads=t) for t in (1, 2)} for _ in range(3)]
            row = {t: rate_of(s, p, sweeps, 2, [turn[t] for turn in turns]) for t in (1, 2)}
            out[f"{name} @{sweeps}"] = dict(
                workload=name, replicas=2, sweeps=sweeps, by_threads=row, machine_ratio=check["ratio"], load=_load(),
                ratio=(row[2]["rate"] / row[1]["rate"]) if row[1]["rate"] else None)
            log(f"  threads {name:16s} {sweeps:6d} sweeps " + ", ".join(
                f"{t}: {r['rate'] / 1e6:.1f}M/s" for t, r in row.items()), flush=True)
    return out


def ref_seconds(problem, config) -> float:
    """Seconds of reference search per solver: ``--ref-seconds``, else 2 + n / 100, at most 12."""
    return config["ref_seconds"] if config.get("ref_seconds") else min(12.0, 2.0 + problem.n / 100)


def reference_energy(problem, preps, solvers, config, log) -> dict:
    """The lowest energy any solver reaches in a long run (and the planted ground energy, if any).

    Each solver gets the same budget (:func:`ref_seconds`): calls of ``--ref-sweeps`` sweeps x 2
    reads with fresh seeds until the budget is spent (qlib SA on every core, the peers on one);
    qlib's focused search one run of that many seconds."""
    per, settings = {}, {}
    budget = ref_seconds(problem, config)
    for s in solvers.values():
        if s.applies(problem):
            continue
        prep = preps[s.name]
        if s.sweeps:
            import numba

            sweeps = max(1, config["ref_sweeps"] // s.slices)
            threads = numba.config.NUMBA_NUM_THREADS if s.name == "qlib-sa" else 1
            reads = max(2, threads)
            start, calls, best = time.perf_counter(), 0, math.inf
            while True:
                t0 = time.perf_counter()
                smp = s.sample(prep, sweeps, reads, REF_SEED + calls, threads=threads)
                best = min(best, float(problem.energies(smp.states).min()))
                calls += 1
                now = time.perf_counter()
                if now - start + (now - t0) > budget:
                    break
            per[s.name] = best
            settings[s.name] = dict(num_sweeps=sweeps, num_reads=reads, calls=calls, threads=threads)
        else:
            bound = problem.known_ground if problem.known_ground is not None else prep[0].offset
            _, _, e, _ = s.run(prep, problem, {}, REF_SEED, bound, budget)
            per[s.name] = e
            settings[s.name] = dict(time_limit=budget, target=bound)
    best = min(per.values())
    known = problem.known_ground
    if known is not None and best < known - EPS:
        raise RuntimeError(f"{problem.name}: a solver reached {best} below the planted ground energy {known}")
    energy = best if known is None else min(best, known)
    by = sorted(k for k, v in per.items() if v <= energy + EPS)
    log(f"  reference {problem.name:16s} {energy:g}" + (f" (planted ground {known:g})" if known is not None else "")
        + "  " + ", ".join(f"{k} {v:g}" for k, v in per.items()), flush=True)
    return dict(energy=energy, found_by=by, per_solver=per, settings=settings, budget_seconds=budget,
                known_ground=known, fingerprint=problem.fingerprint(), n=problem.n,
                date=time.strftime("%Y-%m-%d %H:%M"), qlib=qlib_commit().get("commit"))


def choose_sweeps(solver, prep, problem, target, config, rate, cap) -> tuple[dict, list]:
    """Per num_sweeps of the grid: calls of K reads until ``calib_hits`` hits or ``calib_seconds_max``
    seconds; the lowest estimated TTS99 wins.

    Where the winner has fewer than ``calib_hits`` hits, its pick is chance (1 hit in 68 reads against 0 in
    20). The settings still in the running then get more calls, up to ``calib_extend_seconds`` each, and
    the pick is made again: those with a hit, and the one with the lowest mean energy (the longest anneal
    that fits, which has not hit yet only because it made few reads)."""
    from qlib.tail import tts_at

    table, pools = [], {}
    per_spin = 1.0 / rate if rate else 1e-7
    grid = config["grid"]

    def calibrate(i, until):
        """More calls of setting ``i``'s K reads while it has too few hits and has taken under ``until`` s."""
        pool = pools[i]
        while True:   # a hit rate read off 1 or 2 hits picks by chance
            if pool["calls"] and (pool["hits"] >= config["calib_hits"] or pool["wall"] >= until):
                break
            smp = solver.sample(prep, grid[i], pool["K"], GRID_SEED0 + i + len(grid) * pool["calls"])
            pool["calls"] += 1
            pool["energies"].append(problem.energies(smp.states))
            pool["wall"] += smp.wall
            pool["sampling"] += min(smp.seconds or smp.wall, smp.wall)
            pool["hits"] = int((np.concatenate(pool["energies"]) <= target + EPS).sum())
        e, calls = np.concatenate(pool["energies"]), pool["calls"]
        reads = pool["K"] * calls
        t_read, sampling_read = pool["wall"] / reads, pool["sampling"] / reads
        return dict(num_sweeps=grid[i], reads=reads, calls=calls, hits=pool["hits"], t_read=t_read,
                    sampling_read=sampling_read, overhead=(pool["wall"] - pool["sampling"]) / calls,
                    tts99_est=tts_at(t_read, pool["hits"] / reads), mean_energy=float(e.mean()),
                    min_energy=float(e.min()))

    def rank(t):
        return (t["tts99_est"], t["mean_energy"], t["num_sweeps"])

    for i, S in enumerate(grid):
        t_est = S * problem.n * solver.slices * per_spin
        if t_est > cap:
            table.append(dict(num_sweeps=S, skipped=f"one read ~{t_est:.2f} s, over the {cap:g} s cap"))
            continue
        K = int(min(config["calib_reads_max"], max(2, round(config["calib_seconds"] / max(t_est, 1e-9)))))
        pools[i] = dict(K=K, calls=0, hits=0, wall=0.0, sampling=0.0, energies=[])
        table.append(calibrate(i, config["calib_seconds_max"]))
    tried = [t for t in table if "skipped" not in t]
    if tried and min(tried, key=rank)["hits"] < config["calib_hits"]:
        lowest = min(tried, key=lambda t: t["mean_energy"])
        for k, t in enumerate(table):
            if "skipped" not in t and (t["hits"] or t is lowest):
                i = grid.index(t["num_sweeps"])
                table[k] = dict(calibrate(i, config.get("calib_extend_seconds", 0.0)), extended=True)
        tried = [t for t in table if "skipped" not in t]
    if not tried:
        tried = [dict(num_sweeps=grid[0], tts99_est=math.inf, mean_energy=math.inf, sampling_read=cap)]
        table.append(dict(tried[0], note="every setting over the cap: the smallest"))
    best = min(tried, key=rank)
    for t in table:
        t["chosen"] = t is best
    reads = 1 if solver.one_read_per_call(prep) else reads_per_call(best)
    return dict(num_sweeps=best["num_sweeps"], reads=reads), table


def reads_per_call(cal: dict, most: int = 64) -> int:
    """Reads per call r in 1, 2, 4 .. ``most`` minimising the expected time to the first hit,
    (overhead + r t) / (1 - (1 - p)^r), from a setting's calibration calls: ``overhead`` (a call's wall time
    minus its sampling time), t (sampling seconds per read), p (its reads' hit rate; none hit: half a read's worth)."""
    t, o = max(cal.get("sampling_read", 0.0), 1e-9), max(cal.get("overhead", 0.0), 0.0)
    k = cal.get("reads") or 1
    p = min(1.0, (cal.get("hits") or 0.5) / k)
    best, r = (math.inf, 1), 1
    while r <= most:
        hit = 1.0 - (1.0 - p) ** r
        best = min(best, ((o + r * t) / hit, r))
        r *= 2
    return best[1]


def more_runs(times, hits, config) -> bool:
    """Whether a row that has its ``runs`` should add one: while its runs are cheap (a median of 10 short runs
    is noisy), or while it has fewer than ``hits_min`` hits and has taken under ``row_seconds`` (5 hits of 10
    against 7 of 10 cannot rank two solvers; the hit rate of k hits is known to about 1/sqrt(k))."""
    spent = sum(times)
    if spent < config["runs_seconds"]:
        return True
    return sum(hits) < config.get("hits_min", 0) and spent < config.get("row_seconds", 0.0)


def ttt_row(solver, prep, problem, target, config, rate, log) -> dict:
    cap = config["cap_small"] if problem.n <= config["small_vars"] else config["cap"]
    grid = None
    if solver.sweeps:
        setting, grid = choose_sweeps(solver, prep, problem, target, config, rate, cap)
        if solver.name == "qlib-sa":
            setting = dict(num_sweeps=setting["num_sweeps"])   # qlib restarts inside one call
    else:
        setting = {}
    give_up = config["give_up"]
    times, hits, extras = [], [], []
    most = max(config["runs"], config["runs_max"])
    for seed in range(most):
        if seed >= config["runs"] and not more_runs(times, hits, config):
            break
        try:
            hit, secs, e, calls = solver.run(prep, problem, setting, seed, target, cap)
        except Exception as exc:
            extras.append(dict(seed=seed, error=f"{type(exc).__name__}: {exc}"))
            hit, secs, e, calls = False, cap, math.inf, None
        if hit and secs > cap * 1.01 + 0.05:
            hit = False   # right, but after the cap
        times.append(secs)
        hits.append(bool(hit))
        extras.append(dict(seed=seed, seconds=round(secs, 5), hit=bool(hit), energy=e, calls=calls))
        if not any(hits) and len(hits) >= give_up:
            break
    stats = ttt_stats(times, hits, cap)
    below = [x["energy"] for x in extras if x.get("energy", math.inf) < target - EPS]
    if grid:
        below += [g["min_energy"] for g in grid if g.get("min_energy", math.inf) < target - EPS]
    row = dict(setting=setting, setting_text=solver.describe(setting), grid=grid, cap=cap, times=times, hits=hits,
               runs_detail=extras, stopped=len(times) < config["runs"], planned=config["runs"], **stats)
    if below:
        row["below_target"] = min(below)
    log(f"  ttt  {problem.name:16s} {solver.name:13s} {stats['successes']}/{stats['runs']}"
        f"{' stopped' if row['stopped'] else ''}  median {_s(stats['median'])}  TTS99 {_s(stats['tts99'])}  "
        f"[{row['setting_text']}]" + (f"  BELOW TARGET: {min(below):g}" if below else ""), flush=True)
    return row


# -- tables ------------------------------------------------------------------------------
def _s(x) -> str:
    if x is None:
        return "-"
    return "∞" if math.isinf(x) else f"{x:.3g}" if x < 10 else f"{x:.1f}"


def _m(rate) -> str:
    return f"{rate / 1e6:.1f}" if rate else "n/a"


def rate_table(results) -> str:
    names = [s for s in results["solvers"] if s != "qlib-focused"]
    lines = ["| workload | vars | terms | sweeps x reads | " + " | ".join(f"{s} M/s" for s in names)
             + " | qlib/dwave | qlib/dwave (wall) | qlib kernel |", "|---|---|---|---|" + "---|" * (len(names) + 3)]
    for w, row in results["rates"].items():
        meta = results["workloads"][w]
        q, d = row.get("qlib-sa", {}), row.get("dwave-sa", {})
        any_r = next((r for r in row.values() if "sweeps" in r), None)
        sr = f"{any_r['sweeps']} x {any_r['reads']}" if any_r else "-"
        ratio = f"{q['rate'] / d['rate']:.2f}" if q.get("rate") and d.get("rate") else "n/a"
        wall = f"{q['wall_rate'] / d['wall_rate']:.2f}" if q.get("wall_rate") and d.get("wall_rate") else "n/a"
        lines.append(f"| {w} | {meta['n']} | {meta['terms']} | {sr} | "
                     + " | ".join(_m(row.get(s, {}).get("rate")) for s in names)
                     + f" | {ratio} | {wall} | {q.get('kernel') or '-'} |")
    return "\n".join(lines)


def energy_table(results) -> str:
    names = [s for s in results["solvers"] if s != "qlib-focused"]
    lines = ["| workload | target | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for w, row in results["rates"].items():
        ref = results["targets"].get(w, {}).get("energy")
        cells = []
        for s in names:
            r = row.get(s, {})
            cells.append(f"{r['mean_energy']:.1f} ({r['min_energy']:g})" if "mean_energy" in r else "n/a")
        lines.append(f"| {w} | {'-' if ref is None else f'{ref:g}'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def beta_table(results) -> str:
    names = [s for s in ("qlib-sa", "dwave-sa", "openjij-sa") if s in results["solvers"]]
    lines = ["| workload | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for w, row in results["rates"].items():
        cells = []
        for s in names:
            b = row.get(s, {}).get("beta_range")
            cells.append(f"{b[0]:.3g} → {b[1]:.3g}" if b else "-")
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def timers_text(results) -> str:
    seen: dict = {}
    for row in results["rates"].values():
        for s, r in row.items():
            if r.get("timer"):
                seen.setdefault(s, set()).add(r["timer"])
    return "; ".join(f"{s}: {', '.join(sorted(t))}" for s, t in seen.items())


def ttt_table(results) -> str:
    lines = ["| workload | vars | target | solver | setting | success | median s | p90 s | TTS99 s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for w, rows in results["ttt"].items():
        meta, tgt = results["workloads"][w], results["targets"][w]
        for s in results["solvers"]:
            r = rows.get(s)
            if r is None:
                continue
            if "na" in r:
                lines.append(f"| {w} | {meta['n']} | {tgt['energy']:g} | {s} | n/a: {r['na']} | | | | |")
                continue
            stopped = " stopped" if r["stopped"] else ""
            flag = f" (found {r['below_target']:g} < target)" if "below_target" in r else ""
            lines.append(f"| {w} | {meta['n']} | {tgt['energy']:g} | {s} | {r['setting_text']} | "
                         f"{r['successes']}/{r['runs']}{stopped}{flag} | {_s(r['median'])} | {_s(r['p90'])} | "
                         f"{_s(r['tts99'])} |")
    return "\n".join(lines)


def threads_table(results) -> str:
    lines = ["| workload | vars | sweeps x replicas | 1 thread M/s | 2 threads M/s | 2 / 1 | machine 2 / 1 |",
             "|---|---|---|---|---|---|---|"]
    for key, r in results["threads"].items():
        w = r.get("workload", key)
        bt = {int(k): v for k, v in r["by_threads"].items()}
        one, two = bt.get(1) or {}, bt.get(2) or {}
        ratio = f"{r['ratio']:.2f}" if r.get("ratio") else "-"
        mach = f"{r['machine_ratio']:.2f}" if r.get("machine_ratio") else "-"
        lines.append(f"| {w} | {results['workloads'][w]['n']} | {r['sweeps']} x {r['replicas']} | "
                     f"{_m(one.get('rate'))} | {_m(two.get('rate'))} | {ratio} | {mach} |")
    return "\n".join(lines)


def target_table(results) -> str:
    lines = ["| workload | vars | target | found by (reference run) | planted ground | source |",
             "|---|---|---|---|---|---|"]
    for w, t in results["targets"].items():
        kg = t.get("known_ground")
        lines.append(f"| {w} | {t['n']} | {t['energy']:g} | {', '.join(t['found_by']) or '-'} | "
                     f"{'-' if kg is None else f'{kg:g}'} | {t.get('source', '')} |")
    return "\n".join(lines)


def settings_text(results) -> str:
    by: dict = {}
    for w, rows in results["ttt"].items():
        for s, r in rows.items():
            if r.get("setting", {}).get("num_sweeps"):
                by.setdefault(s, []).append(f"{w} {r['setting']['num_sweeps']}")
    return "\n".join(f"- {s}: " + ", ".join(v) for s, v in by.items())


def provenance_line(results) -> str:
    q = results.get("qlib") or {}
    if not q.get("commit"):
        return "qlib commit: unknown."
    dirty = {True: " (dirty: " + ", ".join(q.get("changed", [])[:10]) + ")", False: " (clean)", None: ""}
    return f"qlib commit {q['commit']}{dirty[q.get('dirty')]}."


def _load_text(m) -> str:
    a, b = m.get("load_at_start"), m.get("load_at_end")
    return f"{a[0] if a else '?'} at the start, {b[0] if b else '?'} at the end"


def report(results) -> str:
    c, m = results["config"], results["machine"]
    lines = [f"# QUBO / HUBO bench: {results['command']}", "",
             f"{results['date']}; {m['platform']}, {m['cpus']} CPUs, Python {m['python']}; "
             f"{', '.join(f'{k} {v}' for k, v in results['versions'].items())}.  "
             f"Total {results['timing']['seconds'] / 60:.1f} min; load average (1 min) {_load_text(m)}.  "
             f"{provenance_line(results)}", ""]
    if results["rates"]:
        lines += [f"## Spin updates per second, {c['rate_sweeps']} sweeps, one thread (millions)", "",
                  f"Best of {c['rate_repeats']} identical calls, taken in turns (each solver once a turn), by each "
                  "solver's own sampling timer ("
                  + timers_text(results) + "); SQA counts its 4 Trotter slices.  qlib/dwave (wall): the same "
                  "ratio from the calls' wall time.", "", rate_table(results), "",
                  f"## Energy at {c['rate_sweeps']} sweeps: mean over the reads (lowest)", "",
                  energy_table(results), "",
                  "## Beta range (hot → cold) each annealer chose by default, in the same calls", "",
                  beta_table(results), ""]
    if results["threads"]:
        lines += ["## qlib SA on 1 and 2 threads (independent replicas)", "",
                  "Best of 3 calls each, 1 and 2 threads taken in turns, qlib's own timer; each model at the rate "
                  "table's length and at a longer one "
                  "(the fixed cost of a call, its setup and the chunks' joins, weighs less in a longer run).  "
                  "machine 2 / 1: a compute-bound numba prange over 2 "
                  "items, 1 vs 2 threads, measured just before (what the two cores give at the time).", "",
                  threads_table(results), ""]
    if results["ttt"]:
        lines += ["## Time to target (one thread per run)", "",
                  f"{c['runs']} runs per row (seeds 0, 1, ...), and more, up to "
                  f"{max(c['runs'], c.get('runs_max', 0))}, while the row's runs have taken under "
                  f"{c.get('runs_seconds', 0):g} s, or while it has fewer than {c.get('hits_min', 0)} hits and has "
                  f"taken under {c.get('row_seconds', 0):g} s; cap {c['cap_small']:g} s up to "
                  f"{c['small_vars']} variables, else {c['cap']:g} s; a row whose first {c['give_up']} runs fail "
                  "stops.  median / p90: of the runs that hit.  TTS99: qlib.tail.tts99, runs cut at the best budget t "
                  "among the hits' times, t x ln(0.01)/ln(1-p(t)), at least one run.  Setting: num_sweeps chosen per workload from "
                  f"{'/'.join(str(g) for g in c['grid'])} by calibration calls per setting (up to "
                  f"{c['calib_reads_max']} reads, about {c['calib_seconds']:g} s a call; more calls while the reads "
                  f"have fewer than {c.get('calib_hits', 0)} hits and have taken under "
                  f"{c.get('calib_seconds_max', 0):g} s; where the pick has fewer hits than that, the settings "
                  f"with a hit and the one with the lowest mean energy get more calls, up to "
                  f"{c.get('calib_extend_seconds', 0):g} s each, and the pick is made again); a peer's reads/call: the power of two (up to 64) with the "
                  "lowest expected time to a hit, from those calls' overhead, sampling time per read and hit rate.",
                  "", ttt_table(results), "",
                  "Chosen num_sweeps:", "", settings_text(results), ""]
    if results["targets"]:
        lines += ["## Targets", "", "The lowest energy of the reference runs (each solver the same time, "
                  f"--ref-sweeps {c['ref_sweeps']} sweeps per read) or the planted ground energy; a bench run that "
                  "goes lower updates the cache for the next runs.", "", target_table(results), ""]
    if results.get("warmup"):
        lines += ["Warm-up (tiny models, first call, not measured): "
                  + ", ".join(f"{k} {v:.2f} s" for k, v in results["warmup"].items()) + ".", ""]
    if results.get("notes"):
        lines += ["Notes:", ""] + [f"- {n}" for n in results["notes"]] + [""]
    return "\n".join(lines)


# -- main --------------------------------------------------------------------------------
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="the smallest model of each family, 3 runs, a 2-setting grid "
                                                        "(about 20 s; results/qubo-quick.*)")
    p.add_argument("--only", nargs="*", metavar="PATTERN", help="workload names or fnmatch patterns ('sg2d-*')")
    p.add_argument("--solvers", nargs="*", choices=SOLVERS, help="rows to run (default all)")
    p.add_argument("--runs", type=int, help="independent runs per time-to-target row, at least (default 10; quick 3)")
    p.add_argument("--runs-max", type=int, help="runs per row at most, added while the row has taken under "
                                                "--runs-seconds (default 100; quick 3)")
    p.add_argument("--runs-seconds", type=float, help="seconds of runs a row may take before it stops adding runs "
                                                      "beyond --runs (default 2)")
    p.add_argument("--hits-min", type=int, help="hits a row wants: it adds runs, up to --runs-max, while it has fewer "
                                                "and has taken under --row-seconds (default 10)")
    p.add_argument("--row-seconds", type=float, help="seconds of runs a row may take to reach --hits-min (default 60)")
    p.add_argument("--cap", type=float, help="seconds per run above 200 variables (default 3; quick 1)")
    p.add_argument("--cap-small", type=float, help="seconds per run up to 200 variables (default 1; quick 0.5)")
    p.add_argument("--ttt-max-vars", type=int, help="time-to-target only on models up to this size (default 2000)")
    p.add_argument("--give-up", type=int, help="stop a time-to-target row after this many failures and no hit "
                                               "(default 5)")
    p.add_argument("--ref-sweeps", type=int, help="sweeps per read of the reference runs (default 10000)")
    p.add_argument("--no-rates", action="store_true", help="skip the updates/s and thread tables")
    p.add_argument("--no-ttt", action="store_true", help="skip the time-to-target table (with --reference: only "
                                                          "recompute the targets)")
    p.add_argument("--reference", action="store_true", help="recompute the targets of the chosen workloads")
    p.add_argument("--ref-seconds", type=float, help="reference search per solver and workload (default 2 + n/100 s, "
                                                    "at most 12)")
    p.add_argument("--reference-file", type=Path, default=REFERENCE,
                   help="cached targets (results/qubo_reference.json)")
    p.add_argument("--out", type=Path, help="results JSON (default results/qubo.json; quick results/qubo-quick.json); "
                                            "the markdown goes beside it (.md)")
    args = p.parse_args(argv)
    config = dict(QUICK if args.quick else FULL)
    for key in ("runs", "runs_max", "runs_seconds", "hits_min", "row_seconds", "cap", "cap_small", "ttt_max_vars",
                "ref_seconds", "give_up", "ref_sweeps"):
        if getattr(args, key) is not None:
            config[key] = getattr(args, key)
    args.out = args.out or (QUICK_RESULTS if args.quick else RESULTS)
    return args, config


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("numba", "numpy", "dimod", "dwave-samplers", "openjij"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


def load_references(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _load() -> list | None:
    try:
        import os

        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def main(argv=None, log=print):
    # OpenJij's samplers run Intel OpenMP regions (on every core by default, and its idle workers spin for
    # 200 ms after each): one OpenMP thread keeps every peer call on one thread and the cores free for the
    # next call.  Set before OpenJij is first imported (available() below), when its runtime reads it.
    os.environ["OMP_NUM_THREADS"] = "1"
    args, config = parse_args(argv)
    t_start = time.perf_counter()
    missing = available()
    if missing:
        raise SystemExit(missing)
    chosen = W.select(args.only, None if args.only else (W.QUICK if args.quick else None))
    if not chosen:
        raise SystemExit(f"no workload matches {args.only}; names: {', '.join(w.name for w in W.WORKLOADS)}")
    solvers = {n: SOLVER_CLASSES[n]() for n in SOLVERS if not args.solvers or n in args.solvers}
    command = "benchmarks/qubo.py " + " ".join(sys.argv[1:] if argv is None else argv)
    results = dict(command=command.strip(), date=time.strftime("%Y-%m-%d %H:%M"), qlib=qlib_commit(),
                   measured=code_fingerprint("qubo.json"), machine=dict(machine(), load_at_start=_load()), versions=_versions(), config=config,
                   solvers=list(solvers), workloads={}, warmup={}, prepare={}, rates={}, threads={}, targets={},
                   ttt={}, notes=[], timing={})
    log(f"{len(chosen)} workloads: {', '.join(w.name for w in chosen)}")
    load = results["machine"]["load_at_start"]
    if load and load[0] > 0.5 * (results["machine"]["cpus"] or 1):
        log(f"note: load average {load[0]} at start: other processes are running, timings will be noisy")
    phase = {}
    t = time.perf_counter()
    results["warmup"] = warm_up(solvers, log)
    phase["warm-up"] = time.perf_counter() - t

    t = time.perf_counter()
    problems, preps = {}, {}
    for w in chosen:
        t0 = time.perf_counter()
        p = w.build()
        build = time.perf_counter() - t0
        problems[w.name] = p
        results["workloads"][w.name] = dict(family=w.family, n=p.n, generated_n=w.n, terms=p.term_count,
                                            degree=p.degree, fingerprint=p.fingerprint(), build_seconds=build,
                                            known_ground=p.known_ground, **{k: v for k, v in p.meta.items()
                                                                            if k != "family"})
        preps[w.name], results["prepare"][w.name] = {}, {}
        for sv in solvers.values():
            if sv.applies(p):
                continue
            t0 = time.perf_counter()
            preps[w.name][sv.name] = sv.prepare(p)
            results["prepare"][w.name][sv.name] = time.perf_counter() - t0
    phase["build and prepare"] = time.perf_counter() - t
    log(f"built and prepared in {phase['build and prepare']:.1f} s", flush=True)

    def save():
        results["machine"]["load_at_end"] = _load()
        results["timing"] = dict(seconds=time.perf_counter() - t_start, phases=phase)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1, default=_json_default))

    if not args.no_rates:
        t = time.perf_counter()
        log("updates/s at equal sweeps, one thread:")
        results["rates"] = rates_phase(problems, preps, solvers, config, log)
        phase["rates"] = time.perf_counter() - t
        t = time.perf_counter()
        results["threads"] = threads_phase(problems, preps, solvers, config, log)
        phase["threads"] = time.perf_counter() - t
        save()

    if not args.no_ttt or args.reference:
        run_ttt(args, config, problems, preps, solvers, results, phase, log, save, rows=not args.no_ttt)

    save()
    md = report(results)
    args.out.with_suffix(".md").write_text(md)
    log("")
    log(md)
    log(f"written to {args.out} and {args.out.with_suffix('.md')}")
    return results


def run_ttt(args, config, problems, preps, solvers, results, phase, log, save, rows=True) -> None:
    """Targets (cached or computed with every solver, whatever ``--solvers`` says), then the rows
    (``rows``; ``--reference --no-ttt`` only refreshes the targets)."""
    t = time.perf_counter()
    refs = load_references(args.reference_file)
    ttt_names = [n for n, p in problems.items() if p.n <= config["ttt_max_vars"]]
    skipped = [n for n in problems if n not in ttt_names]
    if skipped:
        results["notes"].append(f"time to target not run above {config['ttt_max_vars']} variables "
                                f"(--ttt-max-vars): {', '.join(skipped)}")
    every = {n: SOLVER_CLASSES[n]() for n in SOLVERS}
    changed = False
    log("targets:")
    for name in ttt_names:
        p = problems[name]
        ref = refs.get(name)
        if args.reference or not ref or ref.get("fingerprint") != p.fingerprint():
            prep = dict(preps[name])
            for sv in every.values():
                if sv.name not in prep and not sv.applies(p):
                    prep[sv.name] = sv.prepare(p)
            ref = reference_energy(p, prep, every, config, log)
            refs[name] = ref
            changed = True
            results["targets"][name] = dict(ref, source="computed now")
        else:
            results["targets"][name] = dict(ref, source=f"cached ({args.reference_file.name}, {ref.get('date')})")

    def write_refs():
        args.reference_file.parent.mkdir(parents=True, exist_ok=True)
        args.reference_file.write_text(json.dumps(refs, indent=1, sort_keys=True, default=_json_default))

    if changed:
        write_refs()
    phase["targets"] = time.perf_counter() - t
    if not rows:
        return
    t = time.perf_counter()
    log("time to target:")
    bar = Progress(len(ttt_names), "time to target")
    for name in ttt_names:
        bar.step(name)
        p, target = problems[name], results["targets"][name]["energy"]
        rows = results["ttt"].setdefault(name, {})
        for sv in solvers.values():
            why = sv.applies(p)
            if why:
                rows[sv.name] = dict(na=why)
                continue
            rate = (results["rates"].get(name, {}).get(sv.name) or {}).get("rate")
            rows[sv.name] = ttt_row(sv, preps[name][sv.name], p, target, config, rate, log)
            low = rows[sv.name].get("below_target")
            if low is not None and low < refs[name]["energy"] - EPS:
                # the best energy any solver found: the cache keeps it for the next runs
                refs[name] = dict(refs[name], energy=low, found_by=[f"{sv.name} (bench run)"],
                                  improved=dict(date=time.strftime("%Y-%m-%d %H:%M"), by=sv.name, previous=target,
                                                qlib=results["qlib"].get("commit")))
                write_refs()
        lows = {k: r["below_target"] for k, r in rows.items() if "below_target" in r}
        if lows:
            results["notes"].append(f"{name}: " + ", ".join(f"{k} reached {v:g}" for k, v in lows.items())
                                    + f", below the target {target:g}; this run's rows there were measured against "
                                    f"{target:g}, and {args.reference_file.name} now holds {refs[name]['energy']:g} "
                                    "for the next runs")
        save()
    bar.close()
    phase["time to target"] = time.perf_counter() - t


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


if __name__ == "__main__":
    main()
