"""Binary polynomials: variables, negated literals and expressions.

An expression is a map from *terms* to coefficients.  A term is a product of
literals; a literal is a variable ``x`` or its negation ``~x`` (value ``1 - x``),
kept native in terms of any degree.  Variables are identified by their label:
``var("x")`` twice gives the same variable, as in PyQUBO.

Internally a literal is the integer ``2 * id + negated`` where ``id`` is the
variable's interned number, and a term is a sorted tuple of literals, so the
solvers get plain integers to work with.

Comparing an expression (``==``, ``<=``, ``>=``) gives a :class:`Relation`
with an :class:`Allowed` set (:func:`one_of`, :func:`between`), the argument
of :func:`qlib.cons`; :mod:`qlib.constraints` builds constraints from them.
"""

from __future__ import annotations

import builtins
import itertools
import math
import numbers
import sys
from dataclasses import dataclass

import numpy as np

from . import validate

__all__ = ["Expr", "Var", "var", "sum", "as_expr", "NumericOverflowError", "Allowed", "Relation", "one_of",
           "between", "MAX_COEF", "intern", "is_number", "check_finite", "label_of", "id_of"]

#: The largest magnitude a coefficient may have: every coefficient ends up a float64.
MAX_COEF = sys.float_info.max


class NumericOverflowError(ValueError, OverflowError):
    """A coefficient or an energy does not fit a float64 (it would be inf or nan).

    A ``ValueError`` (bad model input) and an ``OverflowError`` at once; the
    message names the term or constraint that overflowed.
    """

_ids: dict[str, int] = {}
_labels: list[str] = []


def intern(label: str) -> int:
    """The interned number of the variable labelled ``label`` (a new number for a new label)."""
    if not isinstance(label, str) or not label:
        raise TypeError(f"a variable label must be a non-empty string, got {label!r}")
    vid = _ids.get(label)
    if vid is None:
        vid = len(_labels)
        _ids[label] = vid
        _labels.append(label)
    return vid


def label_of(vid: int) -> str:
    """The label of the variable with interned number ``vid``."""
    return _labels[vid]


def id_of(label: str) -> int | None:
    """The interned number of ``label``, or None if no such variable exists."""
    return _ids.get(label)


def is_number(value) -> bool:
    """True for a real number (bools and numpy scalars included): what an expression takes as a constant."""
    return isinstance(value, (numbers.Real, np.bool_))


def _number(value) -> float | int:
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, numbers.Integral):
        value = int(value)
        if abs(value) > MAX_COEF:
            raise NumericOverflowError(
                f"coefficient {_int_text(value)} is beyond the float64 range (|c| <= {MAX_COEF:.3e})"
            )
        return value
    value = float(value)
    if not np.isfinite(value):
        error = ValueError if np.isnan(value) else NumericOverflowError
        raise error(f"coefficients must be finite, got {value}")
    return int(value) if value.is_integer() else value


def _term_text(term: tuple) -> str:
    """``a*~b``: a term's literals by label (``1`` for the constant term)."""
    if not term:
        return "the constant term"
    return "*".join(("~" if lit & 1 else "") + _labels[lit >> 1] for lit in term)


def check_finite(terms: dict, what: str = "") -> None:
    """Raise :class:`NumericOverflowError` if a coefficient of ``terms`` is not a finite float64.

    Coefficients are Python ints (exact, of any size until compiled) or floats;
    both must lie within +-``MAX_COEF``.  The common case costs three passes in
    C (``min``, ``max``, ``sum``): min/max catch infinities and huge ints, and a
    nan (which compares False both ways, so min/max can step over it) makes the
    sum nan.  Only then does a Python pass look for the term to name.
    """
    if not terms:
        return
    values = terms.values()
    try:
        if -MAX_COEF <= min(values) and max(values) <= MAX_COEF:
            total = builtins.sum(values)
            if total == total:  # not nan (an inf total is fine: the terms themselves are finite)
                return
    except (TypeError, OverflowError):  # pragma: no cover - odd values: let the pass below decide
        pass
    for t, c in terms.items():
        if not (-MAX_COEF <= c <= MAX_COEF):
            shown = _int_text(c) if isinstance(c, int) else f"{c}"
            where = f" in {what}" if what else ""
            raise NumericOverflowError(
                f"the coefficient of {_term_text(t)} overflows float64{where}: {shown} "
                f"(|c| must stay below {MAX_COEF:.3e}); scale the coefficients down"
            )


