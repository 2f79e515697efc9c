"""GPU backend: the annealing replica of :mod:`qlib.solvers.sa.kernel` and the focused search's
replica of :mod:`qlib.solvers.focused.kernel` as CUDA kernels.

One CUDA thread runs one replica with exactly the CPU code
(:func:`~qlib.solvers.sa.kernel.anneal_replica`,
:func:`~qlib.solvers.focused.kernel.replica_steps`, recompiled from their
source for the CUDA target by :mod:`qlib.solvers.gpu_kernel`), so the GPU runs
many replicas of the same search at once.  Each algorithm's runner lives in
its package (:mod:`qlib.solvers.sa.gpu`, :mod:`qlib.solvers.focused.gpu`); the
device checks and transfers they share in :mod:`qlib.solvers.device`.  This
module is the backend's one door to them, as the puzzles and
:func:`qlib.solve` use it.

Without a GPU the same kernels run under numba's CUDA simulator when
``NUMBA_ENABLE_CUDASIM=1`` is set before qlib is imported; the tests use that to
exercise this code path on the CPU.  ``info["device"]`` says which one ran.
Asking for the GPU when neither a device nor the simulator is there raises.
"""

from __future__ import annotations

from .device import device_kind, device_name, is_available, require_device
from .focused.gpu import FocusedChunkGPU, run_focused_gpu, warmup
from .sa.gpu import AnnealRoundGPU, gpu_round, run_sa_gpu

__all__ = ["device_kind", "is_available", "device_name", "gpu_round", "AnnealRoundGPU", "run_sa_gpu",
           "FocusedChunkGPU", "run_focused_gpu", "warmup", "require_device"]
