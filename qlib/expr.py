"""Binary polynomials: variables, negated literals and expressions.

An expression is a map from *terms* to coefficients.  A term is a product of
literals; a literal is a variable ``x`` or its negation ``~x`` (value ``1 - x``),
kept native in terms of any degree.  Variables are identified by their label:
``var("x")`` twice gives the same variable, as in PyQUBO.

Internally a literal is the integer ``2 * id + negated`` where ``id`` is the
variable's interned number, and a term is a sorted tuple of literals, so the
solvers get plain integers to work with.
"""

from __future__ import annotations

import builtins
import itertools
import numbers
import sys

import numpy as np

__all__ = ["Expr", "Var", "var", "sum", "as_expr", "NumericOverflowError"]

#: The largest magnitude a coefficient may have: every coefficient ends up a float64.
_MAX_COEF = sys.float_info.max


class NumericOverflowError(ValueError, OverflowError):
    """A coefficient or an energy does not fit a float64 (it would be inf or nan).

    A ``ValueError`` (bad model input) and an ``OverflowError`` at once; the
    message names the term or constraint that overflowed.
    """

_ids: dict[str, int] = {}
_labels: list[str] = []


def _intern(label: str) -> int:
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


def _is_number(value) -> bool:
    return isinstance(value, (numbers.Real, np.bool_))


def _number(value) -> float | int:
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, numbers.Integral):
        value = int(value)
        if abs(value) > _MAX_COEF:
            raise NumericOverflowError(
                f"coefficient {_int_text(value)} is beyond the float64 range (|c| <= {_MAX_COEF:.3e})"
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


def _check_finite(terms: dict, what: str = "") -> None:
    """Raise :class:`NumericOverflowError` if a coefficient of ``terms`` is not a finite float64.

    Coefficients are Python ints (exact, of any size until compiled) or floats;
    both must lie within +-``_MAX_COEF``.  The common case costs three passes in
    C (``min``, ``max``, ``sum``): min/max catch infinities and huge ints, and a
    nan (which compares False both ways, so min/max can step over it) makes the
    sum nan.  Only then does a Python pass look for the term to name.
    """
    if not terms:
        return
    values = terms.values()
    try:
        if -_MAX_COEF <= min(values) and max(values) <= _MAX_COEF:
            total = builtins.sum(values)
            if total == total:  # not nan (an inf total is fine: the terms themselves are finite)
                return
    except (TypeError, OverflowError):  # pragma: no cover - odd values: let the pass below decide
        pass
    for t, c in terms.items():
        if not (-_MAX_COEF <= c <= _MAX_COEF):
            shown = _int_text(c) if isinstance(c, int) else f"{c}"
            where = f" in {what}" if what else ""
            raise NumericOverflowError(
                f"the coefficient of {_term_text(t)} overflows float64{where}: {shown} "
                f"(|c| must stay below {_MAX_COEF:.3e}); scale the coefficients down"
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
    :class:`~qlib.constraints.Relation` for :func:`qlib.cons`.
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
        value = _number(value)
        return cls({(): value} if value else {})

    # -- sizes ----------------------------------------------------------------
    @property
    def var_ids(self) -> list[int]:
        """Interned ids of the variables in this expression, sorted."""
        return sorted({lit >> 1 for term, c in self.terms.items() if c != 0 for lit in term})

    @property
    def variables(self) -> list["Var"]:
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
        return self.terms.get((), 0)

    @property
    def degree(self) -> int:
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
                if not -_MAX_COEF <= c <= _MAX_COEF:  # also catches nan
                    _check_finite({t: c}, "a sum")
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
        _check_finite(terms, "a product")
        return Expr(terms)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not _is_number(other):
            return NotImplemented
        return self * (1.0 / float(other))

    def __pow__(self, exponent):
        if not isinstance(exponent, numbers.Integral) or exponent < 0:
            raise ValueError(f"only non-negative integer powers are supported, got {exponent!r}")
        result = Expr.constant(1)
        for _ in range(int(exponent)):
            result = result * self
        return result

    def __invert__(self):
        """``~e`` is ``1 - e``; for a single variable it is the native negated literal."""
        return 1 - self

    # -- relations (for qlib.cons) --------------------------------------------
    def __eq__(self, other):
        from .constraints import Relation

        return Relation.make(self, "==", other)

    def __le__(self, other):
        from .constraints import Relation

        return Relation.make(self, "<=", other)

    def __ge__(self, other):
        from .constraints import Relation

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
        _check_finite(terms, "merging like terms")
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
        vid = _intern(label)
        self.terms = {(2 * vid,): 1}
        self.id = vid

    def __reduce__(self):
        return Var, (_labels[self.id],)

    @classmethod
    def _from_id(cls, vid: int) -> "Var":
        return cls(_labels[vid])

    @property
    def label(self) -> str:
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
    ids = [_intern(label) for label in labels]
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
    if _is_number(value):
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
        if not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"array shape must be non-negative integers, got {shape!r}")
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
    _check_finite(terms, "a sum")
    return Expr({t: c for t, c in terms.items() if c})
