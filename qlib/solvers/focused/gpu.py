"""The focused search on the GPU: one replica per CUDA thread, the CPU's replica kernel recompiled
(:func:`qlib.solvers.gpu_kernel.focused_kernel_gpu`), driven by the CPU's driver
(:func:`~qlib.solvers.focused.driver.run_focused`: separation calls, appending cuts to the one pool that
every replica reads, growing it, all on the host between chunks); the replicas take the new cuts on the
device (:class:`FocusedChunkGPU`), where the model, the replicas and the pool stay between chunks.
"""

from __future__ import annotations

import time

import numpy as np

from ..device import (DeviceChunks, device_copy, device_empty, device_kind, device_name, quiet_overflow,
                      require_device, tuple_to_device)
from ..start import check_focused_stop, start, time_left
from .driver import run_focused, warmup_cuts
from .kernel import WAITING, Replicas

__all__ = ["FocusedChunkGPU", "run_focused_gpu", "warmup", "THREADS_PER_BLOCK", "CHUNK_SECONDS", "POOL_BYTES"]


class FocusedChunkGPU(DeviceChunks):
    """:func:`~qlib.solvers.focused.kernel.focused_chunk` on the device, one replica per CUDA thread:
    the same call, so :func:`~qlib.solvers.focused.driver.run_focused` drives either.

    The replicas stay on the device between chunks, and so does the cut pool,
    which every replica reads: a chunk sends the replicas' statuses and
    separation waits, the pool's new cuts and the replicas' :class:`~qlib.solvers.focused.kernel.CutNews`
    (which cuts each takes), and brings back the statuses, step counts and
    energies, and the states of the replicas that wait for a separation call.
    When the pool grows, the replicas' wider arrays are filled on the device.
    Under the simulator the kernel works on the host arrays, as :func:`~qlib.solvers.sa.gpu.gpu_round`
    does, unless ``resident`` is True.  ``seconds`` and ``launches`` say where
    the time went.
    """

    def __init__(self, threads_per_block: int = 128, resident: bool | None = None):
        super().__init__(threads_per_block, resident)
        self._held = {}           # (tuple name, field) -> (host array, device array)
        self._pool_sent = -1      # cuts in the device's copy of the pool
        self._fold = None         # (host fold order, device copy)

    def _grid(self, P):
        threads = max(1, min(self.threads_per_block, P if self.simulated else 32 * -(-P // 32)))
        return -(-P // threads), threads

    def _launch_size(self, total):
        return (1, 8) if self.simulated else (max(1, min(-(-total // 256), 4096)), 256)

    def _device(self, group, name, host, send):
        """The device copy of ``host``: new (and sent) for a new array, else sent if ``send``.  A new
        replica array of a field the device holds (the pool grew: the array is as wide or wider) is filled
        from the device's own columns, the host's being stale."""
        from ..gpu_kernel import copy_columns

        held = self._held.get((group, name))
        if held is not None and held[0] is host:
            if send:
                held[1].copy_to_device(host)
            return held[1]
        dev = device_copy(host)
        if held is not None and group == "R" and host.ndim == 2 and held[1].shape[1] <= host.shape[1]:
            blocks, threads = self._launch_size(host.shape[0] * held[1].shape[1])
            copy_columns[blocks, threads](held[1], dev)   # the kernel's columns over the host's stale ones
        self._held[(group, name)] = (host, dev)
        return dev

    def _pool(self, C):
        """The device's pool: sent whole when new or grown, else its new cuts when it has any."""
        count = int(C.count[0])
        fresh = any(self._held.get(("C", name), (None,))[0] is not host for name, host in zip(C._fields, C))
        out = [self._device("C", name, host, fresh) for name, host in zip(C._fields, C)]
        if not fresh and count != self._pool_sent:
            lits = int(C.ptr[count])
            for name, host, dev in zip(C._fields, C, out):
                used = {"ptr": count + 1, "hash": count, "count": host.size, "head": host.size}.get(name, lits)
                if used:
                    dev[:used].copy_to_device(host[:used])
        self._pool_sent = count
        return type(C)(*out)

    def __call__(self, m, rows, p, R, C, news, end_steps):
        """Run the chunk (see :func:`~qlib.solvers.focused.kernel.focused_chunk`); returns 0."""
        from numba import cuda

        from ..gpu_kernel import focused_kernel_gpu, gather_rows

        blocks, threads = self._grid(R.x.shape[0])
        if not self.resident:
            t0 = time.perf_counter()
            with quiet_overflow():
                focused_kernel_gpu[blocks, threads](m, rows, p, R, C, news, end_steps)
            self.seconds["kernel"] += time.perf_counter() - t0
            self.launches += 1
            return 0
        t0 = time.perf_counter()
        dev_m = tuple_to_device(m, lambda x, path: self._device("m", path, x, False))
        dev_rows = type(rows)(*(self._device("rows", name, x, False) for name, x in zip(rows._fields, rows)))
        dev_R = type(R)(*(self._device("R", name, x, name in Replicas.SENT) for name, x in zip(R._fields, R)))
        dev_C = self._pool(C)
        if self._fold is None or self._fold[0] is not news.fold:
            self._fold = (news.fold, device_copy(news.fold))
        dev_news = type(news)(device_copy(news.ptr), device_copy(news.cuts), self._fold[1])
        dev_end = device_copy(np.asarray(end_steps, dtype=np.int64))
        t1 = time.perf_counter()
        with quiet_overflow():
            focused_kernel_gpu[blocks, threads](dev_m, dev_rows, p, dev_R, dev_C, dev_news, dev_end)
        cuda.synchronize()
        t2 = time.perf_counter()
        for name in Replicas.FETCHED:
            getattr(dev_R, name).copy_to_host(getattr(R, name))
        waiting = np.flatnonzero(R.status == WAITING)
        if waiting.size:   # the states the separation function reads
            stage = device_empty((waiting.size, R.x.shape[1]), R.x.dtype)
            blocks, threads = self._launch_size(stage.size)
            gather_rows[blocks, threads](dev_R.x, device_copy(waiting), stage)
            R.x[waiting] = stage.copy_to_host()
        t3 = time.perf_counter()
        self.seconds["upload"] += t1 - t0
        self.seconds["kernel"] += t2 - t1
        self.seconds["download"] += t3 - t2
        self.launches += 1
        return 0

    def sync(self, R):
        """Bring back what the driver reads at the end and a chunk does not fetch (states, best states and
        energies, which cuts each replica took)."""
        if not self.resident:
            return
        t0 = time.perf_counter()
        for name in Replicas.AT_END:
            held, host = self._held.get(("R", name)), getattr(R, name)
            if held is None:
                continue
            if held[0] is host:
                held[1].copy_to_host(host)
            else:   # the pool grew after the last chunk: the device holds the leading columns
                host[:, :held[1].shape[1]] = held[1].copy_to_host()
        self.seconds["download"] += time.perf_counter() - t0


#: Threads per block of the focused kernel, and the seconds of steps a chunk aims at: longer than
#: the CPU's 20 ms, since a launch and its transfers cost more than a parallel loop's start.
THREADS_PER_BLOCK = 128
CHUNK_SECONDS = 0.1
#: Bytes the replicas' counters of the pool's cuts may take at the start (the pool grows when full,
#: losing no cut): more than the CPU's :data:`~qlib.solvers.focused.driver.POOL_BYTES`, since a growth copies
#: the replicas' counters on the device.
POOL_BYTES = 1 << 30


def run_focused_gpu(compiled, options, common, *, resident: bool | None = None):
    """The focused search (:class:`~qlib.solvers.options.GPUFocusedOptions`) with ``num_replicas``
    replicas, one per CUDA thread; separation and cut pooling on the host between chunks.
    ``resident``: see :class:`FocusedChunkGPU`."""
    require_device()
    check_focused_stop(options, common)
    jit = warmup()   # compiling the kernel is no part of the search's time
    entry = time.perf_counter()
    rng, states, target = start(compiled, options.num_replicas, common)
    chunk = FocusedChunkGPU(THREADS_PER_BLOCK, resident=resident)
    time_limit = time_left(common, entry)
    state, info = run_focused(compiled, rng[:options.num_replicas], states, target, time_limit,
                                      noise=options.noise, tabu_tenure=options.tabu_tenure,
                                      weight_smoothing=options.weight_smoothing,
                                      lazy=options.lazy_cuts, max_steps=options.max_steps,
                                      share_cuts=options.share_cuts, share_interval=options.share_interval,
                                      chunk_function=chunk, chunk_seconds=CHUNK_SECONDS, pool_bytes=POOL_BYTES)
    info.update(backend="gpu", device=device_name(), threads_per_block=THREADS_PER_BLOCK,
                kernel_launches=chunk.launches, device_seconds=dict(chunk.seconds), device_jit_seconds=jit)
    return state, info


_WARM = []


def warmup() -> float:
    """Compile the focused search's CUDA kernels once per process, on a tiny model with lazy cuts;
    seconds (0 once warm, and under the simulator, which compiles nothing)."""
    if _WARM or device_kind() != "cuda":
        return 0.0
    from ...compile import compile
    from ...constraints import cons
    from ...expr import var

    start = time.perf_counter()
    _WARM.append(True)
    a = var("_gpu_warmup", 3)
    warmup_cuts(compile(0 + cons(a[0] + a[1] + a[2] == 1, label="warmup")), chunk_function=FocusedChunkGPU())
    return time.perf_counter() - start
