"""The CUDA kernel of the GPU backend, built from the CPU kernel's own source.

Each numba function of the annealing replica (:mod:`qlib.solvers.kernel`,
:func:`qlib.solvers.anneal.anneal_replica`) is recompiled as a CUDA device
function from its Python source, with its calls rebound to the device
versions, so the GPU runs line for line the code that the CPU runs and the
tests check.  Importing this module imports ``numba.cuda``.
"""

from __future__ import annotations

import types

from numba import cuda

from . import anneal, kernel

_CHAIN = [
    (kernel, "rng_next"), (kernel, "rng_uniform"), (kernel, "rng_below"), (kernel, "row_penalty"),
    (kernel, "init_state"), (kernel, "flip_delta"), (kernel, "apply_flip"), (anneal, "anneal_replica"),
]


def _device_functions() -> dict:
    device = {}
    for module, name in _CHAIN:
        py = getattr(module, name).py_func
        scope = dict(py.__globals__)
        scope.update(device)
        clone = types.FunctionType(py.__code__, scope, py.__name__, py.__defaults__, py.__closure__)
        device[name] = cuda.jit(device=True)(clone)
    return device


_DEVICE = _device_functions()
anneal_replica_device = _DEVICE["anneal_replica"]


@cuda.jit
def anneal_kernel(m, a, betas, lo, hi, target):
    """One replica per thread: ``anneal_replica`` on replica ``cuda.grid(1)`` (``m``: the
    model's :class:`~qlib.compile.KernelArrays`, ``a``: the :class:`~qlib.solvers.anneal.AnnealArrays`)."""
    rep = cuda.grid(1)
    if rep < a.states.shape[0]:
        anneal_replica_device(rep, m, a, betas, lo, hi, target)
