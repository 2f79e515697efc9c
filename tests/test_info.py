"""Typed solve information (qlib.info): the class of the algorithm that ran, read by attribute and by key,
with the replicas as rows whose energies are the model's own."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import qlib
from qlib.info import AnnealInfo, ExhaustiveInfo, FocusedInfo, Replica, SolveInfo, typed


def _model():
    a = qlib.var("inf_a", 6)
    return (a[0] + a[1] + a[2] - 1) ** 2 + a[3] * ~a[4] + 0.5 * a[4] * a[5] - a[5] \
        + qlib.cons(a[0] + a[3] + a[5] == qlib.one_of(0, 2), label="pair")


def _brute_force(compiled):
    states = np.array(list(itertools.product((0, 1), repeat=compiled.var_count)), dtype=np.uint8)
    return np.atleast_1d(compiled.energy(states))


@pytest.mark.parametrize("algorithm, cls", [("sa", AnnealInfo), ("focused", FocusedInfo)])
def test_each_algorithm_reports_its_own_fields_and_its_replicas_as_rows(algorithm, cls):
    compiled = qlib.compile(_model())
    sol = qlib.solve(compiled, seed=3, algorithm=algorithm, num_replicas=3, time_limit=5,
                     target_energy=float(_brute_force(compiled).min()))
    info = sol.info
    assert type(info) is cls and isinstance(info, SolveInfo)
    assert info.algorithm == info["algorithm"] == algorithm
    assert info.stop_reason == info["stop_reason"] and info.seed == 3 and info.backend == "cpu"
    assert info.num_replicas == 3 and sol.energy == pytest.approx(float(_brute_force(compiled).min()))
    rows = info.replicas
    assert [r.index for r in rows] == [0, 1, 2] and all(isinstance(r, Replica) for r in rows)
    for row in rows:   # each row's energy is the model's energy of that row's state
        assert row.energy == pytest.approx(float(compiled.energy(row.state)))
    assert any((r.state == sol.state).all() for r in rows)
    if algorithm == "sa":
        assert info.kernel in ("local_field", "cached_delta", "terms") and info.rounds >= 1
    else:
        assert info.steps_of_winner <= info.flips and 0 <= info.replica < 3


def test_the_exhaustive_backend_counts_the_ground_states_brute_force_finds():
    compiled = qlib.compile(_model())
    energies = _brute_force(compiled)
    info = qlib.solve(compiled, backend="exhaustive").info
    assert type(info) is ExhaustiveInfo and info.stop_reason == "complete"
    assert info.num_ground_states == int(np.isclose(energies, energies.min()).sum())
    assert info.replicas == []


def test_a_typed_info_reads_and_writes_as_the_dict_it_replaces():
    raw = dict(algorithm="sa", backend="cpu", seed=1, rounds=2, note="mine", extra_key=None)
    info = typed(raw)
    assert type(info) is AnnealInfo
    assert dict(info) == raw and len(info) == len(raw) and set(info) == set(raw)
    assert info.extra == {"note": "mine", "extra_key": None}   # keys no field names
    info["rounds"] = 5
    assert info.rounds == 5 and info["rounds"] == 5
    del info["rounds"]
    assert "rounds" not in info and info.rounds is None and info.get("rounds", "none") == "none"
    with pytest.raises(KeyError):
        info["rounds"]
    with pytest.raises(KeyError):
        del info["rounds"]
    info.setdefault("num_sweeps", 10)
    info.update(note="again")
    assert info.num_sweeps == 10 and info["note"] == "again"
    assert typed(info) == info and typed(info) is not info
    assert type(typed({"algorithm": "sat"})) is SolveInfo   # a word no solver algorithm owns
    assert "<array (2, 3)>" in repr(typed(dict(algorithm="sa", replica_states=np.zeros((2, 3)))))


def test_a_solution_keeps_its_typed_info_through_pickle_and_assignment():
    compiled = qlib.compile(_model())
    sol = qlib.solve(compiled, seed=0, algorithm="focused", num_replicas=2, max_steps=2_000)
    again = pickle.loads(pickle.dumps(sol))
    assert type(again.info) is FocusedInfo and dict(again.info).keys() == dict(sol.info).keys()
    assert again.info.stop_reason == sol.info.stop_reason
    sol.info = {"algorithm": "sa", "seed": 7}   # assigning a dict types it
    assert type(sol.info) is AnnealInfo and sol.info.seed == 7


def test_samples_are_rows_whose_feasibility_is_the_violations():
    compiled = qlib.compile(_model())
    sol = qlib.solve(compiled, seed=2, algorithm="sa", num_replicas=4, num_sweeps=5, max_rounds=1)
    rows = sol.samples
    assert all(isinstance(r, qlib.Sample) for r in rows) and len(rows) >= 4
    for row in rows:
        state, energy, feasible = row   # still a tuple
        assert energy == pytest.approx(float(compiled.energy(state)))
        check = qlib.Solution(compiled, state)
        assert feasible == check.is_feasible == (row.is_feasible)
