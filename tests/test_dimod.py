"""qlib.dimod: models to dimod BQMs/polynomials and back, decoding samplesets, and QlibSampler."""

import importlib.util
import itertools
import subprocess
import sys
import unittest

import numpy as np
import pytest

dimod = pytest.importorskip("dimod")

from hypothesis import given, settings, HealthCheck  # noqa: E402

import qlib  # noqa: E402
from qlib.dimod import QlibSampler  # noqa: E402
from strategies import models  # noqa: E402


def _hand_models():
    """Models whose constraint expansions are exact (integer sides; equalities, intervals,
    arithmetic one_of): the minimum over the auxiliaries of the BQM energy is qlib's energy."""
    h = qlib.var("h", 2, 2)
    x = qlib.var("dx", 4)
    return [
        h[0][1] * ~h[1][0] * h[1][1] - 2 * h[0][0] + qlib.cons(qlib.sum(h) <= 2, label="c") + 3,
        qlib.Model.of(x[0] * x[1] * x[2] * ~x[3] - 1.5 * ~x[0] * ~x[1] + 0.25 * x[2] * x[3])
        + qlib.cons(x[0] + x[1] + 2 * x[2] == qlib.one_of(0, 2, 4), weight=2, label="ap"),
        qlib.cons(x[0] + x[1] + x[2] + x[3] == 2, label="two") + qlib.cons(x[0] + ~x[3] >= 1, label="ge")
        + (3 * x[1] * x[2] * x[3] - x[0]),
        ~h[0][0] * ~h[0][1] * ~h[1][0] - h[1][1] * h[0][0] + 0.5,
    ]


def _random_states(rng, n, count=64):
    return rng.integers(0, 2, size=(count, n), dtype=np.int8)


def _aux_min_energies(bqm, labels, states):
    """bqm energy of each state over ``labels``, minimised over every other (auxiliary) variable."""
    aux = [v for v in bqm.variables if v not in set(labels)]
    assert len(aux) <= 12
    best = np.full(len(states), np.inf)
    for bits in itertools.product((0, 1), repeat=len(aux)):
        full = np.hstack([states, np.tile(np.array(bits, dtype=np.int8), (len(states), 1))])
        best = np.minimum(best, bqm.energies((full, list(labels) + aux)))
    return best


@pytest.mark.parametrize("k", range(4))
def test_bqm_energy_is_qlib_energy_at_the_best_auxiliaries(k):
    model = _hand_models()[k]
    compiled = qlib.compile(model)
    bqm = qlib.to_bqm(model)
    assert bqm.vartype is dimod.BINARY
    assert set(compiled.labels) <= set(bqm.variables)
    states = _random_states(np.random.default_rng(k), compiled.var_count)
    np.testing.assert_allclose(_aux_min_energies(bqm, compiled.labels, states), compiled.energy(states), atol=1e-9)


@pytest.mark.parametrize("k", range(4))
def test_polynomial_and_round_trips(k):
    model = _hand_models()[k]
    expanded = qlib.compile(qlib.expand_cons(model))
    poly = qlib.to_polynomial(model)
    assert set(poly.variables) <= set(expanded.labels)
    rng = np.random.default_rng(10 + k)
    states = _random_states(rng, expanded.var_count)
    labels = expanded.labels
    np.testing.assert_allclose(poly.energies((states, labels)), expanded.energy(states), atol=1e-9)
    back = qlib.compile(qlib.from_polynomial(poly))
    cols = [labels.index(v) for v in back.labels]
    np.testing.assert_allclose(back.energy(states[:, cols]), expanded.energy(states), atol=1e-9)
    # BQM round trip: the same energy on every state of the BQM's variables
    bqm = qlib.to_bqm(model)
    expr = qlib.from_bqm(bqm)
    bqm_labels = list(bqm.variables)
    full = _random_states(rng, len(bqm_labels))
    compiled_back = qlib.compile(expr)
    cols = [bqm_labels.index(v) for v in compiled_back.labels]
    np.testing.assert_allclose(compiled_back.energy(full[:, cols]), bqm.energies((full, bqm_labels)), atol=1e-9)
    # and through SPIN
    spin = bqm.change_vartype(dimod.SPIN, inplace=False)
    np.testing.assert_allclose(qlib.compile(qlib.from_bqm(spin)).energy(full[:, cols]),
                               bqm.energies((full, bqm_labels)), atol=1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(var_count=4, max_constraints=2))
