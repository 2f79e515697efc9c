"""Why a search stopped: one vocabulary for every layer of qlib.

A solver's ``info["stop_reason"]``, a puzzle result's ``stop_reason`` and a
count's ``stop_reason`` are all :class:`StopReason` words, each with one
meaning wherever it appears.  Each layer says only some of them
(:data:`SOLVER`, :data:`PUZZLE`, :data:`COUNT`); a word compares, prints and
serialises as its plain string, so ``result.stop_reason == "answer"`` holds.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["StopReason", "SOLVER", "PUZZLE", "COUNT", "stop_reason"]


class StopReason(StrEnum):
    """Why a search stopped; every word is a true claim.

    * ``ANSWER``: a puzzle's answer was found.
    * ``NO_ANSWER``: it was proved that the puzzle has no answer.
    * ``ACCEPTED``: the focused search's separation accepted a state (its answer).
    * ``TARGET_ENERGY``: a state at or below ``target_energy`` was found.
    * ``COMPLETE``: every state was looked at (the exhaustive solver, or a model with no variables).
    * ``EXHAUSTED``: a count's search finished: it found every answer.
    * ``LIMIT``: a count found as many answers as its ``limit`` asked for.
    * ``TIME_LIMIT``: the ``time_limit`` ran out.
    * ``INTERRUPTED``: Ctrl-C.
    * ``MAX_STEPS``, ``MAX_ROUNDS``, ``MAX_ITERATIONS``, ``MAX_NODES``: a cap the caller set was reached.
    """

    ANSWER = "answer"
    NO_ANSWER = "no_answer"
    ACCEPTED = "accepted"
    TARGET_ENERGY = "target_energy"
    COMPLETE = "complete"
    EXHAUSTED = "exhausted"
    LIMIT = "limit"
    TIME_LIMIT = "time_limit"
    INTERRUPTED = "interrupted"
    MAX_STEPS = "max_steps"
    MAX_ROUNDS = "max_rounds"
    MAX_ITERATIONS = "max_iterations"
    MAX_NODES = "max_nodes"

    def __repr__(self):
        return repr(self.value)


S = StopReason
#: What a solver's ``info["stop_reason"]`` says (None when a sampler ran its rounds to the end).
SOLVER = (S.ACCEPTED, S.TARGET_ENERGY, S.COMPLETE, S.TIME_LIMIT, S.INTERRUPTED, S.MAX_STEPS, S.MAX_ROUNDS)
#: What a puzzle result's ``stop_reason`` says.
PUZZLE = (S.ANSWER, S.NO_ANSWER, S.TIME_LIMIT, S.INTERRUPTED, S.MAX_STEPS, S.MAX_ROUNDS, S.MAX_ITERATIONS)
#: What a count's ``stop_reason`` says.
COUNT = (S.EXHAUSTED, S.LIMIT, S.TIME_LIMIT, S.MAX_NODES, S.INTERRUPTED)
del S


def stop_reason(word, layer=None):
    """``word`` as a :class:`StopReason` (None stays None), checked against ``layer`` (:data:`SOLVER`,
    :data:`PUZZLE` or :data:`COUNT`) when one is given; an unknown word raises ``ValueError``."""
    if word is None:
        return None
    try:
        reason = StopReason(word)
    except ValueError:
        raise ValueError(f"{word!r} is no stop reason; qlib's are {', '.join(map(str, StopReason))}") from None
    if layer is not None and reason not in layer:
        raise ValueError(f"{reason!r} is no stop reason here; these are {', '.join(map(str, layer))}")
    return reason
