"""Ctrl-C held back while numba compiles or loads a kernel.

A KeyboardInterrupt that arrives inside LLVM's callbacks during a numba
compile is swallowed there ("Exception ignored on calling ctypes callback")
and leaves the function half-built, so the next call fails with an unrelated
error ("no compiled object yet") instead of the interrupt.  Kernels also
compile lazily, in the middle of a search, the first time a code path runs.

:func:`install` registers a numba event listener on the global compiler lock,
which every compile and cache load holds: while the main thread holds it, a
Ctrl-C is recorded, and it is raised again the moment the lock is released.
A compile therefore either finishes or never starts, and the interrupt then
reaches the solver's own handling (``stop_reason="interrupted"``, exit 130 in
the CLI).  A SIGINT handler other than Python's default is left alone.
"""

from __future__ import annotations

import signal
import threading

from numba.core import event


class _HoldDuringCompiles(event.Listener):
    """Counts nested compiler-lock events of the main thread; holds SIGINT while inside."""

    def __init__(self):
        self.depth = 0
        self.previous = None
        self.received = False

    def _record(self, signum, frame):
        self.received = True

    def on_start(self, ev):
        if threading.current_thread() is not threading.main_thread():
            return
        self.depth += 1
        if self.depth == 1 and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.previous, self.received = signal.default_int_handler, False
            signal.signal(signal.SIGINT, self._record)

    def on_end(self, ev):
        if threading.current_thread() is not threading.main_thread() or self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0 and self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None
            if self.received:
                self.received = False
                signal.raise_signal(signal.SIGINT)   # raised as KeyboardInterrupt right after the compile


_LISTENER = _HoldDuringCompiles()
_INSTALLED = []


def install() -> None:
    """Hold Ctrl-C during every numba compile and cache load of the main thread (idempotent)."""
    if not _INSTALLED:
        event.register("numba:compiler_lock", _LISTENER)
        _INSTALLED.append(True)
