"""``python -m qlib``: the command line of :mod:`qlib.cli`."""

import sys

from .cli import main

sys.exit(main())
