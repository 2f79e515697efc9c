"""Solver backends and the :func:`~qlib.solve` front door (:data:`~qlib.solvers.api.REGISTRY`: backends and
their algorithms).  What the puzzles use comes from here: the checks of :func:`qlib.solve`'s options before a
solve, ``algorithm="auto"``'s choice, the lazy cuts and the GPU module's device checks."""

from . import gpu
from .api import BACKENDS, REGISTRY, check_options, solve, warmup
from .cpu import choose_algorithm
from .focused import LazyCuts

__all__ = ["solve", "warmup", "BACKENDS", "REGISTRY", "check_options", "choose_algorithm", "LazyCuts", "gpu"]
