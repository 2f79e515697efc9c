"""benchmarks/qubo.py and its workload library: the builders are deterministic, the statistics
are right on known numbers, and a one-workload quick run goes end to end (no timing assertions)."""

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

pytest.importorskip("dimod")
import qubo  # noqa: E402
import qubo_workloads as W  # noqa: E402

needs_peers = pytest.mark.skipif(
    importlib.util.find_spec("dwave") is None or importlib.util.find_spec("openjij") is None,
    reason="peer samplers not installed (make bench-deps)")


@pytest.mark.parametrize("name", ["sg2d-10x10", "sg3d-5x5x5", "ran3-100", "maxcut3r-100", "nae3sat-100",
                                  "floop-10x10", "hubo3-100", "hubo4-100", "sat3-100"])
def test_builders_are_deterministic(name):
    a, b = W.build(name), W.build(name)
    assert a.fingerprint() == b.fingerprint() and a.poly == b.poly and a.n == b.n
    assert {v for t in a.poly for v in t} == set(range(a.n))   # compact: every variable in a term
    states = np.random.default_rng(0).integers(0, 2, size=(4, a.n))
    if a.bqm is not None:   # the BQM every solver gets has the same energies
        assert np.allclose(a.energies(states), a.bqm.energies((states, list(range(a.n)))))
    if a.known_ground is not None:   # planted: no random state is below the ground energy
        assert (a.energies(states) >= a.known_ground - 1e-9).all()


def test_planted_states_reach_the_ground_energy():
    sat = W.build("sat3-100")
    assert sat.known_ground == 0.0 and sat.clauses
    # the polynomial the peers get equals the literal products qlib gets
    import qlib

    compiled = qlib.compile(sat.qlib_model())
    cols = np.array([int(label) for label in compiled.labels])
    states = np.random.default_rng(1).integers(0, 2, size=(5, sat.n)).astype(np.uint8)
    assert np.allclose(compiled.energy(states[:, cols]), sat.energies(states))
    # the generated graphs are what they say
    edges = W.random_regular_edges(20, 3, seed=5)
    assert len(edges) == 30 and len(set(edges)) == 30
    assert np.bincount(np.array(edges).ravel(), minlength=20).tolist() == [3] * 20
    assert len(W.torus_edges((4, 4))) == 32 and len(W.torus_edges((3, 3, 3))) == 81


def test_tts99_and_tail_statistics():
    # 4 runs, 3 hits (1, 2, 3 s), one failure at the 10 s cap
    st = qubo.ttt_stats([1.0, 2.0, 3.0, 9.0], [True, True, True, False], cap=10.0)
    assert st["successes"] == 3 and st["success_rate"] == 0.75
    assert st["median"] == 2.0 and st["p90"] == pytest.approx(2.8)
    assert st["t_run"] == 2.5   # median of 1, 2, 3, 10 (the failure at the cap)
    # budgets 1, 2, 3 s answer 1/4, 2/4, 3/4 of the runs: 16.0, 13.3 and 9.97 s; the best is the last
    assert st["tts99"] == pytest.approx(3.0 * math.log(0.01) / math.log(0.25))
    none = qubo.ttt_stats([5.0, 5.0], [False, False], cap=5.0)
    assert none["median"] is None and none["tts99"] == math.inf
    # reads per call minimise (overhead + r t) / (1 - (1 - p)^r): no overhead -> one read; with p = 1/4,
    # t = 1 ms and 0.1 s overhead, r = 16 (0.117 s) beats 8 (0.120 s) and 32 (0.132 s)
    assert qubo.reads_per_call(dict(sampling_read=0.01, overhead=0.0, reads=4, hits=2)) == 1
    assert qubo.reads_per_call(dict(sampling_read=0.001, overhead=0.1, reads=4, hits=1)) == 16