def _int_text(c: int) -> str:
    text = str(abs(c))
    return f"{'-' if c < 0 else ''}{text[0]}.{text[1:4]}e+{len(text) - 1} (an integer beyond float64)"


def _multiply_terms(a: tuple, b: tuple) -> tuple:
    if not a:
        return b
    if not b:
        return a
    return tuple(sorted(a + b))


class Expr:
    """A binary polynomial with real coefficients.

    Build expressions from :func:`var` with ``+``, ``-``, ``*``, integer powers
    and ``~`` (negation); compare them with ``==``, ``<=``, ``>=`` to get a
    :class:`~qlib.Relation` for :func:`qlib.cons`.
    """

    __slots__ = ("terms",)
    __array_priority__ = 100  # numpy defers to our operators

    def __init__(self, terms: dict | None = None):
        self.terms: dict[tuple, float | int] = dict(terms) if terms else {}

    # -- pickling: by label ---------------------------------------------------
    def __reduce__(self):
        """Pickle by label: the ids are this process's interning order, not the receiver's."""
        labels, terms = _encode_terms(self.terms)
        return _expr_from_labels, (labels, terms)

    # -- construction ---------------------------------------------------------
    @classmethod
    def constant(cls, value) -> "Expr":
        """The constant expression ``value``."""
        value = _number(value)
        return cls({(): value} if value else {})

    # -- sizes ----------------------------------------------------------------
    @property
    def var_ids(self) -> list[int]:
        """Interned ids of the variables in this expression, sorted."""
        return sorted({lit >> 1 for term, c in self.terms.items() if c != 0 for lit in term})

    @property
    def variables(self) -> list["Var"]:
        """The variables of this expression, by interned id."""
        return [Var._from_id(i) for i in self.var_ids]

    @property
    def var_count(self) -> int:
        """Number of distinct variables."""
        return len(self.var_ids)

    @property
    def term_count(self) -> int:
        """Number of non-constant terms with a non-zero coefficient."""
        return builtins.sum(1 for term, c in self.terms.items() if term and c != 0)

    @property
    def constant_term(self):
        """The coefficient of the empty term (0 if none)."""
        return self.terms.get((), 0)

    @property
    def degree(self) -> int:
        """The largest number of literals in a term with a non-zero coefficient."""
        return max((len(t) for t, c in self.terms.items() if c != 0), default=0)

    # -- algebra --------------------------------------------------------------
    def __add__(self, other):
        other = as_expr(other, strict=False)
        if other is NotImplemented:
            return NotImplemented
        terms = dict(self.terms)
        for t, c in other.terms.items():
            c = terms.get(t, 0) + c
            if c:
                if not -MAX_COEF <= c <= MAX_COEF:  # also catches nan
                    check_finite({t: c}, "a sum")
                terms[t] = c
            else:
                terms.pop(t, None)  # like terms that cancel leave no trace
        return Expr(terms)

    __radd__ = __add__

    def __neg__(self):
        return Expr({t: -c for t, c in self.terms.items()})

    def __sub__(self, other):
        other = as_expr(other, strict=False)
        if other is NotImplemented:
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other):
        other = as_expr(other, strict=False)
        if other is NotImplemented:
            return NotImplemented
        return other + (-self)

    def __mul__(self, other):
        other = as_expr(other, strict=False)
        if other is NotImplemented:
            return NotImplemented
        terms: dict[tuple, float] = {}
        for (ta, ca), (tb, cb) in itertools.product(self.terms.items(), other.terms.items()):
            t = _multiply_terms(ta, tb)
            terms[t] = terms.get(t, 0) + ca * cb
        check_finite(terms, "a product")
        return Expr(terms)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not is_number(other):
            return NotImplemented
        return self * (1.0 / float(other))

    def __pow__(self, exponent):
        exponent = validate.integer("the exponent of a power", exponent, minimum=0)
        result = Expr.constant(1)
        for _ in range(exponent):
            result = result * self
        return result

    def __invert__(self):
        """``~e`` is ``1 - e``; for a single variable it is the native negated literal."""
        return 1 - self

    # -- relations (for qlib.cons) --------------------------------------------
    def __eq__(self, other):
        return Relation.make(self, "==", other)

    def __le__(self, other):
        return Relation.make(self, "<=", other)

    def __ge__(self, other):
        return Relation.make(self, ">=", other)

    def __ne__(self, other):
        raise TypeError("'!=' is not a constraint qlib supports; use qlib.one_of(...) or inequalities")

    def __lt__(self, other):
        raise TypeError("strict '<' is not supported; use '<=' with an integer bound")

    def __gt__(self, other):
        raise TypeError("strict '>' is not supported; use '>=' with an integer bound")

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("an expression has no truth value; compare sol(expr) instead")

    # -- transformations ------------------------------------------------------
    def simplify_as_binary(self) -> "Expr":
        """Return the expression with binary identities applied.

        ``x * x = x``, ``~x * ~x = ~x``, ``x * ~x = 0``; like terms are merged and
        zero coefficients dropped.  Negated literals stay native.
        """
        terms: dict[tuple, float] = {}
        for t, c in self.terms.items():
            if c == 0:
                continue
            lits = sorted(set(t))
            if any((lits[k] ^ 1) == lits[k + 1] for k in range(len(lits) - 1)):
                continue  # x * ~x = 0 (x and ~x are adjacent after sorting)
            key = tuple(lits)
            terms[key] = terms.get(key, 0) + c
        check_finite(terms, "merging like terms")
        return Expr({t: c for t, c in terms.items() if c != 0})

    def expand_negations(self) -> "Expr":
        """Rewrite every ``~x`` as ``1 - x`` and simplify: a polynomial in plain variables."""
        result: dict[tuple, float] = {}
        for t, c in self.simplify_as_binary().terms.items():
            plain = tuple(lit for lit in t if not lit & 1)
            negs = [lit ^ 1 for lit in t if lit & 1]
            # prod(1 - x_k) = sum over subsets S of (-1)^|S| prod_{k in S} x_k
            for r in range(len(negs) + 1):
                for subset in itertools.combinations(negs, r):
                    key = tuple(sorted(plain + subset))
                    result[key] = result.get(key, 0) + c * (-1) ** r
        return Expr(result).simplify_as_binary()

    def evaluate(self, values) -> float:
        """Value under ``values``: a mapping from variable id to 0/1."""
        total = 0.0
        for t, c in self.terms.items():
            prod = 1
            for lit in t:
                bit = values[lit >> 1] ^ (lit & 1)
                if not bit:
                    prod = 0
                    break
            total += c * prod
        return total

    # -- display --------------------------------------------------------------
    def __repr__(self):
        if not self.terms:
            return "0"
        parts = []
        for t, c in sorted(self.terms.items(), key=lambda kv: (len(kv[0]), kv[0])):
            lits = "*".join(("~" if lit & 1 else "") + _labels[lit >> 1] for lit in t)
            if not lits:
                parts.append(f"{c:g}")
            elif c == 1:
                parts.append(lits)
            elif c == -1:
                parts.append(f"-{lits}")
            else:
                parts.append(f"{c:g}*{lits}")
        return " + ".join(parts).replace("+ -", "- ")


