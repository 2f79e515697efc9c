"""Tests of benchmarks/: run.py on tiny workloads (a few seconds), its tail statistics and tables,
the Nonogram SAT reference (nonogram_sat.py) and the user boards (make_boards.py, boards/).

The peer rows are skipped when the peer samplers (``make bench-deps``) are not installed,
the SAT tests when python-sat is not.  The Slitherlink exact SAT row of the tiny bench runs
against a stub of ``qlib.puzzles.slitherlink.exact`` so that those tests depend neither on
that module nor on its solver.
"""

import importlib.util
import json
import math
import sys
import types
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import make_boards  # noqa: E402
import run as bench_run  # noqa: E402
import workloads as wl  # noqa: E402

import qlib  # noqa: E402
from qlib.puzzles import nonogram, slitherlink  # noqa: E402
from qlib.puzzles.slitherlink import count_solutions  # noqa: E402

needs_peers = pytest.mark.skipif(importlib.util.find_spec("dwave") is None or importlib.util.find_spec("openjij") is None,
                                 reason="peer samplers not installed (make bench-deps)")
needs_sat = pytest.mark.skipif(importlib.util.find_spec("pysat") is None, reason="python-sat not installed")

TINY = slitherlink.Board(((None, None, None), (None, 3, 3), (1, None, None)))  # one answer
TINY_GRID = [dict(num_reads=1, num_sweeps=100), {}]
CONFIG = dict(bench_run.FULL, seeds=2, cap=3.0, grid_seeds=2, grid_cap=1.0, give_up=2, probe_cap=1.0, repeats=2)


def _stub_exact(lie=False):
    """A stand-in for qlib.puzzles.slitherlink.exact: the backtracking answer, or (lie) a wrong one."""
    def solve_exact(board, *, time_limit=60.0):
        r = count_solutions(board, limit=1, time_limit=time_limit)
        mask = np.zeros(board.grid.num_edges, dtype=np.uint8) if lie else r.solutions[0]
        return types.SimpleNamespace(status="solved", mask=mask, seconds=r.seconds)
    import importlib

    module = types.ModuleType(wl.EXACT_MODULE)
    module.__dict__.update({k: v for k, v in vars(importlib.import_module(wl.EXACT_MODULE)).items()
                            if not k.startswith("__")})   # the rest of the module: slitherlink.solve uses it
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


@needs_peers
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
    results["groups"] = bench_run.group_summary(results)
    text = bench_run.table(results)
    assert "dwave-sa (" in text and "| tiny3 | qlib-default |" in text
    assert [s["size"] for s in results["summary"]] == ["3x3"]
    assert results["summary"][0]["qlib_default"]["runs"] == 4  # pooled over the two tiny boards
    md = bench_run.markdown(results)
    assert "| size |" in md and "3x3" in md
    assert "## The tail" in md and "| tiny3 | sat-exact | 3/3 (100%) |" in md
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
    formulation = default.make({})(0, 5.0)[1]["formulation"]  # what the default resolves to: ask for it by name
    same = wl.slitherlink_qlib("qlib-same", TINY, f"formulation={formulation}", formulation=formulation)
    bench.run([wl.Workload("tiny3", "slitherlink", "<tiny>", 3, True, [default, same])])
    r = bench.workloads["tiny3"]
    assert {e["method"] for e in r["qlib-default"]["extras"]} == {bench.warm_info["slitherlink/qlib-same"]["method"]}
    assert r["qlib-same"]["alias"] == "qlib-default" and r["qlib-same"]["times"] == r["qlib-default"]["times"]

    args, config = bench_run.parse_args(["--set", "user"])
    assert (config["seeds"], config["cap"], config["give_up"]) == (5, 60, 2)
    assert args.out.name == "user.json" and not args.compile and config["user_sizes"] is None
    args, config = bench_run.parse_args(["--set", "user", "--sizes", "10", "--families", "loopy"])
    assert config["user_sizes"] == [10] and config["families"] == ["loopy"]


# -- the tail statistics ----------------------------------------------------------------
def test_percentile_interpolates_between_order_statistics():
    assert bench_run.percentile([1, 2, 3, 4, 5], 90) == pytest.approx(4.6)
    assert bench_run.percentile([5, 1, 4, 2, 3], 50) == 3
    assert bench_run.percentile([7.0], 90) == 7.0
    assert bench_run.percentile([1, 2], 100) == 2 and bench_run.percentile([1, 2], 0) == 1
    assert bench_run.percentile(list(range(11)), 90) == pytest.approx(9.0)
    assert bench_run.percentile(list(range(11)), 90) == pytest.approx(float(np.percentile(range(11), 90)))
    with pytest.raises(ValueError):
        bench_run.percentile([], 90)


def test_tail_of_measured_runs_counts_failures_at_the_cap():
    outcomes = iter([(True, dict(found_by="presolve")), (False, {}), (True, dict(found_by="search")),
                     (True, dict(found_by="presolve")), (False, {})])
    r = bench_run.measure(lambda seed, cap: next(outcomes), range(5), 0.5, give_up=None)
    assert r["successes"] == 3 and r["runs"] == 5
    assert sorted(r["times"])[-2:] == [0.5, 0.5] and r["max"] == 0.5
    t = bench_run.tail(r)
    assert t["success_rate"] == 0.6 and t["median"] < 0.5 and t["p90"] == 0.5
    answered = sorted(x for x, e in zip(r["times"], r["extras"]) if e["ok"])   # the budgets TTS99 tries
    assert t["tts99"] == pytest.approx(min(x * max(1.0, math.log(0.01) / math.log(1 - (k + 1) / 5))
                                           for k, x in enumerate(answered)))
    assert r["p90"] == t["p90"] and r["tts99"] == t["tts99"]
    assert bench_run.found_by_counts(r) == {"presolve": 2, "search": 1}
    never = bench_run.measure(lambda seed, cap: (False, {}), range(3), 0.01, give_up=None)
    assert bench_run.tail(never)["tts99"] == math.inf


def _record(times, ok, cap=10.0, kind="qlib", found=None):
    extras = [dict(seed=k, ok=o, **({} if found is None else dict(found_by=found))) for k, o in enumerate(ok)]
    k = sum(ok)
    return dict(times=times, successes=k, runs=len(times), median=float(np.median(times)), min=min(times),
                max=max(times), median_censored=bench_run.censored(k, len(times)), cap=cap, extras=extras,
                kind=kind, setting="s", gave_up=False)


def test_tail_table_and_ratios_to_sat():
    results = dict(workloads={
        "b1": {"qlib-default": _record([1.0, 2.0, 3.0, 4.0], [True] * 4, found="presolve"),
               "sat-exact": _record([0.5, 0.5, 0.5], [True] * 3, kind="exact")},
        "b2": {"qlib-default": _record([10.0, 10.0], [False, False]),
               "sat-exact": _record([0.25], [True], kind="exact")}},
        boards=dict(b1=dict(puzzle="nonogram", size=5, generated=True, family="pattern", group="pattern-5x5"),
                    b2=dict(puzzle="nonogram", size=5, generated=True, family="pattern", group="pattern-5x5")))
    rows = {(t["workload"], t["solver"]): t for t in bench_run.tail_rows(results)}
    b1 = rows["b1", "qlib-default"]
    assert b1["median_over_sat"] == "5" and b1["max_over_sat"] == "8" and b1["tts99"] == 4.0   # one run of 4 s beats 3.3 of 3 s
    assert rows["b1", "sat-exact"]["median_over_sat"] == ""
    b2 = rows["b2", "qlib-default"]
    assert b2["median_over_sat"] == "≥40" and b2["tts99"] == math.inf and b2["success_rate"] == 0
    text = bench_run.tail_table(results)
    assert "| b1 | qlib-default | 4/4 (100%) | 2.500 | 3.700 | 4.000 | 4.000 | 5 | 8 | presolve 4 |" in text
    assert "| b2 | qlib-default | 0/2 (0%) | 10.000 | 10.000 | 10.000 | ∞ | ≥40 | ≥40 |" in text
    groups = bench_run.group_summary(results)
    pooled = next(g for g in groups if g["solver"] == "qlib-default")
    assert (pooled["group"], pooled["boards"], pooled["successes"], pooled["runs"]) == ("pattern-5x5", 2, 4, 6)
    assert pooled["found_by"] == {"presolve": 4}
    assert "| pattern-5x5 | 2 | qlib-default | 4/6 (67%) |" in bench_run.group_table(groups)
    assert bench_run.summary(dict(results, workloads=results["workloads"])) == []   # user boards: not in it


