"""The GPU's device: whether one is there, and what the GPU runners of every algorithm share.

:func:`device_kind` says "cuda" with a usable device and "simulator" under
numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set before qlib is
imported; the tests run the GPU code that way on the CPU); asking for the GPU
when neither is there raises (:func:`require_device`: no silent fallback).
Arrays live in CuPy when it is installed (any ``cupy-cuda12x`` /
``cupy-cuda13x`` wheel), otherwise in numba device arrays.  The runners
(:mod:`qlib.solvers.sa.gpu`, :mod:`qlib.solvers.focused.gpu`) share the
transfers and :class:`DeviceChunks`.
"""

from __future__ import annotations

import contextlib
import os
import warnings

import numpy as np

__all__ = ["device_kind", "is_available", "device_name", "require_device", "quiet_overflow", "to_device",
           "tuple_to_device",
           "device_empty", "device_copy", "DeviceChunks"]


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
def quiet_overflow():
    """Quiet the simulator's NumPy about the generator's wrapping uint64 product (its threads do
    not inherit ``np.errstate``, so the warning filter is what reaches them)."""
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        yield


def to_device(array):
    """``array`` on the device, as a numba device array (held by CuPy when CuPy is installed), so
    that named tuples of them type as kernel arguments."""
    from numba import cuda

    try:
        import cupy
    except ImportError:
        return cuda.to_device(array)
    return cuda.as_cuda_array(cupy.asarray(array))


def tuple_to_device(arrays, send=None):
    """A named tuple of arrays (nested ones too, as :class:`~qlib.compile.KernelArrays`) with every NumPy array
    on the device: ``send(array, path)`` (``path`` the field's, as "terms.ptr"), by default
    :func:`to_device`; scalars stay as they are."""
    def move(value, path):
        if hasattr(value, "_fields"):
            return type(value)(*(move(x, f"{path}.{name}" if path else name) for name, x in zip(value._fields, value)))
        if isinstance(value, np.ndarray):
            return to_device(value) if send is None else send(value, path)
        return value
    return move(arrays, "")


def device_empty(shape, dtype):
    """An uninitialised device array (CuPy's memory pool when CuPy is installed; numba's for no elements)."""
    from numba import cuda

    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is None or 0 in tuple(shape):
        return cuda.device_array(shape, dtype=dtype)
    return cuda.as_cuda_array(cupy.empty(shape, dtype=dtype))


def device_copy(array):
    """``array`` on the device (an empty one too)."""
    array = np.ascontiguousarray(array)
    return device_empty(array.shape, array.dtype) if array.size == 0 else to_device(array)


class DeviceChunks:
    """What the two chunk runners share: where the kernel runs (the simulator works on the host arrays unless
    ``resident``), the block size, and the seconds and launches that say where the time went."""

    def __init__(self, threads_per_block: int = 128, resident: bool | None = None):
        self.simulated = device_kind() == "simulator"
        self.threads_per_block = int(threads_per_block)
        self.resident = (not self.simulated) if resident is None else bool(resident)
        self.seconds = {"upload": 0.0, "kernel": 0.0, "download": 0.0}
        self.launches = 0
