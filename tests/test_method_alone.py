"""The QUBO method alone (``complete=False``): the presolve's equivalences, its verdicts, its repeatability.

With no complete search beside it, a Slitherlink solve is the presolve (propagation and
failed-edge probing to a fixed point, with the edge equivalences the probes prove), the
cell model and its focused search with lazy cuts.  Its answers are checked against the
exact references, and it may claim "no answer" only when the presolve proves it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink import counter, exact, generator, rings
from qlib.puzzles.slitherlink.model import edge_sides
from qlib.puzzles.slitherlink import propagation as K
from qlib.puzzles.slitherlink.presolve import _classes, presolve

from test_verdicts import BOARDS, _reference

LOOPY = Path(__file__).resolve().parents[1] / "benchmarks" / "boards"


def _probed(board, equivalences: bool):
    """(edge values, number of classes) after probing to a fixed point, with or without equivalences."""
    state = counter.root_state(board)
    assert counter.propagate(state) == "ok"
    status = counter.probe(state, None, equivalences=equivalences)
    uf = state.rules.uf
    return status, state.rules.st.copy(), len(_classes(uf, state.lattice.NC)[2])


def _assert_classes_draw(board, pre, answer):
    """The presolve's classes draw ``answer`` (an edge mask): one value per class, the fixed cells right."""
    inside = sl.formulation._inside_cells(board, np.flatnonzero(answer))
    for k in range(pre.num_classes):
        members = np.flatnonzero(pre.cell_class == k)
        assert len(set((inside[members] ^ pre.cell_parity[members].astype(bool)).tolist())) == 1
    fixed = pre.cell_class < 0
    assert np.array_equal(inside[fixed], pre.cell_parity[fixed].astype(bool))


@pytest.mark.parametrize("name", ["slitherlink-15x15-gen-s1.txt", "slitherlink-20x20-gen-s1.txt",
                                  "slitherlink-25x25-gen-s3.txt", "slitherlink-30x30-gen-s2.txt"])
def test_probed_equivalences_join_classes_and_keep_the_answer(name):
    """An equivalence a probe proves (edge e is on exactly when f is, or exactly when f is off) joins two
    classes of cells: fewer classes, more edges decided, and the unique answer still draws from them."""
    board = sl.parse(qlib.data_path(name))
    answer = exact.solve_exact(board).mask
    _, plain_edges, plain_classes = _probed(board, equivalences=False)
    status, edges, classes = _probed(board, equivalences=True)
    assert status in ("ok", "solved")
    assert classes < plain_classes and (edges >= 0).sum() >= (plain_edges >= 0).sum()
    pre = presolve(board, probe_nodes=None)
    decided = pre.edges >= 0
    assert np.array_equal(pre.edges[decided], answer[decided])
    _assert_classes_draw(board, pre, answer)


@pytest.mark.parametrize("index", range(1, len(BOARDS), 5))
def test_equivalences_keep_every_answer_of_a_board(index):
    """On boards with several answers (or none) too: every answer the counter finds agrees with the classes."""
    board = BOARDS[index]
    count = sl.count_solutions(board, limit=20, time_limit=30)
    pre = presolve(board, probe_nodes=None)
    if count.count == 0:
        assert count.status == "exact"
        return
    assert pre.status != "infeasible"
    for answer in count.solutions:
        _assert_classes_draw(board, pre, answer)


def test_probing_to_a_fixed_point_decides_a_hard_loopy_board():
    """sgt-loopy's hard 30x30 (seed 2) is decided by the presolve alone; seed 1 leaves a few classes."""
    decided = sl.solve(sl.parse(LOOPY / "loopy-30x30-dh-s2.loopy"), complete=False, seed=1, time_limit=60)
    assert (decided.stop_reason, decided.found_by) == ("answer", "presolve")
    board = sl.parse(LOOPY / "loopy-30x30-dh-s1.loopy")
    result = sl.solve(board, complete=False, seed=1, time_limit=60)
    assert result.solved and result.found_by == "search" and 0 < result.var_count < 60
    assert np.array_equal(board.grid.from_hv(result.h, result.v), exact.solve_exact(board).mask)


@pytest.mark.parametrize("index", range(0, len(BOARDS), 3))
def test_method_alone_claims_only_what_it_proved(index):
    """complete=False answers, runs out of time, or says "no answer" only when the presolve proves it."""
    board = BOARDS[index]
    solvable = _reference(board)
    result = sl.solve(board, complete=False, seed=index, time_limit=1.0)
    assert result.stop_reason in ("answer", "time_limit", "no_answer")
    if result.stop_reason == "answer":
        assert solvable and sl.check(board, result.h, result.v) == []
        assert result.found_by in ("presolve", "search")
    elif result.stop_reason == "no_answer":
        assert not solvable and result.found_by == "presolve"
    else:
        assert result.found_by is None


