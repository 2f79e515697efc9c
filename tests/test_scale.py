"""The default Slitherlink path at scale: presolve, cell cuts, stop reasons, reproducibility."""

import itertools

import numpy as np
import pytest

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink.formulation import FORMULATIONS
from qlib.puzzles.slitherlink.presolve import presolve
from qlib.solvers.focused import LazyCuts


def _colourings(n):
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.uint8)


def _drawn(board, colour):
    R, C = board.rows, board.cols
    g = np.zeros((R + 2, C + 2), dtype=np.uint8)
    g[1:-1, 1:-1] = colour.reshape(R, C)
    return np.concatenate([(g[:-1, 1:-1] ^ g[1:, 1:-1]).ravel(), (g[1:-1, :-1] ^ g[1:-1, 1:]).ravel()])


def _cut_on(cut, state):
    cols, negs = cut
    return bool(((state[cols] ^ negs) == 1).all())


@pytest.mark.parametrize("rows", [["...", "...", "..."], ["2..", ".1.", "..2"], ["3..", "...", "..."]])
def test_every_cell_cut_removes_exactly_its_loop_or_keeps_every_answer(rows):
    """Exhaustive on 3x3 boards without presolve (one variable per cell).

    The exact cut of a loop is on exactly in the checkerboard-free colourings that draw the
    loop.  The ring cut made from a state is on in that state and off in every answer."""
    board = sl.parse(rows)
    form = FORMULATIONS["cells"]
    sm = sl.build_model(board, "cells", presolve=False)
    comp = qlib.compile(sm.model)
    colourings = _colourings(9)
    states = np.zeros((len(colourings), comp.var_count), dtype=np.uint8)
    for k, colour in enumerate(colourings):
        for x, value in zip(sm.cells.ravel(), colour):
            states[k, comp.index(x)] = value
    answers = [k for k, colour in enumerate(colourings)
               if sl.is_solution(board, *board.grid.to_hv(_drawn(board, colour)))]
    checked = 0
    for k, colour in enumerate(colourings):
        mask = _drawn(board, colour)
        if not mask.any():
            continue
        try:
            loops = sl.split_loops(mask, board.grid.endpoints)
        except Exception:   # degree 4: a checkerboard
            continue
        for loop in loops:
            draws = {j for j in range(len(colourings))
                     if _drawn(board, colourings[j])[loop].all() and _no_checker(board, colourings[j])}
            for cut in form.loop_literals(sm, comp, loop):   # exact cuts: on only where the loop is drawn
                on = {j for j in range(len(colourings)) if _cut_on(cut, states[j])}
                assert {j for j in on if _no_checker(board, colourings[j])} <= draws
            drawn_here = {j for j in range(len(colourings))
                          if _drawn(board, colourings[j])[loop].all() and _no_checker(board, colourings[j])}
            covered = {j for j in drawn_here
                       if any(_cut_on(c, states[j]) for c in form.loop_literals(sm, comp, loop))}
            assert covered == drawn_here
            if sl.loop_satisfies_clues(board, loop):   # the separation accepts these, never cuts them
                continue
            for cut in form.loop_literals(sm, comp, loop, states[k]):   # ring (or exact) cuts
                assert _cut_on(cut, states[k])
                assert not any(_cut_on(cut, states[a]) for a in answers)
                checked += 1
    assert checked > 0 or not board.clue_cells


def _no_checker(board, colour):
    c = colour.reshape(board.rows, board.cols)
    a, b, d, e = c[:-1, :-1], c[:-1, 1:], c[1:, :-1], c[1:, 1:]
    return not ((a == e) & (b == d) & (a != b)).any()


@pytest.mark.parametrize("name", ["slitherlink-10x10-qbpp.txt", "slitherlink-15x15-gen-s1.txt",
                                  "slitherlink-20x20-gen-s2.txt"])
def test_presolve_agrees_with_the_unique_answer(name):
    board = sl.parse(qlib.data_path(name))
    answer = sl.count_solutions(board, limit=2, time_limit=None).solutions[0]
    pre = presolve(board)
    decided = pre.edges >= 0
    assert pre.status == "open" and 0.3 < decided.mean() < 1
    assert np.array_equal(pre.edges[decided], answer[decided])
    # the class variables draw the answer: each class has one value
    inside = sl.formulation._inside_cells(board, np.flatnonzero(answer))
    for k in range(pre.num_classes):
        members = np.flatnonzero(pre.cell_class == k)
        assert len(set((inside[members] ^ pre.cell_parity[members].astype(bool)).tolist())) == 1
    fixed = pre.cell_class < 0
    assert np.array_equal(inside[fixed], pre.cell_parity[fixed].astype(bool))


