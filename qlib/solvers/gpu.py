"""GPU backend: the annealing replica of :mod:`qlib.solvers.anneal` as a CUDA kernel.

One CUDA thread runs one replica with exactly the CPU code
(:func:`~qlib.solvers.anneal.anneal_replica`, recompiled from its source for
the CUDA target by :mod:`qlib.solvers.gpu_kernel`), so the GPU runs many
replicas of the same search at once.  Arrays live
in CuPy when it is installed (any ``cupy-cuda12x`` / ``cupy-cuda13x`` wheel),
otherwise in numba device arrays.

Without a GPU the same kernel runs under numba's CUDA simulator when
``NUMBA_ENABLE_CUDASIM=1`` is set before qlib is imported; the tests use that to
exercise this code path on the CPU.  ``info["device"]`` says which one ran.
Asking for the GPU when neither a device nor the simulator is there raises.
"""

from __future__ import annotations

import os

import numpy as np

def device_kind() -> str | None:
    """"cuda" with a usable device, "simulator" under NUMBA_ENABLE_CUDASIM=1, else None."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "simulator"
    try:
        from numba import cuda

        if cuda.is_available() and len(cuda.gpus) > 0:
            return "cuda"
    except Exception:  # noqa: BLE001 - a missing driver or toolkit means no GPU
        return None
    return None


def is_available() -> bool:
    """True when a real CUDA device is usable (the simulator does not count)."""
    return device_kind() == "cuda"


def device_name() -> str:
    kind = device_kind()
    if kind == "cuda":
        from numba import cuda

        name = cuda.get_current_device().name
        return name.decode() if isinstance(name, bytes) else str(name)
    return "numba CUDA simulator" if kind == "simulator" else "none"


def _kernel():
    from .gpu_kernel import anneal_kernel

    return anneal_kernel


def _to_device(array):
    try:
        import cupy

        return cupy.asarray(array)
    except ImportError:
        from numba import cuda

        return cuda.to_device(array)


def _to_host(array) -> np.ndarray:
    if hasattr(array, "get"):
        return array.get()
    return array.copy_to_host()


def gpu_round(m, states, betas, lo, hi, rng, target, FC, LHS, SCRATCH, energies, best_states, best_energies,
              flips, hit, threads_per_block=128):
    """Sweeps ``lo`` to ``hi`` on the device; same signature as the CPU ``anneal_round``.

    The arrays the kernel writes are copied back by name, so the host keeps the
    run's state between chunks of sweeps.
    """
    kernel = _kernel()
    written = dict(states=states, rng=rng, FC=FC, LHS=LHS, SCRATCH=SCRATCH, energies=energies,
                   best_states=best_states, best_energies=best_energies, flips=flips, hit=hit)
    simulated = device_kind() == "simulator"
    move = (lambda a: a) if simulated else _to_device
    dev_m = tuple(move(a) for a in m)
    dev = {name: move(a) for name, a in written.items()}
    blocks = (states.shape[0] + threads_per_block - 1) // threads_per_block
    with np.errstate(over="ignore"):  # the simulator runs the generator's wrapping uint64 product in NumPy
        kernel[blocks, threads_per_block](*dev_m, dev["states"], move(betas), lo, hi, dev["rng"], target, dev["FC"],
                                          dev["LHS"], dev["SCRATCH"], dev["energies"], dev["best_states"],
                                          dev["best_energies"], dev["flips"], dev["hit"])
    if not simulated:
        for name, host in written.items():
            host[...] = _to_host(dev[name])


def solve_gpu(compiled, *, seed, time_limit, target_energy, initial_state, num_replicas=1024,
              num_sweeps=1000, beta_range=None, max_rounds=None):
    """Simulated annealing with ``num_replicas`` replicas, one per CUDA thread."""
    kind = device_kind()
    if kind is None:
        raise RuntimeError(
            "backend='gpu' needs an NVIDIA GPU with a working CUDA driver and numba's CUDA support "
            "(pip install 'qlib[gpu]'); none is usable here. Use backend='cpu', or 'auto' to choose."
        )
    from .api import _initial_states, _seed_sequence, run_sa

    if not isinstance(num_replicas, int) or num_replicas < 1:
        raise ValueError(f"num_replicas must be a positive integer, got {num_replicas!r}")
    rng = _seed_sequence(seed, num_replicas + 1)
    states = _initial_states(compiled, initial_state, num_replicas, rng[-1:])
    target = -np.inf if target_energy is None else float(target_energy) - compiled.offset
    state, info = run_sa(compiled, rng, states, target, time_limit, num_sweeps=num_sweeps,
                         beta_range=beta_range, max_rounds=max_rounds, round_function=gpu_round)
    info.update(backend="gpu", device=device_name())
    return state, info
