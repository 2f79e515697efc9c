"""The single-loop QUBO (qlib.puzzles.slitherlink.single_loop): its ground states are the answers.

References: the SAT counter (``exact.count_exact``) for the set of answers;
``SingleLoopModel.admits`` (an exact search over the model's rows with the
edges fixed) for "some values of the auxiliaries satisfy every native
constraint", checked itself against the exhaustive backend on the 1x1 board;
``SingleLoopModel.completion`` (a state built from the loop) for the
energy-0 states of the pure QUBO.  A QUBO state has energy 0 exactly when
its native variables satisfy every native row (``qlib.expand_cons`` keeps
the zero set; :func:`test_best_slack_links_the_zero_sets` checks it here).
Every mask outside the clue-and-degree states breaks a row over the edges
alone, so those states are all the masks an energy-0 state can have.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qlib
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink.bonus import enumerate_states
from qlib.puzzles.slitherlink.exact import count_exact
from qlib.puzzles.slitherlink.single_loop import best_slack, build_single_loop_model, position_bits
from qlib.solvers.exhaustive import search


def answers(board) -> set:
    found = count_exact(board, limit=10_000)
    assert found.status == "exact"
    return {tuple(m) for m in found.solutions}


def assert_ground_states_are_answers(board, masks, **options):
    """The masks with a feasible completion are exactly the board's answers among ``masks``; each
    answer's completion has energy 0 in both forms and decodes to the answer."""
    slm = build_single_loop_model(board, **options)
    expected = answers(board)
    feasible = {tuple(int(b) for b in m) for m in masks if slm.admits(m)}
    assert feasible == expected & {tuple(int(b) for b in m) for m in masks}
    qubo, native = qlib.compile(slm.model), qlib.compile(slm.native)
    for mask in expected:
        state = slm.completion(mask)
        assert qubo.energy(state) == 0
        assert native.energy(slm.completion(mask, "native")) == 0
        assert tuple(slm.decode(qlib.Solution(qubo, qubo.as_states(state)))) == mask
    return slm, feasible


def board(text):
    return sl.parse_text(text)


# -- boards -------------------------------------------------------------------------------------
#: Boards with several answers, unique answers, no answer, and clue-and-degree states of two loops.
SMALL = {
    "2x2 blank": "..\n..\n",
    "2x2 one 3": "3.\n..\n",
    "2x2 2s": "2.\n.2\n",
    "2x2 no answer": "33\n33\n",
    "2x3 blank": "...\n...\n",
    "2x3 two squares": "3.3\n...\n",
    "3x3 blank": "...\n...\n...\n",
    "3x3 corners": "3.3\n...\n3.3\n",
    "3x3 ring": "...\n.0.\n...\n",
}


def _two_loops(board):
    return [m for m in enumerate_states(board) if len(sl.split_loops(m, board.grid.endpoints)) >= 2]


def test_every_mask_of_the_2x2_boards():
    """2x2 boards: all 4096 edge masks, whatever their degrees and clues."""
    for name in ("2x2 blank", "2x2 one 3", "2x2 2s", "2x2 no answer"):
        b = board(SMALL[name])
        masks = [np.array(bits) for bits in itertools.product((0, 1), repeat=b.grid.num_edges)]
        _, feasible = assert_ground_states_are_answers(b, masks)
        assert len(feasible) == len(answers(b)), name
    assert len(answers(board(SMALL["2x2 blank"]))) > 1
    assert not answers(board(SMALL["2x2 no answer"]))


@pytest.mark.parametrize("name", ["2x3 blank", "2x3 two squares", "3x3 corners", "3x3 ring"])
def test_clue_and_degree_states(name):
    """Every state that meets the clues and the degrees, multi-loop ones among them: only the
    single loops have a completion."""
    b = board(SMALL[name])
    masks = enumerate_states(b)
    slm, feasible = assert_ground_states_are_answers(b, masks)
    assert feasible == answers(b)
    two = _two_loops(b)
    assert two, f"{name} has no state of two loops to rule out"
    for m in two:
        assert slm.completion(m) is None


def test_masks_outside_the_candidates_break_a_rule_of_the_edges():
    """A mask that breaks a clue or a degree breaks a row over the edge variables alone: the
    candidates of the tests above are all the masks an energy-0 state can have."""
    b = board(SMALL["3x3 corners"])
    slm = build_single_loop_model(b)
    edge_rows = [c for c in slm.native.constraints if set(c.lhs.var_ids) <= {x.id for x in slm.edges}]
    assert {c.label.split()[0] for c in edge_rows} == {"clue", "point"}
    edge_model = qlib.compile(qlib.Model(qlib.Expr(), edge_rows))
    candidates = {tuple(m) for m in enumerate_states(b)}
    rng = np.random.default_rng(7)
    masks = rng.integers(0, 2, (300, b.grid.num_edges)).astype(np.uint8)
    states = np.zeros((300, edge_model.var_count), dtype=np.uint8)
    states[:, [edge_model.index(x) for x in slm.edges]] = masks
    energies = edge_model.energy(states)
    assert all((e == 0) == (tuple(m) in candidates) for m, e in zip(masks, energies))


def test_every_state_of_the_blank_3x3():
    """The blank 3x3 board: 322 clue-and-degree states, 213 single loops among them."""
    b = board(SMALL["3x3 blank"])
    states = enumerate_states(b)
    _, feasible = assert_ground_states_are_answers(b, states)
    assert (len(states), len(feasible)) == (322, 213)
    assert len(_two_loops(b)) == 322 - 213 - 1   # the rest: the empty drawing and states of two loops


