"""Solver backends and the :func:`solve` front door (:data:`REGISTRY`: backends and their algorithms)."""

from .api import BACKENDS, REGISTRY, solve, warmup

__all__ = ["solve", "warmup", "BACKENDS", "REGISTRY"]
