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

The allowed sets and relations (:class:`~qlib.Allowed`, :func:`~qlib.one_of`,
:func:`~qlib.between`, :class:`~qlib.Relation`) live in :mod:`qlib.expr`, where comparing
an expression makes them, and are importable from here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import validate
from .expr import Allowed, Expr, Relation, as_expr, between, one_of

__all__ = ["one_of", "between", "cons", "Constraint", "Model", "Relation", "Allowed", "value_range", "as_model"]


def value_range(lhs: Expr) -> tuple[float, float]:
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
        validate.number(f"the weight of constraint {name!r}", self.weight, positive=True)
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
        """How far ``lhs_value`` lies from the allowed set."""
        return self.allowed.distance(lhs_value)

    def energy(self, lhs_value: float) -> float:
        """``weight * distance**2`` at ``lhs_value``."""
        return self.weight * self.distance(lhs_value) ** 2

    def value_range(self) -> tuple[float, float]:
        """Bounds of the left-hand side over all binary assignments."""
        return value_range(self.lhs)

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
        """A new model from an expression, a constraint or a model (copied)."""
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
        """Interned ids of every variable of the objective and the constraints, sorted."""
        ids = set(self.objective.var_ids)
        for c in self.constraints:
            ids.update(c.lhs.var_ids)
        return sorted(ids)

    @property
    def var_count(self) -> int:
        """Number of distinct variables."""
        return len(self.var_ids)

    @property
    def term_count(self) -> int:
        """Non-constant terms of the objective plus those of every constraint's left side."""
        return self.objective.term_count + sum(c.lhs.term_count for c in self.constraints)

    def simplify_as_binary(self) -> "Model":
        """The model with binary identities applied to every expression (see :meth:`Expr.simplify_as_binary`)."""
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
