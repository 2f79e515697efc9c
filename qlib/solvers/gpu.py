"""GPU backend: the annealing replica of :mod:`qlib.solvers.anneal` as a CUDA kernel.

One CUDA thread runs one replica with exactly the CPU code
(:func:`~qlib.solvers.anneal.anneal_replica`, recompiled from its source for
the CUDA target by :mod:`qlib.solvers.gpu_kernel`), so the GPU runs many
replicas of the same search at once.  Arrays live
in CuPy when it is installed (any ``cupy-cuda12x`` / ``cupy-cuda13x`` wheel),
otherwise in numba device arrays.

The kernel takes the model's arrays and the replicas' arrays as two named
tuples (:class:`~qlib.compile.KernelArrays`, :class:`~qlib.solvers.anneal.AnnealArrays`).

Without a GPU the same kernel runs under numba's CUDA simulator when
``NUMBA_ENABLE_CUDASIM=1`` is set before qlib is imported; the tests use that to
exercise this code path on the CPU.  ``info["device"]`` says which one ran.
Asking for the GPU when neither a device nor the simulator is there raises.
"""

from __future__ import annotations

import os

import numpy as np

from .sa import run_sa
from .seeding import initial_states, seed_sequence

__all__ = ["device_kind", "is_available", "device_name", "gpu_round", "run_sa_gpu"]


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
    """The CUDA device's name, "numba CUDA simulator", or "none"."""
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
    """``array`` on the device, as a numba device array (held by CuPy when CuPy is installed), so
    that named tuples of them type as kernel arguments."""
    from numba import cuda

    try:
        import cupy
    except ImportError:
        return cuda.to_device(array)
    return cuda.as_cuda_array(cupy.asarray(array))


def gpu_round(m, a, betas, lo, hi, target, threads_per_block=128):
    """Sweeps ``lo`` to ``hi`` on the device; the same signature as the CPU
    :func:`~qlib.solvers.anneal.anneal_round` (``threads_per_block`` aside).

    The arrays of ``a`` (:class:`~qlib.solvers.anneal.AnnealArrays`), which the
    kernel writes, are copied back, so the host keeps the run's state between
    chunks of sweeps.  Under the simulator the kernel works on the host arrays.
    """
    kernel = _kernel()
    blocks = (a.states.shape[0] + threads_per_block - 1) // threads_per_block
    if device_kind() == "simulator":
        with np.errstate(over="ignore"):  # the simulator runs the generator's wrapping uint64 product in NumPy
            kernel[blocks, threads_per_block](m, a, betas, lo, hi, target)
        return
    dev_m = type(m)(*(_to_device(x) for x in m))
    dev_a = type(a)(*(_to_device(x) for x in a))
    kernel[blocks, threads_per_block](dev_m, dev_a, _to_device(betas), lo, hi, target)
    for host, dev in zip(a, dev_a):
        host[...] = dev.copy_to_host()


def run_sa_gpu(compiled, options, common):
    """Simulated annealing (:class:`~qlib.solvers.options.GPUSAOptions`) with ``num_replicas``
    replicas, one per CUDA thread."""
    kind = device_kind()
    if kind is None:
        raise RuntimeError(
            "backend='gpu' needs an NVIDIA GPU with a working CUDA driver and numba's CUDA support "
            "(pip install 'qlib[gpu]'); none is usable here. Use backend='cpu', or 'auto' to choose."
        )
    rng = seed_sequence(common.seed, options.num_replicas + 1)
    states = initial_states(compiled, common.initial_state, options.num_replicas, rng[-1])
    target = -np.inf if common.target_energy is None else common.target_energy - compiled.offset
    state, info = run_sa(compiled, rng, states, target, common.time_limit, num_sweeps=options.num_sweeps,
                         beta_range=options.beta_range, max_rounds=options.max_rounds, round_function=gpu_round)
    info.update(backend="gpu", device=device_name())
    return state, info
