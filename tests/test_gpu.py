"""The GPU backend.  Its kernel runs here under numba's CUDA simulator (the same
source the device compiles); tests marked ``gpu`` need a real device."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import qlib
from qlib.solvers import device, gpu

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def simulated():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, str(HERE / "gpu_sim_check.py")], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_simulated_gpu_finds_the_exact_minimum(simulated):
    assert simulated["gpu"] == simulated["exact"]
    assert simulated["backend"] == "gpu" and simulated["device"] == "numba CUDA simulator"


def test_simulated_gpu_is_seed_reproducible_and_matches_the_cpu(simulated):
    assert simulated["same_seed_same_state"]
    assert simulated["gpu_equals_cpu"]  # one replica per thread runs the CPU's code


def test_simulated_gpu_anneals_a_qubo_on_local_fields_as_the_cpu_does(simulated):
    assert simulated["qubo_kernel"] == "local_field" and simulated["qubo_gpu"] == simulated["qubo_exact"]
    assert simulated["qubo_gpu_equals_cpu"]


def test_simulated_gpu_warm_start(simulated):
    assert simulated["warm_flips"] == 0 and simulated["warm_energy"] == simulated["exact"]


def test_simulated_resident_annealing_matches_the_host_path(simulated):
    # the model and replicas kept on the device between chunks: the same states, flips and rounds
    assert simulated["sa_resident_equals_host"] and simulated["sa_resident_moves"]


def test_simulated_gpu_takes_numpy_integers(simulated):
    assert simulated["numpy_replicas_same"]


def test_both_gpu_runners_refuse_replicas_that_do_not_fit(simulated):
    assert simulated["too_many_replicas_refused"] == [True, True]


def test_gpu_options_are_checked_before_the_device_is_needed(monkeypatch):
    monkeypatch.setattr(device, "device_kind", lambda: None)
    with pytest.raises(TypeError, match="num_replicas"):
        qlib.solve(qlib.var("x"), backend="gpu", num_replicas=True)
    with pytest.raises(ValueError, match="num_replicas"):
        qlib.solve(qlib.var("x"), backend="gpu", num_replicas=0)


def test_gpu_without_device_raises(monkeypatch):
    monkeypatch.setattr(device, "device_kind", lambda: None)
    with pytest.raises(RuntimeError, match="GPU"):
        qlib.solve(qlib.var("x"), backend="gpu")
    sol = qlib.solve(qlib.var("x"), backend="auto", seed=0)
    assert sol.info["backend"] == "cpu" and sol.info["requested_backend"] == "auto"


@pytest.mark.gpu
@pytest.mark.skipif(not gpu.is_available(), reason="needs a CUDA device")
def test_real_gpu_agrees_with_exhaustive_and_is_reproducible():
    x = qlib.var("gdev", 12)
    model = (qlib.sum(x) - 5) ** 2 + x[0] * x[1] * ~x[2] - 3 * x[3] * x[4] + qlib.cons(x[5] + x[6] <= 1)
    exact = qlib.solve(model, backend="exhaustive")
    runs = [qlib.solve(model, backend="gpu", seed=2, num_replicas=256, num_sweeps=200,
                       target_energy=exact.energy) for _ in range(2)]
    assert runs[0].energy == exact.energy and runs[0].info["device"] != "numba CUDA simulator"
    assert (runs[0].state == runs[1].state).all()


@pytest.mark.gpu
@pytest.mark.skipif(not gpu.is_available(), reason="needs a CUDA device")
def test_real_gpu_solves_the_nonogram_logo():
    from qlib.puzzles import nonogram

    puzzle = nonogram.parse(qlib.data_path("nonogram-15x15-qbpp-logo.non"))
    result = nonogram.solve(puzzle, backend="gpu", seed=0, time_limit=120, num_replicas=2048)
    assert result.status == "solved"
