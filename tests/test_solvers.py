"""Solver front door: backends agree with the exhaustive oracle, seeds, limits, errors."""

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import qlib
from qlib.solvers import gpu
from strategies import models


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(var_count=6))
def test_cpu_reaches_the_exhaustive_minimum(model):
    exact = qlib.solve(model, backend="exhaustive")
    sol = qlib.solve(model, backend="cpu", seed=3, target_energy=exact.energy, time_limit=5)
    assert sol.energy == pytest.approx(exact.energy, abs=1e-9)
    assert sol.info["stop_reason"] == "target_energy"


def frustrated_model(n=16, seed=0):
    rng = np.random.default_rng(seed)
    x = qlib.var("fr", n)
    f = qlib.Expr()
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < 0.4:
                f = f + int(rng.integers(-3, 4)) * x[i] * x[j]
        f = f + int(rng.integers(-2, 3)) * x[i]
    return f + qlib.cons(qlib.sum(x[:6]) == qlib.one_of(0, 2), label="pair") + qlib.cons(x[7] * x[8] * ~x[9] <= 0)


def test_cpu_finds_the_ground_state_of_a_frustrated_model():
    model = frustrated_model()
    exact = qlib.solve(model, backend="exhaustive")
    sol = qlib.solve(model, backend="cpu", seed=1, target_energy=exact.energy, time_limit=10)
    assert sol.energy == pytest.approx(exact.energy)


def test_same_seed_same_result():
    model = frustrated_model(20, seed=4)
    runs = [qlib.solve(model, backend="cpu", seed=7, num_sweeps=50) for _ in range(2)]
    assert (runs[0].state == runs[1].state).all() and runs[0].energy == runs[1].energy
    assert runs[0].info["seed"] == 7


def test_annealing_winner_does_not_depend_on_how_the_sweeps_were_chunked(monkeypatch):
    """The driver sizes chunks of sweeps from the clock; a fast and a slow clock chunk
    differently, and the replica that reached the target first must win either way."""
    import types

    from qlib.solvers.sa import driver as sa

    def clock(tick):
        now = [0.0]

        def perf_counter():
            now[0] += tick
            return now[0]
        return types.SimpleNamespace(perf_counter=perf_counter)

    qlib.warmup()
    x = qlib.var("chunk", 10)
    model = qlib.Model(constraints=[qlib.cons(x[i] + x[(i + 1) % 10] + x[(i + 3) % 10] == 1) for i in range(10)])
    exact = qlib.solve(model, backend="exhaustive")
    for seed in range(20):
        states = []
        for tick in (1e-7, 0.05):   # chunks of 1, 4, 16, ... sweeps, or one sweep at a time
            monkeypatch.setattr(sa, "time", clock(tick))
            sol = qlib.solve(model, algorithm="sa", seed=seed, target_energy=exact.energy, num_replicas=8,
                             num_sweeps=100, time_limit=1e6)
            monkeypatch.setattr(sa, "time", time)
            assert sol.info["stop_reason"] == "target_energy" and sol.energy == exact.energy
            states.append(sol.state)
        assert (states[0] == states[1]).all(), seed


def test_seed_must_be_a_non_negative_integer():
    with pytest.raises(ValueError, match="seed"):
        qlib.solve(qlib.var("x"), seed=-1)
    with pytest.raises(TypeError, match="seed"):
        qlib.solve(qlib.var("x"), seed=1.5)
    with pytest.raises(TypeError, match="seed"):
        qlib.solve(qlib.var("x"), seed=True)


def test_unknown_options_raise_type_error():
    with pytest.raises(TypeError, match="num_sweep"):
        qlib.solve(qlib.var("x"), backend="cpu", num_sweep=10)
    with pytest.raises(TypeError, match="num_replicas"):
        qlib.solve(qlib.var("x"), backend="exhaustive", num_replicas=2)
    with pytest.raises(ValueError, match="backend"):
        qlib.solve(qlib.var("x"), backend="quantum")


def test_exhaustive_refuses_large_models():
    with pytest.raises(ValueError, match="at most 24"):
        qlib.solve(qlib.sum(qlib.var("big", 25)), backend="exhaustive")


def test_time_limit_is_honoured():
    model = frustrated_model(40, seed=2)
    start = time.perf_counter()
    sol = qlib.solve(model, backend="cpu", seed=0, target_energy=-1e9, time_limit=1.0, num_sweeps=100)
    elapsed = time.perf_counter() - start
    assert sol.info["stop_reason"] == "time_limit"
    assert elapsed < 1.1 + 0.5  # rounds are short; compile and set-up are outside the limit


def test_initial_state_is_used_and_validated():
    model = frustrated_model()
    exact = qlib.solve(model, backend="exhaustive")
    # starting at the optimum with a target of that energy stops without a single flip
    sol = qlib.solve(model, backend="cpu", seed=0, target_energy=exact.energy, initial_state=exact.state)
    assert sol.info["flips"] == 0 and sol.energy == exact.energy
    with pytest.raises(ValueError, match="entries"):
        qlib.solve(model, backend="cpu", initial_state=[0, 1])
    with pytest.raises(KeyError):
        qlib.solve(model, backend="cpu", initial_state={"no_such_variable_anywhere": 1})


