"""The focused search with lazy cuts, one algorithm in two parts: :mod:`.driver` (:func:`~.driver.run_focused`:
chunks, separation calls, the cut pool; the CPU and GPU backends share it) and :mod:`.kernel` (the numba
kernels: one replica's steps, :func:`~.kernel.replica_steps`, and the CPU's parallel chunk).  The GPU backend
runs the same replica kernel, recompiled for the device (:mod:`qlib.solvers.gpu_kernel`)."""

from .driver import (POOL_BYTES, CutBook, LazyCuts, grow_pool, new_pool, new_replicas, pack_cuts, pool_capacity,
                     run_focused, warmup_cuts)

__all__ = ["LazyCuts", "run_focused", "warmup_cuts", "pack_cuts", "new_replicas", "new_pool", "grow_pool",
           "pool_capacity", "CutBook", "POOL_BYTES"]
