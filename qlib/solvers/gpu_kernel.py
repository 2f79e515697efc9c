"""The CUDA kernels of the GPU backend, built from the CPU kernels' own source.

The per-replica functions (:func:`qlib.solvers.sa.kernel.anneal_replica`,
:func:`qlib.solvers.focused.kernel.replica_steps`) and every numba function
they call, found in their code, are recompiled as CUDA device functions from
their Python source, with their calls rebound to the device versions, so the
GPU runs line for line the code that the CPU runs and the tests check.
Importing this module imports ``numba.cuda``.
"""

from __future__ import annotations

import types

from numba import cuda
from numba.core.dispatcher import Dispatcher

from .focused import kernel as focused_kernel
from .sa import kernel as anneal


def numba_callees(function) -> list:
    """The numba functions ``function`` calls (through its module's globals), directly or not, callees first."""
    out, seen = [], set()

    def visit(f):
        if id(f) in seen:
            return
        seen.add(id(f))
        py = f.py_func
        for name in py.__code__.co_names:
            value = py.__globals__.get(name)
            if isinstance(value, Dispatcher):
                visit(value)
        out.append(f)
    visit(function)
    return out[:-1]


def _device_function(function, device: dict):
    """``function`` as a CUDA device function whose calls of numba functions go to their device versions."""
    if function in device:
        return device[function]
    py = function.py_func
    scope = dict(py.__globals__)
    for name in py.__code__.co_names:
        value = py.__globals__.get(name)
        if isinstance(value, Dispatcher):
            scope[name] = _device_function(value, device)
    clone = types.FunctionType(py.__code__, scope, py.__name__, py.__defaults__, py.__closure__)
    device[function] = cuda.jit(device=True)(clone)
    return device[function]


_DEVICE: dict = {}
anneal_replica_device = _device_function(anneal.anneal_replica, _DEVICE)
replica_steps_device = _device_function(focused_kernel.replica_steps, _DEVICE)
RUNNING = focused_kernel.RUNNING


@cuda.jit
def anneal_kernel(m, a, betas, lo, target):
    """One replica per thread: ``anneal_replica`` on replica ``cuda.grid(1)`` with the "terms" kernel (``m``:
    the model's :class:`~qlib.compile.KernelArrays`, ``a``: the :class:`~qlib.solvers.sa.kernel.AnnealArrays`)."""
    rep = cuda.grid(1)
    if rep < a.x.shape[0]:
        anneal_replica_device(rep, None, None, m, a, betas, lo, target)


@cuda.jit
def anneal_kernel_quadratic(q, a, betas, lo, target):
    """One replica per thread: ``anneal_replica`` on replica ``cuda.grid(1)`` with local fields
    (``q``: the model's :class:`~qlib.solvers.sa.local_field.QuadArrays`)."""
    rep = cuda.grid(1)
    if rep < a.x.shape[0]:
        anneal_replica_device(rep, q, None, None, a, betas, lo, target)


@cuda.jit
def focused_kernel_gpu(m, rows, p, R, C, news, end_steps):
    """One replica per thread: :func:`~qlib.solvers.focused.kernel.focused_chunk`'s loop body on
    replica ``cuda.grid(1)``: its new cuts, then its focused steps up to ``end_steps[rep]``, while it
    is running."""
    rep = cuda.grid(1)
    if rep < R.x.shape[0] and R.status[rep] == RUNNING:
        replica_steps_device(rep, m, rows, p, R, C, news, end_steps[rep])


@cuda.jit
def copy_columns(src, dst):
    """``dst[:, :w] = src[:, :w]``, ``w`` the narrower width (a grid-stride loop over the elements):
    moves the used columns of a wide per-replica array to or from a contiguous staging array."""
    width = min(src.shape[1], dst.shape[1])
    for i in range(cuda.grid(1), src.shape[0] * width, cuda.gridsize(1)):
        r = i // width
        c = i - r * width
        dst[r, c] = src[r, c]


@cuda.jit
def gather_rows(src, rows, dst):
    """``dst[k, :] = src[rows[k], :]`` (a grid-stride loop): the states of the replicas the host reads."""
    width = src.shape[1]
    for i in range(cuda.grid(1), rows.shape[0] * width, cuda.gridsize(1)):
        k = i // width
        c = i - k * width
        dst[k, c] = src[rows[k], c]
