"""The algebra of binary polynomials."""

import numpy as np
import pytest

import qlib


def test_var_identity_and_arrays():
    x1, x2 = qlib.var("x"), qlib.var("x")
    assert x1.id == x2.id and x1.label == "x"
    h = qlib.var("h", 3, 2)
    assert h.shape == (3, 2)
    assert h[2][1].label == "h[2][1]" and h[2, 1].id == h[2][1].id
    assert qlib.sum(h).var_count == 6


def test_negated_literal_is_native_and_simplifies():
    x, y = qlib.var("x"), qlib.var("y")
    e = ~x * y * ~x
    assert e.degree == 3
    s = e.simplify_as_binary()
    assert s.term_count == 1 and s.degree == 2  # ~x * ~x = ~x
    assert (x * ~x).simplify_as_binary().term_count == 0
    assert (x * x - x).simplify_as_binary().term_count == 0
    plain = (~x * y).expand_negations()
    assert plain.terms == (y - x * y).simplify_as_binary().terms


def test_powers_and_scalars():
    x, y = qlib.var("x"), qlib.var("y")
    e = ((x + y - 1) ** 2).simplify_as_binary()
    # (x + y - 1)^2 = 1 - x - y + 2xy over binaries
    assert e.terms == {(): 1, (2 * x.id,): -1, (2 * y.id,): -1, (2 * x.id, 2 * y.id): 2}
    assert (0.5 * x + 1.5).constant_term == 1.5
    with pytest.raises(ValueError):
        x ** -1
    with pytest.raises(TypeError):
        x ** 1.5


def test_expression_has_no_truth_value():
    x = qlib.var("x")
    with pytest.raises(TypeError):
        bool(x)
    with pytest.raises(TypeError):
        bool(x == 1)


def test_evaluate_matches_definition():
    a = qlib.var("ev", 3)
    e = 3 * a[0] * ~a[1] - 2 * a[2] + 1
    ids = {v.id: 0 for v in a}
    for bits in range(8):
        vals = {a[k].id: (bits >> k) & 1 for k in range(3)}
        x0, x1, x2 = (vals[a[k].id] for k in range(3))
        assert e.evaluate(vals) == 3 * x0 * (1 - x1) - 2 * x2 + 1
    assert e.evaluate(ids) == 1                       # all zero: only the constant
    assert e.evaluate({**ids, a[0].id: 1}) == 4       # 3 * a0 * ~a1 switches on


def test_sum_flattens_arrays_and_nested_lists():
    g = qlib.var("g", 2, 2)
    assert qlib.sum([g, qlib.var("g_extra")]).var_count == 5
    assert qlib.sum(np.array([])).term_count == 0


def test_coefficients_that_overflow_float64_are_named():
    a, b = qlib.var("ov", 2)
    # 1e300 * 1e300 used to become a 600-digit int and fail later with a bare OverflowError
    with pytest.raises(qlib.NumericOverflowError, match=r"coefficient of ov\[0\]\*ov\[0\] overflows"):
        (1e300 * a + 1e300 * b - 1e300) ** 2
    with pytest.raises(ValueError, match=r"coefficient of ov\[0\] overflows float64 in a sum"):
        1e308 * a + 1e308 * a
    with pytest.raises(ValueError, match="beyond the float64 range"):
        10**400 * a
    with pytest.raises(OverflowError):
        a / 1e-320
    with pytest.raises(ValueError, match="overflows"):
        qlib.sum([1e308 * a, 1e308 * a])
    with pytest.raises(ValueError, match="finite"):
        a + float("nan")
    big = (1e150 * a + b) ** 2                        # large is fine while it fits
    assert big.simplify_as_binary().terms[(2 * a.id,)] == pytest.approx(1e300)
