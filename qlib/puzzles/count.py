"""What every solution counter of qlib returns: one :class:`Count` with one set of status words.

A count unpacks as ``(count, status, solutions)``, as a tuple does, and
carries the rest by name (``limit``, ``stop_reason``, ``seconds``, ``nodes``),
as :func:`os.stat` results do.
"""

from __future__ import annotations

from enum import StrEnum

from ..stop import COUNT, StopReason, stop_reason as _stop_reason

__all__ = ["Count", "CountStatus", "StopReason"]


class _Word(StrEnum):
    """A status word: it compares, prints and reprs as its plain string."""

    def __repr__(self):
        return repr(self.value)


class CountStatus(_Word):
    """What a count means: ``EXACT`` (the search finished: ``count`` is the number of answers),
    ``LIMIT`` (it found ``limit`` answers: at least that many exist) or ``UNKNOWN`` (it stopped
    first: ``count`` answers were found so far, a lower bound)."""

    EXACT = "exact"
    LIMIT = "limit"
    UNKNOWN = "unknown"


_STATUS = {StopReason.EXHAUSTED: CountStatus.EXACT, StopReason.LIMIT: CountStatus.LIMIT}


class Count(tuple):
    """``(count, status, solutions)`` of a counter, with ``limit``, ``stop_reason``, ``seconds``
    and ``nodes`` (the counter's own unit of work, or None) as attributes.

    ``status`` follows from ``stop_reason``; ``solutions`` are the first answers
    found, in the puzzle's own form (edge masks, grids).
    """

    __slots__ = ()

    def __new__(cls, solutions, *, limit: int, stop_reason, seconds: float, nodes: int | None = None,
                count: int | None = None):
        stop = _stop_reason(stop_reason, COUNT)   # a count stops for one of qlib.stop.COUNT
        number = len(solutions) if count is None else int(count)
        return super().__new__(cls, (number, _STATUS.get(stop, CountStatus.UNKNOWN), list(solutions),
                                     int(limit), stop, float(seconds), nodes))

    def __getnewargs_ex__(self):
        return (self.solutions,), dict(limit=self.limit, stop_reason=self.stop_reason, seconds=self.seconds,
                                       nodes=self.nodes, count=self.count)

    def __len__(self):
        return 3

    def __iter__(self):
        return iter(tuple.__getitem__(self, slice(0, 3)))

    def __getitem__(self, key):
        return tuple.__getitem__(self, slice(0, 3))[key]

    def __eq__(self, other):
        return tuple(self) == other if isinstance(other, tuple) else NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    count = property(lambda self: tuple.__getitem__(self, 0), doc="Answers found (the number, when exact).")
    status = property(lambda self: tuple.__getitem__(self, 1), doc="A :class:`CountStatus`.")
    solutions = property(lambda self: tuple.__getitem__(self, 2), doc="The answers found.")
    limit = property(lambda self: tuple.__getitem__(self, 3), doc="Where the count stops.")
    stop_reason = property(lambda self: tuple.__getitem__(self, 4), doc="A :class:`StopReason`.")
    seconds = property(lambda self: tuple.__getitem__(self, 5), doc="Wall time of the count.")
    nodes = property(lambda self: tuple.__getitem__(self, 6), doc="The counter's work, or None.")

    @property
    def value(self):
        """``count``, or "unknown" when the search stopped before it finished."""
        return "unknown" if self.status == CountStatus.UNKNOWN else self.count

    @property
    def unique(self) -> bool | None:
        """True: exactly one answer, proved; False: none or several, proved; None: not known."""
        if self.status == CountStatus.UNKNOWN:
            return False if self.count >= 2 else None
        return self.count == 1

    def __repr__(self):
        nodes = "" if self.nodes is None else f", nodes={self.nodes}"
        return (f"Count(count={self.count}, status={str(self.status)!r}, stop_reason={str(self.stop_reason)!r}, "
                f"limit={self.limit}, seconds={self.seconds:.3g}{nodes})")