# -- the Nonogram SAT reference ---------------------------------------------------------
@needs_sat
@pytest.mark.parametrize("source", ["small", "nonogram-webpbn-1.non", "nonogram-webpbn-6.non",
                                    "nonogram-15x15-qbpp-logo.non", "two", "none", "random"])
def test_nonogram_sat_agrees_with_count_solutions(source):
    import nonogram_sat

    if source == "small":
        puzzle = nonogram.parse(wl.SMALL_NONOGRAM)
    elif source == "two":          # the two diagonals of a 2x2
        puzzle = nonogram.parse(([[1], [1]], [[1], [1]]))
    elif source == "none":         # totals agree, but row 0's block needs column 1, whose clue is empty
        puzzle = nonogram.parse(([[2], []], [[2], []]))
    elif source == "random":       # random 6x6 grids: several answers likely
        grid = np.random.default_rng(3).random((6, 6)) < 0.5
        puzzle = nonogram.parse(make_boards.clues_of_grid(grid))
    else:
        puzzle = nonogram.parse(qlib.data_path(source))
    count, status, grids = nonogram.count_solutions(puzzle, limit=5, time_limit=30)
    c2, s2, g2 = nonogram_sat.count_sat(puzzle, limit=5, time_limit=30)
    assert (c2, s2) == (count, status) and set(g2) == set(grids)
    r = nonogram_sat.solve_sat(puzzle, time_limit=30)
    if count:
        assert r.status == "solved" and nonogram.check(puzzle, r.grid) == []
    else:
        assert r.status == "unsat" and r.grid is None
    assert r.variables > 0 and r.clauses > 0


@needs_sat
def test_nonogram_sat_time_limit_and_arguments():
    import nonogram_sat

    with pytest.raises(ValueError):
        nonogram_sat.solve_sat(wl.SMALL_NONOGRAM, time_limit=0)
    with pytest.raises(ValueError):
        nonogram_sat.count_sat(wl.SMALL_NONOGRAM, limit=0)
    variables, clauses, cells = nonogram_sat.encode(wl.SMALL_NONOGRAM)
    assert [len(r) for r in cells] == [5] * 5 and variables > 25


# -- the user boards ----------------------------------------------------------------------
def test_pattern_ids_decode_and_encode_back():
    game_id = "5x3:2/1/2/1.1/1/4/1.1.1/1"     # sgt-pattern --generate 1 '5x3#5'
    puzzle = make_boards.decode_pattern(game_id)
    assert (puzzle.width, puzzle.height) == (5, 3)
    assert puzzle.columns == ((2,), (1,), (2,), (1, 1), (1,)) and puzzle.rows == ((4,), (1, 1, 1), (1,))
    assert make_boards.encode_pattern(puzzle) == game_id
    count, status, grids = nonogram.count_solutions(puzzle)
    assert status == "exact" and count >= 1 and nonogram.check(puzzle, grids[0]) == []
    assert make_boards.decode_pattern("2x2:1//1/").rows == ((1,), ())
    with pytest.raises(ValueError):
        make_boards.decode_pattern("5x3:2/1")


def test_random_grids_are_seeded_and_their_clues_fit():
    a, b = make_boards.random_grid(4), make_boards.random_grid(4)
    assert (a == b).all() and a.shape == (30, 30) and 0.4 < a.mean() < 0.6
    rows, cols = make_boards.clues_of_grid(a)
    assert nonogram.check(nonogram.parse((rows, cols)), a.tolist()) == []


def test_the_manifest_lists_proved_boards():
    boards = wl.manifest_boards()
    if not boards:
        pytest.skip("no benchmarks/boards/manifest.json (run benchmarks/make_boards.py)")
    for e in boards:
        assert Path(e["path"]).exists(), e["file"]
        assert e["command"] and e["source"] and e["clues"] > 0
        if e["puzzle"] == "slitherlink":
            assert e["unique"] and (e["proof"]["count"], e["proof"]["status"]) == (1, "exact"), e["file"]
            board = slitherlink.parse(e["path"])
            assert len(board.clue_cells) == e["clues"] and board.rows == e["rows"]
        elif e["family"] != "random":
            assert e["unique"], e["file"]
    names = [w.name for w in wl.user_workloads()]
    assert len(names) == len(set(names)) == len(boards)


