"""Solving a nonogram: propagation first, then the domain-wall search and a complete search in turns.

``method="auto"`` (the default for the default model):

1. **presolve** (propagation): line solving to the fixed point, then probing (each undecided
   cell tried black and white; a colour that leads to a contradiction is
   impossible).  If every cell is decided, that is the answer, and it is unique
   (every deduction holds in every answer).  A contradiction proves that there is
   no answer.
2. otherwise, rounds ``r = 0, 1, 2, ...`` (:mod:`qlib.puzzles.portfolio`) until an answer, a proof or the time limit:

   * **the complete search** (``complete``): SAT (:mod:`qlib.puzzles.nonogram.exact`, CaDiCaL, the
     propagated cells as unit clauses; the default) goes on for
     ``FIRST_CONFLICTS * 2**r`` more conflicts, or backtracking (``complete="backtrack"``:
     the depth-first search of :mod:`.lines`, branching on the undecided cell whose
     probe decides the most, propagating and probing at every node) for
     ``FIRST_WORK * 2**r`` more line solves.  Either is complete: when it has
     closed every branch, there is no answer.
   * **search**: the domain-wall model of the cells still undecided after step 1
     (:func:`~qlib.puzzles.nonogram.model.build_model` with ``known``; built at its first turn, once the
     time left allows building it) is minimised with the focused search
     (:func:`qlib.solve`, ``max_steps = FIRST_STEPS * 2**r``, seed ``seed + r``;
     with simulated annealing, ``max_rounds = 2**r``).

   The budgets count work, not seconds, so a seed and a thread count give the same
   ``found_by`` and grid on every run, unless the time limit stopped a stage.
   The complete search answers random grids (little to propagate, many branches)
   first; the model search answers wide-open boards first (e.g. 12 x 12 with every
   clue 1: 12! answers).  Backtracking is the faster on sgt's random-grid 30x30
   boards (about a seventh of SAT's time), but on a harder random 30x30 grid (the
   tests' ``HARD_30``) SAT answers in about 10 s where backtracking has nothing after
   30 s: hence SAT by default.

``complete=False`` (with ``method="auto"``): the QUBO method alone.  The presolve
(line solving and probing to their fixed point: polynomial, no guessing; it answers
or refutes many boards by itself), then the domain-wall model of the cells still
open, minimised by the focused search until energy 0 or the time limit: no SAT, no
backtracking.  On sgt's random-grid 30x30 boards probing leaves 4 to 48 of the 900
cells open on nine boards in ten (0.01-0.26 s), where line solving alone left 611-886.

``method="search"``: the model of the whole puzzle, minimised by :func:`qlib.solve`
until energy 0 or the time limit, as the source formulation does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import numpy as np

import qlib
from qlib import validate
from qlib.solvers import check_options, choose_algorithm

from ..portfolio import Part, Portfolio, Relay, Verdict, budget
from ..result import PuzzleResult
from . import lines
from .count import count_from
from .display import render_text
from .engine import TIME_UP, Engine
from .. import clock
from ..clock import TimeUp
from .exact import SatSearch
from .engine import warmup as _warm_engine
from .model import FORMULATIONS, build_model, decode, encode
from .parsing import parse
from .puzzle import Nonogram
from .rules import is_solution

#: The methods :func:`solve` takes (``method="auto"`` or ``"search"``).
METHODS = ("auto", "search")
#: The complete searches ``method="auto"`` can run beside the model search (``complete=``;
#: ``complete=False`` runs none: the QUBO method alone).
COMPLETE = ("sat", "backtrack")
#: Line solves of backtracking in the first round of ``method="auto"``; doubled every round.
FIRST_WORK = 4096
#: Conflicts of SAT in the first round of ``method="auto"``; doubled every round.
FIRST_CONFLICTS = 2000
#: Line solves of probing in the first round beside SAT (about 3 ms on 30x30); doubled every round.
FIRST_PROBE_WORK = 512
#: Steps of the focused search in the first round (per replica); doubled every round.  With the
#: first budgets, a round's search and backtracking take about as long (15-20 ms each on 30x30).
FIRST_STEPS = 5000
#: Seconds to build and compile the model, per undecided cell (measured on 30x30 and 50x50: 0.5-0.6 ms):
#: the search joins the rounds once the time left allows that.
BUILD_SECONDS_PER_CELL = 6e-4
#: What ``stop_reason`` can say.
STOP_REASONS = ("answer", "time_limit", "no_answer", "interrupted", "max_steps", "max_rounds")
_BUDGET_OPTIONS = ("max_steps", "max_rounds")


@dataclass(kw_only=True)
class NonogramResult(PuzzleResult):
    """What :func:`solve` found.

    ``status`` is "solved" (``grid`` passes :func:`check`), "unsolved" or
    "interrupted".  ``stop_reason`` says why the solve ended, and each is a true
    claim: "answer" (``grid`` is an answer), "time_limit", "no_answer" (proved:
    propagation met a contradiction, the complete search closed every branch, or the
    exhaustive backend found no zero-energy state), "interrupted" (Ctrl-C),
    "max_steps"/"max_rounds" (only when the caller set that option, with
    ``method="search"`` or ``complete=False``).  ``found_by`` names the stage that settled it:
    "presolve" (propagation and probing, as Slitherlink's presolve; formerly "propagation"), "sat",
    "backtrack" or "search" (None when nothing was settled).

    ``var_count``, ``term_count`` and ``energy`` describe the model that was
    searched (for ``method="auto"`` the reduced model of the undecided cells;
    0, 0 and None when no model was needed); a solved grid always has energy 0
    in :func:`build_model`'s model.  ``solution`` is a :class:`qlib.Solution`:
    the search's own for ``method="search"``; for ``method="auto"`` the state of
    ``build_model(puzzle, formulation)`` at the answer (built on first access; its
    ``info["algorithm"]`` is ``found_by``), or the reduced model's best state
    when there is no answer and a search ran (else None).  ``timings``:
    ``jit_seconds`` (compiling or loading kernels, before the clock starts),
    ``presolve_seconds``, ``build_seconds``, ``search_seconds``,
    ``complete_seconds`` (SAT or backtracking), ``unique_seconds`` and ``solve_seconds``
    (all of the solve; ``seconds`` is the same).  ``decided``: the share of cells
    propagation decided; ``rounds``: the rounds of the model and complete searches;
    ``work``: line solves of the propagation engine (propagation, backtracking);
    ``conflicts``: SAT's conflicts; ``nodes``: backtracking's branches; ``steps``: search steps.
    ``unique`` (with ``check_unique``): True, False (``second_answer`` holds
    another answer) or None (not known).
    """

    grid: tuple[str, ...] | None
    energy: float | None
    second_answer: tuple[str, ...] | None = None
    stop_reason: str = "answer"
    method: str = "auto"
    formulation: str = "cons"
    decided: float | None = None
    rounds: int = 0
    work: int = 0
    conflicts: int = 0
    nodes: int = 0
    steps: int = 0
    puzzle: Nonogram | None = field(default=None, repr=False)
    _solution: Any = field(default=None, repr=False)
    _make_solution: Callable | None = field(default=None, repr=False)

    @property
    def solution(self):
        """The answer as a qlib solution of the domain-wall model (built on first use), or None."""
        if self._solution is None and self._make_solution is not None:
            self._solution, self._make_solution = self._make_solution(), None
        return self._solution

    def summary(self) -> str:
        """One line: status, stop reason, the stage that settled it, time, method; the model searched."""
        by = f", found by {self.found_by}" if self.found_by else ""
        line = (f"{self.status} ({self.stop_reason}{by}): {self.seconds:.2f} s, method={self.method}, "
                f"backend={self.backend}, seed={self.seed}")
        if self.method == "search" or self.var_count or self.energy is not None and self.found_by == "search":
            energy = "" if self.energy is None else f", energy {self.energy:g}"
            line += f"; model: {self.var_count} variables, {self.term_count} terms{energy}"
        return line

    def __str__(self):
        return self.summary() + ("\n" + render_text(self.grid) if self.grid else "")


_WARM: dict = {}


def _warm_search(backend) -> float:
    """Compile or load qlib's CPU search kernels once (and the GPU's, for backend "gpu"); seconds (0 once warm)."""
    if backend not in ("cpu", "gpu", "auto") or backend in _WARM:
        return 0.0
    start = time.perf_counter()
    qlib.warmup()
    if backend == "gpu":
        from ...solvers import gpu

        gpu.warmup()
    _WARM[backend] = True
    return time.perf_counter() - start


def warmup(method: str = "auto", backend: str = "cpu") -> float:
    """Compile or load the kernels a solve with ``method`` and ``backend`` uses; seconds (0 once warm).

    :func:`solve` compiles what it needs before its clock starts (the model search's
    kernels only when a search is about to run: the clock is held meanwhile) and
    reports the seconds as ``timings["jit_seconds"]``."""
    start = time.perf_counter()
    if method == "auto":
        _warm_engine()
    _warm_search(backend)
    return time.perf_counter() - start


def _resolve_method(method, formulation, backend, options, complete) -> str:
    if method is None:
        plain = formulation == "cons" and isinstance(backend, str) and backend in ("cpu", "gpu", "auto")
        budget = any(k in options for k in _BUDGET_OPTIONS) and complete is not False
        return "auto" if plain and not budget else "search"
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(map(repr, METHODS))}")
    if method == "auto":
        if not isinstance(backend, str) or backend not in ("cpu", "gpu", "auto"):
            raise ValueError(f"method='auto' searches with backend 'cpu', 'gpu' or 'auto', not {backend!r}: "
                             f"use method='search' for another backend")
        given = [k for k in _BUDGET_OPTIONS if k in options]
        if given and complete is not False:
            raise ValueError(f"method='auto' sets {', '.join(given)} itself (its budgets double every "
                             f"round): pass complete=False to cap the search yourself")
    return method


def solve(puzzle, *, formulation: str = "cons", method: str | None = None, backend: str = "cpu",
          seed: int | None = None, time_limit: float = 60.0, check_unique: bool = False,
          complete: str | bool = "sat", **options) -> NonogramResult:
    """Solve the nonogram: an answer, a proof that none exists, or the time limit.

    ``method="auto"`` propagates (line solving and probing), then runs the
    domain-wall search on the cells still open and a complete search in turns,
    with budgets that double every round (see :mod:`.solver`): ``complete`` is
    "sat" (CaDiCaL, :mod:`qlib.puzzles.nonogram.exact`) or "backtrack" (qlib's line-solving backtracker).
    ``complete=False`` is the QUBO method alone: the presolve (line solving and probing), then the
    focused search of the cells still open until energy 0 (no SAT, no backtracking; ``max_steps``
    may cap it).
    ``method="search"`` is the source's form: no propagation, no complete search; it
    minimises the model of the whole puzzle (``formulation``: "cons", native
    constraints, or "qubo") with :func:`qlib.solve` until energy 0.  The
    default (None) is "auto" for the default model on backend "cpu", "gpu" or "auto"
    (on "gpu" the model search runs there, propagation and backtracking on the CPU),
    and "search" when a formulation, a backend ("exhaustive", a callable) or
    ``max_steps``/``max_rounds`` asks for a particular model search.

    ``time_limit`` (seconds) covers everything (propagation, building the model,
    searching, the uniqueness check); compiling the kernels happens before the
    clock starts (:func:`warmup`; ``timings["jit_seconds"]``).  Ctrl-C ends the
    solve with status "interrupted".  ``seed`` seeds the model search (drawn and
    recorded when None).  ``check_unique=True`` then finds out, within the time
    left, whether the answer is the only one (``result.unique``,
    ``result.second_answer``): an answer propagation found is unique; otherwise
    the complete search looks for a second one.  ``options`` go to :func:`qlib.solve`
    (e.g. ``num_replicas``, ``noise``, ``algorithm``).
    """
    puzzle = parse(puzzle)
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of {', '.join(FORMULATIONS)}")
    time_limit = validate.time_limit(time_limit)
    seed = validate.seed(seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 62))
    if complete is not False and (isinstance(complete, bool) or complete not in COMPLETE):
        raise ValueError(f"complete must be one of {', '.join(map(repr, COMPLETE))} or False, got {complete!r}")
    method = _resolve_method(method, formulation, backend, options, complete)
    check_unique = validate.boolean("check_unique", check_unique)
    check_options(backend, options, caller="nonogram.solve")
    if method == "auto" and backend == "auto":   # the model search's budget depends on the backend
        from ...solvers import gpu

        backend = "gpu" if gpu.is_available() else "cpu"
    if backend == "gpu":   # raise now, even if propagation would answer first
        from ...solvers import gpu

        gpu.require_device()
    jit = _warm_engine() if method == "auto" or check_unique else 0.0
    if method == "search" or complete is False:
        jit += _warm_search(backend)
    run = _Run(puzzle, formulation, method, backend, int(seed), float(time_limit), options)
    run.complete = complete
    run.jit = jit
    with clock.gc_paused():
        try:
            try:
                result = run.search() if method == "search" else run.auto() if complete else run.alone()
            except KeyboardInterrupt:
                result = run.result(Verdict("interrupted"))
            if check_unique and result.solved:
                try:
                    run.check_unique(result)
                except KeyboardInterrupt:   # the answer in result.grid still stands; only the check is unknown
                    result.stop_reason = "interrupted"
        finally:
            run.close()
    result.timings["jit_seconds"] = run.jit
    result.seconds = result.timings["solve_seconds"] = time.perf_counter() - run.start - run.held
    return result


class _Run:
    """The state of one :func:`solve` call."""

    def __init__(self, puzzle, formulation, method, backend, seed, time_limit, options):
        self.puzzle, self.formulation, self.method, self.backend = puzzle, formulation, method, backend
        self.seed, self.options = seed, options
        self.start = time.perf_counter()
        self.deadline = self.start + time_limit
        self.timings = {key: 0.0 for key in ("presolve_seconds", "build_seconds", "search_seconds",
                                             "complete_seconds", "unique_seconds")}
        self.engine: Engine | None = None
        self.complete = "sat"
        self.sat: SatSearch | None = None   # the complete search, when it is SAT
        self.model = None            # the searched NonogramModel
        self.compiled = None
        self.best = None             # the searched model's best Solution
        self.root = None             # the grid after propagation
        self.rounds = self.steps = 0
        self.limit = 0               # the work the complete search may reach in its turn
        self.probing = None          # probing's part of the rounds, beside SAT
        self.jit = 0.0     # seconds compiling kernels
        self.held = 0.0    # seconds of them after the clock started (the deadline moved by as much)
        self.ran_backend = backend if isinstance(backend, str) else getattr(backend, "__name__", "custom")

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def close(self):
        if self.sat is not None:
            self.sat.close()
            self.sat = None

    def _clock(self, key, t0):
        self.timings[key] += time.perf_counter() - t0

    # -- the result ------------------------------------------------------------
    def result(self, verdict: Verdict) -> NonogramResult:
        status, stop_reason, found_by, grid = verdict.status, verdict.stop_reason, verdict.found_by, verdict.answer
        model = self.model
        energy = None if self.best is None else float(self.best.energy)
        if status == "solved" and self.method == "auto":
            energy = 0.0
        eng = self.engine
        decided = None
        if self.root is not None:
            decided = float((self.root >= 0).mean()) if self.root.size else 1.0
        result = NonogramResult(
            status=status, grid=grid, seconds=0.0, backend=self.ran_backend, seed=self.seed,
            var_count=0 if model is None else int(model.var_count),
            term_count=0 if model is None else int(model.term_count), energy=energy,
            stop_reason=stop_reason, found_by=found_by, method=self.method, formulation=self.formulation,
            timings=self.timings, decided=decided, rounds=self.rounds,
            work=0 if eng is None else eng.work_done, nodes=0 if eng is None else eng.nodes,
            conflicts=0 if self.sat is None else self.sat.work, steps=self.steps, puzzle=self.puzzle)
        if self.method == "search" or grid is None:
            result._solution = self.best
        else:   # a partial, not a closure: the result pickles
            result._make_solution = partial(_answer_solution, self.puzzle, self.formulation, grid, found_by,
                                            self.best)
        return result

    def _build(self, known) -> bool:
        """Build and compile the model within the time limit; False when the limit came first.

        The build looks at the clock as it goes.  Compiling cannot stop half way; it takes
        about half as long as the build, so it starts only when that much time is left.
        """
        t0 = time.perf_counter()
        try:
            model = build_model(self.puzzle, formulation=self.formulation, known=known, deadline=self.deadline)
        except TimeUp:
            self._clock("build_seconds", t0)
            return False
        if self.left() < 0.5 * (time.perf_counter() - t0):
            self._clock("build_seconds", t0)
            return False
        self.model = model
        self.compiled = qlib.compile(model.model)
        self._clock("build_seconds", t0)
        return True

    # -- method="search" and complete=False: one search to energy 0 ---------------
    def search(self) -> NonogramResult:
        """The source's form: the model of the whole puzzle, searched once."""
        return self._minimise() if self._build(None) else self.result(Verdict("time_limit"))

    def alone(self) -> NonogramResult:
        """The QUBO method alone: the presolve, then the model of the cells still open, searched once."""
        verdict = self._propagate(probing=True) or (None if self._build(self.root) else Verdict("time_limit"))
        return self.result(verdict) if verdict else self._minimise()

    def _minimise(self) -> NonogramResult:
        """Minimise the built model with :func:`qlib.solve` until energy 0 or a limit."""
        if self.left() <= 1e-3:
            return self.result(Verdict("time_limit"))
        t0 = time.perf_counter()
        solution = qlib.solve(self.compiled, backend=self.backend, seed=self.seed,
                              time_limit=max(self.left(), 1e-3), target_energy=0, **self.options)
        self._clock("search_seconds", t0)
        self.best = solution
        self.ran_backend = solution.info.get("backend", self.ran_backend)
        self.steps = int(solution.info.get("flips", 0))
        stop = solution.info.get("stop_reason")
        if abs(solution.energy) <= 1e-9:
            grid = decode(self.model, solution)
            if is_solution(self.puzzle, grid):
                return self.result(Verdict("answer", "search", grid))
        if stop == "complete":   # the exhaustive backend saw every state: none has energy 0
            return self.result(Verdict("no_answer", "search"))
        return self.result(Verdict(stop if stop in ("interrupted", "max_steps", "max_rounds") else "time_limit"))

    # -- method="auto" -----------------------------------------------------------
    def auto(self) -> NonogramResult:
        """Propagation, then the rounds of the complete search and the model search (probing first, beside SAT)."""
        # beside SAT, probing takes turns (it can cost 20 times SAT's time on a random grid); before
        # backtracking, it runs to its fixed point, where the depth-first search starts
        sat = self.complete == "sat"
        verdict = self._propagate(probing=not sat)
        if verdict is None:
            self.limit = 0 if sat else self.engine.work_done   # backtracking counts on from propagation's work
            search, self.probing = Part("search", self._search_turn), Part("presolve", self._probe_turn)
            rounds = Portfolio([Part(self.complete, self._complete_turn, complete=True),
                                Relay(self.probing, search) if sat else search], left=self.left)
            verdict = rounds.run()
            self.rounds = rounds.rounds
            self.timings["complete_seconds"] += rounds.seconds.get(self.complete, 0.0)
            self.timings["presolve_seconds"] += rounds.seconds.get("presolve", 0.0)
        return self.result(verdict)

    def _propagate(self, probing: bool) -> Verdict | None:
        """Line solving (and ``probing``) to the fixed point; what it settles (:meth:`_propagated`)."""
        t0 = time.perf_counter()
        self.engine = Engine(self.puzzle)
        status = self.engine.presolve(self.deadline, probing=probing)
        self.root = self.engine.cells()
        self._clock("presolve_seconds", t0)
        return self._propagated(status)

    def _propagated(self, status) -> Verdict | None:
        """What propagation's ``status`` settles: no answer (a contradiction), the time limit, or the answer."""
        if status == lines.CONTRADICTION:
            return Verdict("no_answer", "presolve")
        if status == TIME_UP:
            return Verdict("time_limit")
        return Verdict("answer", "presolve", self.engine.grid()) if self.engine.undecided == 0 else None

    def _complete_turn(self, r: int) -> Verdict | None:
        """The complete search's turn: ``FIRST_WORK`` line solves (backtracking) or ``FIRST_CONFLICTS``
        (SAT), doubled ``r`` times, more than the last; ``self.limit`` is the work it may reach."""
        if self.complete == "backtrack":
            self.limit = min(self.limit + budget(FIRST_WORK, r), lines.UNLIMITED)
            status = self.engine.backtrack(self.deadline, self.limit)
            status = {lines.FOUND: "solved", lines.EXHAUSTED: "unsat", TIME_UP: "time_limit"}.get(status)
            grid = self.engine.grid() if status == "solved" else None
        else:
            if self.sat is None:
                self.sat = SatSearch(self.puzzle, self.root, self.deadline)   # TimeUp: the time limit
            self.limit = min(self.limit + budget(FIRST_CONFLICTS, r), lines.UNLIMITED)
            status, grid = self.sat.advance(self.limit, self.deadline)
            if status == "running" and self.left() <= 0:
                status = "time_limit"
        return {"solved": Verdict("answer", answer=grid), "unsat": Verdict("no_answer"),
                "time_limit": Verdict("time_limit")}.get(status)

    def _probe_turn(self, r: int) -> Verdict | None:
        """Probing's turn beside SAT, until its fixed point: it gives SAT unit clauses and shrinks the model."""
        engine = self.engine
        status = engine.presolve(self.deadline, limit=engine.work_done + budget(FIRST_PROBE_WORK, r))
        self.probing.done = status == lines.OK
        known = engine.cells()
        self.sat.fix(known, self.root)
        self.root = known
        # past the deadline the round still counts: the next turn sees the time is up
        return None if status == TIME_UP else self._propagated(status)

    def _search_turn(self, r: int) -> Verdict | None:
        """One budgeted search of the reduced model: the answer, the time limit, Ctrl-C, or None to go on."""
        if self.compiled is None:
            if self.left() < BUILD_SECONDS_PER_CELL * int((self.root < 0).sum()):
                return None   # no time to build the model: the complete search goes on alone
            if not self._build(self.root):
                return Verdict("time_limit")
        held = _warm_search(self.backend)   # the first search: its kernels compile off the clock
        self.jit, self.held, self.deadline = self.jit + held, self.held + held, self.deadline + held
        if self.left() <= 1e-3:
            return Verdict("time_limit")
        options = dict(self.options)
        algorithm = options.get("algorithm", "auto")
        if algorithm == "auto":   # as qlib.solve chooses
            algorithm = choose_algorithm(self.compiled, 0, options)
        if algorithm == "sa":
            options["max_rounds"] = budget(1, r)
        else:
            options["max_steps"] = budget(FIRST_STEPS, r)
        t0 = time.perf_counter()
        solution = qlib.solve(self.compiled, backend=self.backend, seed=self.seed + r,
                              time_limit=max(self.left(), 1e-3), target_energy=0, **options)
        self._clock("search_seconds", t0)
        self.steps += int(solution.info.get("flips", 0))
        self.ran_backend = solution.info.get("backend", self.ran_backend)
        if self.best is None or solution.energy < self.best.energy:
            self.best = solution
        stop = solution.info.get("stop_reason")
        if abs(solution.energy) <= 1e-9:
            grid = decode(self.model, solution)
            if is_solution(self.puzzle, grid):
                return Verdict("answer", answer=grid)
        if stop == "interrupted":
            return Verdict("interrupted")
        if stop == "time_limit" or self.left() <= 1e-3:
            return Verdict("time_limit")
        return None

    # -- uniqueness ----------------------------------------------------------------
    def check_unique(self, result: NonogramResult) -> None:
        if result.found_by == "presolve":   # every cell was deduced: no other grid fits
            result.unique = True
            return
        t0 = time.perf_counter()
        try:
            if self.complete == "sat" and result.found_by != "backtrack":
                # SAT with the answer forbidden (the same search, when it found the answer)
                if self.sat is None:
                    try:
                        self.sat = SatSearch(self.puzzle, self.root, self.deadline)
                    except TimeUp:   # unique stays None: not known
                        return
                self.sat.block(result.grid)
                status, other = self.sat.advance(lines.UNLIMITED, self.deadline)
                count, status, grids = (1, "exact", []) if status == "unsat" else \
                    (2, "limit", [other]) if status == "solved" else (1, "time_limit", [])
            elif result.found_by == "backtrack" and self.engine is not None:
                # go on with the same search: it has already passed every grid before this one
                count, status, grids = count_from(self.engine, 2, self.deadline, presolve=False,
                                                  found=[result.grid])
            else:
                count, status, grids = count_from(Engine(self.puzzle, self.root), 2, self.deadline,
                                                  presolve=True)
        finally:
            self._clock("unique_seconds", t0)
        others = [g for g in grids if tuple(g) != tuple(result.grid)]
        if others:
            result.unique, result.second_answer = False, tuple(others[0])
        elif status == "exact":
            result.unique = True


def _answer_solution(puzzle, formulation, grid, found_by, searched):
    """A :class:`qlib.Solution` of ``build_model(puzzle, formulation)`` at the answer ``grid``."""
    nm = build_model(puzzle, formulation=formulation)
    compiled = qlib.compile(nm.model)
    info = {"algorithm": found_by, "stop_reason": "target_energy"}
    if searched is not None:
        info["search"] = searched.info
    return qlib.Solution(compiled, compiled.as_states(encode(nm, grid)) if compiled.var_count else
                         np.zeros(0, dtype=np.uint8), info)
