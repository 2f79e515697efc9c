"""qlib against peer samplers and exact solvers on the book's workloads: prints tables, writes JSON and markdown.

    make bench                                        # the user set: --set user --seeds 5 --cap 60 (see below)
    make bench BENCH_ARGS=                            # the book set: 10 seeds, 60 s cap per run (~30 min)
    .venv/bin/python benchmarks/run.py --set user --seeds 5 --cap 60     # the user set alone (results/user.*)
    .venv/bin/python benchmarks/run.py --set user --families loopy --sizes 10 --seeds 1 --cap 5
    .venv/bin/python benchmarks/run.py --quick        # a few minutes: one board per size, 3 seeds, 20 s cap
    .venv/bin/python benchmarks/run.py --sizes 15 --seeds 3 --cap 20
    .venv/bin/python benchmarks/run.py --only sl10 --solvers qlib-cells --merge   # add or redo one row

Workloads (benchmarks/workloads.py), two sets (``--set book``, the default, ``user``
or ``all``).  The book set: the 10x10 Slitherlink of the QUBO++ tutorial
(sl10), the 15x15 Nonogram as a plain QUBO (nono15), and every generated board
qlib/data/slitherlink-{15,20,25,30}x{same}-gen-s*.txt present at start, grouped by size.
The user set: the boards a user would bring, benchmarks/boards/ (make_boards.py and
its manifest): Slitherlink from sgt-loopy (hard, 10x10-60x60 and 40x30) and qlib's
minimal-clue generator (20x20-50x50), rows qlib-default, qubo-alone, sat-exact, backtrack;
Nonograms from sgt-pattern (15x15-50x50, 2 each), ten random 30x30 grids and the
webpbn puzzles, rows qlib-default, qubo-alone and sat-exact (benchmarks/nonogram_sat.py).
``--families`` and ``--sizes`` narrow it; boards of one family and size form a
group for the give-up rule below.  No peers, no compile measurement by default.
Time (``make bench``: --set user --seeds 5 --cap 60): 14.8 min on 2 cores for
79 boards at qlib 170bd3e (results/user.md records each run's total).  Failing rows
cost caps: a qlib row stops after ``--give-up`` (2) failed runs, is then tried
once on the next ``--group-tries`` (2) boards of its group and not run on the rest;
if qlib-default failed on every board that is 50 caps (50 min), plus one cap per
board for each failing exact row.  ``--estimate`` prints the
estimate from the last results/user.json.

Rows: ``qlib-default`` is ``slitherlink.solve(board, seed=s, time_limit=cap)`` (or
``nonogram.solve``) with no other argument; ``qubo-alone``, on every workload, the QUBO
method with no complete search beside it (``complete=False``; Nonogram ``complete=False``);
the named qlib alternatives; the
exact rows ``sat-exact`` (``slitherlink.exact.solve_exact``, CaDiCaL) and
``backtrack`` (``generate.count_solutions(board, limit=1)``), deterministic, run
``--repeats`` times; and the peers (dwave-samplers' SA and OpenJij's SA on the
QUBO, OpenJij's HUBO sampler on the HUBO), each inside the same outer loop
elimination, repeating its sampling until the target energy or the cap.

Fair peers: each peer tries every setting of peers.GRID (num_reads 1/4/16 x
num_sweeps 100/1000/10000, plus its defaults) on ``--grid-seeds`` seeds of their
own (not the measured ones) at ``--grid-cap``; the best (most successes, then the
lowest median, then the lowest energy reached) is then run on all the seeds at
the full cap, and the table names it.  After each grid seed but the last, the
settings that can no longer catch the leader's success count are dropped, and
of the rest the better half (at least 3) goes on.  On the generated boards the peers
run once, at their sl10 setting with ``--probe-cap``, on the first 15x15 board only.

The tail: for each workload and row, the success rate, median, p90, max (failed
runs at the cap), TTS99 (``qlib.tail.tts99``: runs cut at a budget t and repeated,
t x log(0.01)/log(1-p(t)) with p(t) the share of runs answered within t, at least
one run, at the best t among the answered runs' times; no answer: infinite) and the ratio to the sat-exact row
(median / SAT median, max / SAT median); each qlib run records its result's
``found_by`` (which part of the solver found the answer), counted per row.  Every
results file records the qlib commit (``git rev-parse HEAD``) and whether the tree
was dirty.

Every run is checked: it counts as a success only when the answer passes
``slitherlink.check`` / ``nonogram.check`` and arrived within the cap.  A failed run
counts at the cap.  A row whose first ``--give-up`` runs all fail stops there
(its success column then reads k/n with n < seeds); an exact row stops after one
failure; on the generated boards a row that stopped on one board is tried
once on the other boards of that size; a peer whose setting failed on every
grid seed too stops one failure earlier.  A qlib alternative that would repeat
qlib-default's very call on a board (same form, method and cap; e.g. formulation="cells"
when that is the default) is not run again: its row says so and shows
qlib-default's numbers.  Times are wall seconds in this process after a warm-up call of the
same solver on a small board (the warm-ups and the JIT compile in a fresh
process are reported apart).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import qlib  # noqa: E402
from qlib.tail import tail as qlib_tail  # noqa: E402

from progress import Progress  # noqa: E402
from provenance import code_fingerprint, machine, qlib_commit  # noqa: E402

RESULTS = HERE / "results" / "latest.json"
QUICK_RESULTS = HERE / "results" / "quick.json"
USER_RESULTS = HERE / "results" / "user.json"
SETS = ("book", "user", "all")

FULL = dict(seeds=10, cap=60.0, grid_seeds=3, grid_cap=5.0, give_up=3, edge_cap=20.0, probe_cap=10.0,
            repeats=3, sizes=[15, 20, 25, 30], boards_per_size=None, set="book", families=None, group_tries=None)
USER = dict(FULL, seeds=5, give_up=2, sizes=None, set="user", group_tries=2)
QUICK = dict(FULL, seeds=3, cap=20.0, grid_seeds=1, grid_cap=2.0, give_up=2, edge_cap=10.0, probe_cap=5.0,
             boards_per_size=1)
HALVING_KEEP = 3  # settings always kept after a grid seed (see choose_setting)
GRID_SEED0 = 1000  # the grid is chosen on seeds 1000, 1001, ... and the rows measured on 0 .. seeds-1


# -- measuring -------------------------------------------------------------------
def compile_seconds() -> dict:
    """First call of the default solver in a fresh process: with an empty numba cache, and with it warm."""
    code = ("import time; t = time.perf_counter(); import qlib; from qlib.puzzles import slitherlink as sl; "
            "qlib.warmup(); b = sl.parse(qlib.data_path('slitherlink-5x5-blog-ex1.txt')); "
            "sl.solve(b, seed=0, time_limit=30); print(time.perf_counter() - t)")
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for key in ("cold_cache_seconds", "warm_cache_seconds"):
            res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
            if res.returncode:
                out["error"] = res.stderr.strip().splitlines()[-1:] or ["failed"]
                return out
            out[key] = float(res.stdout.strip().splitlines()[-1])
    return out


def percentile(values, q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, linearly interpolated between order statistics
    (numpy's default): p90 of 5 runs is 0.4 x the 4th + 0.6 x the 5th smallest."""
    xs = sorted(values)
    if not xs:
        raise ValueError("percentile of no values")
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def solved_flags(r: dict) -> list[bool]:
    """Whether each run of ``r["times"]`` answered: from its extras, else the ``successes`` fastest (a failed
    run counts at the cap or later)."""
    times, extras = r["times"], r.get("extras") or []
    if len(extras) == len(times):
        return [bool(e.get("ok")) for e in extras]
    flags = [False] * len(times)
    for i in sorted(range(len(times)), key=times.__getitem__)[:r["successes"]]:
        flags[i] = True
    return flags


