"""Run the focused search on the GPU backend under numba's CUDA simulator and print the facts
tests/test_gpu_focused.py checks, as JSON.  Started in a subprocess: the simulator must be
switched on before numba.cuda is imported.  Few replicas and small boards: the simulator runs
every CUDA thread as a Python thread."""

import collections
import json
import os
import time

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

import numpy as np  # noqa: E402

import qlib  # noqa: E402
from qlib.puzzles import nonogram as ng  # noqa: E402
from qlib.puzzles import slitherlink as sl  # noqa: E402
from qlib.puzzles.slitherlink.exact import solve_exact  # noqa: E402
from qlib.puzzles.slitherlink.formulation import FORMULATIONS  # noqa: E402
from qlib.solvers import gpu  # noqa: E402
from qlib.solvers.focused import LazyCuts  # noqa: E402
from qlib.solvers.options import Common, GPUFocusedOptions  # noqa: E402

EX1 = qlib.data_path("slitherlink-5x5-blog-ex1.txt")
TEN = qlib.data_path("slitherlink-10x10-qbpp.txt")
LOGO = qlib.data_path("nonogram-15x15-qbpp-logo.non")
REPLICAS = 4
facts, seconds = {}, {}


def timed(name, f):
    t0 = time.perf_counter()
    out = f()
    seconds[name] = round(time.perf_counter() - t0, 3)
    return out


def drawing(result):
    return [np.asarray(result.h).tolist(), np.asarray(result.v).tolist()]


def slitherlink_facts(key, path, formulation, seed):
    """The GPU's answer (verified, against the exact solver), its repeat, and the CPU's."""
    run = (lambda backend: sl.solve(path, formulation=formulation, backend=backend, seed=seed, complete=False,
                                    num_replicas=REPLICAS, time_limit=120))
    first = timed(f"{key} gpu", lambda: run("gpu"))
    again = timed(f"{key} gpu again", lambda: run("gpu"))
    cpu = timed(f"{key} cpu", lambda: run("cpu"))
    exact = solve_exact(path)
    facts[key] = dict(
        status=first.status, found_by=first.found_by, backend=first.backend,
        verified=sl.is_solution(path, first.h, first.v),
        equals_exact=bool(exact.solved and np.array_equal(sl.parse(path).grid.from_hv(first.h, first.v), exact.mask)),
        deterministic=drawing(first) == drawing(again) and len(first.iterations) == len(again.iterations)
        and [it["forbidden"] for it in first.iterations] == [it["forbidden"] for it in again.iterations],
        equals_cpu=drawing(first) == drawing(cpu) and [it["forbidden"] for it in first.iterations]
        == [it["forbidden"] for it in cpu.iterations])


slitherlink_facts("5x5", EX1, "hubo", 3)
slitherlink_facts("10x10", TEN, "cells", 1)
# the default lazy method: the complete search (CPU) beside the focused search (GPU); the result says gpu
beside = timed("10x10 complete", lambda: sl.solve(TEN, backend="gpu", seed=2, num_replicas=REPLICAS))
facts["10x10 complete"] = dict(status=beside.status, backend=beside.backend,
                               verified=sl.is_solution(TEN, beside.h, beside.v))

# Nonogram: the model search of the whole puzzle on the GPU, and the default method (propagation on the CPU)
puzzle = ng.parse(LOGO)
search = [timed(f"nonogram search {k}", lambda: ng.solve(puzzle, backend="gpu", method="search", seed=4,
                                                         num_replicas=REPLICAS, time_limit=120)) for k in range(2)]
count = ng.count_solutions(puzzle, limit=2)
default = timed("nonogram default", lambda: ng.solve(puzzle, backend="gpu", seed=4, num_replicas=REPLICAS))
facts["nonogram"] = dict(
    status=search[0].status, found_by=search[0].found_by, backend=search[0].backend,
    verified=bool(search[0].grid and ng.is_solution(puzzle, search[0].grid)),
    equals_exact=count.count == 1 and tuple(search[0].grid) == tuple(count.solutions[0]),
    deterministic=search[0].grid == search[1].grid, device=search[0].solution.info["device"],
    algorithm=search[0].solution.info["algorithm"],
    default_status=default.status, default_backend=default.backend,
    default_verified=bool(default.grid and ng.is_solution(puzzle, default.grid)))

