"""Simulated annealing, one algorithm in three parts: :mod:`.driver` (rounds of sweeps in chunks sized from
the measured speed, the winner; the CPU and GPU backends share it), :mod:`.kernel` (one replica's sweeps,
:func:`~.kernel.anneal_replica`, and the CPU's parallel round) and :mod:`.local_field` (the local fields of a
plain QUBO).  The GPU backend runs the same replica kernel, recompiled for the device
(:mod:`qlib.solvers.gpu_kernel`)."""

from .driver import chunk_seconds, choose_kernel, default_beta_range, model_forms, new_arrays, run_sa, sweep_order
from .kernel import AnnealArrays

__all__ = ["run_sa", "choose_kernel", "model_forms", "sweep_order", "default_beta_range", "new_arrays",
           "chunk_seconds", "AnnealArrays"]
