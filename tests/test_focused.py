"""The focused search and its lazy-cut machinery, on small models with known answers."""

import itertools

import numpy as np
import pytest
from numba import njit

import qlib
from qlib.solvers.focused import LazyCuts


@njit(cache=True)
def cut_all_but_wanted(x, data, cut_vars, cut_ptr, answer):
    """Test hook: accept the state equal to data[0]; otherwise cut the set of
    variables that are 1 in x, unless the wanted state contains all of them."""
    wanted = data[0]
    same = True
    subset = True
    for i in range(x.shape[0]):
        if x[i] != wanted[i]:
            same = False
        if x[i] == 1 and wanted[i] == 0:
            subset = False
    if same:
        answer[:] = x
        return -1
    if subset:
        return 0
    n = 0
    for i in range(x.shape[0]):
        if x[i] == 1:
            cut_vars[n] = i
            n += 1
    cut_ptr[0] = 0
    cut_ptr[1] = n
    return 1


def exactly_k_model(n, k):
    a = qlib.var(f"k{n}_{k}", n)
    return qlib.compile(0 + qlib.cons(qlib.sum(a) == k, label="k"))


@pytest.mark.parametrize("seed", range(4))
def test_custom_hook_steers_to_the_wanted_state(seed):
    comp = exactly_k_model(8, 3)
    wanted = np.zeros(8, dtype=np.int64)
    wanted[[1, 4, 6]] = 1
    data = (wanted,) + tuple(np.zeros(1, dtype=np.int64) for _ in range(6))
    lazy = LazyCuts(cut_all_but_wanted, data, energy=0.0, interval=1)
    sol = qlib.solve(comp, backend="cpu", algorithm="focused", seed=seed, target_energy=0, lazy_cuts=lazy,
                     time_limit=10)
    assert sol.info["stop_reason"] == "accepted"
    assert sol.state.tolist() == wanted.tolist()
    # every cut is a 3-subset other than the wanted one: at most C(8,3) - 1 of them
    assert all(len(c) == 3 for c in sol.info["cuts"]) and sol.info["num_cuts"] <= 55


def test_focused_reaches_zero_on_constraint_models():
    a = qlib.var("fz", 6, 6)
    model = qlib.Expr()
    for i in range(6):
        model = model + qlib.cons(qlib.sum(a[i]) == 1, label=f"row {i}")
        model = model + qlib.cons(qlib.sum(a[:, i]) == 1, label=f"col {i}")
    model = model + qlib.cons(a[0, 0] + a[1, 1] <= 0)
    for seed in range(3):
        sol = qlib.solve(model, backend="cpu", algorithm="focused", seed=seed, target_energy=0)
        assert sol.energy == 0 and sol.is_feasible
        assert (sol(a).sum(axis=0) == 1).all() and (sol(a).sum(axis=1) == 1).all()


def test_focused_handles_positive_high_degree_terms():
    # product terms as penalties (the HUBO way of forbidding a set)
    x = qlib.var("hd", 5)
    model = x[0] * x[1] * x[2] + x[2] * x[3] * x[4] * x[1] + qlib.cons(qlib.sum(x) == 3)
    exact = qlib.solve(model, backend="exhaustive")
    sol = qlib.solve(model, backend="cpu", algorithm="focused", seed=0, target_energy=exact.energy)
    assert sol.energy == exact.energy == 0


def test_same_seed_same_result_focused():
    comp = exactly_k_model(30, 7)
    runs = [qlib.solve(comp, backend="cpu", algorithm="focused", seed=11, target_energy=0, num_replicas=2)
            for _ in range(2)]
    assert runs[0].state.tolist() == runs[1].state.tolist()


def test_focused_needs_a_stopping_rule():
    with pytest.raises(ValueError, match="target_energy"):
        qlib.solve(qlib.cons(qlib.var("s1") + qlib.var("s2") == 1), backend="cpu", algorithm="focused")


def test_lazy_cuts_validates_its_input():
    with pytest.raises(ValueError, match="built-in hook"):
        LazyCuts("nope", ())
    with pytest.raises(ValueError, match="seven"):
        LazyCuts("loops", (np.zeros(3),))
