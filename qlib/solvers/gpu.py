"""GPU backend (CuPy).  Placeholder until the GPU kernel lands."""

from __future__ import annotations


def is_available() -> bool:
    try:
        import cupy

        return bool(cupy.cuda.is_available())
    except Exception:  # noqa: BLE001 - any import or driver failure means no GPU
        return False


def solve_gpu(compiled, *, seed, time_limit, target_energy, initial_state):
    raise RuntimeError("backend='gpu' needs CuPy and a CUDA device; none is usable here")