def test_method_alone_repeats_for_a_seed_and_thread_count():
    board = sl.parse(qlib.data_path("slitherlink-25x25-gen-s1.txt"))
    runs = [sl.solve(board, complete=False, seed=4, time_limit=60, num_threads=2) for _ in range(2)]
    assert runs[0].solved and runs[0].found_by == runs[1].found_by == "search"
    assert runs[0].h == runs[1].h and runs[0].v == runs[1].v
    assert [it["cuts"] for it in runs[0].iterations] == [it["cuts"] for it in runs[1].iterations]


def test_the_command_line_runs_the_method_alone():
    path = str(LOOPY / "loopy-30x30-dh-s1.loopy")
    out = subprocess.run([sys.executable, "-m", "qlib", "solve", "slitherlink", path, "--no-complete", "--seed", "2",
                          "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "solved" and data["found_by"] in ("presolve", "search")
    nono = subprocess.run([sys.executable, "-m", "qlib", "solve", "nonogram",
                           str(qlib.data_path("nonogram-15x15-qbpp-logo.non")), "--no-complete", "--json", "--seed", "1"],
                          capture_output=True, text=True, timeout=300)
    assert nono.returncode == 0, nono.stderr
    data = json.loads(nono.stdout)
    assert data["status"] == "solved" and data["method"] == "auto" and data["found_by"] == "presolve"
    source = subprocess.run([sys.executable, "-m", "qlib", "solve", "nonogram",
                             str(qlib.data_path("nonogram-15x15-qbpp-logo.non")), "--no-complete", "--method",
                             "search", "--json", "--seed", "1"], capture_output=True, text=True, timeout=300)
    assert source.returncode == 0, source.stderr
    data = json.loads(source.stdout)
    assert data["status"] == "solved" and data["method"] == "search" and data["found_by"] == "search"


# -- cuts shortened by the rules -----------------------------------------------------------
def _wrong_loops(board, answers, count=6):
    """Random single loops on ``board``'s grid that are none of its ``answers``."""
    out = []
    for seed in range(1, 40):
        loop = generator.random_loop(board.rows, board.cols, seed)
        if not any(np.array_equal(loop, a) for a in answers):
            out.append(np.flatnonzero(loop))
        if len(out) == count:
            break
    return out


@pytest.mark.parametrize("index", [i for i in range(0, len(BOARDS), 4) if BOARDS[i].rows * BOARDS[i].cols >= 9])
def test_a_shortened_loop_cut_is_refuted_minimal_and_forbids_no_answer(index):
    """The cell formulation's loop cut, shortened by the rules (formulation._shorten): the rules still
    refute it, no answer takes all its values, dropping any one more cell leaves it unrefuted, and
    refuting leaves the presolve's state as it was."""
    board = BOARDS[index]
    pre = presolve(board, probe_nodes=None)
    if pre.status != "open":
        return
    count = sl.count_solutions(board, limit=50, time_limit=30)
    assert count.status in ("exact", "limit")
    sm = sl.build_model(board, "cells", presolve=pre)
    rules = pre.state.rules

    def kept(r):   # the rules' values and the trails' lengths (the rest is scratch)
        return [r.st.copy(), r.pt.copy(), r.cl.copy(), r.uf.copy(), r.sc[[K.TLEN, K.MLEN, K.ULEN]].copy()]
    before = kept(rules)
    for loop in _wrong_loops(board, count.solutions):
        for cells, values in sl.formulation._loop_regions(sm, loop):
            short_cells, short_values = sl.formulation._shorten(sm, cells, values)
            assert len(short_cells) <= len(cells)
            if len(short_cells) < len(cells) or counter.refutes(pre.state, cells, values):
                assert counter.refutes(pre.state, short_cells, short_values)
                for k in range(len(short_cells)):
                    rest = np.arange(len(short_cells)) != k
                    assert not counter.refutes(pre.state, short_cells[rest], short_values[rest])
            for answer in count.solutions:   # the cut never forbids an answer
                inside = sl.formulation._inside_cells(board, np.flatnonzero(answer))
                assert (inside[short_cells].astype(int) != short_values).any()
    assert all(np.array_equal(a, b) for a, b in zip(before, kept(rules)))


def test_shortened_cuts_answer_a_minimal_clue_board_the_plain_cuts_do_not():
    """On the shipped 20x20-gen-s5, the method alone answers within 20 s at seeds 1-3 (measured: 0.4-2.6 s),
    its cuts mostly of a few cells; the unshortened loop cuts answered one of the three (1.1 s, then two
    20 s time limits, before cuts were shortened)."""
    board = sl.parse(qlib.data_path("slitherlink-20x20-gen-s5.txt"))
    ref = exact.solve_exact(board).mask
    for seed in (1, 2, 3):
        result = sl.solve(board, complete=False, seed=seed, time_limit=20)
        assert result.solved and np.array_equal(board.grid.from_hv(result.h, result.v), ref)
        sizes = [n for it in result.iterations for n in it.get("cuts", [])]
        assert sizes and np.median(sizes) < 20


def test_the_method_alone_is_one_search_and_shortens_each_cut_once(monkeypatch):
    """Alone, the cell model's search is one run (no restarts: they would drop the learned weights),
    and a cut met again is looked up, not refuted again."""
    board = sl.parse(qlib.data_path("slitherlink-20x20-gen-s5.txt"))
    calls = []
    real = counter.shortest_refuted_each
    monkeypatch.setattr(counter, "shortest_refuted_each", lambda states, pairs, **k: calls.extend(pairs) or
                        real(states, pairs, **k))
    result = sl.solve(board, complete=False, seed=1, time_limit=30)
    assert result.solved and result.found_by == "search" and len(result.iterations) == 1
    assert np.array_equal(board.grid.from_hv(result.h, result.v), exact.solve_exact(board).mask)
    sm = sl.build_model(board, "cells")
    (cells, values), = sl.formulation._loop_regions(sm, _wrong_loops(board, [], 1)[0])[:1]
    first = sl.formulation._shorten(sm, cells, values)
    made = len(calls)
    again = sl.formulation._shorten(sm, cells.copy(), values.copy())
    assert len(calls) == made > 0 and all(np.array_equal(a, b) for a, b in zip(first, again))


@pytest.mark.parametrize("formulation, weighted", [("cells", True), ("hubo", False)])
def test_the_cell_models_search_weighs_its_rows_dynamically(monkeypatch, formulation, weighted):
    """The cell model's focused search runs with dynamic penalty weights and no noise (SEARCH_DEFAULTS),
    the edge form's with the fixed weights; a caller's own value wins.  Either way the answer is the
    exact reference's."""
    import importlib

    solve_module = importlib.import_module("qlib.puzzles.slitherlink.solve")   # the package's `solve` is the function

    # a board the presolve leaves open for the cell model; the edge form has no presolve
    board = sl.parse(qlib.data_path("slitherlink-30x30-gen-s1.txt" if weighted else "slitherlink-10x10-qbpp.txt"))
    seen = []
    real = solve_module.qlib.solve

    def spy(*args, **kwargs):
        seen.append({k: kwargs.get(k) for k in ("weight_smoothing", "noise")})
        return real(*args, **kwargs)
    monkeypatch.setattr(solve_module.qlib, "solve", spy)
    form = dict(formulation=formulation) if formulation == "hubo" else {}
    r = sl.solve(board, complete=False, seed=3, time_limit=60, **form)
    assert r.solved and np.array_equal(board.grid.from_hv(r.h, r.v), exact.solve_exact(board).mask)
    assert r.found_by == "search"
    expected = {"weight_smoothing": (5, 20), "noise": 0.0} if weighted else {"weight_smoothing": None, "noise": None}
    assert seen and all(s == expected for s in seen)
    seen.clear()
    sl.solve(board, complete=False, seed=3, time_limit=60, noise=0.1, **form)
    assert all(s["noise"] == 0.1 for s in seen)


def test_cuts_shortened_in_threads_are_those_one_thread_shortens():
    """Cuts are shortened together, on copies of the presolve's state, one thread each: the same cuts as
    one state gives one by one, and every state is left as it was."""
    board = sl.parse(qlib.data_path("slitherlink-30x30-gen-s1.txt"))
    sm = sl.build_model(board, "cells", presolve=True)
    pairs = [region for loop in _wrong_loops(board, [], 6) for region in sl.formulation._loop_regions(sm, loop)]
    state = sm.presolve.state   # the presolve leaves this board open
    before = [a.copy() for a in state.rules]
    alone = [counter.shortest_refuted(state, c, v) for c, v in pairs]
    states = [state, counter.copy_state(state), counter.copy_state(state)]
    together = counter.shortest_refuted_each(states, pairs)
    assert len(pairs) >= 6 and any(len(k) < len(c) for k, (c, _) in zip(alone, pairs))
    assert all(np.array_equal(a, b) for a, b in zip(alone, together))
    assert all(np.array_equal(a, b) for s in states for a, b in zip(before[:4], s.rules[:4]))   # st, pt, cl, uf


def _shorten_in_child(pairs, queue):
    """A forked child's shortening (the parent's helper threads are not in it)."""
    board = sl.parse(qlib.data_path("slitherlink-30x30-gen-s1.txt"))
    state = sl.build_model(board, "cells", presolve=True).presolve.state
    queue.put([k.tolist() for k in counter.shortest_refuted_each([state, counter.copy_state(state)], pairs)])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_shortens_with_helpers_of_its_own():
    """The helper threads belong to the process that made them: a child forked after the parent used them
    makes its own, and its cuts are the parent's."""
    import multiprocessing

    board = sl.parse(qlib.data_path("slitherlink-30x30-gen-s1.txt"))
    sm = sl.build_model(board, "cells", presolve=True)
    pairs = [region for loop in _wrong_loops(board, [], 4) for region in sl.formulation._loop_regions(sm, loop)]
    state = sm.presolve.state
    here = counter.shortest_refuted_each([state, counter.copy_state(state)], pairs)   # the parent's helpers start
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_shorten_in_child, args=(pairs, queue))
    child.start()
    there = queue.get(timeout=120)
    child.join(timeout=30)
    assert child.exitcode == 0 and [k.tolist() for k in here] == there


def _ring_reference(board, loop, colour):
    """The ring cut of ``loop`` written with NumPy, as the cell formulation's docstring defines it."""
    R, C = board.rows, board.cols
    enclosed = sl.formulation._inside_cells(board, loop).reshape(R, C)
    inner = [k for k in edge_sides(board)[int(loop[0])] if k >= 0 and enclosed.ravel()[k]]
    if not inner:
        return None
    c = inner[0]
    grown = enclosed.copy()
    grown[1:, :] |= enclosed[:-1, :]
    grown[:-1, :] |= enclosed[1:, :]
    grown[:, 1:] |= enclosed[:, :-1]
    grown[:, :-1] |= enclosed[:, 1:]
    ring = np.flatnonzero((grown & ~enclosed).ravel())
    inside_type = bool(colour[c])
    clues = np.array([(i, j) for i, j, n in board.clue_cells if n > 0]).reshape(-1, 2)
    if inside_type and grown[clues[:, 0], clues[:, 1]].all():
        return None
    value = 0 if inside_type else 1
    return np.append(ring, c), np.append(np.full(len(ring), value), 1 - value)


@pytest.mark.parametrize("name", ["slitherlink-10x10-qbpp.txt", "slitherlink-30x30-gen-s1.txt"])
def test_ring_cuts_are_the_rings_the_definition_gives(name):
    """Rings of many loops at once (one numba call) against the NumPy definition, in random colourings,
    for loops that bound inside regions and holes, on and off the border, and for a board whose every
    clue lies inside the grown region (no valid inside ring)."""
    board = sl.parse(qlib.data_path(name))
    rng = np.random.default_rng(3)
    R, C = board.rows, board.cols                      # the loop around the whole board: every clue inside
    h = [[1] * C if i in (0, R) else [0] * C for i in range(R + 1)]
    v = [[1 if j in (0, C) else 0 for j in range(C + 1)] for _ in range(R)]
    loops = _wrong_loops(board, [], 12) + [np.flatnonzero(board.grid.from_hv(h, v))]
    clues = np.array([(i, j) for i, j, n in board.clue_cells if n > 0]).reshape(-1, 2)
    sides = edge_sides(board)
    kinds = set()
    for _ in range(4):
        colour = rng.integers(0, 2, board.rows * board.cols).astype(np.uint8)
        colour[0] = 1                                  # the border loop's first cell: an inside region
        got = rings.ring_cuts(board, loops, colour, sides, clues)
        for loop, ring in zip(loops, got):
            want = _ring_reference(board, loop, colour)
            kinds.add(want is None)
            assert (ring is None) == (want is None)
            if want is not None:
                assert np.array_equal(ring[0], want[0]) and np.array_equal(ring[1], want[1])
    assert kinds == {True, False}


_NOTHING_LEFT_TO_COMPILE = r"""
import sys
from numba.core.registry import CPUDispatcher
import qlib
from qlib.puzzles import nonogram, slitherlink

def signatures():
    return {(m.__name__, k): len(v.signatures) for m in list(sys.modules.values())
            if getattr(m, "__name__", "").startswith("qlib") for k, v in vars(m).items()
            if isinstance(v, CPUDispatcher)}

slitherlink.warmup()
nonogram.warmup()
before = signatures()
board = slitherlink.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))   # the search and ring cuts run
puzzle = nonogram.parse(qlib.data_path("nonogram-15x15-qbpp-logo.non"))
for options in ({}, {"complete": False}):
    assert slitherlink.solve(board, seed=0, time_limit=30, **options).solved
    assert nonogram.solve(puzzle, seed=0, time_limit=30, **options).solved
assert nonogram.solve(puzzle, seed=0, time_limit=30, method="search").solved
after = signatures()
print(sorted(k for k in after if after[k] != before.get(k)))
"""


def test_warmup_compiles_every_kernel_a_solve_uses():
    """After the puzzles' warm-ups no kernel compiles (or loads) inside a solve, the method alone included:
    a fresh process's kernels gain no signature during the solves."""
    out = subprocess.run([sys.executable, "-c", _NOTHING_LEFT_TO_COMPILE], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
