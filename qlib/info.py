"""What a solve says about itself (``Solution.info``): typed fields per algorithm, read as a mapping too.

A backend's run returns a plain dict; :func:`typed` turns it into the class of the
algorithm that ran: :class:`AnnealInfo`, :class:`FocusedInfo`, :class:`ExhaustiveInfo`,
else :class:`SolveInfo`.  A field reads as an attribute (``info.stop_reason``) or as a key
(``info["stop_reason"]``), so code written against the dict keeps working.  A key that no
field names (a custom backend's, a puzzle's) lives in ``extra``.  A field left unset
(None) is not a key.  ``info.replicas`` gives one :class:`Replica` row per replica.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, NamedTuple

import numpy as np

__all__ = ["SolveInfo", "AnnealInfo", "FocusedInfo", "ExhaustiveInfo", "Replica", "typed"]


class Replica(NamedTuple):
    """One replica of a search: its number, its best state and that state's energy."""

    index: int
    state: np.ndarray
    energy: float


@cache
def _names(cls) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name != "extra")


@dataclass(eq=False, repr=False)
class SolveInfo(MutableMapping):
    """What every backend reports.  ``seconds`` is the search's wall time; ``jit_seconds``, the
    compile (or cache load) paid before its clock started; ``flips``, the accepted moves;
    ``device``, ``kernel_launches`` and ``device_seconds`` come from a GPU run."""

    backend: str | None = None
    requested_backend: str | None = None
    algorithm: str | None = None
    seed: int | None = None
    seconds: float | None = None
    jit_seconds: float | None = None
    stop_reason: str | None = None
    flips: int | None = None
    num_threads: int | None = None
    var_count: int | None = None
    term_count: int | None = None
    device: str | None = None
    kernel_launches: int | None = None
    device_seconds: dict | None = None
    extra: dict = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        if key in _names(type(self)):
            value = getattr(self, key)
            if value is None:
                raise KeyError(key)
            return value
        return self.extra[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key in _names(type(self)):
            setattr(self, key, value)
        else:
            self.extra[key] = value

    def __delitem__(self, key: str) -> None:
        if key in _names(type(self)):
            if getattr(self, key) is None:
                raise KeyError(key)
            setattr(self, key, None)
        else:
            del self.extra[key]

    def __iter__(self):
        yield from (name for name in _names(type(self)) if getattr(self, name) is not None)
        yield from self.extra

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        def short(value):
            return f"<array {value.shape}>" if isinstance(value, np.ndarray) else repr(value)
        return f"{type(self).__name__}({', '.join(f'{k}={short(v)}' for k, v in self.items())})"

    @property
    def replicas(self) -> list[Replica]:
        """Every replica's best state and its energy, in replica order (none when the run kept no
        replica rows: the exhaustive backend, a custom one)."""
        states, energies = self.get("replica_states"), self.get("replica_energies")
        if states is None or energies is None:
            return []
        return [Replica(k, state, float(energy)) for k, (state, energy) in enumerate(zip(states, energies))]


@dataclass(eq=False, repr=False)
class _ReplicaInfo(SolveInfo):
    """A search of several replicas: how many, and each one's best state and its energy."""

    num_replicas: int | None = None
    replica_states: np.ndarray | None = None
    replica_energies: np.ndarray | None = None


@dataclass(eq=False, repr=False)
class AnnealInfo(_ReplicaInfo):
    """Simulated annealing (``algorithm="sa"``): the ``kernel`` path it took (``"local_field"``,
    ``"cached_delta"`` or ``"terms"``), ``rounds`` of ``num_sweeps`` sweeps over ``beta_range``,
    and each replica's best state and energy."""

    kernel: str | None = None
    num_sweeps: int | None = None
    beta_range: tuple | None = None
    rounds: int | None = None
    sampling_seconds: float | None = None


@dataclass(eq=False, repr=False)
class FocusedInfo(_ReplicaInfo):
    """The focused search (``algorithm="focused"``): its settings, the winning ``replica`` and its
    ``steps_of_winner``, the lazy cuts it took (``cuts``, ``num_cuts``; ``pool_cuts`` in the shared
    pool), the separation's calls and seconds, and each replica's best state and energy."""

    noise: float | None = None
    tabu_tenure: tuple | None = None
    weight_smoothing: int | tuple | None = None
    weight_raises: int | None = None
    steps_of_winner: int | None = None
    replica: int | None = None
    cuts: list | None = None
    num_cuts: int | None = None
    pool_cuts: int | None = None
    separation_calls: int | None = None
    separation_seconds: float | None = None
    threads_per_block: int | None = None
    device_jit_seconds: float | None = None


@dataclass(eq=False, repr=False)
class ExhaustiveInfo(SolveInfo):
    """The exhaustive backend: ``num_ground_states`` and the ``ground_states`` themselves (or, stopped
    by the time limit, the states visited and the best so far)."""

    num_ground_states: int | None = None
    ground_states: np.ndarray | None = None


_BY_ALGORITHM = {"sa": AnnealInfo, "focused": FocusedInfo}


def typed(info) -> SolveInfo:
    """A new :class:`SolveInfo` of the class of the algorithm ``info`` (a mapping) names, holding its items."""
    items = dict(info or {})
    cls = _BY_ALGORITHM.get(items.get("algorithm"))
    if cls is None:
        cls = ExhaustiveInfo if items.get("backend") == "exhaustive" else SolveInfo
    out = cls()
    for key, value in items.items():
        out[key] = value
    return out
