"""Pickling by label, and solving in worker processes.

Variables are interned numbers that depend on what a process created first, so
expressions, models, compiled models and solutions pickle by label: a process
that unpickles them after building other variables must see the same labels,
values and answers.  Also: a fork pool after a CPU solve in the parent must not
hang (the numba threading layer qlib picks is fork-safe).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import pickle
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import qlib


def build():
    """The README's quickstart model, on its own labels."""
    x = qlib.var("pk_x")
    a = qlib.var("pk_a", 3)
    expr = (a[0] + a[1] + a[2] - 1) ** 2 + x * ~a[0] + 0.5 * a[1] * ~a[2]
    con = qlib.cons(a[0] + a[1] + x == qlib.one_of(0, 2), label="pair", weight=2)
    model = expr + con + qlib.cons(a[2] + ~x <= 1, label="le")
    return x, a, expr, con, model


def canon(expr):
    """An expression by label: sorted (literals, coefficient) pairs (repr orders terms by id)."""
    from qlib.expr import label_of

    return sorted([sorted(("~" if lit & 1 else "") + label_of(lit >> 1) for lit in t), c]
                  for t, c in expr.terms.items())


def facts(x, a, expr, con, model, comp, sol):
    """What must not change when the objects move to another process (plain data)."""
    states = np.array([[(k >> b) & 1 for b in range(comp.var_count)] for k in range(2 ** comp.var_count)])
    return {
        "x": x.label,
        "a": [v.label for v in a],
        "expr": canon(expr),
        "con": [canon(con.lhs), repr(con.allowed), con.weight, con.label],
        "model": [canon(model.objective)] + [[canon(c.lhs), repr(c.allowed), c.label] for c in model.constraints],
        "labels": comp.labels,
        "energies": comp.energy(states).tolist(),
        "sample": sol.sample,
        "sol_x": sol[x],
        "sol_label": sol["pk_a[1]"],
        "sol_a": sol(a).tolist(),
        "sol_expr": sol(expr),
        "sol_energy": sol.energy,
        "violations": [list(v) for v in sol.violations],
        "exhaustive": qlib.solve(model, backend="exhaustive").sample,
        "exhaustive_compiled": qlib.solve(comp, backend="exhaustive").sample,
        "cpu": qlib.solve(model, backend="cpu", seed=3, target_energy=0).sample,
        "cpu_from": qlib.solve(comp, backend="cpu", seed=3, target_energy=0, initial_state=sol).sample,
    }


def payload():
    x, a, expr, con, model = build()
    comp = qlib.compile(model)
    sol = qlib.solve(model, backend="cpu", seed=1, target_energy=0)
    return (x, a, expr, con, model, comp, sol)


CHILD = textwrap.dedent("""
    import json, pickle, sys
    import qlib
    sys.path.insert(0, {tests!r})
    from test_pickle import facts
    junk = qlib.var("junk", 5)                       # other variables first: ids shift
    for label in ("pk_a[2]", "pk_x", "pk_a[0]"):     # and some of ours in another order
        qlib.var(label)
    with open(sys.argv[1], "rb") as fh:
        objs = pickle.load(fh)
    out = facts(*objs)
    out["x_id"] = objs[0].id
    out["junk"] = [v.label for v in junk]
    print(json.dumps(out))
""")


def test_fresh_process_after_other_variables(tmp_path):
    objs = payload()
    here = facts(*objs)
    path = tmp_path / "objs.pkl"
    path.write_bytes(pickle.dumps(objs))
    script = CHILD.format(tests=os.path.dirname(__file__))
    run = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    there = json.loads(run.stdout)
    assert there.pop("junk") == [f"junk[{k}]" for k in range(5)]
    assert there.pop("x_id") == 6            # the child's own numbering: after junk[0..4] and pk_a[2]
    assert there == json.loads(json.dumps(here))
    assert here["sol_energy"] == 0 and here["sample"] == here["cpu"]


def test_round_trip_keeps_identity_in_this_process():
    x, a, expr, con, model, comp, sol = pickle.loads(pickle.dumps(payload()))
    assert x.id == qlib.var("pk_x").id and a[2].id == qlib.var("pk_a", 3)[2].id
    assert isinstance(x, qlib.Var) and isinstance(expr, qlib.Expr) and not isinstance(expr, qlib.Var)
    assert isinstance(con, qlib.Constraint) and isinstance(model, qlib.Model)
    assert expr.terms == build()[2].terms
    assert comp.var_ids.tolist() == qlib.compile(model).var_ids.tolist()
    assert sol[x] == sol.state[comp.index(x)]


