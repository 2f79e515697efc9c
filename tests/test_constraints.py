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


@pytest.mark.parametrize("lo, hi", [(float("nan"), 1), (0, float("nan")), (0, float("inf")),
                                    (-float("inf"), 0), (np.float64("nan"), 2)])
def test_between_needs_finite_bounds(lo, hi):
    with pytest.raises(ValueError, match="finite"):
        qlib.between(lo, hi)


def test_simplified_away_terms_keep_a_valid_constraint():
    # 0.5*x*~x vanishes on binaries: the side left takes integer values only, and the set its
    # author gave ({1.5}) is then unreachable, which is a constraint that never holds, not an error
    x, y = qlib.var("sw", 2)
    comp = qlib.compile(qlib.cons(0.5 * x * ~x + y == 1.5, label="never"))
    assert comp.labels == ["sw[1]"] and comp.energy([0]) == 2.25 and comp.energy([1]) == 0.25
    assert qlib.solve(comp, backend="exhaustive").violations == [("never", 0.5)]
    with pytest.raises(ValueError, match="no variables after simplification"):
        qlib.compile(qlib.cons(x * ~x + 0 * y + x * ~x == 0, label="empty"))


def test_overflowing_energies_are_named_errors():
    a, b = qlib.var("of", 2)
    # a state's energy (1e300)**2 does not fit a float64: it used to come back as [0, 0] with E=inf
    with pytest.raises(ValueError, match=r"constraint 'huge'.*can reach inf") as info:
        qlib.solve(qlib.cons(1e300 * a + b == 1e300, label="huge"), backend="exhaustive")
    assert isinstance(info.value, qlib.NumericOverflowError) and isinstance(info.value, OverflowError)
    with pytest.raises(ValueError, match=r"constraint 'le'"):
        qlib.compile(qlib.cons(1e200 * a + b <= 0, label="le"))
    with pytest.raises(qlib.NumericOverflowError, match="objective"):
        qlib.compile(1e308 * a + 1e308 * b)
    with pytest.raises(qlib.NumericOverflowError, match=r"the largest constraint 'c2'"):
        # each constraint fits (4.9e307, 5.0e307), their sum does not
        qlib.compile(qlib.cons(7e153 * a == 0, label="c1") + qlib.cons(7.1e153 * b == 0, label="c2") + a)
    with pytest.raises(qlib.NumericOverflowError, match=r"constraint 'raw'"):
        qlib.compile(qlib.Constraint(qlib.Expr({(2 * a.id,): 10**400}), qlib.one_of(0), label="raw"))
    # big but finite is fine, and solved exactly
    sol = qlib.solve(qlib.cons(1e150 * a + b == 1e150, label="ok"), backend="exhaustive")
    assert sol.energy == 0 and sol.sample == {"of[0]": 1, "of[1]": 0}


def test_one_of_three_values_through_the_cpu_kernel():
    x = qlib.var("o3", 7)
    model = (qlib.cons(qlib.sum(x) == qlib.one_of(1, 4, 6), label="count")
             + qlib.cons(x[0] + x[1] + x[2] == qlib.one_of(0, 3), label="ends")
             + qlib.cons(2 * x[3] - x[4] + x[5] == qlib.one_of(-1, 2, 3), label="mixed")
             + 3 * x[6] * ~x[5])
    comp = qlib.compile(model)
    states = np.array([[(k >> b) & 1 for b in range(7)] for k in range(2**7)], dtype=np.uint8)
    zero = {tuple(s) for s, e in zip(states.tolist(), comp.energy(states)) if e == 0}
    exact = qlib.solve(model, backend="exhaustive")
    assert exact.energy == 0 and exact.info["num_ground_states"] == len(zero) >= 2
    for seed in range(3):
        for algorithm in ("focused", "sa"):
            sol = qlib.solve(model, backend="cpu", seed=seed, target_energy=0, algorithm=algorithm,
                             time_limit=30)
            assert sol.energy == 0 and sol.is_feasible, (seed, algorithm)
            assert tuple(sol.state.tolist()) in zero
            counts = int(sum(sol(x)))
            assert counts in (1, 4, 6) and sol(x[0] + x[1] + x[2]) in (0, 3)