def test_exhaustive_on_the_1x1_board():
    """The exhaustive backend's enumeration of all 2**24 states of the blank 1x1 board's native
    model: its ground states have energy 0 and all draw the square."""
    slm = build_single_loop_model(board(".\n"))
    compiled = qlib.compile(slm.native)
    assert compiled.var_count == 24
    found = search(compiled, keep=4096)
    assert found.complete and found.energy == 0 and 0 < found.count <= 4096
    assert {tuple(g[[compiled.index(x) for x in slm.edges]]) for g in found.ground} == {(1, 1, 1, 1)}
    masks = [np.array(bits) for bits in itertools.product((0, 1), repeat=4)]
    assert [tuple(m) for m in masks if slm.admits(m)] == [(1, 1, 1, 1)]


def test_the_search_agrees_with_the_exhaustive_backend_on_too_few_bits():
    """One binary digit (positions 0 and 1) cannot order the square: the exhaustive minimum over all
    2**20 states is above 0, and the search admits no mask."""
    slm = build_single_loop_model(board(".\n"), bits=1)
    compiled = qlib.compile(slm.native)
    assert compiled.var_count == 20
    assert search(compiled).energy > 0
    assert not any(slm.admits(np.array(bits)) for bits in itertools.product((0, 1), repeat=4))
    assert slm.completion(np.ones(4, dtype=np.uint8)) is None


# -- the QUBO and its native form -------------------------------------------------------------------
def test_the_qubo_is_quadratic_and_sized_as_documented():
    b = sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))
    slm = build_single_loop_model(b)
    s = slm.sizes()
    g = b.grid
    B = position_bits(b)
    assert B == 5 and slm.big_m == 32
    assert s["max_degree"] == 2 and not slm.model.constraints
    assert s["edge_vars"] == g.num_edges and s["arc_vars"] == 2 * g.num_edges and s["closing_vars"] == 4
    assert s["position_vars"] == B * g.num_points
    # degree auxiliary and in-slack per point, B + 1 order slack bits per edge
    assert s["aux_vars"] == 2 * g.num_points + (B + 1) * g.num_edges
    assert s["vars"] == sum(s[k] for k in ("edge_vars", "arc_vars", "closing_vars", "position_vars", "aux_vars"))


def test_best_slack_links_the_zero_sets():
    """Near an answer's completion, a native state satisfies every row exactly when the QUBO at its
    best slack values has energy 0."""
    b = board(SMALL["3x3 ring"])
    slm = build_single_loop_model(b)
    qubo, native = qlib.compile(slm.model), qlib.compile(slm.native)
    mask = np.array(min(answers(b), key=sum), dtype=np.uint8)
    base = slm.completion(mask, "native")
    labels = sorted(base)
    off_loop = next(p for p in range(b.grid.num_points) if not b.grid.degrees(mask)[p])
    flips = [[slm.positions[off_loop, 0].label], [slm.edges[int(np.flatnonzero(mask)[0])].label]]
    rng = np.random.default_rng(3)
    flips += [list(rng.choice(labels, rng.integers(1, 4), replace=False)) for _ in range(200)]
    seen = []
    for flip in flips:
        state = dict(base)
        for label in flip:
            state[label] ^= 1
        zero_native = native.energy(state) == 0
        zero_qubo = qubo.energy(best_slack(slm.model, state)) == 0
        assert zero_native == zero_qubo
        seen.append(zero_native)
    assert seen[:2] == [True, False]   # a position off the loop is free; an edge of the loop is not


def test_too_few_position_bits_lose_the_long_loops():
    """With ``bits`` binary digits a loop of more than ``2**(bits + 1) - 2`` edges has no completion."""
    b = board(SMALL["3x3 blank"])
    lengths = {}
    for m in sorted(answers(b)):   # five answers of each length, 4 to 16
        if sum(1 for n in lengths.values() if n == sum(m)) < 5:
            lengths[m] = int(sum(m))
    assert position_bits(b) == 4 and sorted(set(lengths.values())) == [4, 6, 8, 10, 12, 14, 16]
    for bits, longest in ((2, 6), (3, 14)):
        slm = build_single_loop_model(b, bits=bits)
        for m, n in lengths.items():
            assert slm.admits(np.array(m)) == (n <= longest)
            assert (slm.completion(m) is not None) == (n <= longest)
        assert {n <= longest for n in lengths.values()} == {True, False}


def test_any_edge_may_close_without_an_anchor():
    b = board(SMALL["2x3 two squares"])
    slm = build_single_loop_model(b, anchor=False)
    assert slm.anchor is None and len(slm.closing) == b.grid.num_edges
    _, feasible = assert_ground_states_are_answers(b, enumerate_states(b), anchor=False)
    assert feasible == answers(b)
    assert _two_loops(b)


def test_annealing_a_small_board_ends_at_an_answer_when_it_reaches_0():
    b = board("3.\n..\n")
    slm = build_single_loop_model(b)
    solution = qlib.solve(slm.native, algorithm="focused", seed=1, target_energy=0, max_steps=200_000)
    assert solution.energy == 0
    assert sl.is_solution(b, *b.grid.to_hv(slm.decode(solution)))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([None, None, 0, 1, 2, 3]), min_size=6, max_size=6))
def test_random_2x3_boards(clues):
    b = sl.Board((tuple(clues[:3]), tuple(clues[3:])))
    _, feasible = assert_ground_states_are_answers(b, enumerate_states(b))
    assert feasible == answers(b)
