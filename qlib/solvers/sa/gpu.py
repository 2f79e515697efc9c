"""Simulated annealing on the GPU: one replica per CUDA thread, the CPU's replica kernel recompiled
(:func:`qlib.solvers.gpu_kernel.anneal_kernel`), driven by the CPU's driver (:func:`~qlib.solvers.sa.driver.run_sa`).

The kernel takes the model's arrays and the replicas' arrays as two named
tuples (:class:`~qlib.compile.KernelArrays`, :class:`~qlib.solvers.sa.kernel.AnnealArrays`).
"""

from __future__ import annotations

import time

from ..device import (DeviceChunks, device_kind, device_name, quiet_overflow, require_device, to_device,
                      tuple_to_device)
from ..start import start, time_left
from .driver import choose_kernel, run_sa
from .kernel import AnnealArrays

__all__ = ["gpu_round", "AnnealRoundGPU", "run_sa_gpu"]


def gpu_round(quad, cached, terms, a, betas, lo, target, threads_per_block=128):
    """Sweeps ``lo`` to ``lo + len(betas)`` on the device; the same signature as the CPU
    :func:`~qlib.solvers.sa.kernel.anneal_round` (``threads_per_block`` aside), for the
    "local_field" and "terms" kernels (``cached`` is None).

    The arrays of ``a`` (:class:`~qlib.solvers.sa.kernel.AnnealArrays`), which the
    kernel writes, are copied back, so the host keeps the run's state between
    chunks of sweeps.  Under the simulator the kernel works on the host arrays.
    """
    from ..gpu_kernel import anneal_kernel, anneal_kernel_quadratic

    if cached is not None:
        raise ValueError("the GPU anneals with the 'local_field' or 'terms' kernel")
    kernel, m = (anneal_kernel, terms) if quad is None else (anneal_kernel_quadratic, quad)
    blocks = (a.x.shape[0] + threads_per_block - 1) // threads_per_block
    if device_kind() == "simulator":
        with quiet_overflow():
            kernel[blocks, threads_per_block](m, a, betas, lo, target)
        return
    dev_m = tuple_to_device(m)   # scalars stay
    dev_a = type(a)(*(to_device(x) for x in a))
    kernel[blocks, threads_per_block](dev_m, dev_a, to_device(betas), lo, target)
    for host, dev in zip(a, dev_a):
        host[...] = dev.copy_to_host()


class AnnealRoundGPU(DeviceChunks):
    """:func:`gpu_round` with the model and the replicas kept on the device between chunks, so a chunk
    moves only what the driver reads or writes: :func:`~qlib.solvers.sa.driver.run_sa` drives either.

    A chunk that copies every replica array both ways (the term counts and fields of 1024 replicas of a
    13,000-variable QUBO are hundreds of MB) is slower than its sweeps, and the driver, which sizes its
    chunks from the measured speed, then keeps them at a sweep or two.  Under the simulator the kernel
    works on the host arrays, as :func:`gpu_round` does, unless ``resident`` is True.
    ``seconds`` and ``launches`` say where the time went.
    """

    def __init__(self, threads_per_block: int = 128, resident: bool | None = None):
        super().__init__(threads_per_block, resident)
        self._model = None        # (host tuple, device tuple)
        self._arrays = None       # (host AnnealArrays, device AnnealArrays)

    def __call__(self, quad, cached, terms, a, betas, lo, target):
        """Sweeps ``lo`` to ``lo + len(betas)`` (the signature of :func:`gpu_round`)."""
        if not self.resident:
            t0 = time.perf_counter()
            gpu_round(quad, cached, terms, a, betas, lo, target, self.threads_per_block)
            self.seconds["kernel"] += time.perf_counter() - t0
            self.launches += 1
            return
        from numba import cuda

        from ..gpu_kernel import anneal_kernel, anneal_kernel_quadratic

        if cached is not None:
            raise ValueError("the GPU anneals with the 'local_field' or 'terms' kernel")
        kernel, m = (anneal_kernel, terms) if quad is None else (anneal_kernel_quadratic, quad)
        t0 = time.perf_counter()
        if self._model is None or self._model[0] is not m:
            self._model = (m, tuple_to_device(m))
        if self._arrays is None or self._arrays[0] is not a:
            self._arrays = (a, type(a)(*(to_device(x) for x in a)))
        elif lo == 0:
            for name in AnnealArrays.SENT_AT_START:
                getattr(self._arrays[1], name).copy_to_device(getattr(a, name))
        dev_a = self._arrays[1]
        t1 = time.perf_counter()
        blocks = (a.x.shape[0] + self.threads_per_block - 1) // self.threads_per_block
        with quiet_overflow():
            kernel[blocks, self.threads_per_block](self._model[1], dev_a, to_device(betas), lo, target)
        cuda.synchronize()
        t2 = time.perf_counter()
        for name in AnnealArrays.FETCHED:
            getattr(dev_a, name).copy_to_host(getattr(a, name))
        t3 = time.perf_counter()
        self.seconds["upload"] += t1 - t0
        self.seconds["kernel"] += t2 - t1
        self.seconds["download"] += t3 - t2
        self.launches += 1

    def sync(self, a):
        """Bring back what the kernel wrote and a chunk does not fetch (the best states), before the driver
        reads it."""
        if self.resident and self._arrays is not None and self._arrays[0] is a:
            t0 = time.perf_counter()
            for name in AnnealArrays.AT_END:
                getattr(self._arrays[1], name).copy_to_host(getattr(a, name))
            self.seconds["download"] += time.perf_counter() - t0


def run_sa_gpu(compiled, options, common, *, resident: bool | None = None):
    """Simulated annealing (:class:`~qlib.solvers.options.GPUSAOptions`) with ``num_replicas``
    replicas, one per CUDA thread.  ``resident``: see :class:`AnnealRoundGPU`."""
    require_device()
    entry = time.perf_counter()
    rng, states, target = start(compiled, options.num_replicas, common)
    kernel = choose_kernel(compiled, cached_deltas=False)   # a QUBO anneals on local fields, as on the CPU
    time_limit = time_left(common, entry)   # setup counts too
    rounds = AnnealRoundGPU(resident=resident)
    state, info = run_sa(compiled, rng, states, target, time_limit, num_sweeps=options.num_sweeps,
                         beta_range=options.beta_range, max_rounds=options.max_rounds, round_function=rounds,
                         kernel=kernel)
    info.update(backend="gpu", device=device_name(), kernel_launches=rounds.launches,
                device_seconds=dict(rounds.seconds))
    return state, info