def test_random_models_agree_with_dimod(model):
    expanded = qlib.compile(qlib.expand_cons(model))
    rng = np.random.default_rng(0)
    states = _random_states(rng, expanded.var_count, 16)
    poly = qlib.to_polynomial(model)
    assert set(poly.variables) <= set(expanded.labels)
    np.testing.assert_allclose(poly.energies((states, expanded.labels)), expanded.energy(states),
                               rtol=1e-9, atol=1e-9)
    # the quadratic reduction: minimising over the pair auxiliaries gives the polynomial back
    bqm = qlib.to_bqm(model)
    if sum(str(v).startswith("_aux_pair") for v in bqm.variables) <= 8:
        np.testing.assert_allclose(_aux_min_energies(bqm, expanded.labels, states), expanded.energy(states),
                                   rtol=1e-9, atol=1e-9)


def test_labels_survive():
    h = qlib.var("h", 2, 3)
    model = h[0][1] * h[1][2] * h[0][0] - h[1][1] + qlib.cons(h[0][1] + h[1][0] == 1)
    bqm = qlib.to_bqm(model)
    assert {"h[0][1]", "h[1][2]", "h[0][0]", "h[1][1]", "h[1][0]"} <= set(bqm.variables)
    assert "h[0][1]" in qlib.to_polynomial(model).variables
    assert "h[0][1]" in qlib.compile(qlib.from_bqm(bqm)).labels
    bqm2 = dimod.BinaryQuadraticModel({("a", 1): 1.0, 3: -1.0}, {(("a", 1), 3): 2.0}, 0.5, "BINARY")
    assert set(qlib.compile(qlib.from_bqm(bqm2)).labels) == {"#('a', 1)", "#3"}
    with pytest.raises(ValueError, match="starts with '#'"):
        qlib.from_bqm(dimod.BinaryQuadraticModel({"#3": 1.0}, {}, 0.0, "BINARY"))