def tail(r: dict) -> dict:
    """Success rate, median, p90, max and TTS99 of one row's runs (failures at the cap): :func:`qlib.tail.tail`."""
    t = qlib_tail(r["times"], r["solved"] if "solved" in r else solved_flags(r))
    return dict(success_rate=t.success_rate, median=t.median, p90=t.p90, max=t.max, tts99=t.tts99)


def found_by_counts(r: dict) -> dict:
    """How many successful runs each part of the solver (``found_by``) answered; None when no run said."""
    counts: dict = {}
    for e in r.get("extras", []):
        if e.get("ok") and e.get("found_by") is not None:
            counts[e["found_by"]] = counts.get(e["found_by"], 0) + 1
    return counts


def censored(successes: int, runs: int) -> bool:
    """Whether the median of ``runs`` times, failures at the cap, involves a failure."""
    return successes <= runs // 2


def measure(run, seeds, cap: float, give_up: int | None) -> dict:
    """Run ``run(seed, cap)`` for every seed; stop once the first ``give_up`` runs all failed."""
    times, successes, extras = [], 0, []
    for seed in seeds:
        t = time.perf_counter()
        try:
            ok, extra = run(seed, cap)
        except Exception as exc:  # a solver that raises is a failed run; the message is kept
            ok, extra = False, dict(error=f"{type(exc).__name__}: {exc}")
        dt = time.perf_counter() - t
        if ok and dt > cap * 1.01 + 0.05:  # right, but after the cap
            ok, extra = False, dict(extra, late=True)
        successes += bool(ok)
        times.append(dt if ok else max(dt, cap))
        extras.append(dict(seed=int(seed), seconds=round(dt, 4), ok=bool(ok), **extra))
        if not successes and (give_up and len(times) >= give_up or "error" in extra):
            break
    out = dict(times=times, successes=successes, runs=len(times), planned=len(seeds),
               gave_up=len(times) < len(seeds), median=statistics.median(times), min=min(times), max=max(times),
               median_censored=censored(successes, len(times)), cap=cap, extras=extras)
    stats = tail(out)
    out.update(p90=stats["p90"], tts99=stats["tts99"], success_rate=stats["success_rate"])
    return out


def _rank(r: dict):
    """Sort key of a peer's runs: most successes, then the lowest median (failures at the cap, however
    long they overran), then the lowest mean energy reached."""
    times = [t if e.get("ok") else r["cap"] for t, e in zip(r["times"], r["extras"])]
    energies = [e["min_energy"] for e in r["extras"] if e.get("min_energy") is not None]
    return (-r["successes"] / r["runs"], statistics.median(times), statistics.mean(energies) if energies else math.inf)


