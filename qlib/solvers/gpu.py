"""GPU backend: the annealing replica of :mod:`qlib.solvers.sa.kernel` and the focused search's
replica of :mod:`qlib.solvers.focused.kernel` as CUDA kernels.

One CUDA thread runs one replica with exactly the CPU code
(:func:`~qlib.solvers.sa.kernel.anneal_replica`,
:func:`~qlib.solvers.focused.kernel.replica_steps`, recompiled from their
source for the CUDA target by :mod:`qlib.solvers.gpu_kernel`), so the GPU runs
many replicas of the same search at once.  The focused search's driver
(:func:`qlib.solvers.focused.driver.run_focused`: separation calls, appending cuts
to the one pool that every replica reads, growing it) stays on the host
between chunks; the replicas take the new cuts on the device
(:class:`FocusedChunkGPU`).  Both keep the model and the replicas on the
device between chunks (:class:`AnnealRoundGPU` for annealing).  Arrays live
in CuPy when it is installed (any ``cupy-cuda12x`` / ``cupy-cuda13x`` wheel),
otherwise in numba device arrays.

The kernel takes the model's arrays and the replicas' arrays as two named
tuples (:class:`~qlib.compile.KernelArrays`, :class:`~qlib.solvers.sa.kernel.AnnealArrays`).

Without a GPU the same kernel runs under numba's CUDA simulator when
``NUMBA_ENABLE_CUDASIM=1`` is set before qlib is imported; the tests use that to
exercise this code path on the CPU.  ``info["device"]`` says which one ran.
Asking for the GPU when neither a device nor the simulator is there raises.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings

import numpy as np

from . import focused
from .sa.kernel import AnnealArrays
from .focused.kernel import Replicas
from .sa.driver import choose_kernel, run_sa
from .start import check_focused_stop, start, time_left

__all__ = ["device_kind", "is_available", "device_name", "gpu_round", "AnnealRoundGPU", "run_sa_gpu",
           "FocusedChunkGPU", "run_focused_gpu", "warmup", "require_device"]


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


def require_device() -> str:
    """The device kind; ``RuntimeError`` when neither a GPU nor the simulator is there (no silent fallback)."""
    kind = device_kind()
    if kind is None:
        raise RuntimeError(
            "backend='gpu' needs an NVIDIA GPU with a working CUDA driver and numba's CUDA support "
            "(pip install 'qlib-puzzles[gpu]'); none is usable here. Use backend='cpu', or 'auto' to choose."
        )
    return kind


@contextlib.contextmanager
def _wrapping():
    """Quiet the simulator's NumPy about the generator's wrapping uint64 product (its threads do
    not inherit ``np.errstate``, so the warning filter is what reaches them)."""
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        yield


def _to_device(array):
    """``array`` on the device, as a numba device array (held by CuPy when CuPy is installed), so
    that named tuples of them type as kernel arguments."""
    from numba import cuda

    try:
        import cupy
    except ImportError:
        return cuda.to_device(array)
    return cuda.as_cuda_array(cupy.asarray(array))


def gpu_round(quad, cached, terms, a, betas, lo, target, threads_per_block=128):
    """Sweeps ``lo`` to ``lo + len(betas)`` on the device; the same signature as the CPU
    :func:`~qlib.solvers.sa.kernel.anneal_round` (``threads_per_block`` aside), for the
    "local_field" and "terms" kernels (``cached`` is None).

    The arrays of ``a`` (:class:`~qlib.solvers.sa.kernel.AnnealArrays`), which the
    kernel writes, are copied back, so the host keeps the run's state between
    chunks of sweeps.  Under the simulator the kernel works on the host arrays.
    """
    from .gpu_kernel import anneal_kernel, anneal_kernel_quadratic

    if cached is not None:
        raise ValueError("the GPU anneals with the 'local_field' or 'terms' kernel")
    kernel, m = (anneal_kernel, terms) if quad is None else (anneal_kernel_quadratic, quad)
    blocks = (a.x.shape[0] + threads_per_block - 1) // threads_per_block
    if device_kind() == "simulator":
        with _wrapping():
            kernel[blocks, threads_per_block](m, a, betas, lo, target)
        return
    dev_m = type(m)(*(_to_device(x) if isinstance(x, np.ndarray) else x for x in m))   # scalars stay
    dev_a = type(a)(*(_to_device(x) for x in a))
    kernel[blocks, threads_per_block](dev_m, dev_a, _to_device(betas), lo, target)
    for host, dev in zip(a, dev_a):
        host[...] = dev.copy_to_host()




class _DeviceChunks:
    """What the two chunk runners share: where the kernel runs (the simulator works on the host arrays unless
    ``resident``), the block size, and the seconds and launches that say where the time went."""

    def __init__(self, threads_per_block: int = 128, resident: bool | None = None):
        self.simulated = device_kind() == "simulator"
        self.threads_per_block = int(threads_per_block)
        self.resident = (not self.simulated) if resident is None else bool(resident)
        self.seconds = {"upload": 0.0, "kernel": 0.0, "download": 0.0}
        self.launches = 0


class AnnealRoundGPU(_DeviceChunks):
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

        from .gpu_kernel import anneal_kernel, anneal_kernel_quadratic

        if cached is not None:
            raise ValueError("the GPU anneals with the 'local_field' or 'terms' kernel")
        kernel, m = (anneal_kernel, terms) if quad is None else (anneal_kernel_quadratic, quad)
        t0 = time.perf_counter()
        if self._model is None or self._model[0] is not m:
            self._model = (m, type(m)(*(_to_device(x) if isinstance(x, np.ndarray) else x for x in m)))
        if self._arrays is None or self._arrays[0] is not a:
            self._arrays = (a, type(a)(*(_to_device(x) for x in a)))
        elif lo == 0:
            for name in AnnealArrays.SENT_AT_START:
                getattr(self._arrays[1], name).copy_to_device(getattr(a, name))
        dev_a = self._arrays[1]
        t1 = time.perf_counter()
        blocks = (a.x.shape[0] + self.threads_per_block - 1) // self.threads_per_block
        with _wrapping():
            kernel[blocks, self.threads_per_block](self._model[1], dev_a, _to_device(betas), lo, target)
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


def _empty(shape, dtype):
    """An uninitialised device array (CuPy's memory pool when CuPy is installed; numba's for no elements)."""
    from numba import cuda

    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is None or 0 in tuple(shape):
        return cuda.device_array(shape, dtype=dtype)
    return cuda.as_cuda_array(cupy.empty(shape, dtype=dtype))


def _up(array):
    """``array`` on the device (an empty one too)."""
    array = np.ascontiguousarray(array)
    return _empty(array.shape, array.dtype) if array.size == 0 else _to_device(array)




class FocusedChunkGPU(_DeviceChunks):
    """:func:`~qlib.solvers.focused.kernel.focused_chunk` on the device, one replica per CUDA thread:
    the same call, so :func:`~qlib.solvers.focused.driver.run_focused` drives either.

    The replicas stay on the device between chunks, and so does the cut pool,
    which every replica reads: a chunk sends the replicas' statuses and
    separation waits, the pool's new cuts and the replicas' :class:`~qlib.solvers.focused.kernel.CutNews`
    (which cuts each takes), and brings back the statuses, step counts and
    energies, and the states of the replicas that wait for a separation call.
    When the pool grows, the replicas' wider arrays are filled on the device.
    Under the simulator the kernel works on the host arrays, as :func:`gpu_round`
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
        from .gpu_kernel import copy_columns

        held = self._held.get((group, name))
        if held is not None and held[0] is host:
            if send:
                held[1].copy_to_device(host)
            return held[1]
        dev = _up(host)
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

        from .focused.kernel import WAITING
        from .gpu_kernel import focused_kernel_gpu, gather_rows

        blocks, threads = self._grid(R.x.shape[0])
        if not self.resident:
            t0 = time.perf_counter()
            with _wrapping():
                focused_kernel_gpu[blocks, threads](m, rows, p, R, C, news, end_steps)
            self.seconds["kernel"] += time.perf_counter() - t0
            self.launches += 1
            return 0
        t0 = time.perf_counter()
        dev_m = type(m)(*(self._device("m", str(k), x, False) if isinstance(x, np.ndarray) else x
                          for k, x in enumerate(m)))
        dev_rows = type(rows)(*(self._device("rows", name, x, False) for name, x in zip(rows._fields, rows)))
        dev_R = type(R)(*(self._device("R", name, x, name in Replicas.SENT) for name, x in zip(R._fields, R)))
        dev_C = self._pool(C)
        if self._fold is None or self._fold[0] is not news.fold:
            self._fold = (news.fold, _up(news.fold))
        dev_news = type(news)(_up(news.ptr), _up(news.cuts), self._fold[1])
        dev_end = _up(np.asarray(end_steps, dtype=np.int64))
        t1 = time.perf_counter()
        with _wrapping():
            focused_kernel_gpu[blocks, threads](dev_m, dev_rows, p, dev_R, dev_C, dev_news, dev_end)
        cuda.synchronize()
        t2 = time.perf_counter()
        for name in Replicas.FETCHED:
            getattr(dev_R, name).copy_to_host(getattr(R, name))
        waiting = np.flatnonzero(R.status == WAITING)
        if waiting.size:   # the states the separation function reads
            stage = _empty((waiting.size, R.x.shape[1]), R.x.dtype)
            blocks, threads = self._launch_size(stage.size)
            gather_rows[blocks, threads](dev_R.x, _up(waiting), stage)
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
    state, info = focused.run_focused(compiled, rng[:options.num_replicas], states, target, time_limit,
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
    from ..constraints import cons
    from ..compile import compile
    from ..expr import var

    start = time.perf_counter()
    _WARM.append(True)
    a = var("_gpu_warmup", 3)
    focused.warmup_cuts(compile(0 + cons(a[0] + a[1] + a[2] == 1, label="warmup")), chunk_function=FocusedChunkGPU())
    return time.perf_counter() - start
