"""Deprecated: this module is now :mod:`qlib.solvers.core`; the old name goes in the next release."""

import importlib
import sys
import warnings

warnings.warn("qlib.solvers.kernel is now qlib.solvers.core", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("qlib.solvers.core")
