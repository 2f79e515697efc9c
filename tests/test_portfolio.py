"""The rounds of a puzzle's searches (:mod:`qlib.puzzles.portfolio`), with fake parts and a fake clock:
who gets a turn, with what budget, how the rounds end and what each ending may claim."""

from __future__ import annotations

import pytest

from qlib.puzzles.clock import TimeUp
from qlib.puzzles.portfolio import FOUND_BY, MAX_BUDGET, STOP_REASONS, Part, Portfolio, Relay, Verdict, budget


class Clock:
    """A clock that moves only when a turn says so."""

    def __init__(self, limit: float = 100.0):
        self.t, self.limit = 0.0, limit

    def __call__(self) -> float:
        return self.t

    def left(self) -> float:
        return self.limit - self.t


class Fake:
    """A part that records its turns (round, budget), takes ``cost`` seconds each, and gives ``verdicts[r]``."""

    def __init__(self, name, clock, *, first=10, cost=1.0, verdicts=None, complete=False, raises=None):
        self.name, self.clock, self.first, self.cost = name, clock, first, cost
        self.verdicts, self.complete, self.raises = verdicts or {}, complete, raises or {}
        self.turns = []

    def turn(self, r):
        self.turns.append((r, budget(self.first, r)))
        self.clock.t += self.cost
        if r in self.raises:
            raise self.raises[r]
        return self.verdicts.get(r)


def _portfolio(*parts, clock, caps=()):
    return Portfolio(parts, left=clock.left, caps=caps, now=clock)


def test_the_complete_part_answering_in_round_k_settles_it():
    clock = Clock()
    sat = Fake("sat", clock, verdicts={3: Verdict("answer", answer="grid")}, complete=True)
    search = Fake("search", clock)
    rounds = _portfolio(sat, search, clock=clock)
    verdict = rounds.run()
    assert verdict == Verdict("answer", "sat", "grid") and verdict.status == "solved" and verdict.settled
    assert [r for r, _ in sat.turns] == [0, 1, 2, 3] and [r for r, _ in search.turns] == [0, 1, 2]
    assert rounds.rounds == 4   # the round of the verdict counts


def test_the_model_search_answers_in_its_turn():
    clock = Clock()
    sat, search = Fake("sat", clock, complete=True), Fake("search", clock, verdicts={2: Verdict("answer", answer=1)})
    rounds = _portfolio(sat, search, clock=clock)
    assert rounds.run() == Verdict("answer", "search", 1)
    assert len(sat.turns) == len(search.turns) == 3 and rounds.rounds == 3


def test_budgets_double_every_round():
    clock = Clock()
    sat = Fake("sat", clock, first=2000, verdicts={5: Verdict("no_answer")}, complete=True)
    search = Fake("search", clock, first=5000)
    _portfolio(sat, search, clock=clock).run()
    assert [b for _, b in sat.turns] == [2000 << r for r in range(6)]
    assert [b for _, b in search.turns] == [5000 << r for r in range(5)]
    assert budget(3, 0) == 3 and budget(3, 4) == 48 and budget(1, 100) == MAX_BUDGET


def test_a_proof_of_no_answer_from_the_complete_part():
    clock = Clock()
    backtrack = Fake("backtrack", clock, verdicts={1: Verdict("no_answer")}, complete=True)
    rounds = _portfolio(backtrack, Fake("search", clock), clock=clock)
    verdict = rounds.run()
    assert (verdict.stop_reason, verdict.found_by, verdict.status) == ("no_answer", "backtrack", "unsolved")
    assert rounds.rounds == 2


def test_the_model_part_never_proves_no_answer_unless_it_is_complete():
    clock = Clock()
    search = Fake("search", clock, verdicts={0: Verdict("no_answer")})
    with pytest.raises(ValueError, match="not complete"):
        _portfolio(search, clock=clock).run()
    clock = Clock()   # the rules' proof, which the model part reports (its model has one state, no answer)
    search = Fake("search", clock, verdicts={0: Verdict("no_answer", "presolve")})
    assert _portfolio(search, clock=clock).run() == Verdict("no_answer", "presolve")
    clock = Clock()   # a complete model search (every state seen)
    search = Fake("search", clock, verdicts={0: Verdict("no_answer")}, complete=True)
    assert _portfolio(search, clock=clock).run() == Verdict("no_answer", "search")


