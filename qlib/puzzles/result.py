"""What every puzzle shares: the result of ``solve`` (one vocabulary), and a model's sizes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..stop import PUZZLE, stop_reason as _stop_reason


@dataclass(kw_only=True)
class PuzzleResult:
    """The fields every puzzle result has; each puzzle adds its answer's own.

    ``status``: "solved", "unsolved" or "interrupted"; ``stop_reason``: why the
    solve ended, a true claim (a :class:`qlib.stop.StopReason` of
    :data:`qlib.stop.PUZZLE`: "answer", "time_limit", "no_answer" with a
    proof, "interrupted", or a cap the caller set); ``found_by``: the part of
    the solver that settled the puzzle, or None.  ``seconds``: the whole solve
    (``timings`` splits it, with ``jit_seconds`` apart, before the clock);
    ``backend``, ``seed``, ``method``, ``formulation``: what ran.  ``var_count`` and
    ``term_count``: the model searched (0 when none was built).  ``unique``
    (with ``check_unique``): True, False (``second_answer`` holds another
    answer) or None (not known).
    """

    status: str
    stop_reason: str
    seconds: float
    backend: str
    seed: int | None
    var_count: int
    term_count: int
    found_by: str | None = None
    method: str = ""
    formulation: str = ""
    timings: dict = field(default_factory=dict)
    unique: bool | None = None
    second_answer: Any = field(default=None, repr=False)

    def __setattr__(self, name, value):
        if name == "stop_reason":   # one vocabulary (qlib.stop), checked whenever it is set
            value = _stop_reason(value, PUZZLE)
        super().__setattr__(name, value)

    @property
    def solved(self) -> bool:
        """Whether the result holds an answer."""
        return self.status == "solved"


class ModelSizes:
    """``var_count`` and ``term_count`` of a puzzle model that holds its qlib model as ``model``."""

    model: object

    @property
    def var_count(self) -> int:
        """Variables of the model."""
        return self.model.var_count

    @property
    def term_count(self) -> int:
        """Non-constant terms of the model."""
        return self.model.term_count
