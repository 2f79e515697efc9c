"""Constraints and models.

A constraint says that an expression ``lhs`` must take a value in an allowed
set: one value (``lhs == k``), a finite set (``lhs == one_of(0, 2)``) or an
interval (``lhs <= k``, ``lhs >= k``, ``lhs == between(lo, hi)``).  Its energy is

    weight * distance(lhs, allowed)**2

which is zero exactly when the constraint holds.  This is the same energy as the
native constraints of QUBO++ (a violated constraint adds weight x violation^2),
so the solvers can work on constraints directly, without auxiliary variables;
:func:`qlib.expand_cons` turns them into penalty polynomials when a plain QUBO
is wanted.

A :class:`Model` is an objective expression plus a list of constraints;
``expr + cons(...)`` builds one, so ``f += qlib.cons(...)`` works.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .expr import Expr, _is_number, as_expr

__all__ = ["one_of", "between", "cons", "Constraint", "Model", "Relation", "Allowed"]


@dataclass(frozen=True)
class Allowed:
    """The set of values a constraint allows: either a finite set or an interval."""

    values: tuple = ()  # finite set, sorted; empty for an interval
    lo: float = -math.inf
    hi: float = math.inf

    @property
    def is_finite_set(self) -> bool:
        return bool(self.values)

    def intervals(self) -> list[tuple[float, float]]:
        """The allowed set as disjoint closed intervals, ascending."""
        if self.values:
            return [(v, v) for v in self.values]
        return [(self.lo, self.hi)]

    def distance(self, value: float) -> float:
        return min(max(lo - value, 0.0, value - hi) for lo, hi in self.intervals())

    def __repr__(self):
        if self.values:
            return "{" + ", ".join(f"{v:g}" for v in self.values) + "}"
        return f"[{self.lo:g}, {self.hi:g}]"


def one_of(*values) -> Allowed:
    """The finite set of allowed values, e.g. ``one_of(0, 2)`` for a loop degree."""
    if len(values) == 1 and not _is_number(values[0]):
        values = tuple(values[0])
    if not values:
        raise ValueError("one_of() needs at least one value")
    for v in values:
        if not _is_number(v) or not math.isfinite(v):
            raise ValueError(f"one_of() values must be finite numbers, got {v!r}")
    return Allowed(values=tuple(sorted({_clean(v) for v in values})))


def between(lo, hi) -> Allowed:
    """The closed interval ``[lo, hi]``."""
    for v in (lo, hi):
        if not _is_number(v) or not math.isfinite(v):
            raise ValueError(
                f"between() bounds must be finite numbers, got {v!r} "
                "(for a one-sided bound write 'expr <= hi' or 'expr >= lo')"
            )
    if lo > hi:
        raise ValueError(f"between({lo}, {hi}): the lower bound is above the upper bound")
    return Allowed(lo=_clean(lo), hi=_clean(hi))


def _clean(v):
    v = float(v)
    return int(v) if v.is_integer() else v


class Relation:
    """``lhs`` compared with an allowed set; the argument of :func:`cons`."""

    __slots__ = ("lhs", "allowed")

    def __init__(self, lhs: Expr, allowed: Allowed):
        self.lhs = lhs
        self.allowed = allowed

    @classmethod
    def make(cls, lhs: Expr, op: str, rhs) -> "Relation":
        if isinstance(rhs, Allowed):
            if op != "==":
                raise TypeError(f"use 'expr == {rhs!r}' to constrain to a set, not '{op}'")
            return cls(lhs, rhs)
        rhs_expr = as_expr(rhs, strict=False)
        if rhs_expr is NotImplemented:
            raise TypeError(f"cannot compare an expression with {type(rhs).__name__}")
        # Move everything to the left so that the bound is a plain number.
        lhs = (lhs - rhs_expr) if rhs_expr.terms.keys() - {()} else lhs
        k = 0 if rhs_expr.terms.keys() - {()} else rhs_expr.constant_term
        if op == "==":
            return cls(lhs, one_of(k))
        if op == "<=":
            return cls(lhs, Allowed(hi=_clean(k)))
        return cls(lhs, Allowed(lo=_clean(k)))

    def __bool__(self):
        raise TypeError("a relation has no truth value; wrap it in qlib.cons(...)")

    def __repr__(self):
        return f"Relation({self.lhs!r} in {self.allowed!r})"


def _value_range(lhs: Expr) -> tuple[float, float]:
    """Bounds of ``lhs`` over all binary assignments (each term is 0 or 1)."""
    const = lhs.constant_term
    lo = const + sum(c for t, c in lhs.terms.items() if t and c < 0)
    hi = const + sum(c for t, c in lhs.terms.items() if t and c > 0)
    return lo, hi


def _is_integer_valued(lhs: Expr) -> bool:
    return all(isinstance(c, int) or float(c).is_integer() for c in lhs.terms.values())


@dataclass
class Constraint:
    """``lhs`` must lie in ``allowed``; energy ``weight * distance**2``."""

    lhs: Expr
    allowed: Allowed
    weight: float = 1.0
    label: str | None = None

    def __post_init__(self):
        name = self.label or repr(self.lhs)
        if not self.lhs.var_ids:
            raise ValueError(f"constraint {name!r} has no variables: its left-hand side is a constant")
        if not _is_number(self.weight) or not self.weight > 0 or not math.isfinite(self.weight):
            raise ValueError(f"constraint {name!r}: weight must be a positive finite number, got {self.weight!r}")
        if _is_integer_valued(self.lhs):
            if self.allowed.is_finite_set:
                bad = [v for v in self.allowed.values if not float(v).is_integer()]
                if bad:
                    raise ValueError(
                        f"constraint {name!r}: its left-hand side takes only integer values, "
                        f"but the allowed set {self.allowed!r} holds non-integers {bad}"
                    )

    def _with_lhs(self, lhs: Expr) -> "Constraint":
        """This constraint with an equivalent left-hand side (e.g. simplified), not checked again:
        a term that vanishes (``0.5 * x * ~x``) may leave an integer-valued side with the
        non-integer set it was given, which is valid (it never holds), and a side with no
        variables left is for :func:`qlib.compile` to report."""
        con = object.__new__(Constraint)
        con.lhs, con.allowed, con.weight, con.label = lhs, self.allowed, self.weight, self.label
        return con

    def distance(self, lhs_value: float) -> float:
        return self.allowed.distance(lhs_value)

    def energy(self, lhs_value: float) -> float:
        return self.weight * self.distance(lhs_value) ** 2

    def value_range(self) -> tuple[float, float]:
        return _value_range(self.lhs)

    # cons(...) + expr, expr + cons(...), f += cons(...)
    def __add__(self, other):
        return Model.of(self) + other

    __radd__ = __add__

    def __repr__(self):
        tag = f"{self.label}: " if self.label else ""
        return f"cons({tag}{self.lhs!r} in {self.allowed!r}, weight={self.weight:g})"


def cons(relation: Relation, *, weight: float = 1.0, label: str | None = None) -> Constraint:
    """A constraint from a relation: ``cons(lhs == 3)``, ``cons(lhs == one_of(0, 2))``,
    ``cons(lhs <= 4, weight=2, label="row 3")``."""
    if isinstance(relation, bool):
        raise TypeError("cons() got a bool: compare a qlib expression, e.g. cons(x + y == 1)")
    if not isinstance(relation, Relation):
        raise TypeError(f"cons() expects a relation such as 'expr == 1', got {type(relation).__name__}")
    return Constraint(relation.lhs, relation.allowed, weight=weight, label=label)


@dataclass
class Model:
    """An objective plus constraints: what the solvers minimise.

    ``report`` records what a transformation added (auxiliary variables, terms).
    """

    objective: Expr = field(default_factory=Expr)
    constraints: list = field(default_factory=list)
    report: dict = field(default_factory=dict)

    @classmethod
    def of(cls, item) -> "Model":
        if isinstance(item, Model):
            return cls(item.objective, list(item.constraints), dict(item.report))
        if isinstance(item, Constraint):
            return cls(Expr(), [item])
        expr = as_expr(item, strict=False)
        if expr is NotImplemented:
            raise TypeError(f"cannot make a model from {type(item).__name__}")
        return cls(expr, [])

    def __add__(self, other):
        result = Model.of(self)
        if isinstance(other, Constraint):
            result.constraints.append(other)
        elif isinstance(other, Model):
            result.objective = result.objective + other.objective
            result.constraints.extend(other.constraints)
        else:
            expr = as_expr(other, strict=False)
            if expr is NotImplemented:
                return NotImplemented
            result.objective = result.objective + expr
        return result

    __radd__ = __add__

    @property
    def var_ids(self) -> list[int]:
        ids = set(self.objective.var_ids)
        for c in self.constraints:
            ids.update(c.lhs.var_ids)
        return sorted(ids)

    @property
    def var_count(self) -> int:
        return len(self.var_ids)

    @property
    def term_count(self) -> int:
        """Non-constant terms of the objective plus those of every constraint's left side."""
        return self.objective.term_count + sum(c.lhs.term_count for c in self.constraints)

    def simplify_as_binary(self) -> "Model":
        return Model(
            self.objective.simplify_as_binary(),
            [c._with_lhs(c.lhs.simplify_as_binary()) for c in self.constraints],
            dict(self.report),
        )

    def __repr__(self):
        return f"Model(var_count={self.var_count}, term_count={self.term_count}, constraints={len(self.constraints)})"


def as_model(item) -> Model:
    """Coerce an expression, constraint or model to :class:`Model`."""
    return Model.of(item)
