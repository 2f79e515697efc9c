"""The ``qlib`` command's first moments: a Ctrl-C while the package imports exits 130 with one line.

Importing numpy and numba takes about half a second, before :func:`qlib.cli.main`
can catch anything; Python would print a traceback from inside them.  Under the
command (``qlib ...`` or ``python -m qlib ...``) :func:`quiet_ctrl_c` installs a
handler that says "qlib: interrupted" and exits 130 instead, and the command
puts Python's own handler back (:func:`restore_ctrl_c`) once it can handle a
KeyboardInterrupt itself.  An import of qlib as a library is left alone.
"""

from __future__ import annotations

import json
import os
import signal
import sys

__all__ = ["quiet_ctrl_c", "restore_ctrl_c", "json_line"]


def json_line(args: list[str]) -> str | None:
    """The line ``--json`` asks for, as :func:`qlib.cli.main` prints it for an interrupted solve (None
    without ``--json`` in ``args``): the puzzle and file where the command line names them plainly."""
    if "--json" not in args:
        return None
    words = [a for a in args if not a.startswith("-")]
    named = words[:1] == ["solve"] and len(words) >= 3 and words[1] in ("slitherlink", "nonogram")
    puzzle, file = (words[1], words[2]) if named else (None, None)
    return json.dumps({"puzzle": puzzle, "file": file, "status": "interrupted"})


def _interrupted(signum, frame):
    line = json_line(sys.argv[1:])
    if line is not None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    sys.stderr.write("qlib: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


def _is_the_command() -> bool:
    argv = getattr(sys, "orig_argv", [])
    if bool(sys.argv) and os.path.basename(sys.argv[0]) == "qlib":
        return True
    return "-m" in argv[:-1] and argv[argv.index("-m") + 1] == "qlib"


def quiet_ctrl_c() -> None:
    """Under the command, exit 130 quietly on Ctrl-C until :func:`restore_ctrl_c` (a handler the
    process set itself, or SIGINT ignored, is left alone)."""
    if _is_the_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)


def restore_ctrl_c() -> None:
    """Python's own Ctrl-C handling (KeyboardInterrupt) again, if :func:`quiet_ctrl_c` replaced it."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)