class Var(Expr):
    """A binary variable (an expression of one term with coefficient 1)."""

    __slots__ = ("id",)

    def __init__(self, label: str):
        vid = intern(label)
        self.terms = {(2 * vid,): 1}
        self.id = vid

    def __reduce__(self):
        return Var, (_labels[self.id],)

    @classmethod
    def _from_id(cls, vid: int) -> "Var":
        return cls(_labels[vid])

    @property
    def label(self) -> str:
        """The variable's label."""
        return _labels[self.id]

    def __invert__(self):
        return Expr({(2 * self.id + 1,): 1})

    def __repr__(self):
        return self.label

    __hash__ = object.__hash__


def _encode_terms(terms: dict) -> tuple[list, list]:
    """``terms`` with every literal's id replaced by its position in a list of labels."""
    labels: list[str] = []
    local: dict[int, int] = {}
    encoded = []
    for t, c in terms.items():
        lits = []
        for lit in t:
            vid = lit >> 1
            k = local.get(vid)
            if k is None:
                k = local[vid] = len(labels)
                labels.append(_labels[vid])
            lits.append(2 * k + (lit & 1))
        encoded.append((tuple(lits), c))
    return labels, encoded


def _decode_terms(labels: list, encoded: list) -> dict:
    """The inverse of :func:`_encode_terms` in this process: labels are interned again."""
    ids = [intern(label) for label in labels]
    terms: dict = {}
    for lits, c in encoded:
        terms[tuple(sorted(2 * ids[lit >> 1] + (lit & 1) for lit in lits))] = c
    return terms


