"""What every backend does before it hands a search to its driver, in one place for the CPU and the GPU.

:func:`start` checks that the replicas fit in memory, derives their random
streams and start states from the seed, and puts the target relative to the
model's offset; :func:`time_left` charges that setup to the time limit.  A
backend runner is then only its own kernels and options.
"""

from __future__ import annotations

import time

import numpy as np

from ..limits import check_allocation
from .seeding import initial_states, seed_sequence

__all__ = ["check_replica_memory", "check_focused_stop", "start", "time_left"]


def check_replica_memory(compiled, num_replicas: int) -> None:
    """Refuse replica counts whose per-replica arrays would not fit in memory."""
    per_replica = 8 * (4 * compiled.var_count + 3 * compiled.term_count + 4 * compiled.num_rows + 24)
    check_allocation(num_replicas * per_replica, f"{num_replicas} replicas")


def check_focused_stop(options, common) -> None:
    """The focused search stops at a target, a separation's verdict or a step cap: it needs one of them."""
    if common.target_energy is None and options.max_steps is None and options.lazy_cuts is None:
        raise ValueError("algorithm='focused' needs a target_energy, lazy_cuts or max_steps to know when to stop")


def start(compiled, num_replicas: int, common):
    """``(rng, states, target)``: one generator state per replica plus the driver's, the replicas' start
    states (``common.initial_state`` or random) and the target energy without the offset (-inf: none)."""
    check_replica_memory(compiled, num_replicas)
    rng = seed_sequence(common.seed, num_replicas + 1)
    states = initial_states(compiled, common.initial_state, num_replicas, rng[-1])
    target = -np.inf if common.target_energy is None else common.target_energy - compiled.offset
    return rng, states, target


def time_left(common, entry: float) -> float:
    """The time limit less what the setup since ``entry`` (a ``time.perf_counter()`` value) took."""
    return max(common.time_limit - (time.perf_counter() - entry), 1e-3)