def test_ctrl_c_in_a_turn_is_interrupted():
    clock = Clock()
    sat = Fake("sat", clock, complete=True)
    search = Fake("search", clock, raises={1: KeyboardInterrupt()})
    rounds = _portfolio(sat, search, clock=clock)
    verdict = rounds.run()
    assert (verdict, verdict.status) == (Verdict("interrupted"), "interrupted")
    assert len(sat.turns) == 2 and rounds.rounds == 1   # the round cut short does not count
    assert rounds.seconds == {"sat": 2.0, "search": 2.0}   # the interrupted turn is timed too


def test_the_deadline_ends_the_rounds_without_another_turn():
    clock = Clock(limit=5.5)
    sat, search = Fake("sat", clock, complete=True), Fake("search", clock, cost=2.0)
    rounds = _portfolio(sat, search, clock=clock)
    assert rounds.run() == Verdict("time_limit")
    # t = 1 (sat), 3 (search), 4 (sat), 6 (search): past 5.5, so sat takes no third turn
    assert len(sat.turns) == 2 and len(search.turns) == 2 and rounds.rounds == 2
    clock = Clock(limit=0.0)
    idle = Fake("sat", clock, complete=True)
    assert _portfolio(idle, clock=clock).run() == Verdict("time_limit") and idle.turns == []


def test_time_up_in_a_turn_is_the_time_limit():
    clock = Clock()
    search = Fake("search", clock, raises={0: TimeUp()})
    rounds = _portfolio(Fake("sat", clock, complete=True), search, clock=clock)
    assert rounds.run() == Verdict("time_limit") and rounds.rounds == 0


def test_a_cap_ends_the_rounds_only_when_the_caller_set_it():
    clock = Clock()
    search = Fake("search", clock, verdicts={0: Verdict("max_steps")})
    assert _portfolio(search, clock=clock, caps=("max_steps",)).run() == Verdict("max_steps")
    clock = Clock()
    search = Fake("search", clock, verdicts={0: Verdict("max_steps")})
    with pytest.raises(ValueError, match="no stop reason"):
        _portfolio(search, clock=clock).run()


def test_a_part_speaks_for_itself_or_for_the_rules():
    for verdict, message in [(Verdict("answer", "sat"), "cannot claim"), (Verdict("time_limit", "search"), "settles")]:
        clock = Clock()
        with pytest.raises(ValueError, match=message):
            _portfolio(Fake("search", clock, verdicts={0: verdict}), clock=clock).run()
    clock = Clock()
    rules = Fake("search", clock, verdicts={0: Verdict("answer", "presolve", "loop")})
    assert _portfolio(rules, clock=clock).run() == Verdict("answer", "presolve", "loop")
    assert set(STOP_REASONS) == {"answer", "no_answer", "time_limit", "interrupted"}
    assert set(FOUND_BY) == {"presolve", "sat", "backtrack", "search"}   # the rules alone: one word, both puzzles


def test_each_parts_seconds_by_name():
    clock = Clock()
    sat = Fake("sat", clock, cost=0.25, verdicts={2: Verdict("answer", answer=0)}, complete=True)
    rounds = _portfolio(sat, Fake("search", clock, cost=1.5), clock=clock)
    rounds.run()
    assert rounds.seconds == {"sat": 0.75, "search": 3.0}


def test_a_relay_hands_its_place_on_when_a_part_is_done():
    """Probing takes turns beside SAT until its fixed point; the model search takes the place from the next round."""
    clock = Clock()
    probing = Part("presolve", lambda r: None)

    def probe(r):
        probing.done = r == 1   # its fixed point, in round 1
        return None

    probing.turn = probe
    search = Fake("search", clock, verdicts={4: Verdict("answer", answer="grid")})
    sat = Fake("sat", clock, complete=True)
    rounds = _portfolio(sat, Relay(probing, search), clock=clock)
    assert rounds.run() == Verdict("answer", "search", "grid")
    assert [r for r, _ in search.turns] == [2, 3, 4] and len(sat.turns) == 5 and rounds.rounds == 5
    assert set(rounds.seconds) == {"sat", "presolve", "search"}


def test_a_relay_passes_on_its_parts_claims():
    clock = Clock()
    probing = Part("presolve", lambda r: Verdict("no_answer"))   # a contradiction: the rules' proof
    rounds = _portfolio(Fake("sat", clock, complete=True), Relay(probing, Fake("search", clock)), clock=clock)
    assert rounds.run() == Verdict("no_answer", "presolve") and rounds.rounds == 1
