"""Deprecated: this module is now :mod:`qlib.solvers.sa.kernel`; the old name goes in the next release."""

import importlib
import sys
import warnings

warnings.warn("qlib.solvers.anneal is now qlib.solvers.sa.kernel", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("qlib.solvers.sa.kernel")