# -- the user set end to end --------------------------------------------------------------
@needs_sat
def test_user_set_end_to_end(tmp_path, capsys):
    if not any(w.name == "loopy-10x10-s1" for w in wl.user_workloads(families=("loopy",), sizes=(10,))):
        pytest.skip("no loopy-10x10-s1 board (run benchmarks/make_boards.py)")
    out = tmp_path / "user.json"
    results = bench_run.main(["--set", "user", "--only", "loopy-10x10-s1", "pattern-15x15-s1", "--seeds", "1",
                              "--cap", "10", "--repeats", "1", "--out", str(out)])
    stored = json.loads(out.read_text())
    assert stored["qlib"]["commit"] is None or len(stored["qlib"]["commit"]) == 40
    assert "dirty" in stored["qlib"]
    assert set(stored["workloads"]) == {"loopy-10x10-s1", "pattern-15x15-s1"}
    assert set(stored["workloads"]["loopy-10x10-s1"]) == {"qlib-default", "qubo-alone", "sat-exact", "backtrack"}
    assert set(stored["workloads"]["pattern-15x15-s1"]) == {"qlib-default", "qubo-alone", "sat-exact"}
    for solvers in stored["workloads"].values():
        assert solvers["sat-exact"]["successes"] == 1
        assert all("found_by" in e for e in solvers["qlib-default"]["extras"])
        # the method alone is never credited to a complete search
        assert all(e["found_by"] in ("presolve", "search") for e in solvers["qubo-alone"]["extras"]
                   if e["ok"])
    tails = {(t["workload"], t["solver"]) for t in stored["tail"]}
    assert ("loopy-10x10-s1", "backtrack") in tails and len(tails) == 7
    groups = {(g["group"], g["solver"]): g for g in stored["groups"]}
    alone = groups[("pattern-15x15", "qubo-alone")]
    sat = stored["workloads"]["pattern-15x15-s1"]["sat-exact"]["median"]
    assert alone["median_over_sat"] == pytest.approx(alone["median"] / sat)
    md = out.with_suffix(".md").read_text()
    assert "## The tail" in md and "## Per family and size" in md and "qlib commit" in md
    assert {g["group"] for g in stored["groups"]} == {"loopy-10x10", "pattern-15x15"}
    printed = capsys.readouterr().out
    assert "The tail:" in printed and "TTS99" in printed
    assert results["config"]["set"] == "user"


def test_the_group_rule_stops_a_row_failing_on_a_whole_group(tmp_path):
    calls = []

    def make(setting):
        def run(seed, cap):
            calls.append(seed)
            return False, {}
        return run

    never = wl.Row("qlib-default", "qlib", make, lambda setting: None, describe="never")
    boards = [wl.Workload(f"b{k}", "nonogram", "<none>", 5, True, [never], group="g-5x5", family="g")
              for k in range(5)]
    config = dict(bench_run.USER, seeds=3, cap=0.01, give_up=2, group_tries=2)
    bench = bench_run.Bench(config, log=lambda *a: None)
    bench.run(boards)
    runs = {w: r["qlib-default"]["runs"] for w, r in bench.workloads.items() if r}
    assert runs == {"b0": 2, "b1": 1, "b2": 1} and len(calls) == 4
    assert set(bench.not_run) == {"b3", "b4"} and "group-tries" in bench.not_run["b3"]["qlib-default"]
    seconds, unknown = bench_run.estimate(boards, config, None, [tmp_path / "none.json"], base=0.0)
    assert seconds == pytest.approx(4 * 0.01) and unknown == 5
    assert "qlib-default on b3, b4" in bench_run.not_run_text(bench.not_run)


def test_method_alone_splits_each_solve_into_its_parts(capsys):
    """benchmarks/method_alone.py on a small minimal-clue board: every run answered, and the parts it
    reports (presolve, build, separation, the rest of the search) add up to no more than the solve."""
    import method_alone as module

    board = slitherlink.parse(BENCH / "boards" / "qlibgen-20x20-s1.txt")
    rows = module.runs(board, [1, 2], 30.0)
    assert all(r["solved"] and r["found_by"] == "search" for r in rows)
    for r in rows:
        parts = r["presolve"] + r["build"] + r["separation"] + r["steps"]
        assert 0 < r["separation"] and r["calls"] >= 1 and r["cuts"] >= 1 and parts <= r["seconds"] + 1e-6
    assert module.main(["--boards", "qlibgen-20x20-s1.txt", "--seeds", "1", "--cap", "30"]) == 0
    assert "| qlibgen-20x20-s1.txt | 1 | 1 |" in capsys.readouterr().out
