"""The focused search on the GPU backend.  Its kernel runs here under numba's CUDA simulator (the
same source the device compiles, and the CPU's own code); tests marked ``gpu`` need a real device."""

import ast
import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import qlib
from qlib.puzzles import nonogram as ng
from qlib.puzzles import slitherlink as sl
from qlib.solvers import device, gpu

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
    monkeypatch.setattr(device, "device_kind", lambda: None)
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
    monkeypatch.setattr(device, "device_kind", lambda: None)
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


#: numpy calls a device function may make: scalar casts, which allocate nothing.
_DEVICE_NUMPY = {"uintp", "intp", "int64", "int32", "uint64", "uint32", "uint8", "float64", "bool_"}


def _allocations(tree) -> list[str]:
    """What in ``tree`` (a function's AST) allocates or builds arrays, which the CUDA target cannot compile:
    numpy calls other than scalar casts, slices, copies and reshapes, and Python containers."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base, attr = node.func.value, node.func.attr
            if isinstance(base, ast.Name) and base.id in ("np", "numpy") and attr not in _DEVICE_NUMPY:
                found.append(f"np.{attr}()")
            elif attr in ("copy", "astype", "reshape", "ravel", "flatten", "tolist", "append", "extend"):
                found.append(f".{attr}()")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "list", "dict", "set", "sorted", "range_list"):
            found.append(f"{node.func.id}()")
        elif isinstance(node, ast.Slice):
            found.append("a slice")
        elif isinstance(node, (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp,
                               ast.GeneratorExp)):
            found.append(type(node).__name__)
    return found


@pytest.mark.parametrize("name", ["replica_steps", "anneal_replica"])
def test_the_device_functions_allocate_nothing(name):
    """Every function the GPU compiles from the CPU's source (a replica kernel and its whole callee chain,
    as gpu_kernel finds it) is free of what the CUDA target cannot compile, read from its AST."""
    from qlib.solvers import gpu_kernel
    from qlib.solvers.focused import kernel as focused_kernel
    from qlib.solvers.sa import kernel as anneal

    root = {"replica_steps": focused_kernel.replica_steps, "anneal_replica": anneal.anneal_replica}[name]
    chain = gpu_kernel.numba_callees(root) + [root]
    names = {f.py_func.__name__ for f in chain}
    assert {"flip_delta", "apply_flip"} <= names
    if name == "replica_steps":
        assert {"rng_below", "_flip", "_set_bad", "raise_weights", "take_cuts"} <= names
    for function in chain:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function.py_func)))
        assert _allocations(tree) == [], f"{function.py_func.__name__}: {_allocations(tree)}"


def test_the_allocation_check_sees_each_form():
    source = ("def f(x, m):\n    a = np.zeros(3)\n    b = x[1:]\n    c = x.copy()\n    d = [1]\n"
              "    e = np.uintp(2)\n    g = sorted(x)\n    return a, b, c, d, e, g\n")
    assert sorted(_allocations(ast.parse(source))) == [".copy()", "List", "a slice", "np.zeros()", "sorted()"]


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


def test_the_fields_the_gpu_moves_are_fields_of_their_tuples():
    """Each tuple declares how its fields move between host and device; a renamed field must not drop out."""
    from qlib.solvers.sa.kernel import AnnealArrays
    from qlib.solvers.focused.kernel import Replicas

    assert Replicas.SENT | Replicas.FETCHED | set(Replicas.AT_END) <= set(Replicas._fields)
    assert AnnealArrays.SENT_AT_START | AnnealArrays.FETCHED | set(AnnealArrays.AT_END) <= set(AnnealArrays._fields)
    assert "SENT" not in Replicas._fields and "FETCHED" not in AnnealArrays._fields   # class data, not fields
