"""Run the GPU backend's code path under numba's CUDA simulator and print the
facts the tests check as JSON.  Started by tests/test_gpu.py in a subprocess,
because the simulator must be switched on before numba.cuda is imported."""

import json
import os

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

import numpy as np  # noqa: E402

import qlib  # noqa: E402

x = qlib.var("gsim", 7)
model = (qlib.sum(x) - 3) ** 2 + x[0] * x[1] * ~x[2] - 2 * x[3] * x[4] + x[5] * ~x[6] \
    + qlib.cons(x[0] + x[5] == qlib.one_of(0, 2), label="pair")
exact = qlib.solve(model, backend="exhaustive")
gpu = qlib.solve(model, backend="gpu", seed=5, num_replicas=6, num_sweeps=40, target_energy=exact.energy)
gpu_again = qlib.solve(model, backend="gpu", seed=5, num_replicas=6, num_sweeps=40, target_energy=exact.energy)
cpu = qlib.solve(model, backend="cpu", algorithm="sa", seed=5, num_replicas=6, num_sweeps=40,
                 target_energy=exact.energy)
# numpy integers are integers here as on the CPU (the options' checks are shared)
numpy_replicas = qlib.solve(model, backend="gpu", seed=5, num_replicas=np.int64(6), num_sweeps=np.int64(40),
                            target_energy=exact.energy)
warm = qlib.solve(model, backend="gpu", seed=1, num_replicas=2, num_sweeps=5, initial_state=exact.state,
                  target_energy=exact.energy)
qubo = (qlib.sum(x) - 3) ** 2 + x[0] * ~x[2] - 2 * x[3] * x[4] + x[5] * ~x[6] - x[1]   # no rows: local fields
qubo_exact = qlib.solve(qubo, backend="exhaustive")
qubo_gpu = qlib.solve(qubo, backend="gpu", seed=3, num_replicas=4, num_sweeps=30, target_energy=qubo_exact.energy)
qubo_cpu = qlib.solve(qubo, backend="cpu", algorithm="sa", seed=3, num_replicas=4, num_sweeps=30,
                      target_energy=qubo_exact.energy)
# The resident path (arrays kept on the device between chunks, only what the driver reads or writes moved)
# gives the host-array path's result, over several rounds (each restart's states go up at sweep 0).
from qlib.solvers import gpu as gpu_backend  # noqa: E402
from qlib.solvers.options import Common, GPUSAOptions  # noqa: E402

resident_same, resident_moved = True, True
for m in (model, qubo):
    compiled = qlib.compile(m)
    runs = {}
    for resident in (False, True):
        state, info = gpu_backend.run_sa_gpu(compiled, GPUSAOptions(num_replicas=5, num_sweeps=25, max_rounds=3),
                                     Common(seed=9, time_limit=120.0, target_energy=None), resident=resident)
        runs[resident] = (state.tolist(), info["flips"], info["rounds"], info["stop_reason"],
                          info["replica_states"].tolist(), info["replica_energies"].tolist())
        moved = info["device_seconds"]["upload"] + info["device_seconds"]["download"]
        resident_moved &= (moved > 0) == resident and info["rounds"] == 3
    resident_same &= runs[True] == runs[False]
# Both GPU runners refuse, before any allocation, replicas that cannot fit (the CPU's check, shared).
refused = []
for algorithm in ("sa", "focused"):
    try:
        qlib.solve(model, backend="gpu", algorithm=algorithm, seed=1, num_replicas=1 << 40, target_energy=0)
    except MemoryError as err:
        refused.append("replicas" in str(err))
print(json.dumps(dict(
    too_many_replicas_refused=refused,
    sa_resident_equals_host=resident_same, sa_resident_moves=resident_moved,
    qubo_kernel=qubo_gpu.info["kernel"], qubo_exact=qubo_exact.energy, qubo_gpu=qubo_gpu.energy,
    qubo_gpu_equals_cpu=bool((qubo_gpu.state == qubo_cpu.state).all()) and qubo_gpu.info["flips"] == qubo_cpu.info["flips"]
    and qubo_cpu.info["kernel"] == "local_field",
    exact=exact.energy, gpu=gpu.energy, device=gpu.info["device"], backend=gpu.info["backend"],
    same_seed_same_state=bool((gpu.state == gpu_again.state).all()),
    gpu_equals_cpu=bool((gpu.state == cpu.state).all()) and gpu.info["flips"] == cpu.info["flips"],
    warm_flips=warm.info["flips"], warm_energy=warm.energy,
    numpy_replicas_same=bool((numpy_replicas.state == gpu.state).all()) and numpy_replicas.info["num_replicas"] == 6,
)))
