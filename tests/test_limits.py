"""Limits: memory checks before large allocations, and the exhaustive solver's clock and Ctrl-C."""

from __future__ import annotations

import gc
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc

import numpy as np
import pytest

import qlib
from qlib import limits
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink import counter


@pytest.fixture
def budget():
    """Set a fixed memory budget for one test; the previous setting comes back after."""
    previous = limits.set_memory_budget(None)
    yield limits.set_memory_budget
    limits.set_memory_budget(previous)


def test_check_allocation_names_what_and_how_much(budget):
    budget(10 << 20)
    assert limits.check_allocation(10 << 20, "exactly the budget") == 10 << 20
    with pytest.raises(limits.AllocationTooLarge) as info:
        limits.check_allocation((10 << 20) + 1, "replica states")
    err = info.value
    assert isinstance(err, MemoryError) and isinstance(err, ValueError)
    assert "replica states" in str(err) and "10485761 bytes" in str(err) and "10.0 MiB" in str(err)
    assert (err.nbytes, err.budget, err.what) == ((10 << 20) + 1, 10 << 20, "replica states")
    # sizes are Python ints: a product past int64 is still compared, not wrapped
    assert limits.array_nbytes((10**12, 10**12), np.float64) == 8 * 10**24
    with pytest.raises(MemoryError, match="huge"):
        limits.check_array((10**12, 10**12), np.float64, "huge")
    with pytest.raises(ValueError):
        limits.check_allocation(-1, "negative")
    with pytest.raises(ValueError):
        budget(0)


def test_default_budget_follows_available_memory(budget, monkeypatch):
    psutil = pytest.importorskip("psutil")
    available = psutil.virtual_memory().available
    assert 0.25 * available < limits.memory_budget() <= available
    monkeypatch.setenv("QLIB_MEMORY_BUDGET", "3G")
    assert limits.memory_budget() == 3 << 30
    monkeypatch.setenv("QLIB_MEMORY_BUDGET", "12345")
    assert limits.memory_budget() == 12345
    monkeypatch.setenv("QLIB_MEMORY_BUDGET", "lots")
    with pytest.raises(ValueError, match="QLIB_MEMORY_BUDGET"):
        limits.memory_budget()
    budget(777)                                   # an explicit setting wins over the environment
    assert limits.memory_budget() == 777


def empty(rows, cols):
    return sl.Board(((None,) * cols,) * rows)


