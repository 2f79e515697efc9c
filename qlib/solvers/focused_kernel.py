"""Deprecated: this module is now :mod:`qlib.solvers.focused.kernel`; the old name goes in the next release."""

import importlib
import sys
import warnings

warnings.warn("qlib.solvers.focused_kernel is now qlib.solvers.focused.kernel", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("qlib.solvers.focused.kernel")