def choose_setting(row, grid_seeds, grid_cap: float, log=print):
    """Try every setting of ``row.grid`` on ``grid_seeds``; returns (best setting, per-setting records)."""
    from peers import setting_label

    grid = list(row.grid)
    records = {i: dict(times=[], successes=0, runs=0, extras=[], cap=grid_cap) for i in range(len(grid))}
    alive = list(range(len(grid)))
    for k, seed in enumerate(grid_seeds):
        for i in alive:
            r = measure(row.make(grid[i]), [seed], grid_cap, None)
            rec = records[i]
            rec["times"] += r["times"]
            rec["successes"] += r["successes"]
            rec["runs"] += 1
            rec["extras"] += r["extras"]
        left = len(grid_seeds) - k - 1
        if left:
            # racing: drop what can no longer catch the leader's successes; then keep the better half
            lead = max(records[i]["successes"] for i in alive)
            alive = [i for i in alive if records[i]["successes"] + left >= lead]
            alive = sorted(alive, key=lambda i: _rank(records[i]))[:max(HALVING_KEEP, math.ceil(len(alive) / 2))]
    for rec in records.values():
        rec["median"] = statistics.median(rec["times"])
    best = min(alive, key=lambda i: _rank(records[i]))
    table = [dict(setting=setting_label(grid[i]), options=grid[i], successes=records[i]["successes"],
                  runs=records[i]["runs"], median=records[i]["median"],
                  dropped=i not in alive, chosen=i == best) for i in range(len(grid))]
    log("    grid: " + "; ".join(f"{t['setting']} {t['successes']}/{t['runs']} {t['median']:.2f}s"
                                 + (" *" if t["chosen"] else "") for t in table))
    return grid[best], table


class Bench:
    """Runs workloads with one configuration and collects the results dict."""

    def __init__(self, config: dict, solvers=None, log=print):
        self.config = config
        self.solvers = solvers
        self.log = log
        self.warmed: dict[str, float] = {}
        self.warm_info: dict[str, dict] = {}  # what each warm-up run reported (form, method...)
        self.best_settings: dict[str, dict] = {}
        self.workloads: dict[str, dict] = {}
        self.boards: dict[str, dict] = {}
        self.skipped: dict[str, dict] = {}
        self.failing: set = set()  # (group, row) that gave up on a generated board: one try on the others
        self.streak: dict = {}  # (group, row) -> one-try failures in a row since it gave up there
        self.not_run: dict = {}  # workload -> {row: why} (the group rule: --group-tries)

    def give_up(self, w, row) -> int:
        """Failed runs, with no success, after which a row stops: --give-up, or 1 on a generated board
        once the row has given up on another board of the same group (the size; a user board's family
        and size)."""
        return 1 if w.generated and (w.key, row.name) in self.failing else self.config["give_up"]

    def warm(self, key: str, row, setting: dict) -> None:
        if key in self.warmed:
            return
        t = time.perf_counter()
        try:
            out = row.warm(setting)
            self.warm_info[key] = out[1] if isinstance(out, tuple) and len(out) == 2 else {}
        except Exception as exc:
            self.log(f"  warm-up of {key} failed: {type(exc).__name__}: {exc}")
        self.warmed[key] = time.perf_counter() - t

    def run_row(self, w, row) -> dict | None:
        c = self.config
        seeds = list(range(c["seeds"]))
        cap = row.cap or c["cap"]
        started = time.perf_counter()
        if row.kind == "peer":
            from peers import GRID

            self.warm(f"{w.puzzle}/{row.name}", row, GRID[0])
            if row.probe:
                setting = self.best_settings.get(row.name, {})
                r = measure(row.make(setting), seeds[:1], row.cap or c["probe_cap"], None)
                r.update(probe=True, setting=row.setting_text(setting) + "; sl10's setting, one run", options=setting)
            else:
                setting, grid = choose_setting(row, [GRID_SEED0 + k for k in range(c["grid_seeds"])],
                                               min(c["grid_cap"], cap), self.log)
                if w.name == "sl10":
                    self.best_settings[row.name] = setting
                # a setting that never succeeded on the grid seeds either gets one failure less before giving up
                lost = not next(g for g in grid if g["chosen"])["successes"]
                r = measure(row.make(setting), seeds, cap, max(1, c["give_up"] - lost))
                r.update(grid=grid, setting=row.setting_text(setting), options=setting)
        else:
            self.warm(f"{w.puzzle}/{row.name}", row, {})
            same = self.same_as_default(w, row, cap)
            if same:
                return dict(same, alias="qlib-default", extras=[], seconds_spent=0.0,
                            setting=f"{row.describe}: the same call as qlib-default here, not run again")
            if row.kind == "exact":
                r = measure(row.make({}), list(range(row.repeats or c["repeats"])), cap, 1)
            else:
                r = measure(row.make({}), seeds, cap, self.give_up(w, row))
                if w.generated:
                    key = (w.key, row.name)
                    if r["gave_up"] and not r["successes"]:
                        if key in self.failing:
                            self.streak[key] = self.streak.get(key, 0) + 1
                        self.failing.add(key)
                    elif r["successes"]:
                        self.streak[key] = 0
            r["setting"] = self.setting_of(row, r)
        r.update(kind=row.kind, seconds_spent=time.perf_counter() - started)
        return r

    def same_as_default(self, w, row, cap) -> dict | None:
        """qlib-default's results on ``w`` when ``row`` would repeat its very call: a qlib alternative with
        the same cap whose formulation and method (as its warm-up resolved them) are those qlib-default used on
        every run here.  Running it again would only measure the same solver twice."""
        default = self.workloads.get(w.name, {}).get("qlib-default")
        info = self.warm_info.get(f"{w.puzzle}/{row.name}", {})
        if row.kind != "qlib" or row.name == "qlib-default" or not default or default.get("cap") != cap \
                or "formulation" not in info:
            return None
        used = {(e.get("formulation", e.get("form")), e.get("method"), e.get("complete")) for e in default["extras"]}
        if used != {(info["formulation"], info["method"], info.get("complete"))}:
            return None
        return {k: v for k, v in default.items() if k not in ("extras", "setting")}

    @staticmethod
    def setting_of(row, r) -> str:
        if row.name != "qlib-default":
            return row.describe
        seen = sorted({f"formulation={e.get('formulation', e.get('form'))}, method={e['method']}" for e in r["extras"]
                       if "formulation" in e or "form" in e})   # "form": results stored before the rename
        return row.describe + (" (" + " / ".join(seen) + ")" if seen else "")

    def run(self, workloads, after_each=None) -> None:
        bar = Progress(sum(len(w.rows) for w in workloads), "bench")
        for w in workloads:
            self.boards[w.name] = dict(puzzle=w.puzzle, file=w.file, size=w.size, generated=w.generated,
                                       **({} if w.family is None else dict(family=w.family, group=w.group)))
            measured = self.workloads.setdefault(w.name, {})
            for row in w.rows:
                bar.step(f"{w.name} {row.name}")
                if self.solvers and row.name not in self.solvers:
                    continue
                if row.skip:
                    self.skipped.setdefault(row.name, dict(reason=row.skip, workloads=[]))["workloads"].append(w.name)
                    continue
                tries = self.config.get("group_tries")
                if w.generated and tries is not None and self.streak.get((w.key, row.name), 0) >= tries:
                    why = (f"not run: stopped on a board of {w.key} and failed its one try on the next {tries} "
                           "(--group-tries)")
                    self.not_run.setdefault(w.name, {})[row.name] = why
                    self.log(f"{w.name:16s} {row.name:13s} {why}")
                    continue
                r = self.run_row(w, row)
                measured[row.name] = r
                by = found_by_counts(r)
                self.log(f"{w.name:16s} {row.name:13s} {r['successes']:2d}/{r['runs']:<2d} median {r['median']:7.3f} s"
                         f"  p90 {percentile(r['times'], 90):.3f}  max {r['max']:.3f}  [{r['setting']}]"
                         + (f"  found by: {_found_text(by)}" if by else "")
                         + (f"  errors: {errors(r)[0]}" if errors(r) else ""))
            if after_each:
                after_each()
        bar.close()