def test_count_solutions_huge_limit_and_store(budget):
    # a limit beyond int64 is just "no limit" (it raised OverflowError)
    res = counter.count_solutions(empty(2, 2), limit=10**30)
    assert res.status == "exact" and res.count == 13 and res.limit == 10**30
    # storing 10**9 answers is refused before anything is allocated, with the sizes in the message
    budget(1 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(limits.AllocationTooLarge, match=r"store=1000000000 answers x 220 bytes"):
            counter.count_solutions(qlib.data_path("slitherlink-10x10-qbpp.txt"), limit=10**9, store=10**9)
        assert tracemalloc.get_traced_memory()[1] < 64 << 20   # NumPy reports its buffers to tracemalloc
    finally:
        tracemalloc.stop()
    # the search arrays count too: a board too large for the budget
    budget(1 << 20)
    with pytest.raises(MemoryError, match=r"200x200 board"):
        counter.count_solutions(empty(200, 200), limit=2, store=0)
    with pytest.raises(ValueError, match="store"):
        counter.count_solutions(empty(2, 2), store=-1)


# -- the exhaustive backend ---------------------------------------------------------------
def heavy_model(n=24, extra=0):
    """``n`` variables, enough terms that enumerating 2**n states takes seconds."""
    x = qlib.var("hv", n)
    obj = qlib.sum([((k % 5) - 2) * x[k] * x[(k + 1) % n] for k in range(n)])
    obj = obj + qlib.sum([x[k] * ~x[(k + 3) % n] * x[(k + 7) % n] for k in range(n)])
    cons = [qlib.cons(qlib.sum(x[: n // 2]) == qlib.one_of(2, 5, 9), label="half"),
            qlib.cons(qlib.sum(x) <= 11, label="total")]
    cons += [qlib.cons(x[k % n] + x[(k + 5) % n] + x[(3 * k + 11) % n] <= 2, label=f"t{k}") for k in range(extra)]
    model = obj
    for c in cons:
        model = model + c
    return model


def test_exhaustive_time_limit_returns_the_best_so_far():
    small = heavy_model(14)
    full = qlib.solve(small, backend="exhaustive", time_limit=600)
    assert full.info["stop_reason"] == "complete" and full.info["flips"] == 2**14
    states = np.array([[(k >> b) & 1 for b in range(14)] for k in range(2**14)], dtype=np.uint8)
    energies = qlib.compile(small).energy(states)
    assert full.energy == pytest.approx(energies.min())
    assert full.info["num_ground_states"] == int((energies <= energies.min() + 1e-9).sum())
    model = qlib.compile(heavy_model(24, extra=256))
    qlib.solve(heavy_model(4), backend="exhaustive")                      # kernels loaded
    for limit in (0.2, 0.6):
        t = time.perf_counter()
        sol = qlib.solve(model, backend="exhaustive", time_limit=limit)
        took = time.perf_counter() - t
        assert took <= 1.1 * limit + 0.05 + 0.25      # the aim is 10 % + 50 ms; slack for a busy machine
        assert sol.info["stop_reason"] == "time_limit" and 0 < sol.info["flips"] < 2**24
        assert sol.energy == pytest.approx(model.energy(sol.state)) and np.isfinite(sol.energy)


INTERRUPT = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    import qlib
    from test_limits import heavy_model
    model = qlib.compile(heavy_model(24, extra=256))
    qlib.solve(heavy_model(4), backend="exhaustive")
    probe = qlib.solve(model, backend="exhaustive", time_limit=1.0)   # how long would all 2**24 take?
    print("estimate", probe.info["seconds"] * 2**24 / probe.info["flips"], flush=True)
    print("started", flush=True)
    try:
        qlib.solve(model, backend="exhaustive", time_limit=600)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(3)
    print("finished", flush=True)
""")


def test_exhaustive_stops_at_ctrl_c():
    script = INTERRUPT.format(tests=os.path.dirname(__file__))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,   # Python's own Ctrl-C handling, also when
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # SIGINT is ignored
    try:
        estimate = float(proc.stdout.readline().split()[1])
        assert estimate > 3              # so an uninterruptible enumeration would overrun the bound below
        assert proc.stdout.readline().strip() == "started"
        time.sleep(0.5)
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        took = time.perf_counter() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 3 and out.strip() == "interrupted", err
    assert took < 1.0          # a chunk lasts ~20 ms; the whole enumeration takes far longer


def _random_nonogram(n: int, seed: int):
    from qlib.puzzles import nonogram as ng
    from qlib.puzzles.nonogram.puzzle import blocks_of

    grid = np.random.default_rng(seed).random((n, n)) < 0.55
    rows = [",".join(map(str, blocks_of(r))) or "0" for r in grid]
    cols = [",".join(map(str, blocks_of(c))) or "0" for c in grid.T]
    return ng.parse_text(f"width {n}\nheight {n}\nrows\n" + "\n".join(rows) + "\ncolumns\n" + "\n".join(cols) + "\n")


@pytest.mark.parametrize("case", ["slitherlink", "nonogram", "nonogram-qubo"])
def test_a_100x100_input_ends_within_its_limit(case):
    """The whole call (presolve, model building, search) keeps the limit: +10 %, +0.5 s.

    The Slitherlink board is the 10 x 10 puzzle tiled 10 x 10 times (no answer is known or quick);
    the nonogram is a random 100 x 100 grid's clues."""
    from qlib.puzzles import nonogram as ng

    limit = 2.0
    if case == "slitherlink":
        small = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
        rows = ["".join("." if c is None else str(c) for c in row) * 10 for row in small.clues] * 10
        board = sl.parse_text("\n".join(rows) + "\n")
        sl.solve(small, seed=1)   # compile off the clock
        t0 = time.perf_counter()
        result = sl.solve(board, seed=1, time_limit=limit)
    else:
        puzzle = _random_nonogram(100, 1)
        form = "qubo" if case.endswith("qubo") else "cons"
        ng.solve(ng.parse(qlib.data_path("nonogram-webpbn-6.non")), formulation=form, seed=1)
        t0 = time.perf_counter()
        result = ng.solve(puzzle, formulation=form, seed=1, time_limit=limit)
    elapsed = time.perf_counter() - t0
    assert elapsed <= 1.1 * limit + 0.5, f"{case}: {elapsed:.2f} s for a {limit} s limit"
    assert result.solved or result.stop_reason in ("time_limit", "no_answer")


def test_a_thousand_replicas_with_lazy_cuts_keep_the_limit():
    """Setting up the replicas (their cut pools), the separation calls between chunks and the
    final energies all count: 1,000 replicas with lazy cuts end within the limit (+10 %, +0.5 s)."""
    board = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    sl.solve(board, seed=1, formulation="hubo", complete=False, time_limit=1)   # compile off the clock
    limit = 0.5
    t0 = time.perf_counter()
    result = sl.solve(board, seed=1, formulation="hubo", complete=False, num_replicas=1000, time_limit=limit)
    elapsed = time.perf_counter() - t0
    assert elapsed <= 1.1 * limit + 0.5, f"{elapsed:.2f} s for a {limit} s limit"
    assert result.stop_reason in ("time_limit", "answer")
    assert not result.solved or sl.is_solution(board, result.h, result.v)


def test_a_300x300_slitherlink_keeps_a_short_limit():
    """The presolve's probing looks at the clock, and the lattice arrays build in milliseconds:
    a 300 x 300 board (the 10 x 10 puzzle tiled) ends within 0.5 s (+10 %, +0.5 s)."""
    small = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    rows = ["".join("." if c is None else str(c) for c in row) * 30 for row in small.clues] * 30
    text = "\n".join(rows) + "\n"
    sl.solve(small, seed=1)   # compile off the clock
    limit = 0.5
    t0 = time.perf_counter()
    result = sl.solve(sl.parse_text(text), seed=1, time_limit=limit)
    elapsed = time.perf_counter() - t0
    assert elapsed <= 1.1 * limit + 0.5, f"{elapsed:.2f} s for a {limit} s limit"
    assert result.stop_reason in ("time_limit", "no_answer") and not result.solved


def test_the_available_memory_is_read_at_most_every_reading_seconds(monkeypatch):
    reads = []
    monkeypatch.setattr(limits, "_reading", [-math.inf, 0])
    monkeypatch.setattr(limits, "_read_available_memory", lambda: reads.append(1) or 4096 * len(reads))
    monkeypatch.setattr(limits, "READING_SECONDS", 1e9)
    assert limits._available_memory() == 4096 and limits._available_memory() == 4096 and len(reads) == 1
    monkeypatch.setattr(limits, "READING_SECONDS", 0.0)
    assert limits._available_memory() == 8192 and len(reads) == 2        # an old reading is renewed


def _thin_board(n: int, density: float, seed: int):
    """An n x n Slitherlink with a random clue on ``density`` of its cells: large, loose and hard for SAT."""
    rng = np.random.default_rng(seed)
    rows = ["".join(str(rng.integers(0, 4)) if rng.random() < density else "." for _ in range(n)) for _ in range(n)]
    return sl.parse_text("\n".join(rows) + "\n")


@pytest.mark.parametrize("options, limit", [({}, 2.0), ({"complete": False}, 2.0),
                                            ({"formulation": "hubo"}, 0.3), ({"formulation": "qubo"}, 0.3)])
def test_a_thin_200x200_slitherlink_keeps_its_limit(options, limit):
    """No SAT slice starts that the last one says would end past the deadline, the loop clauses and the
    model's building look at the clock, and the cell model builds in linear time: a 200 x 200 board with
    2 % of its cells clued ends within the limit (+10 %, +0.5 s), in each part that can take the time."""
    board = _thin_board(200, 0.02, seed=0)
    sl.solve(sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt")), seed=1, time_limit=1, **options)   # compile
    t0 = time.perf_counter()
    result = sl.solve(board, seed=1, time_limit=limit, **options)
    elapsed = time.perf_counter() - t0
    assert elapsed <= 1.1 * limit + 0.5, f"{options}: {elapsed:.2f} s for a {limit} s limit"
    assert result.stop_reason in ("time_limit", "answer", "no_answer")
    assert not result.solved or sl.is_solution(board, result.h, result.v)


def test_a_200x200_nonogram_keeps_its_limit_in_every_method():
    """Line solving starts with a small chunk of work and grows it from the speed it measures (one line
    of a 200 x 200 puzzle can take a millisecond, and 512 of them would overrun a short limit), and
    the model's building looks at the clock, in each formulation."""
    from qlib.puzzles import nonogram as ng

    puzzle = _random_nonogram(200, 1)
    small = ng.parse(qlib.data_path("nonogram-webpbn-6.non"))
    cases = [dict(complete="sat"), dict(complete="backtrack"), dict(method="search"), dict(formulation="qubo")]
    for options in cases:
        ng.solve(small, seed=1, time_limit=2, **options)   # compile off the clock
        t0 = time.perf_counter()
        result = ng.solve(puzzle, seed=1, time_limit=0.5, **options)
        elapsed = time.perf_counter() - t0
        assert elapsed <= 1.1 * 0.5 + 0.5, f"{options}: {elapsed:.2f} s for a 0.5 s limit"
        assert result.solved or result.stop_reason == "time_limit"


SAT_INTERRUPTED = textwrap.dedent("""
    import sys
    from qlib.puzzles.slitherlink import exact
    slice_ = exact.solve_slice
    def announce(solver, conflicts, said=[]):
        if not said:
            said.append(True)
            print("slicing", flush=True)
        return slice_(solver, conflicts)
    exact.solve_slice = announce
    from qlib.cli import main
    sys.exit(main(["solve", "slitherlink", {path!r}, "--time-limit", "60", "--seed", "1", "--json"]))
""")


def test_ctrl_c_inside_a_sat_slice_exits_130_cleanly(tmp_path):
    """A Ctrl-C while CaDiCaL runs (the default solve of a large loose board) ends the slice, frees the
    solver and exits 130 with the JSON of an interrupted solve: no traceback, no crash, no hang."""
    path = tmp_path / "thin-200.txt"
    board = _thin_board(200, 0.02, seed=0)
    path.write_text("\n".join("".join("." if c is None else str(c) for c in row) for row in board.clues) + "\n")
    proc = subprocess.Popen([sys.executable, "-c", SAT_INTERRUPTED.format(path=str(path))], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "slicing", proc.stderr.read() if proc.poll() is not None else ""
        time.sleep(0.2)   # inside the first slice, which reads 300,000 clauses (about 0.5 s)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "corrupted" not in err and err.strip().splitlines()[-1] == "qlib: interrupted"
    assert json.loads(out)["status"] == "interrupted"


@pytest.mark.parametrize("puzzle", ["slitherlink", "nonogram"])
def test_ctrl_c_at_random_times_on_a_200x200_board_always_exits_130(tmp_path, puzzle):
    """A Ctrl-C stress test through the command line: signals at seeded random times from the imports
    to the search (parsing, presolve or line solving, model building, SAT), each run exits 130 with
    the JSON of an interrupted solve, or 0/1 when it ended first; never a traceback or a hang."""
    from qlib.puzzles import nonogram as ng

    path = tmp_path / ("thin-200.txt" if puzzle == "slitherlink" else "random-200.non")
    if puzzle == "slitherlink":
        board = _thin_board(200, 0.02, seed=0)
        path.write_text("\n".join("".join("." if c is None else str(c) for c in row) for row in board.clues) + "\n")
    else:
        path.write_text(ng.to_non(_random_nonogram(200, 2)))
    delays = np.random.default_rng(7).uniform(0.05, 4.0, size=6)
    for delay in delays:
        proc = subprocess.Popen([sys.executable, "-m", "qlib", "solve", puzzle, str(path), "--json", "--seed", "1",
                                 "--time-limit", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            time.sleep(delay)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        assert "Traceback" not in err and "corrupted" not in err, f"after {delay:.2f} s: {err}"
        if proc.returncode in (0, 1):   # the solve ended before the signal
            continue
        assert proc.returncode == 130, f"after {delay:.2f} s: exit {proc.returncode}: {err}"
        assert err.strip().splitlines()[-1] == "qlib: interrupted"
        assert json.loads(out.strip().splitlines()[-1])["status"] == "interrupted", f"after {delay:.2f} s: {out!r}"


def test_a_solve_pauses_the_cyclic_collector_and_resumes_it(monkeypatch):
    """A full collection in a process holding millions of objects can stall a model's building past the
    limit's slack, so a solve runs with the collector paused, and resumes it after, even on an error."""
    from qlib.puzzles import clock
    from qlib.puzzles.slitherlink import formulation

    seen = []
    build = formulation.build_model
    monkeypatch.setattr(formulation, "build_model", lambda *a, **k: seen.append(gc.isenabled()) or build(*a, **k))
    assert gc.isenabled()
    sl.solve(sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt")), seed=1, formulation="qubo", time_limit=5)
    assert seen and not seen[-1] and gc.isenabled()   # the last build is the solve's (warm-up comes first)
    with pytest.raises(RuntimeError):
        with clock.gc_paused(), clock.gc_paused():
            assert not gc.isenabled()
            raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with clock.gc_paused():
            pass
        assert not gc.isenabled()          # a collector the caller turned off stays off
    finally:
        gc.enable()