class _Label:
    """A hashable label that repr() cannot rebuild: it survives by identity, in this process."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<label {self.name}>"


@pytest.mark.parametrize("vartype", ["BINARY", "SPIN"])
def test_every_hashable_label_round_trips_with_its_type(vartype):
    odd = _Label("x")
    labels = [1, "1", (0, 1), ("a", (2, 3)), 2.5, "t", frozenset({1, 2}), odd]
    linear = {v: float(k + 1) for k, v in enumerate(labels)}
    quadratic = {(labels[k], labels[k + 1]): k - 3.5 for k in range(len(labels) - 1)}
    bqm = dimod.BinaryQuadraticModel(linear, quadratic, 1.5, vartype)
    back = qlib.to_bqm(qlib.from_bqm(bqm))
    assert set(back.variables) == set(bqm.variables)
    assert {type(v) for v in back.variables} == {type(v) for v in bqm.variables}
    assert back.spin == bqm.spin if vartype == "SPIN" else back == bqm
    poly = dimod.BinaryPolynomial({(1, (0, 1), "1"): 2.0, ((0, 1),): -1.0, (): 0.5}, "BINARY")
    assert qlib.to_polynomial(qlib.from_polynomial(poly)) == poly
    sampleset = QlibSampler().sample(bqm, seed=2, num_reads=3, num_sweeps=50)
    assert set(sampleset.variables) == set(bqm.variables)
    dimod.testing.assert_sampleset_energies(sampleset, bqm)


def test_the_sampler_takes_dimods_names():
    bqm = dimod.generators.ran_r(1, 12, seed=3)
    ss = QlibSampler().sample(bqm, num_reads=5, seed=1, num_sweeps=100)
    assert len(ss) == 5 and set(ss.record.num_occurrences) == {1}
    timing = ss.info["timing"]
    assert all(isinstance(timing[k], int) and timing[k] >= 0 for k in ("preprocessing_ns", "sampling_ns",
                                                                       "postprocessing_ns"))
    assert timing["sampling_ns"] >= 1e9 * timing["seconds"] * 0.5
    with pytest.raises(TypeError, match="same thing"):
        QlibSampler().sample(bqm, num_reads=2, num_replicas=2)
    # the same seed, the same rows; num_reads defaults to the number of initial states
    assert QlibSampler().sample(bqm, num_reads=5, seed=1, num_sweeps=100).record.sample.tolist() == \
        ss.record.sample.tolist()


def test_initial_states_start_the_reads_as_in_dwave_samplers():
    bqm = dimod.generators.ran_r(1, 10, seed=4)
    ground = dimod.ExactSolver().sample(bqm).first
    # started at the ground state with no sweep to leave it: every read is that state
    ss = QlibSampler().sample(bqm, initial_states=ground.sample, num_reads=3, initial_states_generator="tile",
                              seed=0, target_energy=ground.energy, time_limit=5)
    assert ss.first.energy == pytest.approx(ground.energy)
    assert ss.info["flips"] == 0
    given = dimod.SampleSet.from_samples([ground.sample] * 2, "SPIN", energy=[ground.energy] * 2)
    assert len(QlibSampler().sample(bqm, initial_states=given, seed=0, num_sweeps=20)) >= 2
    with pytest.raises(ValueError, match="needs 4 initial states"):
        QlibSampler().sample(bqm, initial_states=given, num_reads=4, initial_states_generator="none")
    with pytest.raises(ValueError, match="initial_states_generator"):
        QlibSampler().sample(bqm, initial_states_generator="spread")
    with pytest.raises(ValueError, match="-1 and \\+1"):
        QlibSampler().sample(bqm, initial_states={v: 0 for v in bqm.variables})
    random_fill = QlibSampler().sample(bqm, initial_states=ground.sample, num_reads=4, seed=3, num_sweeps=5)
    assert len(random_fill) >= 4


def test_import_qlib_does_not_import_dimod():
    code = "import sys, qlib; assert 'dimod' not in sys.modules; qlib.to_bqm; assert 'dimod' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("k", range(4))
def test_decode_exact_solver(k):
    model = _hand_models()[k]
    compiled = qlib.compile(model)
    bqm = qlib.to_bqm(model)
    sampleset = dimod.ExactSolver().sample(bqm)
    sols = qlib.from_sampleset(model, sampleset)
    assert len(sols) == len(sampleset)
    for sol, row in zip(sols, sampleset.data(["sample", "energy"], sorted_by=None)):
        assert sol.sample == {label: row.sample[label] for label in compiled.labels}
        assert sol.energy == pytest.approx(compiled.energy(sol.sample))
        assert row.energy >= sol.energy - 1e-9        # a penalty is never below the distance
    exact = qlib.solve(model, backend="exhaustive")
    assert min(s.energy for s in sols) == pytest.approx(exact.energy)
    assert sampleset.first.energy == pytest.approx(exact.energy)
    best = sols[int(np.argmin(sampleset.record.energy))]
    assert best.is_feasible == exact.is_feasible


def test_decode_random_sampler_and_spin():
    model = _hand_models()[2]
    compiled = qlib.compile(model)
    bqm = qlib.to_bqm(model)
    sampleset = dimod.RandomSampler().sample(bqm, num_reads=20, seed=3)
    for sol in qlib.from_sampleset(model, sampleset):
        assert sol.energy == pytest.approx(compiled.energy(sol.sample))
        assert sol.violations == qlib.Solution(compiled, sol.state).violations
    spin = dimod.ExactSolver().sample(bqm.change_vartype(dimod.SPIN, inplace=False))
    binary = dimod.ExactSolver().sample(bqm)
    assert sorted(s.energy for s in qlib.from_sampleset(model, spin)) == \
        pytest.approx(sorted(s.energy for s in qlib.from_sampleset(model, binary)))


def test_decode_rows_are_independent_solutions():
    """Each decoded row is what ``Solution(compiled, state, info)`` builds, attribute for attribute,
    and shares no state or info with the other rows."""
    model = _hand_models()[1]
    compiled = qlib.compile(model)
    sampleset = dimod.ExactSolver().sample(qlib.to_bqm(model))
    sols = qlib.from_sampleset(compiled, sampleset)
    assert len(sols) == len(sampleset) >= 16
    for sol, row in zip(sols, sampleset.record):
        info = dict(backend="dimod", dimod_energy=float(row.energy), num_occurrences=int(row.num_occurrences))
        direct = qlib.Solution(compiled, sol.sample, info)
        assert vars(sol).keys() == vars(direct).keys()
        assert sol.state.dtype == direct.state.dtype and (sol.state == direct.state).all()
        assert type(sol.energy) is type(direct.energy) and sol.energy == direct.energy
        assert sol.info == direct.info and list(sol.info) == list(direct.info)
        assert sol.violations == direct.violations
    sols[1].state[:] = 1 - sols[1].state
    sols[1].info["seen"] = True
    assert "seen" not in sols[0].info and "seen" not in sols[2].info
    assert not np.shares_memory(sols[0].state, sols[2].state)
    assert qlib.from_sampleset(compiled, dimod.SampleSet.from_samples(([], list(compiled.labels)), "BINARY", energy=[])) == []


def test_decode_missing_variable():
    model = _hand_models()[0]
    sampleset = dimod.SampleSet.from_samples([{"h[0][0]": 1}], dimod.BINARY, energy=[0.0])
    with pytest.raises(ValueError, match="no column"):
        qlib.from_sampleset(model, sampleset)


def test_samples_and_to_sampleset_round_trip():
    model = _hand_models()[1]
    sol = qlib.solve(model, seed=4, num_replicas=3)
    rows = sol.samples
    assert len(rows) >= 3
    assert any((s == sol.state).all() for s, _, _ in rows)
    for state, energy, feasible in rows:
        assert energy == pytest.approx(sol.compiled.energy(state))
        assert feasible == qlib.Solution(sol.compiled, state).is_feasible
    sampleset = sol.to_sampleset()
    assert len(sampleset) == len(rows)
    assert set(sampleset.variables) == set(sol.compiled.labels)
    back = qlib.from_sampleset(model, sampleset)
    assert [b.energy for b in back] == pytest.approx([e for _, e, _ in rows])
    assert list(sampleset.record.is_feasible) == [f for _, _, f in rows]
    # without replica states: just the one state
    single = qlib.solve(model, backend="exhaustive")
    assert len(single.samples) == 1 and single.to_sampleset().first.energy == pytest.approx(single.energy)


def test_the_old_name_decode_warns_and_reads_the_same():
    """``qlib.decode`` is the deprecated name of ``qlib.from_sampleset``: it warns, and reads the same rows."""
    model = _hand_models()[1]
    sampleset = qlib.solve(model, seed=4, num_replicas=3).to_sampleset()
    with pytest.warns(DeprecationWarning, match="from_sampleset"):
        old = qlib.decode(model, sampleset)
    new = qlib.from_sampleset(model, sampleset)
    assert [s.state.tolist() for s in old] == [s.state.tolist() for s in new]
    assert [s.energy for s in old] == [s.energy for s in new] and len(new) == len(sampleset)


def test_every_sampleset_comes_from_one_function(monkeypatch):
    """``Solution.to_sampleset`` and the sampler both make their SampleSet in ``qlib.result.make_sampleset``,
    and no other qlib module calls ``SampleSet.from_samples``."""
    from pathlib import Path

    from qlib import result

    made = []
    real = result.make_sampleset

    def spy(*args, **kwargs):
        made.append(args[2])
        return real(*args, **kwargs)
    monkeypatch.setattr(result, "make_sampleset", spy)
    monkeypatch.setattr("qlib.dimod.make_sampleset", spy)
    model = _hand_models()[1]
    qlib.solve(model, seed=4).to_sampleset()
    QlibSampler().sample(dimod.BinaryQuadraticModel({"a": 1.0}, {}, 0.0, "SPIN"), seed=1, num_reads=2)
    assert [str(v) for v in made] == ["BINARY", "Vartype.SPIN"]
    root = Path(qlib.__file__).parent
    callers = [p.relative_to(root).as_posix() for p in root.rglob("*.py") if "from_samples(" in p.read_text()]
    assert callers == ["result.py"]


def test_sampler_api():
    sampler = QlibSampler()
    dimod.testing.assert_sampler_api(sampler)
    assert isinstance(sampler, dimod.PolySampler)
    assert {"num_reads", "initial_states", "initial_states_generator", "seed", "time_limit", "target_energy",
            "num_replicas", "num_threads", "num_sweeps", "beta_range", "algorithm", "beta_schedule_type",
            "num_sweeps_per_beta"} == set(sampler.parameters)
    # dimod's rule: an unknown keyword is ignored with a warning
    with pytest.warns(dimod.exceptions.SamplerUnknownArgWarning, match="num_restarts"):
        ss = sampler.sample(dimod.BQM({"a": 1}, {}, 0, "BINARY"), num_restarts=3, seed=1)
    assert ss.first.energy == 0
    with pytest.warns(dimod.exceptions.SamplerUnknownArgWarning, match="beta"):
        sampler.sample_poly(dimod.BinaryPolynomial({("a", "b", "c"): 1}, "BINARY"), beta=1, seed=1)


@pytest.mark.parametrize("k", range(4))
def test_sampler_on_qlib_bqm(k):
    model = _hand_models()[k]
    bqm = qlib.to_bqm(model)
    sampleset = QlibSampler().sample(bqm, seed=k, num_replicas=4, num_sweeps=200)
    dimod.testing.assert_sampleset_energies(sampleset, bqm)
    assert len(sampleset) == 4
    assert set(sampleset.variables) == set(bqm.variables)
    assert sampleset.info["stop_reason"] == "max_rounds" and "seconds" in sampleset.info["timing"]
    exact = qlib.solve(model, backend="exhaustive")
    assert sampleset.first.energy == pytest.approx(exact.energy)
    spin = bqm.change_vartype(dimod.SPIN, inplace=False)
    spin_set = QlibSampler().sample(spin, seed=k)
    assert spin_set.vartype is dimod.SPIN
    dimod.testing.assert_sampleset_energies(spin_set, spin)


def test_sample_poly_finds_the_minimum():
    rng = np.random.default_rng(7)
    labels = [f"p{i}" for i in range(7)]
    terms = {}
    for degree in (1, 2, 3, 4):
        for _ in range(6):
            terms[tuple(rng.choice(labels, size=degree, replace=False))] = float(rng.integers(-5, 6))
    poly = dimod.BinaryPolynomial(terms, dimod.BINARY)
    exact = dimod.ExactPolySolver().sample_poly(poly).first.energy
    sampleset = QlibSampler().sample_poly(poly, seed=1, target_energy=exact, time_limit=5)
    assert sampleset.first.energy == pytest.approx(exact)
    assert sampleset.info["stop_reason"] == "target_energy"
    np.testing.assert_allclose(sampleset.record.energy, poly.energies(sampleset))
    hubo_set = QlibSampler().sample_hubo(terms, seed=2)
    np.testing.assert_allclose(hubo_set.record.energy, poly.energies(hubo_set))
    spin = poly.to_spin(copy=True)
    spin_set = QlibSampler().sample_poly(spin, seed=3, num_replicas=4)
    assert spin_set.vartype is dimod.SPIN
    np.testing.assert_allclose(spin_set.record.energy, spin.energies(spin_set))
    assert spin_set.first.energy == pytest.approx(dimod.ExactPolySolver().sample_poly(spin).first.energy)


@dimod.testing.load_sampler_bqm_tests(QlibSampler, max_num_variables=5)
class TestQlibSamplerBQMs(unittest.TestCase):
    """dimod's own sampler tests: empty, one-variable and small BQMs of every BQM class."""


