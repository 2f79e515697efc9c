"""Hypothesis strategies: random binary polynomials with constraints on few variables.

Constraints mix integer and non-integer left-hand sides (halves, quarters,
tenths, and a few irrational coefficients), integer and non-integer bounds, and
finite sets of up to five values; every model has at least one variable.
"""

import math

from hypothesis import strategies as st

import qlib

POOL = qlib.var("p", 6)

#: Non-integer coefficients with a small common denominator (2, 4, 5, 10, 20) ...
RATIONAL = [-1.5, -0.5, 0.5, 1.5, 0.25, -0.75, 2.5, 0.1, 0.3, -0.4]
#: ... and some with none (an interval over them cannot be expanded: only equalities and sets)
IRRATIONAL = [math.pi / 4, -math.sqrt(2), math.e / 3]
#: Non-integer values for bounds and sets.
FRACTIONS = [-1.5, -0.5, -0.25, 0.3, 0.5, 0.7, 1.25, 1.5, 2.5, 3.5]


@st.composite
def terms(draw, var_count, max_degree=4):
    size = draw(st.integers(0, max_degree))
    idx = draw(st.lists(st.integers(0, var_count - 1), min_size=size, max_size=size))
    negs = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    term = qlib.Expr.constant(1)
    for i, neg in zip(idx, negs):
        term = term * (~POOL[i] if neg else POOL[i])
    return term


def coefficients(kind):
    """``"int"``: -3..3; ``"rational"``: mostly integers, some from RATIONAL; ``"irrational"``
    and ``True``/``False`` (the old flag: integers / floats rounded to 0.01)."""
    if kind in ("int", True):
        return st.integers(-3, 3)
    if kind is False:
        return st.floats(-3, 3, allow_nan=False).map(lambda c: round(c, 2))
    extra = RATIONAL if kind == "rational" else IRRATIONAL
    return st.one_of(st.integers(-3, 3), st.sampled_from(extra))


@st.composite
def expressions(draw, var_count=5, max_terms=6, integer=True, max_degree=4):
    coef = coefficients(integer)
    expr = qlib.Expr()
    for _ in range(draw(st.integers(0, max_terms))):
        expr = expr + draw(coef) * draw(terms(var_count, max_degree))
    return expr


def numbers(integer_only):
    ints = st.integers(-2, 4)
    return ints if integer_only else st.one_of(ints, st.sampled_from(FRACTIONS))


@st.composite
def allowed_sets(draw, integer_values=False, interval=True):
    """A relation maker ``lambda lhs: lhs == ...``.  ``integer_values``: finite sets hold
    integers only (an integer-valued left-hand side rejects others); ``interval``: whether
    ``<=``, ``>=`` and ``between`` may come out."""
    kinds = ["eq", "set", "set3"] + (["le", "ge", "between"] if interval else [])
    kind = draw(st.sampled_from(kinds))
    k = draw(numbers(False))
    if kind == "eq":
        k = draw(numbers(integer_values))
        return lambda e: e == k
    if kind in ("set", "set3"):
        size = draw(st.integers(1, 3) if kind == "set" else st.integers(3, 5))
        pool = st.integers(-2, 6) if integer_values else st.one_of(st.integers(-2, 6), st.sampled_from(FRACTIONS))
        values = draw(st.lists(pool, min_size=size, max_size=size, unique_by=float))
        return lambda e: e == qlib.one_of(*values)
    if kind == "le":
        return lambda e: e <= k
    if kind == "ge":
        return lambda e: e >= k
    width = draw(st.sampled_from([0, 0.2, 0.5, 1, 1.5, 2, 3]))
    return lambda e: e == qlib.between(k, k + width)


@st.composite
def models(draw, var_count=5, max_constraints=3, objective=True, integer=True):
    """A model over ``POOL[:var_count]`` with at least one variable.  Without an objective it
    has at least one constraint."""
    obj = draw(expressions(var_count, integer=integer)) if objective else qlib.Expr()
    model = qlib.Model.of(obj)
    for r in range(draw(st.integers(0 if objective else 1, max_constraints))):
        kind = draw(st.sampled_from(["int", "int", "rational", "irrational"]))
        lhs = draw(expressions(var_count, max_terms=4, max_degree=2, integer=kind))
        if draw(st.booleans()) and kind != "int":
            lhs = lhs + draw(st.sampled_from([0.5, -0.25]))
        if not lhs.simplify_as_binary().var_ids:
            lhs = lhs + POOL[r % var_count]
        integer_valued = all(float(c).is_integer() for c in lhs.terms.values())
        make = draw(allowed_sets(integer_values=integer_valued, interval=kind != "irrational"))
        weight = draw(st.sampled_from([1, 2, 0.5]))
        model = model + qlib.cons(make(lhs), weight=weight, label=f"c{r}")
    if not model.var_count or not qlib.compile(model).var_count:
        model = model + draw(st.sampled_from([1, -2, 0.5])) * POOL[draw(st.integers(0, var_count - 1))]
    return model
