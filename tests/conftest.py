import os

os.environ.setdefault("MPLBACKEND", "Agg")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

#: file::function of every test that takes a second or more, or a file of such tests (tests/slow.txt):
#: `make test-fast` skips them.
SLOW = frozenset(line.strip() for line in (Path(__file__).parent / "slow.txt").read_text().splitlines()
                 if line.strip() and not line.startswith("#"))


def pytest_collection_modifyitems(config, items):
    """Mark the tests listed in tests/slow.txt `slow` (every parameter of a listed function, every test
    of a listed file)."""
    for item in items:
        if item.nodeid.split("[")[0] in SLOW or item.nodeid.split("::")[0] in SLOW:
            item.add_marker(pytest.mark.slow)
