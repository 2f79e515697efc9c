"""A puzzle's searches in rounds: each part takes its turn, with budgets doubling, until one settles the puzzle.

A puzzle's solve runs a complete search (SAT or backtracking: it answers, or
proves there is no answer) beside the model search (:func:`qlib.solve`), since
neither wins on every board.  Round ``r`` gives every part a turn, in order,
each with :func:`budget` ``(first, r)`` of its own counts, twice its last; the
first :class:`Verdict` ends the rounds.  Budgets are counts, not seconds, so a
seed and a thread count fix which part settles the puzzle.

This module owns how the rounds end (``stop_reason``, ``found_by``) and the
seconds of each part; it knows no puzzle.  A part is any object with a
``name``, ``complete`` and ``turn(r)`` (:class:`Part` makes one of a function).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .clock import TimeUp

__all__ = ["STOP_REASONS", "RULES", "FOUND_BY", "MAX_BUDGET", "budget", "Verdict", "Part", "Relay", "Portfolio"]

#: Why the rounds end, each a true claim; a caller's caps (``max_steps``, ...) come beside them.
STOP_REASONS = ("answer", "no_answer", "time_limit", "interrupted")
#: The rules alone, without a search: their "no_answer" is a proof, whichever part reports it.
#: Both puzzles call it "presolve" (Nonogram's was "propagation" before this release).
RULES = ("presolve",)
#: What settles a puzzle: the rules, a complete search, or the model search ("search").
FOUND_BY = RULES + ("sat", "backtrack", "search")
#: The largest budget of a turn: no count gets there, and numba takes it as an int64.
MAX_BUDGET = 1 << 62


def budget(first: int, r: int) -> int:
    """Round ``r``'s budget of a part whose first turn had ``first``: twice the last round's."""
    return min(first << r, MAX_BUDGET)


@dataclass(frozen=True)
class Verdict:
    """How the rounds ended: ``stop_reason``, the part that settled the puzzle (``found_by``; None
    when nothing was settled) and the ``answer``, in the puzzle's own form."""

    stop_reason: str
    found_by: str | None = None
    answer: Any = None

    @property
    def settled(self) -> bool:
        """Whether it decides the puzzle: an answer, or a proof that there is none."""
        return self.stop_reason in ("answer", "no_answer")

    @property
    def status(self) -> str:
        """The result's status: "solved", "interrupted" or "unsolved"."""
        return {"answer": "solved", "interrupted": "interrupted"}.get(self.stop_reason, "unsolved")


@dataclass
class Part:
    """One search of the rounds, made of a function: ``turn(r)`` is round ``r``'s turn, a
    :class:`Verdict` to end the rounds or None to go on.  ``name``: its ``found_by`` word;
    ``complete``: whether it may prove that there is no answer; ``done``: set once it wants no
    more turns (read by :class:`Relay`)."""

    name: str
    turn: Callable[[int], Verdict | None]
    complete: bool = False
    done: bool = False


class Relay:
    """Parts that share one place in the rounds: each takes the turns until it is ``done``, then the next.

    Nonogram's probing takes turns with SAT this way until its fixed point; the model search follows it.
    """

    def __init__(self, *parts):
        self.parts = parts

    @property
    def current(self):
        """The part whose turn it is: the first not done (the last stays)."""
        return next((p for p in self.parts[:-1] if not getattr(p, "done", False)), self.parts[-1])

    @property
    def name(self) -> str:
        """The current part's name."""
        return self.current.name

    @property
    def complete(self) -> bool:
        """Whether the current part is complete."""
        return self.current.complete

    def turn(self, r: int) -> Verdict | None:
        """The current part's turn."""
        return self.current.turn(r)


class Portfolio:
    """Rounds of turns of ``parts`` until a verdict (see the module's docstring).

    ``left()``: seconds left to the solve, read before every turn (a part may hold the clock, moving
    the deadline); at 0 or less the rounds end with "time_limit" and no other turn.  A turn that
    raises :class:`~qlib.puzzles.clock.TimeUp` ends them with "time_limit", Ctrl-C with "interrupted".
    ``caps``: the stop reasons the caller set (``"max_steps"``, ...); ``now``: the clock that times
    the turns.  After :meth:`run`, ``rounds`` counts the rounds that ran to their end or to a verdict
    on the puzzle, and ``seconds`` the seconds of each part's turns, by name.
    """

    def __init__(self, parts: Sequence, *, left: Callable[[], float], caps: Sequence[str] = (),
                 now: Callable[[], float] = time.perf_counter):
        self.parts = tuple(parts)
        self.left, self.caps, self.now = left, tuple(caps), now
        self.rounds = 0
        self.seconds: dict[str, float] = {}

    def run(self) -> Verdict:
        """Give every part its turn, round after round, until one gives a verdict or the time is up."""
        while True:
            for part in self.parts:
                if self.left() <= 0:
                    return Verdict("time_limit")
                verdict = self._turn(part)
                if verdict is not None:
                    if verdict.settled:   # the round that settles the puzzle counts; one cut short does not
                        self.rounds += 1
                    return verdict
            self.rounds += 1

    def _turn(self, part) -> Verdict | None:
        name, complete, t0 = part.name, part.complete, self.now()   # before the turn: a relay moves on
        try:
            verdict = part.turn(self.rounds)
        except KeyboardInterrupt:
            verdict = Verdict("interrupted")
        except TimeUp:   # a Python step of the part passed the deadline
            verdict = Verdict("time_limit")
        self.seconds[name] = self.seconds.get(name, 0.0) + self.now() - t0
        return None if verdict is None else self._claim(name, complete, verdict)

    def _claim(self, name: str, complete: bool, verdict: Verdict) -> Verdict:
        """``verdict`` with ``found_by`` filled in (the part's name), once it is a claim the part may make:
        a part speaks for itself or for the rules, and only a complete part or the rules prove "no_answer"."""
        if verdict.stop_reason not in STOP_REASONS + self.caps:
            raise ValueError(f"part {name!r} ended the rounds with {verdict.stop_reason!r}, which is no stop "
                             f"reason here ({', '.join(STOP_REASONS + self.caps)})")
        if not verdict.settled:
            if verdict.found_by is not None:
                raise ValueError(f"part {name!r}: {verdict.stop_reason!r} settles nothing, so found_by is None")
            return verdict
        found_by = verdict.found_by or name
        if found_by not in (name,) + RULES or found_by not in FOUND_BY:
            raise ValueError(f"part {name!r} cannot claim found_by={found_by!r}")
        if verdict.stop_reason == "no_answer" and found_by not in RULES and not complete:
            raise ValueError(f"part {name!r} is not complete: it cannot prove that there is no answer")
        return dataclasses.replace(verdict, found_by=found_by)
