"""Deprecated: this module is now :mod:`qlib.solvers.sa.local_field`; the old name goes in the next release."""

import importlib
import sys
import warnings

warnings.warn("qlib.solvers.local_field is now qlib.solvers.sa.local_field", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("qlib.solvers.sa.local_field")