@pytest.mark.parametrize("label", [0, 7, -12, 10**20, True, (0, -1), 1.5, "12"])
def test_label_round_trip_keeps_type(label):
    from qlib.dimod import dimod_label, qlib_label

    back = dimod_label(qlib_label(label))
    assert back == label and type(back) is type(label)


class _Alike:
    """A label that prints as every other one does."""

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return "L"

    def __hash__(self):
        return self.k

    def __eq__(self, other):
        return isinstance(other, _Alike) and other.k == self.k


@pytest.mark.parametrize("labels", [(_Alike(1), _Alike(2), _Alike(3)), ("", "#x", 0), (0, "0", (0,))])
def test_the_sampler_matches_variables_by_position_not_by_label(labels):
    """Labels that print alike, the empty label and labels that start with '#' are three variables each:
    the ground state agrees with dimod's ExactSolver."""
    a, b, c = labels
    bqm = dimod.BQM({a: 1.0, b: -1.0, c: -0.5}, {(a, b): -3.0, (b, c): 2.0}, 0.25, "BINARY")
    exact = dimod.ExactSolver().sample(bqm).first
    ss = QlibSampler().sample(bqm, seed=1, num_reads=4, num_sweeps=200)
    dimod.testing.assert_sampleset_energies(ss, bqm)
    assert len(ss.variables) == 3 and ss.first.energy == pytest.approx(exact.energy)
    poly = dimod.BinaryPolynomial({(a, b, c): -2.0, (a,): 1.0}, "BINARY")
    assert QlibSampler().sample_poly(poly, seed=1, num_sweeps=200).first.energy == pytest.approx(-1.0)


