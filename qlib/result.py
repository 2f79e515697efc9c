"""The solution object every backend returns."""

from __future__ import annotations

import numpy as np

from .compile import CompiledModel, evaluate
from .expr import as_expr

__all__ = ["Solution", "Violation"]


class Violation(tuple):
    """``(label, amount)``: a broken constraint and its distance to the allowed set."""

    __slots__ = ()

    def __new__(cls, label, amount):
        return super().__new__(cls, (label, amount))

    label = property(lambda self: self[0])
    amount = property(lambda self: self[1])

    def __repr__(self):
        return f"Violation({self[0]!r}, {self[1]:g})"


class Solution:
    """A state of a compiled model with its energy.

    ``sol[x]`` is the value of variable ``x``; ``sol(expr)`` evaluates an
    expression (or an array of them); ``violations`` lists the broken
    constraints; ``info`` says how the state was found (backend, seed, seconds,
    flips, var_count, term_count, ...).
    """

    def __init__(self, compiled: CompiledModel, state, info: dict | None = None):
        self.compiled = compiled
        self.state = compiled.as_states(state).copy()
        if self.state.ndim != 1:
            raise ValueError("a solution holds one state")
        self.energy = compiled.energy(self.state)
        self.info = dict(info or {})
        self.info.setdefault("var_count", compiled.num_vars)
        self.info.setdefault("term_count", compiled.model.term_count)

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
    def violations(self) -> list[Violation]:
        if not self.compiled.num_rows:
            return []
        dist = self.compiled.row_distances(self.compiled.row_values(self.state[None, :]))[0]
        return [Violation(self.compiled.row_labels[r], float(d)) for r, d in enumerate(dist) if d > 1e-9]

    @property
    def is_feasible(self) -> bool:
        return not self.violations

    def __repr__(self):
        return (f"Solution(energy={self.energy:g}, feasible={self.is_feasible}, "
                f"backend={self.info.get('backend')!r}, var_count={self.compiled.num_vars})")
