"""Constraints to penalty polynomials, and high-degree terms to quadratic ones.

Both transformations keep the zero-energy assignments exactly: a state of the
original variables has energy 0 before if and only if, with the best values of
the added auxiliary variables, it has energy 0 after.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from . import validate
from .constraints import Allowed, Constraint, Model, as_model, value_range
from .expr import Expr, Var, label_of
from .expr import sum as sum_exprs

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
    lhs, allowed, weight = con.lhs, con.allowed, con.weight
    if _is_integer_valued(lhs.terms.values()):
        return _integer_penalty(lhs, allowed, weight, name)
    if allowed.is_finite_set and len(allowed.values) == 1:
        return weight * (lhs - allowed.values[0]) ** 2, []
    q = _integer_scale(lhs.terms.values())
    if q is not None:
        # q * lhs has integer coefficients: expand q*lhs in q*allowed, with weight / q**2
        # (the same energy: (q*d)**2 / q**2 = d**2)
        scaled = Expr({t: int(round(q * c)) for t, c in lhs.terms.items()})
        if allowed.is_finite_set:
            scaled_allowed = Allowed(values=tuple(_snap(q * v) for v in allowed.values))
        else:
            scaled_allowed = Allowed(lo=_snap(q * allowed.lo), hi=_snap(q * allowed.hi))
        return _integer_penalty(scaled, scaled_allowed, weight / q**2, name)
    if allowed.is_finite_set:  # any real values: a one-hot choice is exact
        return _one_hot(lhs, list(allowed.values), weight, name)
    label = con.label or repr(lhs)
    raise ValueError(
        f"constraint {label!r}: an interval cannot be expanded when the left-hand side has "
        f"coefficients with no common denominator up to {MAX_DENOMINATOR} (slack variables count "
        f"in integer steps); use an equality or a finite set, or round the coefficients"
    )


def _integer_penalty(lhs: Expr, allowed: Allowed, weight, name: str) -> tuple[Expr, list[str]]:
    """The penalty of ``lhs in allowed`` for a left-hand side that takes only integer values."""
    low, high = value_range(lhs)
    if allowed.is_finite_set:
        # only integer values in [low, high] can be hit
        values = [v for v in allowed.values if low <= v <= high and float(v).is_integer()]
        if not values:  # can never hold
            if max(allowed.values) < low:    # the distance is lhs - max
                return weight * (lhs - max(allowed.values)) ** 2, []
            if min(allowed.values) > high:   # the distance is min - lhs
                return weight * (lhs - min(allowed.values)) ** 2, []
            # allowed values on both sides of the range, or only non-integers inside it: the one-hot
            # choice over every allowed value is never 0 (lhs meets none of them)
            return _one_hot(lhs, list(allowed.values), weight, name)
        if len(values) == 1:
            return weight * (lhs - values[0]) ** 2, []
        steps = {b - a for a, b in zip(values, values[1:])}
        if len(steps) == 1:  # arithmetic progression v0, v0 + d, ...: lhs = v0 + d * counter
            (d,) = steps
            counter, labels = _binary_counter(name, len(values) - 1)
            return weight * (lhs - values[0] - d * counter) ** 2, labels
        return _one_hot(lhs, values, weight, name)
    if allowed.hi < low:  # can never hold: the distance is lhs - hi
        return weight * (lhs - allowed.hi) ** 2, []
    if allowed.lo > high:
        return weight * (lhs - allowed.lo) ** 2, []
    lo = max(allowed.lo, low)
    hi = min(allowed.hi, high)
    # an integer lies in [lo, hi] exactly when it lies in [ceil(lo), floor(hi)]
    first, last = math.ceil(lo), math.floor(hi)
    if first > last:
        # no integer inside: it can never hold.  lo is then the interval's own lower bound (the
        # range's ends are integers), not an integer, so (lhs - lo)**2 is never 0.
        return weight * (lhs - lo) ** 2, []
    if first <= low and last >= high:
        return Expr(), []  # always satisfied
    counter, labels = _binary_counter(name, last - first)
    return weight * (lhs - first - counter) ** 2, labels


def _one_hot(lhs: Expr, values: list, weight, name: str) -> tuple[Expr, list[str]]:
    """``(lhs - sum_k v_k p_k)**2 + (sum_k p_k - 1)**2``: 0 exactly when lhs is one of ``values``."""
    labels = [f"{name}[{k}]" for k in range(len(values))]
    pick = [Var(lab) for lab in labels]
    chosen = Expr()
    for v, p in zip(values, pick):
        chosen = chosen + v * p
    one_hot = Expr.constant(-1)
    for p in pick:
        one_hot = one_hot + p
    return weight * ((lhs - chosen) ** 2 + one_hot ** 2), labels


#: The largest common denominator ``_integer_scale`` looks for.
MAX_DENOMINATOR = 10_000


def _snap(x):
    """``x`` as an int when rounding alone keeps it off one (``10 * 0.7`` is 7.000000000000001)."""
    if math.isfinite(x) and abs(x - round(x)) <= 1e-9 * max(1.0, abs(x)):
        return int(round(x))
    return x


def _is_integer_valued(coefs) -> bool:
    return all(isinstance(c, int) or float(c).is_integer() for c in coefs)


def _integer_scale(coefs) -> int | None:
    """The smallest q <= MAX_DENOMINATOR making every coefficient an integer (within rounding), or None."""
    q = 1
    for c in coefs:
        f = Fraction(c).limit_denominator(MAX_DENOMINATOR)
        if abs(float(f) - c) > 1e-12 * max(1.0, abs(c)):
            return None
        q = q * f.denominator // math.gcd(q, f.denominator)
        if q > MAX_DENOMINATOR:
            return None
    return q


def expand_cons(model, *, prefix: str = AUX_PREFIX) -> Model:
    """Replace every constraint by a penalty polynomial (slack variables where needed).

    * ``lhs == k``: ``(lhs - k)**2``
    * ``lhs == one_of(a, a+d, ..., a+m*d)``: ``(lhs - a - d*s)**2`` with ``s`` a binary
      counter over ``0..m`` (``{0, 2}`` gives ``(lhs - 2y)**2``); other finite sets
      use a one-hot choice
    * ``lo <= lhs <= hi``: ``(lhs - lo - s)**2`` with ``s`` counting ``0..hi-lo``
      (bounds are clipped to the range ``lhs`` can take, so ``sum(x) <= n - 1``
      over ``n`` variables needs ``bit_length(n - 1)`` slack variables)

    These need a left-hand side that takes integer values.  Non-integer bounds
    are rounded inward (``ceil(lo)``, ``floor(hi)``: the same states hold); an
    interval with no integer inside never holds and gets ``(lhs - lo)**2``,
    never 0; set values the side cannot take are dropped.  A side with
    non-integer coefficients is first multiplied by their common denominator
    ``q`` (up to ``MAX_DENOMINATOR``; the weight is divided by ``q**2``); without
    one, equalities and finite sets (one-hot) still expand, intervals raise
    ``ValueError``.  In every case the expansion is 0 exactly where the
    constraint holds.

    Each penalty is multiplied by the constraint's weight.  The result is a
    polynomial in plain variables (``~x`` written as ``1 - x``), ready for any
    QUBO/HUBO solver; ``report`` lists the slack variables added per constraint.
    Slack variables are labelled ``{prefix}_slack{k}[b]`` for constraint ``k``;
    give each call its own ``prefix`` when expanded pieces are added together.
    """
    model = as_model(model)
    taken = {label_of(v) for v in model.var_ids}
    pieces = [model.objective]
    slack: dict[str, list[str]] = {}
    for k, con in enumerate(model.constraints):
        name = f"{prefix}_slack{k}"
        penalty, labels = _penalty(con, name)
        clash = taken.intersection(labels)
        if clash:
            raise ValueError(f"the model already uses the auxiliary label(s) {sorted(clash)}")
        if labels:
            slack[con.label or f"constraint {k}"] = labels
        pieces.append(penalty)
    objective = sum_exprs(pieces)   # one sum: linear in the size, where adding one at a time is quadratic
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
    default strength, 1 + the total ``|coefficient|`` of the terms that used the pair,
    no wrong ``z`` can lower the energy, so the minimum over the auxiliaries
    equals the original energy of every state.  ``report`` lists the
    auxiliaries, the strengths and the number of terms added.
    """
    strength = validate.number("strength", strength, positive=True, none=True)
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