def _expr_from_labels(labels: list, encoded: list) -> "Expr":
    return Expr(_decode_terms(labels, encoded))


def as_expr(value, strict: bool = True):
    """Coerce a number or expression to :class:`Expr`."""
    if isinstance(value, Expr):
        return value
    if is_number(value):
        return Expr.constant(value)
    if strict:
        raise TypeError(f"expected an expression or a number, got {type(value).__name__}")
    return NotImplemented


def var(label: str, *shape: int):
    """A binary variable, or an array of them.

    ``var("x")`` is one variable; ``var("h", 11, 10)`` is an 11 x 10 NumPy object
    array of variables labelled ``h[i][j]``, indexable as ``h[i][j]`` and
    ``h[i, j]``.
    """
    if not shape:
        return Var(label)
    for n in shape:
        validate.integer("each size of var()'s shape", n, minimum=0)
    arr = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        arr[index] = Var(label + "".join(f"[{k}]" for k in index))
    return arr


def sum(items, start=0) -> Expr:  # noqa: A001 - mirrors qbpp.sum
    """Sum of expressions; arrays of variables are flattened."""
    terms: dict[tuple, float] = {}
    start = as_expr(start)
    for t, c in start.terms.items():
        terms[t] = terms.get(t, 0) + c
    if isinstance(items, np.ndarray):
        items = items.ravel()
    for item in items:
        if isinstance(item, np.ndarray):
            item = sum(item)
        item = as_expr(item)
        for t, c in item.terms.items():
            terms[t] = terms.get(t, 0) + c
    check_finite(terms, "a sum")
    return Expr({t: c for t, c in terms.items() if c})


# -- allowed sets and relations: what comparing an expression gives ----------------
@dataclass(frozen=True)
class Allowed:
    """The set of values a constraint allows: either a finite set or an interval."""

    values: tuple = ()  # finite set, sorted; empty for an interval
    lo: float = -math.inf
    hi: float = math.inf

    @property
    def is_finite_set(self) -> bool:
        """True for a finite set of values, False for an interval."""
        return bool(self.values)

    def intervals(self) -> list[tuple[float, float]]:
        """The allowed set as disjoint closed intervals, ascending."""
        if self.values:
            return [(v, v) for v in self.values]
        return [(self.lo, self.hi)]

    def distance(self, value: float) -> float:
        """How far ``value`` lies from the allowed set (0 inside it)."""
        return min(max(lo - value, 0.0, value - hi) for lo, hi in self.intervals())

    def __repr__(self):
        if self.values:
            return "{" + ", ".join(f"{v:g}" for v in self.values) + "}"
        return f"[{self.lo:g}, {self.hi:g}]"


def one_of(*values) -> Allowed:
    """The finite set of allowed values, e.g. ``one_of(0, 2)`` for a loop degree."""
    if len(values) == 1 and not is_number(values[0]):
        values = tuple(values[0])
    if not values:
        raise ValueError("one_of() needs at least one value")
    for v in values:
        validate.number("one_of() values", v)
    return Allowed(values=tuple(sorted({_clean(v) for v in values})))


def between(lo, hi) -> Allowed:
    """The closed interval ``[lo, hi]``."""
    for v in (lo, hi):
        try:
            validate.number("between() bounds", v)
        except ValueError:
            raise ValueError(
                f"between() bounds must be finite numbers, got {v!r} "
                "(for a one-sided bound write 'expr <= hi' or 'expr >= lo')"
            ) from None
    if lo > hi:
        raise ValueError(f"between({lo}, {hi}): the lower bound is above the upper bound")
    return Allowed(lo=_clean(lo), hi=_clean(hi))


def _clean(v):
    v = float(v)
    return int(v) if v.is_integer() else v


class Relation:
    """``lhs`` compared with an allowed set; the argument of :func:`qlib.cons`."""

    __slots__ = ("lhs", "allowed")

    def __init__(self, lhs: Expr, allowed: Allowed):
        self.lhs = lhs
        self.allowed = allowed

    @classmethod
    def make(cls, lhs: Expr, op: str, rhs) -> "Relation":
        """``lhs op rhs`` (``op`` one of ``==``, ``<=``, ``>=``) with everything moved to the left."""
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