def test_decoded_terms_follow_labels_not_ids():
    # Unpickling where the labels already exist in another order sorts each term's literals anew.
    from qlib.expr import _decode_terms, _encode_terms

    x, a = qlib.var("pk_x"), qlib.var("pk_a", 3)
    e = 3 * a[2] * ~x * a[0] - a[1]
    labels, encoded = _encode_terms(e.terms)
    assert sorted(labels) == ["pk_a[0]", "pk_a[1]", "pk_a[2]", "pk_x"]
    assert _decode_terms(labels, encoded) == e.terms
    assert all(list(t) == sorted(t) for t in _decode_terms(labels[::-1], [(lits[::-1], c) for lits, c in encoded]))


# -- pools: the workers build other variables first (initializer) -------------------------
def _junk_first():
    qlib.var("junk", 5)
    qlib.var("pk_a[1]")


def _in_worker(objs):
    out = facts(*objs)
    x, a, expr, con, model, comp, sol = objs
    fresh = qlib.solve(model, backend="cpu", seed=7, target_energy=0)
    return out, fresh, x.id


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_pool_workers(method):
    if method not in mp.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    objs = payload()
    here = facts(*objs)
    with mp.get_context(method).Pool(2, initializer=_junk_first) as pool:
        results = pool.map(_in_worker, [objs, objs], chunksize=1)
    for out, fresh, worker_x_id in results:
        assert out == here
        assert worker_x_id == 6                  # the worker's own numbering: after junk[0..4] and pk_a[1]
        # the worker's solution comes back by label into this process's numbering
        assert fresh.compiled.labels == objs[5].labels
        assert fresh.energy == 0 and fresh.is_feasible
        assert fresh[objs[0]] == fresh.sample["pk_x"] and fresh(objs[2]) == 0


FORK_POOL = textwrap.dedent("""
    import multiprocessing as mp, sys, numba, qlib

    def work(seed):
        a = qlib.var("fp", 8)
        model = qlib.cons(qlib.sum(a) == 3) + a[0] * a[1]
        return qlib.solve(model, backend="cpu", seed=seed, target_energy=0).energy

    if __name__ == "__main__":
        a = qlib.var("fp", 8)
        model = qlib.cons(qlib.sum(a) == 3) + a[0] * a[1]
        assert qlib.solve(model, backend="cpu", seed=0, target_energy=0).energy == 0    # focused, parallel
        qlib.solve(model, backend="cpu", seed=0, algorithm="sa", num_sweeps=20)          # annealing, parallel
        with mp.get_context("fork").Pool(2) as pool:
            print(numba.threading_layer(), pool.map(work, range(4)))
""")


def _run_killable(args, timeout, env=None):
    """Run ``args``; on timeout kill its whole process group (hung pool workers too)."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{args[-1][:40]!r}... did not finish within {timeout} s (a hung fork pool?)")
    return proc.returncode, out, err


def test_fork_pool_after_a_parent_solve(tmp_path):
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork start method here")
    script = tmp_path / "fork_pool.py"
    script.write_text(FORK_POOL)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    rc, out, err = _run_killable([sys.executable, str(script)], timeout=240, env=env)
    assert rc == 0, err
    layer, energies = out.split(" ", 1)
    assert layer in ("tbb", "workqueue")
    assert energies.strip() == "[0.0, 0.0, 0.0, 0.0]"


@pytest.mark.parametrize("layer", ["workqueue", "omp"])
def test_user_threading_layer_is_respected(layer):
    script = ("import numba, qlib; a = qlib.var('tl', 3); "
              "qlib.solve(qlib.cons(qlib.sum(a) == 1), backend='cpu', seed=0, algorithm='sa', num_sweeps=5); "
              "print(numba.config.THREADING_LAYER, numba.threading_layer())")
    env = dict(os.environ, NUMBA_THREADING_LAYER=layer)
    rc, out, err = _run_killable([sys.executable, "-c", script], timeout=240, env=env)
    if rc != 0 and "No threading layer could be loaded" in err:
        pytest.skip(f"numba has no {layer} layer here")
    assert rc == 0, err
    assert out.split() == [layer, layer]
