"""Solver backends and the :func:`solve` front door."""

from .api import BACKENDS, solve, warmup

__all__ = ["solve", "warmup", "BACKENDS"]
