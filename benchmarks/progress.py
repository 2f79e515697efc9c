"""A one-line progress bar for the long benchmark commands: on stderr when it is a terminal, silent otherwise."""

from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}m{seconds % 60:02d}s"


class Progress:
    """``step(what)`` after each of ``total`` units of work redraws ``label [#####     ] k/total elapsed eta what``."""

    def __init__(self, total: int, label: str, stream=None):
        self.total, self.label, self.done = max(int(total), 1), label, 0
        self.stream = sys.stderr if stream is None else stream
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.perf_counter()

    def step(self, what: str = "") -> None:
        self.done += 1
        if not self.live:
            return
        elapsed = time.perf_counter() - self.start
        share = min(self.done / self.total, 1.0)
        eta = elapsed / share - elapsed if share > 0 else 0.0
        bar = "#" * int(24 * share)
        self.stream.write(f"\r{self.label} [{bar:<24}] {self.done}/{self.total} {_clock(elapsed)} "
                          f"eta {_clock(eta)} {what[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
