"""Ctrl-C held back while numba compiles.

A KeyboardInterrupt that arrives inside LLVM's callbacks during a numba
compile is swallowed there ("Exception ignored on calling ctypes callback")
and leaves the function half-built, so the next call fails with an unrelated
error instead of the interrupt.  :func:`held_interrupts` records a Ctrl-C that
arrives inside its block and raises KeyboardInterrupt once the block is done,
so a compile either finishes or never starts.
"""

from __future__ import annotations

import contextlib
import signal
import threading


@contextlib.contextmanager
def held_interrupts():
    """Run the block with SIGINT recorded, not raised; raise KeyboardInterrupt after it if one came.

    Only the main thread receives signals, so elsewhere the block runs unchanged.
    A handler other than Python's default (set by the caller) is left alone.
    """
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt
