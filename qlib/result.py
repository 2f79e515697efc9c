"""The solution object every backend returns."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .compile import CompiledModel, evaluate
from .expr import as_expr
from .info import SolveInfo, typed

__all__ = ["Solution", "Violation", "Sample"]


class Violation(tuple):
    """``(label, amount)``: a broken constraint and its distance to the allowed set."""

    __slots__ = ()

    def __new__(cls, label, amount):
        return super().__new__(cls, (label, amount))

    label = property(lambda self: self[0])
    amount = property(lambda self: self[1])

    def __repr__(self):
        return f"Violation({self[0]!r}, {self[1]:g})"


class Sample(NamedTuple):
    """One row of :attr:`Solution.samples`: a state, its energy and whether it breaks no constraint."""

    state: np.ndarray
    energy: float
    is_feasible: bool


class Solution:
    """A state of a compiled model with its energy.

    ``sol[x]`` is the value of variable ``x``; ``sol(expr)`` evaluates an
    expression (or an array of them); ``violations`` lists the broken
    constraints; ``info`` says how the state was found (backend, seed, seconds,
    flips, var_count, term_count, ...): a :class:`~qlib.info.SolveInfo` of the
    algorithm that ran, read by attribute or by key.
    """

    def __init__(self, compiled: CompiledModel, state, info=None):
        self.compiled = compiled
        self.state = compiled.as_states(state).copy()
        if self.state.ndim != 1:
            raise ValueError("a solution holds one state")
        self.energy = compiled.energy(self.state)
        self.info = info
        self.info.setdefault("var_count", compiled.var_count)
        if "term_count" not in self.info:   # counted once per model: a small solve should not pay for it
            self.info["term_count"] = compiled.derived("model_term_count", lambda c: c.model.term_count)

    @property
    def info(self) -> SolveInfo:
        """How the state was found, typed by algorithm (:func:`qlib.info.typed`)."""
        return self._info

    @info.setter
    def info(self, value) -> None:
        self._info = typed(value)

    def __getitem__(self, variable) -> int:
        return int(self.state[self.compiled.index(variable)])

    def __call__(self, expr):
        if isinstance(expr, np.ndarray):
            return np.array([self(e) for e in expr.ravel()]).reshape(expr.shape)
        expr = as_expr(expr)
        value = float(evaluate(expr, self.compiled, self.state[None, :])[0])
        return int(value) if value.is_integer() else value

    @property
    def sample(self) -> dict[str, int]:
        """``{label: value}`` for every variable."""
        return dict(zip(self.compiled.labels, (int(b) for b in self.state)))

    @property
    def samples(self) -> list[Sample]:
        """A :class:`Sample` (state, energy, is_feasible) for every replica's best state, by qlib's evaluation.

        When ``info`` has ``replica_states`` (the CPU solver's), one entry per
        replica, in replica order, then this solution's own state when no
        replica holds it (found in an earlier restart); otherwise just this
        solution's state.  The returned state depends only on the seed (and the
        model); the other rows are where each replica stood when the search
        stopped, which for a stop at ``target_energy`` or ``time_limit`` depends
        on how the clock cut the run into chunks.  A run on a fixed budget
        (annealing's ``num_sweeps`` without a target) gives the same rows for the
        same seed.
        """
        replicas = self.info.get("replica_states")
        if replicas is None or np.ndim(replicas) != 2 or np.shape(replicas)[1] != self.compiled.var_count:
            states = self.state[None, :]
        else:
            states = self.compiled.as_states(replicas)
            if not (states == self.state[None, :]).all(axis=1).any():
                states = np.vstack([states, self.state[None, :]])
        energies = np.atleast_1d(self.compiled.energy(states)) if len(states) else np.zeros(0)
        if self.compiled.num_rows:
            dist = self.compiled.row_distances(self.compiled.row_values(states))
            feasible = ~(dist > 1e-9).any(axis=1)
        else:
            feasible = np.ones(len(states), dtype=bool)
        return [Sample(s.copy(), float(e), bool(f)) for s, e, f in zip(states, energies, feasible)]

    def to_sampleset(self):
        """:attr:`samples` as a ``dimod.SampleSet`` (BINARY, labelled by the model's labels,
        qlib's energies, an ``is_feasible`` vector); needs ``dimod``."""
        rows = self.samples
        states = np.array([s for s, _, _ in rows], dtype=np.int8).reshape(len(rows), self.compiled.var_count)
        info = {k: self.info[k] for k in ("backend", "seed", "seconds", "stop_reason") if k in self.info}
        return make_sampleset(states, self.compiled.labels, "BINARY", [e for _, e, _ in rows], info,
                              is_feasible=[f for _, _, f in rows])

    @property
    def violations(self) -> list[Violation]:
        """The constraints this state breaks, each with its distance to the allowed set."""
        if not self.compiled.num_rows:
            return []
        dist = self.compiled.row_distances(self.compiled.row_values(self.state[None, :]))[0]
        return [Violation(self.compiled.row_labels[r], float(d)) for r, d in enumerate(dist) if d > 1e-9]

    @property
    def is_feasible(self) -> bool:
        """True when the state breaks no constraint."""
        return not self.violations

    def __repr__(self):
        return (f"Solution(energy={self.energy:g}, feasible={self.is_feasible}, "
                f"backend={self.info.get('backend')!r}, var_count={self.compiled.var_count})")


def make_sampleset(states, labels, vartype, energy, info=None, **vectors):
    """A ``dimod.SampleSet`` of ``states`` (one row each, over ``labels``; ``vartype`` "BINARY" or "SPIN")
    with ``energy``, ``info`` and any per-row ``vectors``: the one place qlib makes one
    (:meth:`qlib.Solution.to_sampleset`, :class:`qlib.dimod.QlibSampler`); needs ``dimod``."""
    import dimod

    out = dimod.SampleSet.from_samples((states, labels), dimod.as_vartype(vartype), energy=energy, **vectors)
    out.info.update(info or {})
    return out
