"""Constraints to penalty polynomials, and high-degree terms to quadratic ones.

Both transformations keep the zero-energy assignments exactly: a state of the
original variables has energy 0 before if and only if, with the best values of
the added auxiliary variables, it has energy 0 after.
"""

from __future__ import annotations

import math
from collections import Counter

from .constraints import Constraint, Model, as_model, one_of
from .expr import Expr, Var, label_of

__all__ = ["expand_cons", "to_qubo"]

AUX_PREFIX = "_aux"


def _binary_counter(name: str, top: int) -> tuple[Expr, list[str]]:
    """An expression taking every integer in [0, top] with the fewest binary variables.

    Coefficients 1, 2, 4, ..., and a last one that makes the maximum exactly ``top``.
    """
    if top <= 0:
        return Expr(), []
    bits = int(top).bit_length()
    coefs = [1 << b for b in range(bits - 1)] + [top - ((1 << (bits - 1)) - 1)]
    labels = [f"{name}[{b}]" for b in range(bits)]
    expr = Expr()
    for coef, label in zip(coefs, labels):
        expr = expr + coef * Var(label)
    return expr, labels


def _penalty(con: Constraint, name: str) -> tuple[Expr, list[str]]:
    """weight * (squared penalty) that is 0 exactly when ``con`` holds."""
    lhs = con.lhs
    label = con.label or repr(lhs)
    if not all(float(c).is_integer() for c in lhs.terms.values()):
        if con.allowed.is_finite_set and len(con.allowed.values) == 1:
            k = con.allowed.values[0]
            return con.weight * (lhs - k) ** 2, []
        raise ValueError(
            f"constraint {label!r}: only equalities can be expanded when the left-hand side "
            f"has non-integer coefficients (slack variables need integer values)"
        )
    low, high = con.value_range()
    if con.allowed.is_finite_set:
        values = [v for v in con.allowed.values if low <= v <= high]
        if not values:  # can never hold: penalise the distance to the nearest allowed value
            if max(con.allowed.values) < low:
                return con.weight * (lhs - max(con.allowed.values)) ** 2, []
            if min(con.allowed.values) > high:
                return con.weight * (lhs - min(con.allowed.values)) ** 2, []
            values = list(con.allowed.values)
        if len(values) == 1:
            return con.weight * (lhs - values[0]) ** 2, []
        steps = {b - a for a, b in zip(values, values[1:])}
        if len(steps) == 1:  # arithmetic progression v0, v0 + d, ...: lhs = v0 + d * counter
            (d,) = steps
            counter, labels = _binary_counter(name, len(values) - 1)
            return con.weight * (lhs - values[0] - d * counter) ** 2, labels
        # general finite set: one-hot choice of the value
        labels = [f"{name}[{k}]" for k in range(len(values))]
        pick = [Var(lab) for lab in labels]
        chosen = Expr()
        for v, p in zip(values, pick):
            chosen = chosen + v * p
        one_hot = Expr.constant(-1)
        for p in pick:
            one_hot = one_hot + p
        return con.weight * ((lhs - chosen) ** 2 + one_hot ** 2), labels
    lo = max(con.allowed.lo, low)
    hi = min(con.allowed.hi, high)
    if con.allowed.hi < low:  # can never hold: the distance is lhs - hi
        return con.weight * (lhs - con.allowed.hi) ** 2, []
    if con.allowed.lo > high:
        return con.weight * (lhs - con.allowed.lo) ** 2, []
    lo, hi = math.ceil(lo), math.floor(hi)
    if lo > hi:  # no integer inside a non-integer interval: one-hot over its neighbours
        return _penalty(Constraint(lhs, one_of(math.floor(lo), math.ceil(hi)), con.weight, con.label), name)
    if lo <= low and hi >= high:
        return Expr(), []  # always satisfied
    counter, labels = _binary_counter(name, hi - lo)
    return con.weight * (lhs - lo - counter) ** 2, labels