def test_gpu_request_without_a_gpu_is_an_error():
    if gpu.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="GPU|CUDA"):
        qlib.solve(qlib.var("x"), backend="gpu")
    sol = qlib.solve(qlib.var("x"), backend="auto", seed=0)
    assert sol.info["backend"] == "cpu" and sol.info["requested_backend"] == "auto"


def test_result_does_not_depend_on_the_order_variables_were_created():
    # "ordp" labels are created first to last, "ordq" labels last to first: the same
    # model over either family must give the same state for the same seed.
    p = [qlib.var(f"ordp[{i}]") for i in range(14)]
    q = list(reversed([qlib.var(f"ordq[{i}]") for i in reversed(range(14))]))

    def model(x):
        f = qlib.Expr()
        for i in range(13):
            f = f + (i % 3 - 1) * x[i] * x[i + 1]
        return f + qlib.cons(qlib.sum(x[:7]) == qlib.one_of(1, 3), label="odd") + qlib.cons(x[3] * x[9] <= 0)

    runs = [qlib.solve(model(x), backend="cpu", algorithm="sa", seed=4, num_sweeps=30) for x in (p, q)]
    assert runs[0].state.tolist() == runs[1].state.tolist()
    assert [lab.replace("ordp", "") for lab in runs[0].compiled.labels] == \
           [lab.replace("ordq", "") for lab in runs[1].compiled.labels]


@pytest.mark.parametrize("backend, options", [("cpu", dict(target_energy=0)), ("cpu", dict(algorithm="sa")),
                                              ("exhaustive", {})])
def test_models_without_variables_are_answered_not_searched(backend, options):
    for model, energy in ((qlib.Expr.constant(3), 3.0), (qlib.Model(), 0.0)):
        sol = qlib.solve(model, backend=backend, **options)
        assert sol.energy == energy and sol.state.shape == (0,) and sol.info["stop_reason"] == "complete"


