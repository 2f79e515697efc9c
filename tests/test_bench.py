"""Smoke test of benchmarks/run.py on a tiny workload (a few seconds): grid choice, checking, tables, files.

Skipped when the peer samplers (``make bench-deps``) are not installed.  The exact
SAT row runs against a stub of ``qlib.puzzles.slitherlink.exact`` so that the
test depends neither on that module nor on its solver.
"""

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("dwave.samplers")
pytest.importorskip("openjij")

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import run as bench_run  # noqa: E402
import workloads as wl  # noqa: E402

from qlib.puzzles import nonogram, slitherlink  # noqa: E402
from qlib.puzzles.generate import count_solutions  # noqa: E402

TINY = slitherlink.Board(((None, None, None), (None, 3, 3), (1, None, None)))  # one answer
TINY_GRID = [dict(num_reads=1, num_sweeps=100), {}]
CONFIG = dict(bench_run.FULL, seeds=2, cap=3.0, grid_seeds=2, grid_cap=1.0, give_up=2, probe_cap=1.0, repeats=2)


def _stub_exact(lie=False):
    """A stand-in for qlib.puzzles.slitherlink.exact: the backtracking answer, or (lie) a wrong one."""
    def solve_exact(board, *, time_limit=60.0):
        r = count_solutions(board, limit=1, time_limit=time_limit)
        mask = np.zeros(board.grid.num_edges, dtype=np.uint8) if lie else r.solutions[0]
        return types.SimpleNamespace(status="solved", mask=mask, seconds=r.seconds)
    module = types.ModuleType(wl.EXACT_MODULE)
    module.solve_exact = solve_exact
    return module


def _tiny_workloads():
    sl = wl.Workload("tiny3", "slitherlink", "<tiny>", 3, True, [
        wl.slitherlink_qlib("qlib-default", TINY, "slitherlink.solve defaults"),
        wl.slitherlink_exact(TINY), wl.slitherlink_backtrack(TINY),
        wl.slitherlink_peer("dwave-sa", TINY, TINY_GRID)])
    probe = wl.Workload("tiny3-probe", "slitherlink", "<tiny>", 3, True, [
        wl.slitherlink_qlib("qlib-default", TINY, "slitherlink.solve defaults"),
        wl.slitherlink_peer("dwave-sa", TINY, probe=True, cap=1.0)])
    puzzle = nonogram.parse(wl.SMALL_NONOGRAM)
    nono = wl.Workload("nono5", "nonogram", "<small>", 5, False, [
        r for r in wl.nonogram_rows(puzzle, peer_grid=TINY_GRID[:1]) if r.name in ("qlib-sa", "openjij-sa")])
    return [sl, probe, nono]


def test_bench_on_a_tiny_workload(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, wl.EXACT_MODULE, _stub_exact())
    bench = bench_run.Bench(CONFIG, log=lambda *a: None)
    bench.run(_tiny_workloads())
    res = bench.workloads
    tiny = res["tiny3"]
    assert set(tiny) == {"qlib-default", "sat-exact", "backtrack", "dwave-sa"}
    for name in ("qlib-default", "sat-exact", "backtrack"):
        assert tiny[name]["successes"] == tiny[name]["runs"] >= 2, (name, tiny[name]["extras"])
    peer = tiny["dwave-sa"]
    assert [g["setting"] for g in peer["grid"]] == ["reads=1, sweeps=100", "defaults"]
    assert sum(g["chosen"] for g in peer["grid"]) == 1
    assert peer["setting"] in ("reads=1, sweeps=100", "defaults") and peer["runs"] == 2
    assert "dwave-sa" not in bench.best_settings  # only sl10 feeds the probes
    probe = res["tiny3-probe"]["dwave-sa"]
    assert probe["probe"] and probe["runs"] == 1
    assert res["nono5"]["openjij-sa"]["successes"] == 2

    results = dict(command="test", date="today", machine=dict(platform="p", cpus=2, python="3"), config=CONFIG,
                   peer_grid=TINY_GRID, workloads=res, boards=bench.boards, skipped=bench.skipped,
                   timing=dict(actual_seconds=1.0))
    results["summary"] = bench_run.summary(results)
    text = bench_run.table(results)
    assert "dwave-sa (" in text and "| tiny3 | qlib-default |" in text
    assert [s["size"] for s in results["summary"]] == ["3x3"]
    assert results["summary"][0]["qlib_default"]["runs"] == 4  # pooled over the two tiny boards
    md = bench_run.markdown(results)
    assert "| size |" in md and "3x3" in md
    (tmp_path / "r.json").write_text(json.dumps(results, default=float))


def test_a_wrong_answer_is_a_failure(monkeypatch):
    monkeypatch.setitem(sys.modules, wl.EXACT_MODULE, _stub_exact(lie=True))
    bench = bench_run.Bench(CONFIG, log=lambda *a: None)
    bench.run([wl.Workload("tiny3", "slitherlink", "<tiny>", 3, True, [wl.slitherlink_exact(TINY)])])
    r = bench.workloads["tiny3"]["sat-exact"]
    assert r["successes"] == 0 and r["runs"] == 1 and r["median"] == CONFIG["cap"]  # exact rows stop at a failure


def test_missing_exact_module_skips_the_row(monkeypatch):
    monkeypatch.setitem(sys.modules, wl.EXACT_MODULE, None)  # import raises ImportError
    row = wl.slitherlink_exact(TINY)
    assert row.skip and "not available" in row.skip
    bench = bench_run.Bench(CONFIG, log=lambda *a: None)
    bench.run([wl.Workload("tiny3", "slitherlink", "<tiny>", 3, True, [row])])
    assert bench.workloads["tiny3"] == {} and bench.skipped["sat-exact"]["workloads"] == ["tiny3"]


def test_options_and_workload_list():
    args, config = bench_run.parse_args(["--quick", "--cap", "7", "--sizes", "15"])
    assert config["seeds"] == 3 and config["cap"] == 7 and config["sizes"] == [15] and args.out.name == "quick.json"
    args, config = bench_run.parse_args([])
    assert (config["seeds"], config["cap"]) == (10, 60) and args.out.name == "latest.json"
    boards = wl.generated_boards((15,), per_size=1)
    assert all(len(paths) <= 1 for paths in boards.values())
    measured = bench_run.measure(lambda seed, cap: (False, {}), range(10), 0.01, give_up=3)
    assert measured["runs"] == 3 and measured["gave_up"] and measured["median_censored"]


def test_an_alternative_identical_to_the_default_is_not_rerun():
    bench = bench_run.Bench(CONFIG, log=lambda *a: None)
    default = wl.slitherlink_qlib("qlib-default", TINY, "slitherlink.solve defaults")
    form = default.make({})(0, 5.0)[1]["form"]  # the form the default resolves to: ask for it by name
    same = wl.slitherlink_qlib("qlib-same", TINY, f"form={form}", form=form)
    bench.run([wl.Workload("tiny3", "slitherlink", "<tiny>", 3, True, [default, same])])
    r = bench.workloads["tiny3"]
    if {e["method"] for e in r["qlib-default"]["extras"]} == {bench.warm_info["slitherlink/qlib-same"]["method"]}:
        assert r["qlib-same"]["alias"] == "qlib-default" and r["qlib-same"]["times"] == r["qlib-default"]["times"]