# The resident path (state kept on the device between chunks, only changed columns moved) gives the
# host-array path's result: run both on the 10x10 board's model with its loop cuts.
board = sl.parse(TEN)
spec = FORMULATIONS["cells"]
sm = spec.build(board)
compiled = spec.compile(sm)
paths = {}
# resident with a pool that starts with room for one cut: it grows, and the replicas' wider arrays are
# filled on the device from the kernel's own columns
for resident, small in ((False, False), (True, False), (True, True)):
    lazy = LazyCuts(spec.separation(sm, compiled), **(dict(max_cuts=1, max_cut_literals=1) if small else {}))
    options = GPUFocusedOptions(num_replicas=3, lazy_cuts=lazy, share_interval=200)
    state, info = timed(f"resident={resident} small={small}", lambda: gpu.run_focused_gpu(
        compiled, options, Common(seed=5, time_limit=120.0, target_energy=0.0), resident=resident))
    paths[resident, small] = (state.tolist(), info["stop_reason"], info["replica"], info["steps_of_winner"],
                              info["num_cuts"], info["pool_cuts"], [c[0].tolist() for c in info["cuts"]])
    if not small:
        facts[f"resident={resident}"] = dict(stop=info["stop_reason"], launches=info["kernel_launches"],
                                             moved_seconds=info["device_seconds"]["upload"]
                                             + info["device_seconds"]["download"])
facts["resident_equals_host"] = paths[True, False] == paths[False, False]
facts["resident_small_pool_equals_host"] = paths[True, True] == paths[False, False]
facts["pool_grew"] = paths[False, False][5] > 1
mask = spec.decode_state(sm, compiled, np.asarray(paths[True, False][0], dtype=np.uint8))
facts["resident_verified"] = sl.is_solution(board, *board.grid.to_hv(mask))

# The pool grew after the last chunk: the end's fetch fills the leading columns of the wider host array
# from the device and keeps the new columns' "not taken" (-1).
Held = collections.namedtuple("Held", "x best_x best_energy num_false raises")
held = Held(np.zeros((2, 3), np.uint8), np.zeros((2, 3), np.uint8), np.zeros(2), np.full((2, 2), -1, np.int32),
            np.zeros((2, 8), np.int64))
chunk = gpu.FocusedChunkGPU(resident=True)
devices = {name: chunk._device("R", name, getattr(held, name), False) for name in held._fields}
devices["num_false"].copy_to_device(np.array([[0, 1], [2, -1]], np.int32))   # what the kernel wrote
grown = held._replace(num_false=np.full((2, 4), -1, np.int32))
chunk.sync(grown)
facts["sync_after_growth"] = grown.num_false.tolist() == [[0, 1, -1, -1], [2, -1, -1, -1]]

# qlib.solve itself: algorithm="auto" on the GPU picks the focused search for a penalty model with a target
x = qlib.var("gf", 12)
model = qlib.compile(0 + qlib.cons(qlib.sum(x) == 4, label="four") + x[0] * x[1] + ~x[2] * x[3])
g = qlib.solve(model, backend="gpu", seed=7, target_energy=0, num_replicas=REPLICAS)
c = qlib.solve(model, backend="cpu", seed=7, target_energy=0, num_replicas=REPLICAS)
facts["raw"] = dict(algorithm=g.info["algorithm"], energy=g.energy, device=g.info["device"], backend=g.info["backend"],
                    equals_cpu=g.state.tolist() == c.state.tolist() and g.info["replica"] == c.info["replica"]
                    and g.info["steps_of_winner"] == c.info["steps_of_winner"])
print(json.dumps(dict(facts=facts, seconds=seconds)))
