"""Argument checks shared by every public entry point.

A value of the wrong type raises ``TypeError``; a value of the right type out
of its range raises ``ValueError`` (as dwave-samplers does).  Every message
names the argument and what was expected.  ``bool`` is never taken for a
number, and numpy's integer and float scalars are taken like Python's.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["integer", "number", "seed", "time_limit", "boolean", "bound", "pair"]


def _is_integer(value) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _real(name: str, value, none: bool) -> float:
    """``value`` as a float, or a TypeError naming ``name`` when it is no real number (a bool is not)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        expected = "a number or None" if none else "a number"
        raise TypeError(f"{name} must be {expected}, got {value!r} ({type(value).__name__})")
    return float(value)


def integer(name: str, value, *, minimum: int | None = None, maximum: int | None = None,
            none: bool = False) -> int | None:
    """``value`` as a Python int, checked to lie in ``[minimum, maximum]``; None passes when ``none``."""
    if value is None and none:
        return None
    if not _is_integer(value):
        expected = "an integer or None" if none else "an integer"
        raise TypeError(f"{name} must be {expected}, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum or maximum is not None and value > maximum:
        if maximum is None:
            bound = f">= {minimum}"
        elif minimum is None:
            bound = f"<= {maximum}"
        else:
            bound = f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be an integer {bound}, got {value}")
    return value


def number(name: str, value, *, positive: bool = False, minimum: float | None = None,
           none: bool = False) -> float | None:
    """``value`` as a finite Python float (``positive``: > 0; ``minimum``: >= it); None passes when ``none``."""
    if value is None and none:
        return None
    value = _real(name, value, none)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if positive and not value > 0:
        raise ValueError(f"{name} must be positive, got {value:g}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum:g}, got {value:g}")
    return value


def time_limit(value, *, none: bool = False) -> float | None:
    """A positive, finite number of seconds."""
    return number("time_limit", value, positive=True, none=none)


#: The largest seed: the kernels draw from 63-bit seeds, and a larger one would alias a smaller one.
MAX_SEED = (1 << 63) - 1


def seed(value, *, none: bool = True) -> int | None:
    """An integer seed in ``[0, MAX_SEED]`` (None: draw one, where the caller allows it)."""
    return integer("seed", value, minimum=0, maximum=MAX_SEED, none=none)


def boolean(name: str, value) -> bool:
    """``value`` as a Python bool; only ``True``, ``False`` and numpy's bools are taken."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def bound(name: str, value, *, none: bool = False) -> float | None:
    """``value`` as a Python float that may be infinite (a threshold), never nan; None passes when ``none``."""
    if value is None and none:
        return None
    value = _real(name, value, none)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got nan")
    return value


def pair(name: str, value) -> tuple:
    """``value`` as a 2-tuple: any sequence of two items (the items are for the caller to check)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__getitem__"):
        raise TypeError(f"{name} must be a pair (a, b), got {value!r} ({type(value).__name__})")
    if len(value) != 2:
        raise ValueError(f"{name} must be a pair (a, b), got {len(value)} items: {value!r}")
    return value[0], value[1]