@pytest.mark.parametrize("bqm", [dimod.BQM("BINARY"), dimod.BQM({}, {}, 3.0, "BINARY"),
                                 dimod.generators.ran_r(1, 12, seed=4)])
def test_the_sampler_returns_exactly_num_reads_rows(bqm):
    for reads in (1, 6):
        ss = QlibSampler().sample(bqm, num_reads=reads, seed=2, num_sweeps=50)
        assert len(ss) == reads
        dimod.testing.assert_sampleset_energies(ss, bqm)
    # with a target, a state from an earlier restart takes the place of the worst row, not one more row
    ss = QlibSampler().sample(bqm, num_reads=4, seed=2, target_energy=-1e9, time_limit=0.3)
    assert len(ss) == 4


def test_a_variable_without_a_bias_takes_random_values_from_the_seed():
    bqm = dimod.BQM({"a": 1.0, "free": 0.0}, {}, 0, "BINARY")
    first = QlibSampler().sample(bqm, num_reads=32, seed=5, num_sweeps=20)
    values = first.record.sample[:, list(first.variables).index("free")]
    assert 0 < values.sum() < 32   # not always 0
    again = QlibSampler().sample(bqm, num_reads=32, seed=5, num_sweeps=20)
    assert again.record.sample.tolist() == first.record.sample.tolist()