# The 20x20 seeds 4 and 5 are left out: the default solves them in 1 and 10 of 10 runs within 60 s
# (make bench), a known gap rather than a test that passes by chance.
@pytest.mark.parametrize("name", sorted(n for n in sl.SHIPPED if "-15x15-" in n) +
                         [f"slitherlink-20x20-gen-s{s}.txt" for s in (1, 2, 3)])
def test_default_solves_the_generated_boards(name):
    board = sl.parse(qlib.data_path(name))
    result = sl.solve(board, seed=0, time_limit=60)
    assert (result.status, result.stop_reason) == ("solved", "answer"), result.summary()
    assert sl.check(board, result.h, result.v) == []
    assert (result.formulation, result.method) == ("cells", "lazy")


def test_the_default_path_has_no_iteration_cap():
    """Without max_iterations the outer method goes on until it has an answer, however many iterations."""
    board = sl.parse(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    free = sl.solve(board, formulation="hubo", method="outer", seed=4, time_limit=60)
    assert free.stop_reason == "answer" and len(free.iterations) > 3
    capped = sl.solve(board, formulation="hubo", method="outer", seed=4, max_iterations=3)
    assert capped.stop_reason == "max_iterations" and len(capped.iterations) == 3
    assert [it["loops"] for it in capped.iterations] == [it["loops"] for it in free.iterations[:3]]


def test_same_seed_same_answer_and_cuts_for_any_thread_count():
    board = sl.parse(qlib.data_path("slitherlink-15x15-gen-s1.txt"))
    runs = [sl.solve(board, seed=3, num_threads=t, num_replicas=2, complete=False) for t in (1, 2, 1)]
    assert all(r.solved for r in runs)
    assert runs[0].iterations[0]["cuts"] == runs[1].iterations[0]["cuts"] == runs[2].iterations[0]["cuts"]
    assert runs[0].h == runs[1].h == runs[2].h


def test_stop_reasons():
    assert sl.solve(qlib.data_path("slitherlink-5x5-blog-ex1.txt"), seed=0).stop_reason == "answer"
    assert sl.solve(["00", "03"], seed=0).stop_reason == "no_answer"          # proved by the presolve
    assert sl.solve(["0"], seed=0).stop_reason == "no_answer"                 # only the empty drawing
    slow = sl.solve(qlib.data_path("slitherlink-20x20-gen-s1.txt"), formulation="hubo", seed=0, time_limit=0.3)
    assert (slow.status, slow.stop_reason) == ("unsolved", "time_limit")
    capped = sl.solve(qlib.data_path("slitherlink-10x10-qbpp.txt"), formulation="hubo", method="outer", seed=0,
                      max_iterations=1)
    assert capped.stop_reason in ("max_iterations", "answer") and len(capped.iterations) == 1


def test_interrupt_returns_the_best_state_so_far():
    board = sl.parse(qlib.data_path("slitherlink-15x15-gen-s1.txt"))
    form = FORMULATIONS["cells"]
    sm = form.build(board)
    comp = qlib.compile(sm.model)

    def separate(state, energy):
        raise KeyboardInterrupt
    sol = qlib.solve(comp, algorithm="focused", seed=0, target_energy=0, time_limit=10,
                     lazy_cuts=LazyCuts(separate, energy=1e9))
    assert sol.info["stop_reason"] == "interrupted"
    assert sol.state.shape == (comp.var_count,)


def test_check_unique():
    solved = sl.solve(qlib.data_path("slitherlink-10x10-qbpp.txt"), seed=0, check_unique=True)
    assert solved.unique is True and solved.second_answer is None
    several = sl.solve(["2.", ".."], seed=0, check_unique=True)
    assert several.solved and several.unique is False
    other = several.second_answer
    assert other is not None and sl.is_solution(["2.", ".."], *sl.parse(["2.", ".."]).grid.to_hv(other))