def expand_cons(model, *, prefix: str = AUX_PREFIX) -> Model:
    """Replace every constraint by a penalty polynomial (slack variables where needed).

    * ``lhs == k``: ``(lhs - k)**2``
    * ``lhs == one_of(a, a+d, ..., a+m*d)``: ``(lhs - a - d*s)**2`` with ``s`` a binary
      counter over ``0..m`` (``{0, 2}`` gives ``(lhs - 2y)**2``); other finite sets
      use a one-hot choice
    * ``lo <= lhs <= hi``: ``(lhs - lo - s)**2`` with ``s`` counting ``0..hi-lo``
      (bounds are clipped to the range ``lhs`` can take, so ``sum(x) <= n - 1``
      over ``n`` variables needs ``bit_length(n - 1)`` slack variables)

    Each penalty is multiplied by the constraint's weight.  The result is a
    polynomial in plain variables (``~x`` written as ``1 - x``), ready for any
    QUBO/HUBO solver; ``report`` lists the slack variables added per constraint.
    Slack variables are labelled ``{prefix}_slack{k}[b]`` for constraint ``k``;
    give each call its own ``prefix`` when expanded pieces are added together.
    """
    model = as_model(model)
    taken = {label_of(v) for v in model.var_ids}
    objective = model.objective
    slack: dict[str, list[str]] = {}
    for k, con in enumerate(model.constraints):
        name = f"{prefix}_slack{k}"
        penalty, labels = _penalty(con, name)
        clash = taken.intersection(labels)
        if clash:
            raise ValueError(f"the model already uses the auxiliary label(s) {sorted(clash)}")
        if labels:
            slack[con.label or f"constraint {k}"] = labels
        objective = objective + penalty
    report = dict(model.report)
    report["slack_vars"] = report.get("slack_vars", []) + [lab for labs in slack.values() for lab in labs]
    report["slack_by_constraint"] = slack
    return Model(objective.expand_negations(), [], report)


def to_qubo(model, strength: float | None = None) -> Model:
    """A model with only terms of degree <= 2, over plain (non-negated) variables.

    Constraints are expanded first (:func:`expand_cons`).  Then, while a term of
    degree > 2 remains, the pair of variables shared by most such terms is
    replaced by a new variable ``z`` and the Rosenberg penalty

        strength * (x*y - 2*x*z - 2*y*z + 3*z)

    (0 when ``z = x*y``, at least ``strength`` otherwise) is added.  With the
    default strength, 1 + the total |coefficient| of the terms that used the pair,
    no wrong ``z`` can lower the energy, so the minimum over the auxiliaries
    equals the original energy of every state.  ``report`` lists the
    auxiliaries, the strengths and the number of terms added.
    """
    model = as_model(model)
    if model.constraints:
        model = expand_cons(model)
    expr = model.objective.expand_negations()
    before_terms = expr.term_count
    taken = {label_of(v) for v in expr.var_ids}
    aux_labels: list[str] = []
    strengths: list[float] = []
    terms = dict(expr.terms)
    while True:
        high = [t for t in terms if len(t) > 2]
        if not high:
            break
        counts: Counter = Counter()
        for t in high:
            for i in range(len(t)):
                for j in range(i + 1, len(t)):
                    counts[(t[i], t[j])] += 1
        (a, b), _ = max(counts.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
        label = f"{AUX_PREFIX}_pair{len(aux_labels)}"
        if label in taken:
            raise ValueError(f"the model already uses the auxiliary label {label!r}")
        z = Var(label)
        zlit = 2 * z.id
        mass = 0.0
        new_terms: dict[tuple, float] = {}
        for t, c in terms.items():
            if len(t) > 2 and a in t and b in t:
                rest = tuple(lit for lit in t if lit not in (a, b))
                key = tuple(sorted(rest + (zlit,)))
                new_terms[key] = new_terms.get(key, 0) + c
                mass += abs(c)
            else:
                new_terms[t] = new_terms.get(t, 0) + c
        s = float(strength) if strength is not None else 1.0 + mass
        x, y = Var(label_of(a >> 1)), Var(label_of(b >> 1))
        penalty = s * (x * y - 2 * x * z - 2 * y * z + 3 * z)
        for t, c in penalty.terms.items():
            new_terms[t] = new_terms.get(t, 0) + c
        terms = {t: c for t, c in new_terms.items() if c != 0}
        aux_labels.append(label)
        strengths.append(s)
    result = Expr(terms).simplify_as_binary()
    report = dict(model.report)
    report.update(aux_vars=aux_labels, aux_strengths=strengths,
                  added_terms=result.term_count - before_terms)
    return Model(result, [], report)
