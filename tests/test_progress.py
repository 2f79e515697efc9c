"""The benchmark commands' progress bar: drawn on a terminal, silent in a pipe or a log."""

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from progress import Progress  # noqa: E402


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_bar_is_drawn_on_a_terminal_only():
    tty, pipe = Terminal(), io.StringIO()
    for stream in (tty, pipe):
        bar = Progress(4, "bench", stream=stream)
        for k in range(4):
            bar.step(f"row {k}")
        bar.close()
    assert pipe.getvalue() == ""
    frames = tty.getvalue().split("\r")[1:]
    assert len(frames) == 4 and "1/4" in frames[0] and "row 3" in frames[-1]
    assert "[" + "#" * 24 + "]" in frames[-1] and tty.getvalue().endswith("\n")