@needs_peers
def test_quick_run_end_to_end(tmp_path):
    out, ref = tmp_path / "q.json", tmp_path / "ref.json"
    lines = []
    results = qubo.main(["--quick", "--only", "sg2d-10x10", "--runs", "2", "--ref-seconds", "0.2", "--out", str(out),
                         "--reference-file", str(ref)], log=lambda *a, **k: lines.append(" ".join(map(str, a))))
    saved = json.loads(out.read_text())
    assert saved["qlib"]["commit"] is None or len(saved["qlib"]["commit"]) == 40
    assert set(saved["rates"]["sg2d-10x10"]) == set(qubo.SOLVERS)
    assert saved["rates"]["sg2d-10x10"]["qlib-focused"]["na"]
    rows = results["ttt"]["sg2d-10x10"]
    assert "na" in rows["qlib-focused"] and rows["dwave-sa"]["runs"] >= 1
    assert json.loads(ref.read_text())["sg2d-10x10"]["fingerprint"] == W.build("sg2d-10x10").fingerprint()
    md = out.with_suffix(".md").read_text()
    assert "| sg2d-10x10 |" in md and "TTS99" in md


class _CountingSolver:
    """A stand-in row: each run takes ``seconds`` and hits where ``hit(seed)`` (no sweeps, so no calibration)."""

    name, sweeps = "counting", False

    def __init__(self, seconds, hit=lambda seed: True):
        self.seeds, self.seconds, self.hit = [], seconds, hit

    def describe(self, setting):
        return "fixed"

    def run(self, prep, problem, setting, seed, target, cap):
        self.seeds.append(seed)
        return self.hit(seed), self.seconds, target, 1


@pytest.mark.parametrize("seconds, runs", [(0.001, 7), (1.0, 3)])
def test_a_row_adds_runs_beyond_the_minimum_only_while_they_are_cheap(seconds, runs):
    problem = W.build("ran3-100")
    config = dict(qubo.FULL, runs=3, runs_max=7, runs_seconds=2.5, hits_min=0)
    solver = _CountingSolver(seconds)
    row = qubo.ttt_row(solver, None, problem, -1.0, config, None, log=lambda *a, **k: None)
    assert solver.seeds == list(range(runs)) and row["runs"] == runs and not row["stopped"]


@pytest.mark.parametrize("hits_min, row_seconds, runs", [(4, 100.0, 8), (4, 5.0, 5), (2, 100.0, 4), (20, 100.0, 12)])
def test_a_row_with_few_hits_adds_runs_until_it_has_hits_min_or_its_time_is_spent(hits_min, row_seconds, runs):
    problem = W.build("ran3-100")
    config = dict(qubo.FULL, runs=4, runs_max=12, runs_seconds=0.5, hits_min=hits_min, row_seconds=row_seconds)
    solver = _CountingSolver(1.0, hit=lambda seed: seed % 2 == 1)   # every other run hits
    row = qubo.ttt_row(solver, None, problem, -1.0, config, None, log=lambda *a, **k: None)
    assert solver.seeds == list(range(runs)) and row["runs"] == runs
    assert row["successes"] == runs // 2


@pytest.mark.parametrize("first_hit, runs, stopped", [(4, 10, False), (5, 5, True), (None, 5, True)])
def test_a_row_stops_only_after_give_up_runs_without_a_hit(first_hit, runs, stopped):
    problem = W.build("ran3-100")
    config = dict(qubo.FULL, runs=10, runs_max=10, runs_seconds=0.0, hits_min=0, give_up=5)
    solver = _CountingSolver(0.01, hit=lambda seed: first_hit is not None and seed >= first_hit)
    row = qubo.ttt_row(solver, None, problem, -1.0, config, None, log=lambda *a, **k: None)
    assert solver.seeds == list(range(runs)) and row["stopped"] is stopped
    assert row["successes"] == (0 if first_hit is None or first_hit >= runs else runs - first_hit)


class _StubProblem:
    """Ten variables; a state's energy is its first bit, so a read hits target 0 where that bit is 0."""

    n = 10

    def energies(self, states):
        return np.asarray(states)[:, 0].astype(float)


class _CalibrationSolver:
    """Each call takes 0.125 s and hits in ``hits_per_call[num_sweeps]`` of its reads."""

    name, sweeps, slices = "stub", True, 1

    def __init__(self, hits_per_call):
        self.hits_per_call, self.seeds = hits_per_call, []

    def one_read_per_call(self, prep):
        return False

    def sample(self, prep, sweeps, reads, seed, threads=1):
        self.seeds.append(seed)
        states = np.ones((reads, 10), dtype=np.uint8)
        states[:self.hits_per_call[sweeps], 0] = 0
        return W.Sample(states, 0.09, "stub", 0.125)


