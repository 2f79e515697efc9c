"""Solver backends and the :func:`~qlib.solve` front door (:data:`~qlib.solvers.api.REGISTRY`: backends and
their algorithms)."""

from .api import BACKENDS, REGISTRY, solve, warmup

__all__ = ["solve", "warmup", "BACKENDS", "REGISTRY"]
