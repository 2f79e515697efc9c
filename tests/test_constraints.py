"""Constraints, their energy and the errors for bad input."""

import numpy as np
import pytest

import qlib


def test_energy_is_weight_times_squared_distance():
    a = qlib.var("c", 4)
    deg = qlib.sum(a)
    model = 0 + qlib.cons(deg == qlib.one_of(0, 2), weight=3, label="deg")
    comp = qlib.compile(model)
    for bits in range(16):
        state = [(bits >> k) & 1 for k in range(4)]
        n = sum(state)
        dist = min(abs(n - 0), abs(n - 2))
        assert comp.energy(state) == 3 * dist**2


@pytest.mark.parametrize(
    "make, value, expected",
    [
        (lambda s: s <= 1, 3, 4),
        (lambda s: s >= 2, 0, 4),
        (lambda s: s == qlib.between(1, 2), 4, 4),
        (lambda s: s == qlib.between(1, 2), 0, 1),
        (lambda s: s == 2, 3, 1),
        (lambda s: 3 >= s, 4, 1),
    ],
)
def test_relations(make, value, expected):
    a = qlib.var("r", 4)
    model = qlib.Expr() + qlib.cons(make(qlib.sum(a)))
    comp = qlib.compile(model)
    state = [1] * value + [0] * (4 - value)
    assert comp.energy(state) == expected


def test_expr_plus_cons_builds_a_model_in_source_style():
    x, y = qlib.var("x"), qlib.var("y")
    f = x * y
    f += qlib.cons(x + y == 1, label="one")
    f += qlib.cons(x <= 0)
    assert isinstance(f, qlib.Model)
    assert len(f.constraints) == 2 and f.var_count == 2


def test_solution_reports_violations_by_label():
    x, y = qlib.var("x"), qlib.var("y")
    model = qlib.cons(x + y == 1, label="exactly one") + qlib.cons(x == 0, weight=5, label="x off")
    comp = qlib.compile(model)
    sol = qlib.Solution(comp, {"x": 1, "y": 1})
    assert sol.energy == 1 + 5
    assert [(v.label, v.amount) for v in sol.violations] == [("exactly one", 1.0), ("x off", 1.0)]
    assert not sol.is_feasible
    assert sol[x] == 1 and sol(x + y) == 2


def test_constraint_without_variables_is_an_error():
    x = qlib.var("x")
    with pytest.raises(ValueError, match="no variables"):
        qlib.cons(x - x == 0)
    with pytest.raises(ValueError, match="no variables"):
        qlib.cons(qlib.Expr.constant(3) == 3)
    with pytest.raises(TypeError, match="bool"):
        qlib.cons(3 == 3)


def test_non_integer_set_for_integer_sum_is_an_error():
    a = qlib.var("n", 3)
    with pytest.raises(ValueError, match="non-integers"):
        qlib.cons(qlib.sum(a) == qlib.one_of(0, 1.5))


def test_bad_weight_and_bad_sets():
    x = qlib.var("x")
    with pytest.raises(ValueError, match="weight"):
        qlib.cons(x == 1, weight=0)
    with pytest.raises(ValueError):
        qlib.between(3, 1)
    with pytest.raises(ValueError):
        qlib.one_of()
    with pytest.raises(TypeError):
        x < 1


def test_unknown_variable_and_wrong_length_states():
    x, y = qlib.var("x"), qlib.var("y")
    comp = qlib.compile(x * y + qlib.cons(x + y == 1))
    with pytest.raises(KeyError, match="not in this model"):
        comp.as_states({"n[0]": 1, "x": 1})
    with pytest.raises(KeyError, match="no variable labelled"):
        comp.as_states({"surely_not_a_variable": 1})
    with pytest.raises(ValueError, match="2 entries"):
        comp.energy([0, 1, 1])
    with pytest.raises(ValueError, match="0 or 1"):
        comp.energy([0, 2])
    assert comp.energy(np.array([[0, 1], [1, 1]])).tolist() == [0.0, 2.0]