def test_the_schedule_names_of_dwave_samplers():
    bqm = dimod.generators.ran_r(1, 10, seed=1)
    ss = QlibSampler().sample(bqm, seed=1, num_sweeps=100, beta_schedule_type="geometric", num_sweeps_per_beta=1)
    assert ss.info["num_sweeps"] == 100 and len(ss.info["beta_range"]) == 2
    with pytest.raises(ValueError, match="geometric"):
        QlibSampler().sample(bqm, beta_schedule_type="linear")
    with pytest.raises(ValueError, match="one sweep per beta"):
        QlibSampler().sample(bqm, num_sweeps_per_beta=10)


def test_annealing_runs_all_its_sweeps_without_a_hidden_time_limit(monkeypatch):
    """dimod's samplers have no time limit: with none given, annealing gets none (every sweep runs);
    a search for a target keeps qlib.solve's default, and time_limit=inf there is refused."""
    import qlib.solvers

    seen = []
    real = qlib.solvers.solve

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(qlib.solvers, "solve", spy)
    bqm = dimod.generators.ran_r(1, 10, seed=1)
    QlibSampler().sample(bqm, seed=1, num_sweeps=100)
    QlibSampler().sample(bqm, seed=1, num_sweeps=100, time_limit=float("inf"))
    QlibSampler().sample(bqm, seed=1, target_energy=-100, time_limit=0.2)
    assert [k.get("time_limit") for k in seen] == [1e9, 1e9, 0.2]
    with pytest.raises(ValueError, match="finite time_limit"):
        QlibSampler().sample(bqm, seed=1, target_energy=-100, time_limit=float("inf"))


