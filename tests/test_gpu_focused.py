"""The focused search on the GPU backend.  Its kernel runs here under numba's CUDA simulator (the
same source the device compiles, and the CPU's own code); tests marked ``gpu`` need a real device."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import qlib
from qlib.puzzles import nonogram as ng
from qlib.puzzles import slitherlink as sl
from qlib.solvers import gpu

HERE = Path(__file__).parent
ROOT = HERE.parent
EX1 = qlib.data_path("slitherlink-5x5-blog-ex1.txt")
TEN = qlib.data_path("slitherlink-10x10-qbpp.txt")
LOGO = qlib.data_path("nonogram-15x15-qbpp-logo.non")


def _simulated_env():
    return dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
                PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


@pytest.fixture(scope="module")
def simulated():
    out = subprocess.run([sys.executable, str(HERE / "gpu_focused_sim_check.py")], env=_simulated_env(),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])["facts"]


@pytest.mark.parametrize("board", ["5x5", "10x10"])
def test_simulated_gpu_solves_slitherlink_as_the_cpu_does(simulated, board):
    facts = simulated[board]
    assert facts["status"] == "solved" and facts["found_by"] == "search" and facts["backend"] == "gpu"
    assert facts["verified"] and facts["equals_exact"]       # the checker and the SAT solver agree
    assert facts["deterministic"]                            # same seed, same answer and cuts
    assert facts["equals_cpu"]                               # one replica per thread runs the CPU's code


def test_simulated_gpu_beside_the_complete_search(simulated):
    facts = simulated["10x10 complete"]
    assert facts == dict(status="solved", backend="gpu", verified=True)


def test_simulated_gpu_solves_a_nonogram(simulated):
    facts = simulated["nonogram"]
    assert facts["status"] == "solved" and facts["found_by"] == "search" and facts["backend"] == "gpu"
    assert facts["algorithm"] == "focused" and facts["device"] == "numba CUDA simulator"
    assert facts["verified"] and facts["equals_exact"] and facts["deterministic"]
    assert facts["default_status"] == "solved" and facts["default_backend"] == "gpu" and facts["default_verified"]


def test_simulated_resident_state_matches_the_host_path(simulated):
    """Keeping the replicas on the device and moving only what changed gives the same search."""
    assert simulated["resident_equals_host"] and simulated["resident_verified"]
    assert simulated["pool_grew"] and simulated["resident_small_pool_equals_host"]
    assert simulated["sync_after_growth"]
    assert simulated["resident=True"]["moved_seconds"] > 0 and simulated["resident=False"]["moved_seconds"] == 0


def test_simulated_solve_auto_picks_focused_and_matches_the_cpu(simulated):
    facts = simulated["raw"]
    assert facts["algorithm"] == "focused" and facts["energy"] == 0 and facts["backend"] == "gpu"
    assert facts["device"] == "numba CUDA simulator" and facts["equals_cpu"]


def test_gpu_focused_without_a_device_raises(monkeypatch):
    monkeypatch.setattr(gpu, "device_kind", lambda: None)
    model = qlib.compile(0 + qlib.cons(qlib.sum(qlib.var("gfr", 4)) == 2, label="two"))
    with pytest.raises(RuntimeError, match="GPU"):
        qlib.solve(model, backend="gpu", algorithm="focused", target_energy=0)
    with pytest.raises(RuntimeError, match="GPU"):
        qlib.solve(model, backend="gpu", target_energy=0)             # auto: focused
    # no silent fallback, even where the presolve or propagation would answer alone
    with pytest.raises(RuntimeError, match="GPU"):
        sl.solve(EX1, backend="gpu")
    with pytest.raises(RuntimeError, match="GPU"):
        ng.solve(LOGO, backend="gpu")
    with pytest.raises(RuntimeError, match="GPU"):
        ng.solve(LOGO, backend="gpu", method="search")


@pytest.mark.skipif(gpu.device_kind() is not None, reason="a GPU (or the simulator) is here")
def test_gpu_focused_here_without_simulator_raises():
    with pytest.raises(RuntimeError, match="GPU"):
        sl.solve(TEN, backend="gpu", complete=False)


def test_gpu_focused_options_are_checked(monkeypatch):
    monkeypatch.setattr(gpu, "device_kind", lambda: None)
    model = qlib.compile(0 + qlib.cons(qlib.sum(qlib.var("gfo", 4)) == 2, label="two"))
    with pytest.raises(TypeError, match="num_replicas"):
        qlib.solve(model, backend="gpu", algorithm="focused", target_energy=0, num_replicas=True)
    with pytest.raises(ValueError, match="noise"):
        qlib.solve(model, backend="gpu", algorithm="focused", target_energy=0, noise=2.0)
    with pytest.raises(TypeError, match="num_threads is an option of backend 'cpu'"):
        qlib.solve(model, backend="gpu", algorithm="focused", target_energy=0, num_threads=1)
    from qlib.solvers.options import GPUFocusedOptions

    assert GPUFocusedOptions(num_replicas=np.int64(8)).num_replicas == 8
    assert GPUFocusedOptions(noise=None, tabu_tenure=None) == GPUFocusedOptions()


def test_the_step_function_allocates_nothing():
    """What the CUDA target cannot compile stays out of the per-replica step function."""
    import inspect

    from qlib.solvers import focused_kernel, gpu_kernel

    chain = gpu_kernel.numba_callees(focused_kernel.replica_steps) + [focused_kernel.replica_steps]
    assert {"flip_delta", "apply_flip", "rng_below", "_flip", "_set_bad"} <= {f.py_func.__name__ for f in chain}
    for function in chain:
        source = inspect.getsource(function.py_func)
        for banned in ("np.zeros", "np.empty", "np.full", ".copy()", ", :]", "[:]"):
            assert banned not in source, f"{function.py_func.__name__} uses {banned}"


@pytest.mark.gpu
@pytest.mark.skipif(not gpu.is_available(), reason="needs a CUDA device")
def test_real_gpu_solves_slitherlink_reproducibly():
    runs = [sl.solve(TEN, backend="gpu", seed=3, complete=False, num_replicas=256, time_limit=120) for _ in range(2)]
    assert runs[0].status == "solved" and runs[0].backend == "gpu" and sl.is_solution(TEN, runs[0].h, runs[0].v)
    assert runs[0].h == runs[1].h and runs[0].v == runs[1].v


@pytest.mark.gpu
@pytest.mark.skipif(not gpu.is_available(), reason="needs a CUDA device")
def test_real_gpu_focused_search_solves_the_nonogram_logo():
    puzzle = ng.parse(LOGO)
    result = ng.solve(puzzle, backend="gpu", method="search", seed=0, time_limit=120, num_replicas=512)
    assert result.status == "solved" and ng.is_solution(puzzle, result.grid)
    assert result.solution.info["algorithm"] == "focused" and result.solution.info["device"] != "numba CUDA simulator"


def test_gpu_benchmark_runs_under_the_simulator(tmp_path):
    """benchmarks/gpu.py, the device check, runs its tiny sizes here: every answer checked, a table printed."""
    out = tmp_path / "gpu.json"
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu.py"), "--simulate", "--quick",
                          "--out", str(out)], env=_simulated_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "| workload | search | backend | replicas | setting | updates/s |" in res.stdout
    data = json.loads(out.read_text())
    assert data["facts"]["kind"] == "simulator"
    assert data["qlib"]["commit"] == subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                                                    text=True).stdout.strip()
    focused = [r for r in data["rows"] if r["search"] == "focused"]
    assert {r["backend"] for r in focused} == {"cpu", "gpu"}
    assert all(r["answered"] and r["updates_per_second"] > 0 for r in focused)
    assert "share_interval=100" in {r["setting"] for r in focused}
    assert all(r["updates_per_second"] > 0 for r in data["rows"] if r["search"] == "sa")
    assert all(v["verified"] and v["backend"] == "gpu" for v in data["pipeline"].values())
