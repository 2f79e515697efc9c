"""Hypothesis strategies: random binary polynomials with constraints on few variables."""

from hypothesis import strategies as st

import qlib

POOL = qlib.var("p", 6)


@st.composite
def terms(draw, num_vars, max_degree=4):
    size = draw(st.integers(0, max_degree))
    idx = draw(st.lists(st.integers(0, num_vars - 1), min_size=size, max_size=size))
    negs = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    term = qlib.Expr.constant(1)
    for i, neg in zip(idx, negs):
        term = term * (~POOL[i] if neg else POOL[i])
    return term


@st.composite
def expressions(draw, num_vars=5, max_terms=6, integer=True, max_degree=4):
    coef = st.integers(-3, 3) if integer else st.floats(-3, 3, allow_nan=False).map(lambda c: round(c, 2))
    expr = qlib.Expr()
    for _ in range(draw(st.integers(0, max_terms))):
        expr = expr + draw(coef) * draw(terms(num_vars, max_degree))
    return expr


@st.composite
def allowed_sets(draw):
    kind = draw(st.sampled_from(["eq", "set", "le", "ge", "between"]))
    k = draw(st.integers(-2, 4))
    if kind == "eq":
        return lambda e: e == k
    if kind == "set":
        values = draw(st.lists(st.integers(-2, 5), min_size=1, max_size=3, unique=True))
        return lambda e: e == qlib.one_of(*values)
    if kind == "le":
        return lambda e: e <= k
    if kind == "ge":
        return lambda e: e >= k
    width = draw(st.integers(0, 3))
    return lambda e: e == qlib.between(k, k + width)


@st.composite
def models(draw, num_vars=5, max_constraints=3, objective=True, integer=True):
    obj = draw(expressions(num_vars, integer=integer)) if objective else qlib.Expr()
    model = qlib.Model.of(obj)
    for r in range(draw(st.integers(0, max_constraints))):
        lhs = draw(expressions(num_vars, max_terms=4, max_degree=2))
        if not lhs.simplify_as_binary().var_ids:
            lhs = lhs + POOL[r % num_vars]
        weight = draw(st.sampled_from([1, 2, 0.5]))
        model = model + qlib.cons(draw(allowed_sets())(lhs), weight=weight, label=f"c{r}")
    return model