def test_the_timing_keeps_the_kernels_load_apart():
    ss = QlibSampler().sample(dimod.generators.ran_r(1, 10, seed=1), seed=1, num_sweeps=100)
    timing = ss.info["timing"]
    assert timing["sampling_ns"] == int(timing["seconds"] * 1e9) and "jit_seconds" in timing


@pytest.mark.parametrize("model, words", [
    (dimod.BQM({"a": float("nan")}, {}, 0, "BINARY"), "the linear bias of 'a' of the dimod model is nan"),
    (dimod.BQM({"a": 1.0, "b": 0.0}, {("a", "b"): float("inf")}, 0, "SPIN"), "the quadratic bias of"),
    (dimod.BQM({"a": 1.0}, {}, float("nan"), "BINARY"), "the offset of the dimod model is nan"),
    (dimod.BinaryPolynomial({("a", "b", "c"): float("nan")}, "BINARY"), "the bias of the term")])
def test_a_nan_or_infinite_bias_is_named_by_its_labels(model, words):
    """Not reported as an overflow, nor under the sampler's positional names."""
    calls = ((qlib.from_bqm, QlibSampler().sample) if isinstance(model, dimod.BQM)
             else (qlib.from_polynomial, QlibSampler().sample_poly))
    for call in calls:
        with pytest.raises(ValueError, match=words.replace("(", r"\(")) as info:
            call(model)
        assert "position" not in str(info.value) and "overflow" not in str(info.value)


@pytest.mark.skipif(importlib.util.find_spec("dwave") is None, reason="dwave-samplers is a bench extra")
def test_the_sampler_keeps_the_contract_of_dwave_samplers_side_by_side():
    """The same call to both: an unknown keyword ignored, the schedule names, exactly num_reads rows
    (empty and offset-only models too), labels kept, dimod's energies."""
    import warnings

    from dwave.samplers import SimulatedAnnealingSampler

    bqm = dimod.generators.ran_r(1, 10, seed=1)
    bqm.relabel_variables({0: "", 1: "#1", 2: (2,)})
    for model in (bqm, dimod.BQM("BINARY"), dimod.BQM({}, {}, 3.0, "BINARY")):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            both = [sampler.sample(model, num_reads=5, seed=1, num_sweeps=100, beta_schedule_type="geometric",
                                   num_sweeps_per_beta=1, not_an_option=1)
                    for sampler in (QlibSampler(), SimulatedAnnealingSampler())]
        # both take the unknown keyword; qlib warns of it as dimod's rule asks (dwave-samplers 1.8 is silent)
        assert sum(isinstance(w.message, dimod.exceptions.SamplerUnknownArgWarning) for w in seen) >= 1
        for ss in both:
            assert len(ss) == 5 and set(ss.variables) == set(model.variables)
            dimod.testing.assert_sampleset_energies(ss, model)
    ours, theirs = (sampler.sample(bqm, num_reads=10, seed=3, num_sweeps=1000)
                    for sampler in (QlibSampler(), SimulatedAnnealingSampler()))
    assert ours.first.energy <= theirs.first.energy + 1e-9   # both find the ground state of 10 spins


def test_sample_poly_gives_the_same_rows_in_every_process():
    """A polynomial's variables are a set, whose order follows the hash seed: the sampler orders them
    itself, so one seed gives the same rows under any PYTHONHASHSEED."""
    script = ("import dimod, json, qlib.dimod\n"
              "poly = dimod.BinaryPolynomial({('a', 'b', 'c'): -2.0, ('c', 'd'): 1.5, ('a', 'x1'): -1.0,"
              " ('b', 'x1', 'x2', 'x3'): 0.5, ('x3',): -0.5}, 'BINARY')\n"
              "ss = qlib.dimod.QlibSampler().sample_poly(poly, seed=3, num_reads=4, num_sweeps=30)\n"
              "print(json.dumps([qlib.dimod._ordered(poly.variables), ss.record.sample.tolist()]))")
    outs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(h)}).stdout for h in (1, 2, 3)}
    assert len(outs) == 1
