"""Memory checks before large allocations.

A request such as ``count_solutions(board, store=10**9)`` or a huge
``num_replicas`` would ask NumPy for more memory than the machine has, and
fail late (or make the machine swap).  :func:`check_allocation` compares a
size with a budget first and raises :class:`AllocationTooLarge`, naming what
was asked for and how much.

The budget is :data:`DEFAULT_FRACTION` of the memory available now (psutil's
``virtual_memory().available``, else ``os.sysconf`` pages, read at most every
0.25 s (``READING_SECONDS``), as asking costs about 70 us); set a fixed budget
with :func:`set_memory_budget` or the ``QLIB_MEMORY_BUDGET`` environment
variable (bytes, or a number with a K/M/G/T suffix).
"""

from __future__ import annotations

import math
import os
import time

import numpy as np

from . import validate

__all__ = ["AllocationTooLarge", "check_allocation", "check_array", "array_nbytes", "memory_budget",
           "set_memory_budget", "DEFAULT_FRACTION"]

#: Share of the currently available memory one allocation may take by default.
DEFAULT_FRACTION = 0.5

#: How long one reading of the available memory is used for.
READING_SECONDS = 0.25

_budget_override: int | None = None
_reading = [-math.inf, 0]   # (time.monotonic() of the last reading, bytes)


class AllocationTooLarge(MemoryError, ValueError):
    """An allocation larger than the memory budget (a ``MemoryError`` and a ``ValueError``)."""

    def __init__(self, message: str, nbytes: int, budget: int, what: str):
        super().__init__(message)
        self.nbytes = nbytes
        self.budget = budget
        self.what = what


def _available_memory() -> int:
    """Bytes of memory available now, from a reading at most ``READING_SECONDS`` old."""
    now = time.monotonic()
    if now - _reading[0] >= READING_SECONDS:
        _reading[:] = [now, _read_available_memory()]
    return _reading[1]


def _read_available_memory() -> int:
    """Bytes of memory available now (total memory when that is all the OS tells)."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # pragma: no cover - psutil is optional (dask's distributed brings it)
        pass
    try:  # pragma: no cover
        names = os.sysconf_names
        key = "SC_AVPHYS_PAGES" if "SC_AVPHYS_PAGES" in names else "SC_PHYS_PAGES"
        return int(os.sysconf(key)) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover
        return 8 << 30


def _parse_size(text: str) -> int:
    text = text.strip().upper().removesuffix("B")
    scale = 1
    if text and text[-1] in "KMGT":
        scale = 1024 ** ("KMGT".index(text[-1]) + 1)
        text = text[:-1]
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise ValueError
    return int(value * scale)


def memory_budget() -> int:
    """The largest allocation :func:`check_allocation` lets through, in bytes."""
    if _budget_override is not None:
        return _budget_override
    env = os.environ.get("QLIB_MEMORY_BUDGET")
    if env:
        try:
            return _parse_size(env)
        except ValueError:
            raise ValueError(f"QLIB_MEMORY_BUDGET must be a size such as 2000000000 or 4G, got {env!r}") from None
    return int(DEFAULT_FRACTION * _available_memory())


def set_memory_budget(nbytes: int | None) -> int | None:
    """Fix the budget to ``nbytes`` (None: back to the default); returns the previous setting."""
    global _budget_override
    nbytes = validate.integer("the memory budget (bytes)", nbytes, minimum=1, none=True)
    previous, _budget_override = _budget_override, nbytes
    return previous


def format_bytes(nbytes: float) -> str:
    """``16.0 GiB``: a size for people."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(nbytes) < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} EiB"  # pragma: no cover


def check_allocation(nbytes: int, what: str, budget: int | None = None) -> int:
    """Raise :class:`AllocationTooLarge` if ``nbytes`` exceeds the budget; else return ``nbytes``.

    ``what`` names the allocation in the message (e.g. ``"count_solutions:
    store=10**9 answers of 420 edges"``).  ``budget`` defaults to
    :func:`memory_budget`.  Sizes are Python ints, so products that overflow
    int64 are still compared correctly.
    """
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"{what}: a negative size ({nbytes} bytes)")
    limit = memory_budget() if budget is None else int(budget)
    if nbytes > limit:
        raise AllocationTooLarge(
            f"{what} needs {format_bytes(nbytes)} ({nbytes} bytes), more than the memory budget of "
            f"{format_bytes(limit)}; ask for less (or raise the budget with qlib.limits.set_memory_budget "
            f"or QLIB_MEMORY_BUDGET)",
            nbytes, limit, what,
        )
    return nbytes


def array_nbytes(shape, dtype) -> int:
    """Bytes of an array of ``shape`` and ``dtype``, as a Python int (no overflow)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    size = 1
    for n in shape:
        n = int(n)
        if n < 0:
            raise ValueError(f"array dimensions must be non-negative, got {tuple(shape)}")
        size *= n
    return size * np.dtype(dtype).itemsize


def check_array(shape, dtype, what: str, budget: int | None = None) -> int:
    """:func:`check_allocation` for an array of ``shape`` and ``dtype``; returns its bytes."""
    return check_allocation(array_nbytes(shape, dtype), what, budget)
