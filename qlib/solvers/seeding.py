"""Seeds and start states: what makes a search the same for the same seed.

A seed becomes one 64-bit generator state per replica (splitmix64, as every
backend's :func:`~qlib.solvers.core.rng_next` expects: never 0), plus one
more for the driver's own draws (random start states, restarts, probes).
"""

from __future__ import annotations

import numpy as np

from .. import validate
from ..compile import CompiledModel
from ..result import Solution

__all__ = ["draw_seed", "seed_sequence", "initial_states", "transfer_state"]

_MASK = (1 << 64) - 1


def seed_sequence(seed, count: int) -> np.ndarray:
    """``count`` non-zero 64-bit generator states derived from the non-negative integer ``seed`` (splitmix64)."""
    seed = validate.seed(seed, none=False)
    state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK
    out = np.empty(count, dtype=np.uint64)
    for k in range(count):
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        out[k] = z or 1
    return out


def draw_seed() -> int:
    """A fresh seed from the operating system's entropy, below 2**63 (recorded in ``info["seed"]``)."""
    entropy = int(np.random.SeedSequence().entropy % (2**63))
    return int(seed_sequence(entropy, 1)[0] >> np.uint64(1))


def initial_states(compiled: CompiledModel, initial_state, num_replicas: int, rng_state) -> np.ndarray:
    """Every replica's start state, shape (``num_replicas``, N).

    ``initial_state`` (a state, a batch of one state per replica, a
    {variable: value} mapping, or a previous :class:`~qlib.result.Solution`,
    whose values carry over by label) when given, else random states drawn
    from the generator state ``rng_state``.
    """
    if initial_state is not None:
        if isinstance(initial_state, Solution):
            initial_state = transfer_state(initial_state, compiled)
        start = compiled.as_states(initial_state)
        if start.ndim == 1:
            return np.tile(start, (num_replicas, 1))
        if start.shape[0] != num_replicas:
            raise ValueError(f"initial_state holds {start.shape[0]} states for {num_replicas} replicas")
        return start.copy()
    gen = np.random.Generator(np.random.PCG64(int(rng_state)))
    return gen.integers(0, 2, size=(num_replicas, compiled.var_count), dtype=np.uint8)


def transfer_state(solution: Solution, compiled: CompiledModel) -> np.ndarray:
    """A previous solution's values on this model's variables (new variables start at 0)."""
    old = solution.compiled
    state = np.zeros(compiled.var_count, dtype=np.uint8)
    common, new_pos, old_pos = np.intersect1d(compiled.var_ids, old.var_ids, return_indices=True)
    state[new_pos] = solution.state[old_pos]
    return state