def test_calibration_adds_calls_while_few_reads_hit_and_picks_by_the_pooled_hit_rate():
    config = dict(qubo.FULL, grid=[100, 1000, 3000], calib_seconds=0.4, calib_reads_max=8, calib_hits=4,
                  calib_seconds_max=1.0)
    solver = _CalibrationSolver({100: 0, 1000: 1, 3000: 5})
    setting, table = qubo.choose_sweeps(solver, None, _StubProblem(), 0.0, config, rate=1e9, cap=3.0)
    by = {t["num_sweeps"]: t for t in table}
    assert [by[s]["calls"] for s in (100, 1000, 3000)] == [8, 4, 1]   # until 1.0 s / until 4 hits / at once
    assert [by[s]["hits"] for s in (100, 1000, 3000)] == [0, 4, 5]
    assert by[1000]["reads"] == 4 * 8 and by[1000]["overhead"] == pytest.approx(0.125 - 0.09)
    assert len(set(solver.seeds)) == len(solver.seeds) == 13   # every calibration call its own seed
    assert setting["num_sweeps"] == 3000 and by[3000]["chosen"]


class _RateSolver(_CalibrationSolver):
    """Reads cost ``num_sweeps / 25000`` s each.  Counting each setting's reads from 1, read ``first[S]`` hits
    and every ``every[S]``-th after it (``first`` 0: never); a read that misses has energy ``miss[S]``."""

    def __init__(self, first, every, miss):
        super().__init__({})
        self.first, self.every, self.miss, self.made = first, every, miss, {}

    def sample(self, prep, sweeps, reads, seed, threads=1):
        self.seeds.append(seed)
        states = np.zeros((reads, 10), dtype=np.uint8)
        done = self.made.get(sweeps, 0)
        for r in range(reads):
            k = done + r + 1 - self.first[sweeps]
            hit = self.first[sweeps] and k >= 0 and k % self.every[sweeps] == 0
            states[r, 0] = 0 if hit else self.miss[sweeps]
        self.made[sweeps] = done + reads
        wall = reads * sweeps / 25000
        return W.Sample(states, 0.9 * wall, "stub", wall)


def test_a_pick_on_few_hits_is_remade_after_more_calls_of_the_settings_in_the_running():
    # After 1 s: 1000 sweeps has 1 hit in 27 reads, 3000 none in 10 (3 reads of 0.04 s a call; 2 of 0.12 s), so
    # 1000 leads on one hit.  Extended to 4 s, 1000 has 4 hits in 81 reads (TTS99 ~3.6 s), 3000 4 in 24 (~3.0 s).
    config = dict(qubo.FULL, grid=[100, 1000, 3000], calib_seconds=0.125, calib_reads_max=8, calib_hits=4,
                  calib_seconds_max=1.0, calib_extend_seconds=4.0)
    solver = _RateSolver(first={100: 0, 1000: 20, 3000: 12}, every={100: 1, 1000: 20, 3000: 4},
                         miss={100: 3, 1000: 2, 3000: 1})
    setting, table = qubo.choose_sweeps(solver, None, _StubProblem(), 0.0, config, rate=250000, cap=3.0)
    by = {t["num_sweeps"]: t for t in table}
    assert (by[100]["calls"], by[100]["hits"]) == (32, 0) and "extended" not in by[100]   # no hit, highest energy
    assert (by[1000]["calls"], by[1000]["reads"], by[1000]["hits"]) == (27, 81, 4) and by[1000]["extended"]
    assert (by[3000]["calls"], by[3000]["reads"], by[3000]["hits"]) == (12, 24, 4) and by[3000]["extended"]
    assert by[3000]["tts99_est"] < by[1000]["tts99_est"]
    assert setting["num_sweeps"] == 3000 and by[3000]["chosen"]
    assert len(set(solver.seeds)) == len(solver.seeds) == 32 + 27 + 12


def test_a_pick_on_enough_hits_is_not_extended():
    config = dict(qubo.FULL, grid=[100, 1000], calib_seconds=0.125, calib_reads_max=8, calib_hits=4,
                  calib_seconds_max=1.0, calib_extend_seconds=4.0)
    solver = _RateSolver(first={100: 1, 1000: 0}, every={100: 2, 1000: 1}, miss={100: 1, 1000: 1})
    setting, table = qubo.choose_sweeps(solver, None, _StubProblem(), 0.0, config, rate=250000, cap=3.0)
    assert [t["calls"] for t in table] == [1, 9] and not any("extended" in t for t in table)
    assert setting["num_sweeps"] == 100