def errors(r) -> list[str]:
    return sorted({e["error"] for e in r.get("extras", []) if "error" in e})


def _found_text(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# -- tables ----------------------------------------------------------------------
def ratio(num: dict | None, den: dict | None) -> str:
    """num / den of two medians, marked when a median is censored at a cap (failures)."""
    if not num or not den or not den["median"]:
        return ""
    value = f"{num['median'] / den['median']:.3g}"
    a, b = num["median_censored"], den["median_censored"]
    if a and b:
        return f"? ({value}, both capped)"
    return ("≥" if a else "≤" if b else "") + value


def best_peer(solvers: dict) -> dict | None:
    peers = [r for r in solvers.values() if r["kind"] == "peer"]
    return min(peers, key=_rank) if peers else None


def _label(name, r):
    return f"{name} ({r['setting']})" if r["kind"] == "peer" else name


def header(results) -> list[str]:
    c = results["config"]
    return [
        f"{c['seeds']} seeds per row, {c['cap']:g} s cap per run (edge-form rows at 15x15: {c['edge_cap']:g} s).  "
        f"A failed run counts at its cap.  A row whose first {c['give_up']} runs all fail stops there "
        f"(k/n with n < {c['seeds']}, marked 'stopped'); on the generated boards a row that stopped on one board "
        "is tried once on the other boards of that size (it goes on if that run succeeds); a peer whose setting "
        "failed on every grid seed too stops one failure earlier.",
        f"Peers: each at its best of {len(results['peer_grid'])} settings (num_reads 1/4/16 x num_sweeps "
        f"100/1000/10000, plus its defaults), chosen on {c['grid_seeds']} separate seeds at a {c['grid_cap']:g} s "
        f"cap (the better half, at least {HALVING_KEEP}, going on after each seed), then run on all {c['seeds']} seeds at the full cap.  On the generated boards the peers run once, "
        f"at their sl10 setting with a {c['probe_cap']:g} s cap, on the first 15x15 board only (the other generated "
        f"boards have no peer rows: they never solve these sizes at their caps).",
        "A qlib row marked 'the same call as qlib-default' was not run again.  "
        f"Exact rows (sat-exact, backtrack) are deterministic: {c['repeats']} runs, median.  "
        "Ratios: the row's median over the best peer's / the sat-exact median on the same board; "
        "≤ / ≥: the denominator / numerator failed in most runs (its median is a cap, so the ratio is a bound).",
    ]


def table(results) -> str:
    lines = ["| workload | solver | setting | success | median s | range s | row / best peer | row / exact |",
             "|---|---|---|---|---|---|---|---|"]
    for workload, solvers in results["workloads"].items():
        peer, exact = best_peer(solvers), solvers.get("sat-exact")
        for name, r in solvers.items():
            mine = r["kind"] != "peer"
            setting = "" if r["kind"] == "peer" else r["setting"]
            stopped = " stopped" if r.get("gave_up") else ""
            lines.append(f"| {workload} | {_label(name, r)} | {setting} | {r['successes']}/{r['runs']}{stopped} | "
                         f"{r['median']:.3f} | {r['min']:.3f}-{r['max']:.3f} | {ratio(r, peer) if mine else ''} | "
                         f"{ratio(r, exact) if mine and name != 'sat-exact' else ''} |")
    return "\n".join(lines)


def _seconds(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.3f}"


def sat_ratio(value: float, value_capped: bool, sat: dict | None) -> str:
    """``value`` / the sat-exact row's median; ≥ when ``value`` involves a cap (failures), ≤ when the SAT
    median does, ? (the value in brackets) when both do."""
    if not sat or not sat.get("median"):
        return ""
    text = f"{value / sat['median']:.3g}"
    if value_capped and sat["median_censored"]:
        return f"? ({text}, both capped)"
    return ("≥" if value_capped else "≤" if sat["median_censored"] else "") + text


def tail_rows(results) -> list[dict]:
    """Per workload and row: the tail statistics, the ratios to sat-exact and the found_by counts."""
    out = []
    for workload, solvers in results["workloads"].items():
        sat = solvers.get("sat-exact")
        for name, r in solvers.items():
            st = tail(r)
            mine = name != "sat-exact"
            out.append(dict(workload=workload, solver=name, successes=r["successes"], runs=r["runs"],
                            gave_up=bool(r.get("gave_up")), **st, found_by=found_by_counts(r),
                            median_over_sat=sat_ratio(st["median"], r["median_censored"], sat) if mine else "",
                            max_over_sat=sat_ratio(st["max"], r["successes"] < r["runs"], sat) if mine else ""))
    return out


def tail_table(results) -> str:
    lines = ["| workload | solver | success | median s | p90 s | max s | TTS99 s | median / SAT | max / SAT | "
             "found by |", "|---|---|---|---|---|---|---|---|---|---|"]
    for t in tail_rows(results):
        stopped = " stopped" if t["gave_up"] else ""
        lines.append(f"| {t['workload']} | {t['solver']} | {t['successes']}/{t['runs']} "
                     f"({100 * t['success_rate']:.0f}%){stopped} | {_seconds(t['median'])} | {_seconds(t['p90'])} | "
                     f"{_seconds(t['max'])} | {_seconds(t['tts99'])} | {t['median_over_sat']} | {t['max_over_sat']} | "
                     f"{_found_text(t['found_by'])} |")
    return "\n".join(lines)


def group_summary(results) -> list[dict]:
    """Per group of user boards (family and size) and row: the runs of its boards pooled."""
    groups: dict[str, list[str]] = {}
    for w, meta in results["boards"].items():
        if w in results["workloads"] and meta.get("group"):
            groups.setdefault(meta["group"], []).append(w)
    out = []
    for group, names in groups.items():
        solvers = []
        for w in names:
            solvers += [s for s in results["workloads"][w] if s not in solvers]
        for solver in solvers:
            rs = [results["workloads"][w][solver] for w in names if solver in results["workloads"][w]]
            pooled = dict(times=[t for r in rs for t in r["times"]], successes=sum(r["successes"] for r in rs),
                          solved=[f for r in rs for f in solved_flags(r)])
            # each run over the SAT median of its own board (failures at the cap)
            over = [t / results["workloads"][w]["sat-exact"]["median"] for w in names
                    if solver in results["workloads"][w] and results["workloads"][w].get("sat-exact", {}).get("median")
                    for t in results["workloads"][w][solver]["times"]]
            pooled["runs"] = len(pooled["times"])
            found: dict = {}
            for r in rs:
                for k, v in found_by_counts(r).items():
                    found[k] = found.get(k, 0) + v
            out.append(dict(group=group, boards=len(rs), solver=solver, successes=pooled["successes"],
                            runs=pooled["runs"], **tail(pooled), found_by=found,
                            median_over_sat=statistics.median(over) if over and solver != "sat-exact" else None,
                            max_over_sat=max(over) if over and solver != "sat-exact" else None))
    return out


def group_table(rows) -> str:
    lines = ["| group | boards | solver | success | median s | p90 s | max s | TTS99 s | run / SAT median | "
             "run / SAT max | found by |", "|---|---|---|---|---|---|---|---|---|---|---|"]

    def over(x):
        return "" if x is None else f"{x:.3g}"
    for g in rows:
        lines.append(f"| {g['group']} | {g['boards']} | {g['solver']} | {g['successes']}/{g['runs']} "
                     f"({100 * g['success_rate']:.0f}%) | {_seconds(g['median'])} | {_seconds(g['p90'])} | "
                     f"{_seconds(g['max'])} | {_seconds(g['tts99'])} | {over(g.get('median_over_sat'))} | "
                     f"{over(g.get('max_over_sat'))} | {_found_text(g['found_by'])} |")
    return "\n".join(lines)


def _pool(results, names, solver):
    rs = [results["workloads"][w][solver] for w in names if solver in results["workloads"][w]]
    if not rs:
        return None
    times = [t for r in rs for t in r["times"]]
    k = sum(r["successes"] for r in rs)
    return dict(successes=k, runs=len(times), median=statistics.median(times), median_censored=censored(k, len(times)),
                boards=len(rs))


def summary(results) -> list[dict]:
    """Per size: qlib-default's success and median over boards x seeds, the exact rows' medians, the ratio."""
    groups: dict[str, list[str]] = {}
    for w, meta in results["boards"].items():
        if w not in results["workloads"] or meta["puzzle"] != "slitherlink" or meta.get("family"):
            continue  # the user boards have their own summary (group_summary)
        key = f"{meta['size']}x{meta['size']}" + ("" if meta["generated"] else f" ({w})")
        groups.setdefault(key, []).append(w)
    out = []
    for key, names in sorted(groups.items(), key=lambda kv: int(kv[0].split("x")[0])):
        d, e, b, cells = (_pool(results, names, s) for s in ("qlib-default", "sat-exact", "backtrack", "qlib-cells"))
        out.append(dict(size=key, boards=len(names), workloads=names, qlib_default=d, sat_exact=e, backtrack=b,
                        qlib_cells=cells, ratio_default_exact=ratio(d, e)))
    return out


def summary_table(rows) -> str:
    def cell(p, what):
        if not p:
            return "-"
        return f"{p['successes']}/{p['runs']}" if what == "k" else f"{p['median']:.3f}"
    lines = ["| size | boards | qlib-default success | qlib-default median s | sat-exact median s | "
             "qlib-default / exact | backtrack median s | qlib-cells success | qlib-cells median s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for s in rows:
        lines.append(f"| {s['size']} | {s['boards']} | {cell(s['qlib_default'], 'k')} | {cell(s['qlib_default'], 'm')} | "
                     f"{cell(s['sat_exact'], 'm')} | {s['ratio_default_exact'] or '-'} | {cell(s['backtrack'], 'm')} | "
                     f"{cell(s['qlib_cells'], 'k')} | {cell(s['qlib_cells'], 'm')} |")
    return "\n".join(lines)


def user_header(results) -> list[str]:
    c = results["config"]
    return [
        f"The user set (benchmarks/boards/, made by make_boards.py): {c['seeds']} seeds per qlib row, "
        f"{c['cap']:g} s cap per run; exact rows (sat-exact, backtrack) {c['repeats']} runs.  A failed run counts "
        f"at its cap.  A row whose first {c['give_up']} runs all fail stops there (marked 'stopped'); a row that "
        "stopped on one board is tried once on the next boards of its group (family and size)"
        + (f", and after {c['group_tries']} such failed tries in a row it is not run on the rest of the group "
           "(listed under 'Not run')." if c.get("group_tries") is not None else "."),
        "p90: linear interpolation between the order statistics (numpy's default).  TTS99 (qlib.tail.tts99): "
        "runs cut at a budget t and repeated, t x log(0.01) / log(1 - p(t)) with p(t) the share of runs answered "
        "within t, at least one run, at the best t among the answered runs' times (no answer: ∞).  "
        "median / SAT and max / SAT: over the sat-exact row's median on the same board (≥: the numerator involves "
        "a cap; ≤: the SAT median does).  In the group table, run / SAT: each run's time over the sat-exact median "
        "of its own board, the median and the max over the group's runs.  found by: which part of the solver "
        "answered (the result's found_by), per successful run.  qubo-alone: the QUBO method with no complete "
        "search beside it (Slitherlink complete=False, Nonogram complete=False).",
    ]


def not_run_text(not_run: dict) -> str:
    by_row: dict = {}
    for w, rows in not_run.items():
        for name in rows:
            by_row.setdefault(name, []).append(w)
    return "; ".join(f"{name} on {', '.join(ws)}" for name, ws in by_row.items())


def provenance_line(results) -> str:
    q = results.get("qlib") or {}
    if not q.get("commit"):
        return "qlib commit: unknown."
    dirty = {True: " (dirty: " + ", ".join(q.get("changed", [])[:10]) + ")", False: " (clean)", None: ""}
    return f"qlib commit {q['commit']}{dirty[q.get('dirty')]}."


def markdown(results) -> str:
    m = results["machine"]
    user = results["config"].get("set") == "user"
    lines = [f"# make bench: {results['command']}", "",
             f"{results['date']}; {m['platform']}, {m['cpus']} CPUs, Python {m['python']}.  "
             f"Total {results['timing']['actual_seconds'] / 60:.1f} min.  {provenance_line(results)}", ""]
    if user:
        lines += [*user_header(results), ""]
    else:
        lines += [*header(results), "", "## Per size (generated boards pooled: median over boards x seeds)", "",
                  summary_table(results["summary"]), "", "## Every row", "", table(results), ""]
    if results.get("groups"):
        lines += ["## Per family and size (user boards pooled over boards x seeds)", "",
                  group_table(results["groups"]), ""]
    lines += ["## The tail (every row)", "", tail_table(results), ""]
    if results.get("not_run"):
        lines += ["Not run (the group rule): " + not_run_text(results["not_run"]), ""]
    if results["skipped"]:
        lines += ["Skipped rows: " + "; ".join(f"{k}: {v['reason']}" for k, v in results["skipped"].items()), ""]
    return "\n".join(lines)


# -- the time estimate ---------------------------------------------------------------
def _previous_rows(paths) -> dict:
    rows = {}
    for path in paths:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            continue
        if "config" not in data:
            continue
        for w, solvers in data["workloads"].items():
            meta = data["boards"].get(w, {})
            key = meta.get("group") or meta.get("size")
            for name, r in solvers.items():
                rows.setdefault((w, name), r)
                rows.setdefault((key, name), r)
    return rows


def estimate(workloads, config, solvers, paths, parts=None, base=60.0) -> tuple[float, int]:
    """Seconds the run should take, from earlier results files (same board, else a board of the same size):
    a row's success rate and mean success time there, failures at this run's cap, the give-up rules applied;
    rows never measured count as failing.  Returns (seconds, rows without data); ``parts`` (a dict)
    receives the seconds per workload."""
    previous = _previous_rows(paths)
    c, total, unknown = config, base, 0  # base: the compile measurement and the warm-ups
    failing, streak, tries = set(), {}, c.get("group_tries")

    def cost(r, n, cap, give_up, key=None):
        ok = [t for t, e in zip(r["times"], r["extras"]) if e.get("ok")] if r else []
        if not ok:
            if key in failing:
                if tries is not None and streak.get(key, 0) >= tries:
                    return 0.0  # not run (the group rule)
                streak[key] = streak.get(key, 0) + 1
                give_up = 1
            elif key is not None:
                failing.add(key)
            return min(n, give_up or n) * cap
        p = len(ok) / len(r["times"])
        return n * (p * statistics.mean(ok) + (1 - p) * cap)

    for w in workloads:
        before = total
        for row in w.rows:
            if row.skip or (solvers and row.name not in solvers):
                continue
            r = previous.get((w.name, row.name)) or previous.get((w.key, row.name))
            if r and r.get("alias"):
                continue  # the same call as qlib-default there: not run again
            unknown += r is None
            cap = row.cap or c["cap"]
            if row.kind == "exact":
                total += cost(r, row.repeats or c["repeats"], cap, 1)
            elif row.kind == "peer" and row.probe:
                total += row.cap or c["probe_cap"]
            elif row.kind == "peer":
                from peers import setting_label

                g = {t["setting"]: t for t in (r or {}).get("grid", [])}
                gc = min(c["grid_cap"], cap)
                per_run = statistics.mean(gc if (t := g.get(setting_label(s))) is None or not t["successes"]
                                          else min(t["median"], gc) for s in row.grid)
                alive, runs = len(row.grid), 0
                for _ in range(c["grid_seeds"]):
                    runs += alive
                    alive = min(alive, max(HALVING_KEEP, math.ceil(alive / 2)))
                lost = not (r and r["successes"])
                total += runs * per_run + cost(r, c["seeds"], cap, max(1, c["give_up"] - lost))
            else:
                total += cost(r, c["seeds"], cap, c["give_up"], (w.key, row.name) if w.generated else None)
        if parts is not None:
            parts[w.name] = total - before
    return total, unknown


# -- main --------------------------------------------------------------------------
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="one board per size, 3 seeds, 20 s cap, a one-seed peer grid: a few minutes "
                        "(writes results/quick.json and quick.md unless --out is given)")
    p.add_argument("--set", choices=SETS, default="book",
                   help="book: the book's workloads (the default); user: the boards of benchmarks/boards/ "
                        "(results/user.json unless --out is given); all: both")
    p.add_argument("--families", nargs="*", help="user-set families to run (loopy qlib pattern random webpbn; "
                                                 "default all)")
    p.add_argument("--seeds", type=int, help="seeds per row (default 10; user 5; quick 3)")
    p.add_argument("--cap", type=float, help="seconds per run (default 60; quick 20)")
    p.add_argument("--sizes", type=int, nargs="*", help="board sizes (rows) to run (default 15 20 25 30; user: all)")
    p.add_argument("--boards-per-size", type=int, help="generated boards per size (default all; quick 1)")
    p.add_argument("--grid-seeds", type=int, help="seeds a peer's settings are chosen on (default 3; quick 1)")
    p.add_argument("--grid-cap", type=float, help="seconds per run while choosing (default 5; quick 2)")
    p.add_argument("--give-up", type=int, help="stop a row after this many failures and no success "
                                               "(default 3; user 2)")
    p.add_argument("--group-tries", type=int,
                   help="on generated / user boards: after a row stopped on a board, the boards of the same group "
                        "it is tried once on before it is not run on the rest of the group (default: all; user 2)")
    p.add_argument("--edge-cap", type=float, help="cap of the edge-form rows on 15x15 boards (default 20)")
    p.add_argument("--probe-cap", type=float, help="cap of the peers' one run on a 15x15 board (default 10)")
    p.add_argument("--repeats", type=int, help="runs of each exact row (default 3)")
    p.add_argument("--only", nargs="*", help="workload names or patterns (sl10, nono15, 'sl15x15*', ...)")
    p.add_argument("--solvers", nargs="*", help="row names to run (default: all)")
    p.add_argument("--merge", action="store_true",
                   help="update these entries in the existing --out file instead of replacing it")
    p.add_argument("--compile", action=argparse.BooleanOptionalAction, default=None,
                   help="measure the JIT compile in a fresh process with an empty cache (default: yes; quick: no)")
    p.add_argument("--estimate", action="store_true", help="print the time estimate and exit")
    p.add_argument("--resummarize", type=Path, metavar="JSON",
                   help="recompute the statistics of a stored results file from its runs (times and checks) "
                        "with this script, rewrite it and its .md, and exit: nothing is run again")
    p.add_argument("--out", type=Path, help="results JSON (default results/latest.json; quick: results/quick.json)")
    args = p.parse_args(argv)
    if args.quick and args.set == "user":
        p.error("--quick is for the book set; the user set takes --seeds, --cap, --families and --sizes")
    config = dict(QUICK if args.quick else USER if args.set == "user" else FULL)
    for key in config:
        value = getattr(args, key, None)
        if value is not None:
            config[key] = value
    config["quick"] = args.quick
    config["user_sizes"] = args.sizes  # the user set: every size unless --sizes
    if args.compile is None:
        args.compile = not args.quick and args.set != "user"
    args.out = args.out or (QUICK_RESULTS if args.quick else USER_RESULTS if args.set == "user" else RESULTS)
    return args, config


def choose_workloads(args, config) -> list:
    """The workloads of ``--set`` (narrowed by --only, --families, --sizes, --boards-per-size)."""
    from workloads import USER_FAMILIES, user_workloads
    from workloads import workloads as book_workloads

    chosen = []
    if config["set"] in ("book", "all"):
        per_size = None if args.only else config["boards_per_size"]  # --only may name any board
        chosen += book_workloads(sizes=config["sizes"] or [], per_size=per_size, edge_cap=config["edge_cap"],
                                 probe_cap=config["probe_cap"], repeats=config["repeats"])
    if config["set"] in ("user", "all"):
        users = user_workloads(families=config["families"] or USER_FAMILIES, sizes=config["user_sizes"],
                               repeats=config["repeats"], per_group=None if args.only else config["boards_per_size"])
        if not users:
            raise SystemExit("no user boards: run benchmarks/make_boards.py first (needs sgt-puzzles)")
        chosen += users
    return select(chosen, args.only)


def select(workloads, only):
    if not only:
        return workloads
    return [w for w in workloads if any(fnmatch.fnmatch(w.name, pat) for pat in only)]


def resummarize(path: Path) -> None:
    """Recompute every statistic of the stored results ``path`` from its runs, as :func:`main` would have,
    and rewrite it and its .md; the runs and the commit that measured them stay as they were."""
    results = json.loads(path.read_text())
    for solvers in results["workloads"].values():
        for r in solvers.values():
            if "times" in r:
                stats = tail(r)
                r.update(p90=stats["p90"], tts99=stats["tts99"], success_rate=stats["success_rate"])
    results["summary"] = summary(results)
    results["groups"] = group_summary(results)
    results["tail"] = tail_rows(results)
    results["summarized"] = dict(by="benchmarks/run.py --resummarize", qlib=qlib_commit().get("commit"),
                                 date=time.strftime("%Y-%m-%d %H:%M"))
    path.write_text(json.dumps(results, indent=1, default=float))
    path.with_suffix(".md").write_text(markdown(results))


def main(argv=None):
    args, config = parse_args(argv)
    if args.resummarize:
        resummarize(args.resummarize)
        return
    t_start = time.perf_counter()
    from peers import GRID, available

    if config["set"] != "user":
        missing = available()
        if missing:
            raise SystemExit(missing)
    chosen = choose_workloads(args, config)
    parts = {}
    guess, unknown = estimate(chosen, config, args.solvers, [args.out, RESULTS, QUICK_RESULTS, USER_RESULTS], parts,
                              base=60.0 if args.compile else 10.0)
    print(f"{len(chosen)} workloads: {', '.join(w.name for w in chosen)}")
    print(f"estimated time: {guess / 60:.1f} min (from earlier results; {unknown} rows without data, "
          f"counted as failing)", flush=True)
    if args.estimate:
        print("  " + ", ".join(f"{w} {t / 60:.1f}" for w, t in parts.items()) + " (min)")
        return None

    command = "benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv)
    results = dict(command=command.strip(), date=time.strftime("%Y-%m-%d %H:%M"), qlib=qlib_commit(),
                   measured=code_fingerprint("bench"), machine=machine(), config=config, seeds=config["seeds"], peer_cap_seconds=config["cap"],
                   qlib_cap_seconds=config["cap"], peer_grid=GRID, compile={}, warmup={}, boards={},
                   workloads={}, skipped={}, not_run={}, summary=[], groups=[], tail=[], timing={})
    if args.merge and args.out.exists():
        previous = json.loads(args.out.read_text())
        old = previous.get("config", {})
        if (old.get("seeds"), old.get("cap")) != (config["seeds"], config["cap"]):
            raise SystemExit(f"--merge: {args.out} was measured with other --seeds/--cap (or in the old format)")
        if previous.get("measured", {}).get("sha256") != results["measured"]["sha256"]:
            raise SystemExit(f"--merge: {args.out} was measured with other code (benchmarks/provenance.py's "
                             "fingerprint differs): rerun its rows without --merge")
        for key in ("workloads", "boards", "warmup", "compile", "skipped", "not_run"):
            results[key] = previous.get(key, results[key])

    if args.compile:
        results["compile"] = compile_seconds()
        comp = results["compile"]
        print("JIT compile (fresh process, empty cache): " + (
            f"{comp['cold_cache_seconds']:.1f} s; with the cache: {comp['warm_cache_seconds']:.1f} s"
            if "error" not in comp else f"failed: {comp['error']}"), flush=True)
    t = time.perf_counter()
    qlib.warmup()
    results["warmup"]["qlib.warmup"] = time.perf_counter() - t

    bench = Bench(config, args.solvers)
    if args.merge:  # peers probed on big boards use the sl10 setting measured earlier
        for name, r in results["workloads"].get("sl10", {}).items():
            if r.get("kind") == "peer" and "options" in r:
                bench.best_settings[name] = r["options"]
    bench.workloads, bench.boards = results["workloads"], results["boards"]

    def save():
        results["warmup"].update(bench.warmed)
        for name, v in bench.skipped.items():
            results["skipped"][name] = v
        for w, rows in bench.not_run.items():
            results["not_run"].setdefault(w, {}).update(rows)
        results["summary"] = summary(results)
        results["groups"] = group_summary(results)
        results["tail"] = tail_rows(results)
        results["timing"] = dict(estimated_seconds=guess, actual_seconds=time.perf_counter() - t_start)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1, default=float))

    bench.run(chosen, after_each=save)
    save()
    args.out.with_suffix(".md").write_text(markdown(results))

    print()
    if config["set"] == "user":
        print("\n".join(user_header(results)))
    else:
        print("\n".join(header(results)))
        print()
        print(table(results))
        print()
        print("Per size (generated boards pooled over boards x seeds):")
        print(summary_table(results["summary"]))
    print()
    print("The tail:")
    print(tail_table(results))
    if results["not_run"]:
        print("\nNot run (the group rule): " + not_run_text(results["not_run"]))
    if results["groups"]:
        print()
        print("Per family and size (user boards pooled over boards x seeds):")
        print(group_table(results["groups"]))
    found = {w: {n: found_by_counts(r) for n, r in solvers.items() if found_by_counts(r)}
             for w, solvers in results["workloads"].items()}
    if any(found.values()):
        print("\nfound by (successful runs per part of the solver):")
        for w, rows in found.items():
            for n, counts in rows.items():
                print(f"  {w:18s} {n:13s} {_found_text(counts)}")
    print("\n" + provenance_line(results))
    if results["skipped"]:
        print("\nskipped: " + "; ".join(f"{k} ({v['reason']})" for k, v in results["skipped"].items()))
    print("\nwarm-up (first call on a small board, not measured): " +
          ", ".join(f"{k} {v:.2f} s" for k, v in results["warmup"].items()))
    print(f"\ntime: estimated {guess / 60:.1f} min, actual {results['timing']['actual_seconds'] / 60:.1f} min")
    print(f"written to {args.out} and {args.out.with_suffix('.md')}")
    return results


if __name__ == "__main__":
    main()
