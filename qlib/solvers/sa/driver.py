"""The simulated-annealing driver, shared by the CPU and GPU backends.

:func:`run_sa` runs rounds of sweeps (the first from the given states, then
random restarts) in chunks sized from the measured speed, reads the clock
between chunks and picks the winner; a *round function* runs the sweeps of one
chunk on every replica: :func:`qlib.solvers.sa.kernel.anneal_round` on the CPU
cores, :class:`qlib.solvers.sa.gpu.AnnealRoundGPU` on a CUDA device (the model and replicas kept
there between chunks).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ...stop import SOLVER, stop_reason
from .kernel import AnnealArrays, sample_deltas
from ..core import random_bits
from .local_field import field_width, has_rows, in_sweep_order, ising_beta_range, quadratic_arrays

__all__ = ["run_sa", "choose_kernel", "model_forms", "sweep_order", "default_beta_range", "new_arrays",
           "chunk_seconds"]


def default_beta_range(compiled, rng_state) -> tuple[float, float]:
    """Hot and cold inverse temperatures from the sizes of single-flip deltas.

    As in dwave-samplers: the hot end accepts the largest uphill move with
    probability 1/2, the cold end the smallest with probability 1/100.
    """
    gen = np.random.Generator(np.random.PCG64(int(rng_state)))
    literals = len(compiled.term_vars) + 1
    num_probes = int(min(8, max(1, 4_000_000 // (literals * max(1, compiled.var_count) // 64 + 1))))
    probes = gen.integers(0, 2, size=(num_probes, compiled.var_count), dtype=np.uint8)
    deltas = sample_deltas(compiled.kernel_arrays(), probes, compiled.term_count, compiled.num_rows)
    nonzero = deltas[deltas > 1e-12]
    if nonzero.size == 0:
        return 0.1, 1.0
    return math.log(2.0) / float(nonzero.max()), math.log(100.0) / float(nonzero.min())


def chunk_seconds(time_limit: float) -> float:
    """How long one chunk of sweeps aims to run: 20 ms plus 2 % of the time limit, at most 0.2 s.

    Longer chunks cost fewer parallel launches (each wakes the threads); the
    clock is read between chunks, so a chunk's length bounds how far a run can
    pass its time limit, well inside 10 % of it plus 50 ms.
    """
    return min(0.2, 0.02 + 0.02 * float(time_limit))


def new_arrays(compiled, rng, states, fields: bool = False) -> AnnealArrays:
    """The :class:`~qlib.solvers.sa.kernel.AnnealArrays` of a run from ``states``, replica ``k`` seeded by ``rng[k]``;
    ``fields``: room for the local fields of :mod:`qlib.solvers.sa.local_field` (with its spare ones)."""
    num_replicas = states.shape[0]
    padded_rng = np.zeros((num_replicas, 8), dtype=np.uint64)  # one cache line per replica
    padded_rng[:, 0] = rng[:num_replicas]
    return AnnealArrays(
        x=states, rng=padded_rng,
        false_count=np.zeros((num_replicas, compiled.term_count), dtype=np.int32),
        lhs=np.zeros((num_replicas, compiled.num_rows)), row_delta=np.zeros((num_replicas, compiled.num_rows)),
        energy=np.zeros(num_replicas), best_x=np.empty_like(states), best_energy=np.empty(num_replicas),
        flips=np.zeros(num_replicas, dtype=np.int64),
        hit=np.zeros(num_replicas, dtype=np.int64),   # when each replica reached the target (0: not yet)
        field=np.zeros((num_replicas, field_width(compiled.var_count) if fields else 0)))


def choose_kernel(compiled, cached_deltas: bool = True) -> str:
    """The kernel that anneals ``compiled``: "local_field" for a plain QUBO, else "cached_delta" for a
    model without rows (when ``cached_deltas``), else "terms"."""
    if compiled.derived("quadratic", quadratic_arrays) is not None:
        return "local_field"
    return "cached_delta" if cached_deltas and not has_rows(compiled) else "terms"


def model_forms(compiled, kernel: str) -> tuple:
    """``(quad, cached, terms)`` for :func:`~qlib.solvers.sa.kernel.anneal_replica`: the model in the form
    ``kernel`` reads, None for the other two."""
    if kernel == "local_field":
        return _swept(compiled)[0], None, None
    if kernel == "cached_delta":
        return None, compiled.kernel_arrays(), None
    if kernel == "terms":
        return None, None, compiled.kernel_arrays()
    raise ValueError(f"kernel must be 'local_field', 'cached_delta' or 'terms', got {kernel!r}")


def sweep_order(compiled, kernel: str) -> np.ndarray | None:
    """Where the form :func:`model_forms` gives ``kernel`` numbers the variables its own way (the local
    fields' sweep order, :func:`~qlib.solvers.sa.local_field.in_sweep_order`), that order: position ``k`` holds
    variable ``order[k]``; else None."""
    return _swept(compiled)[1] if kernel == "local_field" else None


def _swept(compiled):
    """The local fields' arrays in sweep order, and the order (made once per model)."""
    return compiled.derived("quadratic_swept", lambda c: in_sweep_order(c.derived("quadratic", quadratic_arrays)))


def run_sa(compiled, rng, states, target, time_limit, *, num_sweeps, beta_range, max_rounds, round_function,
           kernel="terms"):
    """Annealing rounds (the first from ``states``, then random restarts) until the
    target, the time limit or ``max_rounds``; returns (state, info).

    ``rng`` holds one generator state per replica and one more for the driver;
    ``target`` is relative to the model's offset (``-inf``: none).  Without a
    target one round runs unless ``max_rounds`` says more; with one, rounds go
    on until the target or the time limit.  ``beta_range`` None: from
    :func:`default_beta_range`, or for a quadratic model dwave-samplers' rule
    (:func:`~qlib.solvers.sa.local_field.ising_beta_range`).  A round runs in chunks of sweeps sized from the
    measured speed (:func:`chunk_seconds` each), so the clock is read often.
    ``round_function(quad, cached, terms, arrays, betas, lo, target)`` runs
    sweeps ``lo`` to ``lo + len(betas)`` on every replica, given the model in the one of its
    three forms that ``kernel`` names ("local_field", "cached_delta" or "terms";
    :func:`model_forms`); the first two keep a field per variable.  A ``round_function`` with a ``sync(arrays)``
    method (:class:`~qlib.solvers.sa.gpu.AnnealRoundGPU`) is asked to bring the best states up to date before the
    driver reads them.  Ctrl-C ends it with ``stop_reason="interrupted"``.
    The options come checked (:class:`~qlib.solvers.options.SAOptions`).
    """
    start = time.perf_counter()
    num_replicas = states.shape[0]
    if max_rounds is None:
        max_rounds = 1 if not np.isfinite(target) else None
    models = model_forms(compiled, kernel)
    if beta_range is None:
        beta_range = (default_beta_range(compiled, rng[-1]) if models[0] is None
                      else compiled.derived("ising_beta_range", lambda _: ising_beta_range(models[0])))
    hot, cold = (float(b) for b in beta_range)
    log_ratio = math.log(cold / hot) / max(num_sweeps - 1, 1)
    order = sweep_order(compiled, kernel)
    if order is not None:
        states = states[:, order]   # in the kernel's numbering until the end
    a = new_arrays(compiled, rng, states, fields=kernel != "terms")
    best_state, best_energy = states[0].copy(), np.inf
    deadline = start + time_limit
    span = chunk_seconds(time_limit)
    # the first chunk: about 10**5 updates (a millisecond or so), then sized from the measured speed
    rounds, status, chunk, sampling = 0, None, max(1, 100_000 // (compiled.var_count * num_replicas + 1)), 0.0
    span_betas, betas = None, None
    restarts = np.array([rng[-1] ^ np.uint64(0x5DEECE66D) or np.uint64(1)])   # the driver's own stream (never 0)
    sync = getattr(round_function, "sync", lambda arrays: None)   # a device round's arrays, before reading them
    try:
        while status is None:
            if rounds > 0:  # restart from random states, in place (a round costs microseconds on a small model)
                random_bits(a.x, restarts, 0)
            lo = 0
            while lo < num_sweeps:
                hi = min(num_sweeps, lo + chunk)
                t0 = time.perf_counter()
                if span_betas != (lo, hi):   # geometric, hot to cold; a round that repeats a chunk reuses it
                    span_betas, betas = (lo, hi), hot * np.exp(log_ratio * np.arange(lo, hi))
                round_function(*models, a, betas, lo, target)
                elapsed = time.perf_counter() - t0
                sampling += elapsed
                done, lo = hi - lo, hi
                if a.hit.any():
                    break
                now = time.perf_counter()
                if now >= deadline:
                    status = "time_limit"
                    break
                rate = done / max(elapsed, 1e-6)   # sweeps per second
                chunk = int(max(1, min(rate * min(span, deadline - now), 4 * chunk)))
            rounds += 1
            sync(a)
            k = int(np.argmin(a.best_energy))  # first replica among equals: deterministic
            if a.best_energy[k] < best_energy:
                best_energy, best_state = a.best_energy[k], a.best_x[k].copy()
            if a.hit.any():
                # the first to get there (then the lowest index): the same whatever the chunks
                k = int(np.argmin(np.where(a.hit > 0, a.hit, np.iinfo(np.int64).max)))
                best_state = a.best_x[k].copy()
                status = "target_energy"
            elif status is None and max_rounds is not None and rounds >= max_rounds:
                status = "max_rounds"
    except KeyboardInterrupt:
        status = "interrupted"
        sync(a)
        k = int(np.argmin(a.best_energy))
        if a.best_energy[k] < best_energy:
            best_state = a.best_x[k].copy()
    replica_states = a.best_x.copy()
    if order is not None:   # back to the model's numbering
        inverse = np.argsort(order)
        best_state, replica_states = best_state[inverse], replica_states[:, inverse]
    info = dict(algorithm="sa", kernel=kernel, num_replicas=num_replicas, num_sweeps=int(num_sweeps),
                beta_range=(hot, cold), rounds=rounds, flips=int(a.flips.sum()),
                stop_reason=stop_reason(status, SOLVER),
                sampling_seconds=sampling,
                replica_states=replica_states, replica_energies=a.best_energy + compiled.offset)
    return best_state, info