def test_crash_file_from_the_command_line(tmp_path):
    """A valid-looking nonogram whose every cell is decided by the clues: a model without variables."""
    import subprocess
    import sys

    path = tmp_path / "f.non"
    path.write_text("width 3\nheight 1\nrows\n1,1\ncolumns\n1\n1\n0\n")
    for form in ("cons", "qubo"):
        out = subprocess.run([sys.executable, "-m", "qlib", "solve", "nonogram", str(path), "--form", form],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 1, out.stderr      # no answer (column 3 says 0), and no crash
        assert "unsolved" in out.stdout


def test_an_option_of_another_algorithm_raises_type_error_naming_it():
    model = qlib.cons(qlib.var("mis0") + qlib.var("mis1") == 1)
    with pytest.raises(TypeError, match="num_sweeps is an option of algorithm 'sa', not of 'focused'"):
        qlib.solve(model, algorithm="focused", target_energy=0, num_sweeps=10)
    with pytest.raises(TypeError, match="share_cuts is an option of algorithm 'focused', not of 'sa'"):
        qlib.solve(model, algorithm="sa", share_cuts=False)
    # "auto" picks focused here (a target, all penalty): the message says so and what to pass
    with pytest.raises(TypeError, match="algorithm='auto' chose 'focused'; pass algorithm='sa'"):
        qlib.solve(model, target_energy=0, num_sweeps=10)
    with pytest.raises(TypeError, match="num_threads is an option of backend 'cpu', not of 'gpu'"):
        qlib.solve(model, backend="gpu", num_threads=1)
    with pytest.raises(TypeError, match="unknown option 'colour'"):
        qlib.solve(model, colour="red")
    with pytest.raises(ValueError, match="no algorithm 'focused'"):
        qlib.solve(model, backend="exhaustive", algorithm="focused")
    with pytest.raises(TypeError, match="algorithm"):
        qlib.solve(model, algorithm=1)


def test_types_raise_type_error_and_ranges_value_error():
    from qlib.solvers.options import FocusedOptions, GPUSAOptions, SAOptions

    model = qlib.cons(qlib.var("tr0") + qlib.var("tr1") == 1)
    for bad in (dict(num_replicas="2"), dict(num_replicas=True), dict(num_sweeps=2.0), dict(time_limit="1"),
                dict(target_energy="0"), dict(seed=True), dict(beta_range=1.0), dict(max_rounds=1.5)):
        with pytest.raises(TypeError, match=next(iter(bad))):
            qlib.solve(model, algorithm="sa", **bad)
    for bad in (dict(num_replicas=0), dict(num_sweeps=0), dict(time_limit=0), dict(time_limit=float("inf")),
                dict(target_energy=float("nan")), dict(seed=-1), dict(beta_range=(2.0, 1.0)), dict(max_rounds=0)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            qlib.solve(model, algorithm="sa", **bad)
    with pytest.raises(TypeError, match="share_cuts"):
        qlib.solve(model, algorithm="focused", target_energy=0, share_cuts=1)
    with pytest.raises(ValueError, match="share_interval"):
        qlib.solve(model, algorithm="focused", target_energy=0, share_interval=0)
    with pytest.raises(TypeError, match="share_interval"):
        qlib.solve(model, algorithm="focused", target_energy=0, share_interval=2.5)
    with pytest.raises(ValueError, match="noise"):
        qlib.solve(model, algorithm="focused", target_energy=0, noise=1.5)
    with pytest.raises(TypeError, match="lazy_cuts"):
        qlib.solve(model, algorithm="focused", target_energy=0, lazy_cuts=lambda s, e: (None, []))
    # the CPU and GPU checks are one: numpy integers count, bools do not
    assert SAOptions(num_replicas=np.int64(8)).num_replicas == 8
    assert GPUSAOptions(num_replicas=np.int64(8)).num_replicas == 8
    for options in (SAOptions, FocusedOptions, GPUSAOptions):
        with pytest.raises(TypeError, match="num_replicas"):
            options(num_replicas=True)
    assert FocusedOptions(noise=None, tabu_tenure=None) == FocusedOptions()


def test_the_registry_lists_every_backend_and_its_algorithms():
    from qlib.solvers import REGISTRY

    assert {name: [a.name for a in b.algorithms] for name, b in REGISTRY.items()} == \
        {"exhaustive": ["exhaustive"], "cpu": ["sa", "focused"], "gpu": ["sa", "focused"]}
    assert REGISTRY["cpu"].algorithm("sa").option_names == \
        ("num_replicas", "num_threads", "num_sweeps", "beta_range", "max_rounds")


def test_restart_states_are_fresh_uniform_bits_from_the_driver_stream():
    from qlib.solvers.core import random_bits

    rng = np.array([12345], dtype=np.uint64)
    first, second = np.empty((4, 500), dtype=np.uint8), np.empty((4, 500), dtype=np.uint8)
    random_bits(first, rng, 0)
    state_after_first = rng[0]
    random_bits(second, rng, 0)
    assert state_after_first != 12345 and rng[0] != state_after_first     # the stream moves on
    assert set(np.unique(first)) == {0, 1} and abs(first.mean() - 0.5) < 0.05
    assert (first != second).any()                                        # each restart starts somewhere new
    again = np.empty_like(first)
    random_bits(again, np.array([12345], dtype=np.uint64), 0)
    assert (again == first).all()                                         # and the seed fixes it


def test_restarts_are_counted_and_the_same_seed_repeats_them():
    model = frustrated_model(20, seed=4)
    runs = [qlib.solve(model, backend="cpu", seed=3, num_sweeps=5, max_rounds=6, num_replicas=2) for _ in range(2)]
    assert runs[0].info["rounds"] == 6 and runs[0].info["stop_reason"] == "max_rounds"
    assert (runs[0].info["replica_states"] == runs[1].info["replica_states"]).all()
    assert (runs[0].state == runs[1].state).all() and runs[0].energy == runs[1].energy


@pytest.mark.parametrize("options, error", [
    (dict(num_threads=0), ValueError), (dict(num_replicas=0), ValueError), (dict(noise=float("nan")), ValueError),
    (dict(max_steps=2 ** 63), ValueError), (dict(noise="x"), TypeError), (dict(check_unique="yes"), TypeError),
    (dict(seed=2 ** 63), ValueError)])
@pytest.mark.parametrize("puzzle", ["slitherlink", "nonogram"])
def test_a_puzzle_solve_checks_option_values_before_anything_runs(puzzle, options, error):
    """The presolve (Slitherlink) and line solving (Nonogram) answer these boards before any model
    search starts, yet a bad value raises as qlib.solve would raise it (no silent pass)."""
    from qlib.puzzles import nonogram as ng
    from qlib.puzzles import slitherlink as sl

    if puzzle == "slitherlink":
        board = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
        assert sl.solve(board, seed=1).found_by in ("presolve", "sat")   # answered before any search
        with pytest.raises(error):
            sl.solve(board, **{"seed": 1, **options})
    else:
        puzzle = ng.parse(qlib.data_path("nonogram-webpbn-6.non"))
        assert ng.solve(puzzle, seed=1).found_by == "presolve"
        with pytest.raises(error):
            ng.solve(puzzle, **{"seed": 1, **options})


def test_max_steps_beyond_64_bits_is_a_value_error():
    model = qlib.Model(qlib.var("x") * qlib.var("y") - qlib.var("x"))
    with pytest.raises(ValueError, match="max_steps"):
        qlib.solve(model, algorithm="focused", max_steps=2 ** 63, seed=1)
    assert qlib.solve(model, algorithm="focused", max_steps=2 ** 62, seed=1, target_energy=-1).energy == -1
