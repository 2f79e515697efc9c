"""Solving Slitherlink: removing multi-loop states (lazy cuts or the outer iteration)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import qlib
from qlib import validate
from qlib.constraints import Model
from qlib.solvers import LazyCuts, check_options

from .. import clock
from ..clock import TimeUp
from ..loops import DegreeError, Grid, loop_satisfies_clues, split_loops
from ..portfolio import Portfolio, Verdict, budget
from ..result import PuzzleResult
from .board import Board, parse
from .display import render_text
from .formulation import FORMULATIONS, CellFormulation, Formulation, formulation_of
from .model import SlitherlinkModel
from .presolve import Presolve, presolve
from .separation import warmup as warm_separation

# -- the solver ---------------------------------------------------------------
@dataclass(kw_only=True)
class SlitherlinkResult(PuzzleResult):
    """What :func:`solve` found.

    ``status`` is "solved", "unsolved" or "interrupted"; ``stop_reason`` one of
    "answer", "time_limit", "no_answer" (proved, by the presolve, by the
    complete search, or by an exact backend of the outer method, which saw
    every state of the model break a rule: no single loop meets the clues),
    "max_iterations" or "max_steps"
    (only when the caller set ``max_iterations`` or ``max_steps``) or
    "interrupted" (Ctrl-C).  A state of energy 0 that is not one loop (several
    loops, or the empty drawing) never ends a search: it is cut and the search goes on.  ``found_by`` says
    which part settled the board: "presolve", "search" (the model search), "sat" or "backtrack" (the
    complete search run beside it; see :func:`solve`), or None.
    ``h``/``v`` hold the answer loop when solved, else the last state found
    (all zeros if none).  ``iterations`` has one dict per solve: ``iteration``,
    ``energy``, ``loops`` (loop lengths, None if the state could not be split),
    ``seconds``, ``solver_seconds``, ``seed``, ``state`` (edge 0/1 vector),
    ``forbidden`` (loops forbidden after it), ``var_count``, ``term_count``,
    ``solver_stop``; the lazy method's also ``cuts``, ``steps``, ``separation_seconds``,
    ``separation_calls`` and ``steps_of_winner``.  ``var_count``/``term_count`` are those of the last model
    solved (0 when no model was built: the presolve or the complete search
    answered first).  ``timings``: ``jit_seconds`` (compiling or loading the kernels,
    before the clock starts), ``presolve_seconds``, ``solve_seconds`` (all the
    rest of the solve; the lazy method's rounds split it: ``complete_seconds``, ``build_seconds``,
    ``search_seconds``) and, with ``check_unique``, ``unique_seconds``; ``seconds``
    is the whole call's time but the JIT's.  ``presolved``: the share of edges the
    presolve decided (cells form).  ``unique`` (with ``check_unique``): True,
    False (``second_answer`` holds another answer's edge mask) or None.
    """

    h: list
    v: list
    iterations: list
    loop: list | None
    answer_state: np.ndarray | None
    formulation: str = "cells"
    method: str = "lazy"
    board: Board | None = field(default=None, repr=False)
    presolved: float | None = None
    second_answer: np.ndarray | None = field(default=None, repr=False)

    def render(self) -> str:
        """The board and the drawing as text (:func:`render_text`)."""
        return render_text(self.board, self.h, self.v)

    def summary(self) -> str:
        """The status line, then one line per iteration (energy and loop lengths)."""
        by = f" by {self.found_by}" if self.found_by else ""
        lines = [f"{self.status} ({self.stop_reason}){by} in {len(self.iterations)} iteration(s), "
                 f"{self.seconds:.2f} s, formulation={self.formulation}, method={self.method}, backend={self.backend}, "
                 f"seed={self.seed}"]
        for it in self.iterations:
            loops = " ".join(map(str, it["loops"])) if it["loops"] is not None else "-"
            lines.append(f"iteration {it['iteration']}: energy = {it['energy']:g}, loops = {loops}")
        return "\n".join(lines)


@dataclass
class _Run:
    """Shared state and helpers of one :func:`solve` call; a method drives it."""

    board: Board
    formulation: str
    backend: str
    seed: int
    time_limit: float
    max_iterations: int | None
    solver_options: dict
    method: str
    complete: str | None = None
    spec: Formulation = None
    start: float = 0.0
    iterations: list = field(default_factory=list)
    forbidden: int = 0
    presolve: Presolve | None = None
    _sm: SlitherlinkModel | None = None
    _model: Model | None = None
    interrupted_presolve: bool = False   # a Ctrl-C stopped the presolve: report without one
    build_seconds: float = 0.0   # building the model (compiling takes _COMPILE_SHARE of that)

    def __post_init__(self):
        self.start = time.perf_counter()
        self.spec = FORMULATIONS[self.formulation]
        if isinstance(self.spec, CellFormulation) and self.spec.use_presolve and not self.interrupted_presolve:
            # capped beside a complete search (SAT answers sooner); alone, to a fixed point (see presolve)
            nodes = -1 if self.complete else None
            self.presolve = presolve(self.board, probe_nodes=nodes, deadline=self.start + self.time_limit)

    @property
    def sm(self) -> SlitherlinkModel:
        """The board's model, built at its first use: a complete search that answers first never needs it."""
        if self._sm is None:
            options = {} if self.presolve is None else {"presolve": self.presolve}
            t0 = time.perf_counter()
            self._sm = self.spec.build(self.board, deadline=self.start + self.time_limit, **options)   # or TimeUp
            self._model = self._sm.model
            self.build_seconds = time.perf_counter() - t0
        return self._sm

    @property
    def model(self) -> Model:
        """The model solved next: the board's, plus what the outer method has forbidden."""
        return self.sm.model if self._model is None else self._model

    @model.setter
    def model(self, value: Model) -> None:
        self._model = value

    @property
    def presolve_seconds(self) -> float:
        return 0.0 if self.presolve is None else self.presolve.seconds

    @property
    def grid(self) -> Grid:
        return self.board.grid

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        return self.time_limit - self.elapsed()

    def solve_once(self, initial_state=None):
        """One qlib.solve of the current model with the remaining time; returns (solution, mask)."""
        k = len(self.iterations)
        seed = (self.seed + k) % (1 << 63)
        sol = qlib.solve(self.spec.compile(self.sm, self.model), backend=self.backend, seed=seed,
                         time_limit=max(self.remaining(), 1e-3),
                         target_energy=0, initial_state=initial_state, **self.solver_options)
        return sol, self.spec.decode_state(self.sm, sol.compiled, sol.state)

    def split(self, mask):
        """Loops of ``mask``, or None if some point has degree other than 0 or 2."""
        try:
            return split_loops(mask, self.grid.endpoints)
        except DegreeError:
            return None

    def record(self, sol, mask, loops, t0) -> dict:
        rec = dict(iteration=len(self.iterations) + 1, energy=float(sol.energy),
                   loops=None if loops is None else [len(lp) for lp in loops],
                   seconds=time.perf_counter() - t0, solver_seconds=sol.info.get("seconds"),
                   seed=sol.info.get("seed"), state=mask.copy(), forbidden=0,
                   var_count=sol.compiled.var_count, term_count=sol.compiled.model.term_count,
                   solver_stop=sol.info.get("stop_reason"))
        self.iterations.append(rec)
        return rec

    def answer_loop(self, loops):
        for lp in loops or ():
            if loop_satisfies_clues(self.board, lp):
                return lp
        return None

    def forbid(self, loops) -> None:
        """Add a penalty for every loop to the current model."""
        for lp in loops:
            self.model = self.model + self.spec.forbid(self.sm, lp)
        self.forbidden += len(loops)
        if self.iterations:
            self.iterations[-1]["forbidden"] = len(loops)

    def result(self, stop_reason: str, loop=None, found_by: str | None = None) -> SlitherlinkResult:
        g = self.grid
        if loop is not None:
            state = np.zeros(g.num_edges, dtype=np.uint8)
            state[np.asarray(loop)] = 1
            shown, answer = state, state
        else:
            shown = self.iterations[-1]["state"] if self.iterations else np.zeros(g.num_edges, dtype=np.uint8)
            answer = None
        h, v = g.to_hv(shown)
        last = self.iterations[-1] if self.iterations else None
        seconds = self.elapsed()
        status = "solved" if loop is not None else "interrupted" if stop_reason == "interrupted" else "unsolved"
        pre = self.presolve
        model = self._model   # None when no model was built: the presolve or the complete search answered first
        return SlitherlinkResult(
            status=status, stop_reason=stop_reason, h=h, v=v,
            iterations=self.iterations, seconds=seconds, backend=self.backend, seed=self.seed,
            var_count=last["var_count"] if last else 0 if model is None else model.var_count,
            term_count=last["term_count"] if last else 0 if model is None else model.term_count,
            loop=None if loop is None else [int(e) for e in loop], answer_state=answer,
            formulation=self.formulation, method=self.method, board=self.board,
            timings=dict(presolve_seconds=self.presolve_seconds, solve_seconds=seconds),
            presolved=None if pre is None else pre.fixed_fraction, found_by=found_by)

    def presolved_result(self):
        """The result when the presolve alone settled the board, else None."""
        pre = self.presolve
        if pre is None or pre.status == "open":
            return None
        if pre.status in ("infeasible", "empty"):   # "empty": only the empty drawing is left, not an answer
            return self.result("no_answer", found_by="presolve")
        return self.result("answer", np.flatnonzero(pre.edges == 1), found_by="presolve")


_ZERO = 1e-9
_STOPS = {"time_limit": "time_limit", "interrupted": "interrupted"}
_CUT_OPTIONS = {"cut_energy": "energy", "cut_interval": "interval", "cut_weight": "weight"}


def _outer(run: _Run) -> SlitherlinkResult:
    """The tutorial's iteration: a full solve per round, forbidding every loop found."""
    settled = run.presolved_result()
    if settled is not None:
        return settled
    previous = None
    while True:
        if run.max_iterations is not None and len(run.iterations) >= run.max_iterations:
            return run.result("max_iterations")
        if run.remaining() <= 1e-3:
            return run.result("time_limit")
        t0 = time.perf_counter()
        sol, mask = run.solve_once(previous)
        stop = sol.info.get("stop_reason")
        if sol.energy > _ZERO:
            run.record(sol, mask, run.split(mask), t0)
            if stop in _STOPS:
                return run.result(_STOPS[stop])
            if stop == "complete":   # an exact backend: no state of energy 0, so no answer
                return run.result("no_answer", found_by="search")
            continue  # not an answer; try again with the time left
        loops = split_loops(mask, run.grid.endpoints)  # energy 0: every degree is 0 or 2
        run.record(sol, mask, loops, t0)
        answer = run.answer_loop(loops)
        if answer is not None:
            return run.result("answer", answer, found_by="search")
        if stop == "interrupted":
            return run.result("interrupted")
        if loops:
            run.forbid(loops)
        else:   # the empty drawing is never an answer: forbid it and solve again
            run.model = run.model + run.spec.forbid_empty(run.sm)
        previous = sol


def loop_cuts(sm: SlitherlinkModel, compiled, *, cut: str | None = None, **options) -> LazyCuts:
    """Lazy loop cuts for ``sm``: its formulation's separation function in a :class:`~qlib.solvers.focused.driver.LazyCuts`."""
    spec = FORMULATIONS[cut] if cut else formulation_of(sm)
    return LazyCuts(spec.separation(sm, compiled), **options)


#: The lazy method's rounds (:mod:`~qlib.puzzles.portfolio`): round ``k`` gives each part about
#: ``2**k`` times its first budget, in counts: SAT work (conflicts, plus a fixed cost per call),
#: backtracking nodes (about one pass over the edges each) or focused-search steps per replica.  The
#: first runs are worth about ``_FIRST_ROUND`` seconds at the rates measured here (2 cores); SAT's
#: first turn is ``_SAT_WORK_PER_EDGE`` units per edge (at least that).  Counts keep the result
#: independent of the machine's speed and load.
_FIRST_ROUND = 0.02
_STEPS_PER_SECOND = 30_000
_FIRST_STEPS = max(64, int(_FIRST_ROUND * _STEPS_PER_SECOND))
_EDGE_NODES_PER_SECOND = 1.2e8
#: Compiling a model takes about this share of the time building it took (0.05 at 100x100, 0.25 at 200x200).
_COMPILE_SHARE = 0.3
_SAT_WORK_PER_SECOND = 8_000
_SAT_WORK_PER_EDGE = 4

#: The cell model's focused search unless the caller sets these: dynamic weights smoothed every 5 raises in
#: one replica and every 20 in the next (a portfolio sharing its cuts), no random flips (edge forms: none).
SEARCH_DEFAULTS = {"weight_smoothing": (5, 20), "noise": 0.0}

#: The complete searches the lazy method can run beside the focused search (``complete=``).
COMPLETE = ("sat", "backtrack")


class _Complete:
    """The complete search's part of the rounds (:mod:`~qlib.puzzles.portfolio`): SAT or backtracking."""

    complete = True

    def __init__(self, kind: str, run: "_Run"):
        self.name, self.run, self.search, self.stop = kind, run, None, 0

    def _start(self):
        """Build the search at its first turn, so the focused search starts without waiting for it."""
        run = self.run
        if self.name == "sat":
            from .exact import SatSearch

            # The raw board, not the presolved one: unit clauses for the decided edges make no call
            # cheaper, and they change which models CaDiCaL returns and so how many loop clauses it
            # needs (29 calls raw against 537 presolved on slitherlink-20x20-gen-s5).
            self.search = SatSearch(run.board)
            self.per_round = max(int(_FIRST_ROUND * _SAT_WORK_PER_SECOND), int(_SAT_WORK_PER_EDGE * run.grid.num_edges))
        else:
            from .counter import BacktrackSearch

            self.search = BacktrackSearch(run.board, limit=1, store=1)
            self.per_round = max(8, int(_FIRST_ROUND * _EDGE_NODES_PER_SECOND / run.grid.num_edges))

    def turn(self, r: int) -> Verdict | None:
        """Round ``r``'s turn, twice the budget of the last: the answer, a proof that there is none, or None."""
        if self.search is None:
            self._start()
        self.stop += budget(self.per_round, r)
        deadline = self.run.start + self.run.time_limit
        if self.name == "sat":
            status, mask = self.search.advance(self.stop, deadline)
        else:
            status = self.search.advance(self.stop, deadline)
            mask = self.search.solutions[0] if status == "limit" else None
        if mask is not None:
            return Verdict("answer", answer=np.flatnonzero(mask))
        return Verdict("no_answer") if status in ("unsat", "exhausted") else None

    def close(self):
        if self.name == "sat" and self.search is not None:
            self.search.close()


class _Search:
    """The focused search's part of the rounds: the model built at its first turn, then beside a complete
    search a restart per turn with twice the steps (a new seed, the cuts kept); alone, the caller's cap."""

    name = "search"
    complete = False

    def __init__(self, run: "_Run", options: dict, cut_options: dict, user_steps: int | None, restarts: bool):
        self.run, self.options, self.cut_options, self.user_steps = run, options, cut_options, user_steps
        self.restarts, self.compiled, self.cuts = restarts, None, []
        self.build_seconds = 0.0   # building and compiling the model

    def turn(self, r: int) -> Verdict | None:
        """Round ``r``'s search: an answer, the time limit, Ctrl-C or the caller's cap; else None."""
        run = self.run
        if self.compiled is None:
            sm = run.sm   # TimeUp when the deadline passes while it is built; nor may compiling overrun it
            if run.remaining() < _COMPILE_SHARE * run.build_seconds:
                return Verdict("time_limit")
            t0 = time.perf_counter()
            self.compiled = run.spec.compile(sm, run.model)
            self.build_seconds = run.build_seconds + time.perf_counter() - t0
            if run.remaining() <= 0:   # building the model took the time
                return Verdict("time_limit")
        if self.compiled.var_count == 0:   # the presolve left one state: it is an answer or there is none
            return self._one_state()
        t0 = time.perf_counter()
        lazy = LazyCuts(run.spec.separation(run.sm, self.compiled), cuts=self.cuts, **self.cut_options)
        # the rounds' doubling budget beside a complete search; alone, one search (the dynamic weights
        # leave the plateaus that restarts would, and a restart would drop them)
        steps = budget(_FIRST_STEPS, r) if self.restarts else None
        sol = qlib.solve(self.compiled, backend="gpu" if run.backend == "gpu" else "cpu", algorithm="focused",
                         seed=(run.seed + r) % (1 << 63), time_limit=max(run.remaining(), 1e-3), target_energy=0,
                         lazy_cuts=lazy, max_steps=steps if self.restarts else self.user_steps, **self.options)
        mask = run.spec.decode_state(run.sm, self.compiled, sol.state)
        loops = run.split(mask)
        rec = run.record(sol, mask, loops, t0)
        rec["cuts"] = [len(c[0]) for c in sol.info["cuts"][len(self.cuts):]]   # the winner's pool: the kept cuts first
        rec["forbidden"], rec["steps"] = len(rec["cuts"]), steps
        rec.update({k: sol.info.get(k) for k in ("separation_seconds", "separation_calls", "steps_of_winner")})
        run.forbidden += len(rec["cuts"])
        self.cuts = sol.info["cuts"]
        stop = sol.info["stop_reason"]
        if stop == "accepted" and loops is not None and len(loops) == 1:
            answer = run.answer_loop(loops)
            if answer is not None:
                return Verdict("answer", answer=answer)
        if stop == "interrupted":
            return Verdict("interrupted")
        if stop == "time_limit" or run.remaining() <= 0:
            return Verdict("time_limit")
        if not self.restarts and stop == "max_steps":      # the caller's cap
            return Verdict("max_steps")
        return None   # a target state the separation neither accepted nor cut: not a verdict; search again

    def _one_state(self) -> Verdict | None:
        run = self.run
        loops = run.split(run.spec.decode_state(run.sm, self.compiled, np.zeros(0, dtype=np.uint8)))
        answer = run.answer_loop(loops) if loops is not None and len(loops) == 1 else None
        if answer is not None:
            return Verdict("answer", "presolve", answer)
        # alone, the model is exact and its one state is no answer: none exists (else the complete search says)
        return None if self.restarts else Verdict("no_answer", "presolve")


def _lazy(run: _Run) -> SlitherlinkResult:
    """qlib's method: one focused search in which every closed loop met in a
    low-energy state is either accepted (it alone satisfies every clue) or
    forbidden at once by a cut, without restarting the solve.

    With a complete search (``run.complete``) the two take turns in rounds
    (:class:`~qlib.puzzles.portfolio.Portfolio`), the complete search first: it
    often answers within its first turn, before the model is built.  Restarts
    cut a randomised search's heavy tail.  Without one it is one search, until
    an answer, the time limit or the caller's ``max_steps``: on the minimal-clue
    boards (qlibgen 20x20 to 50x50, 12 seeds each) restarts made the median and
    the worst run slower, as each one dropped the weights the search had learned.
    """
    if not run.spec.lazy:
        raise ValueError(f"method='lazy' adds loop cuts as product terms, which formulation {run.formulation!r} "
                         "does not take; use method='outer' for the pure QUBO form")
    if run.backend not in ("cpu", "gpu", "auto"):
        raise ValueError("method='lazy' runs on the CPU or GPU backend; use method='outer' for other backends")
    settled = run.presolved_result()
    if settled is not None:
        return settled
    options = {**(SEARCH_DEFAULTS if isinstance(run.spec, CellFormulation) else {}), **run.solver_options}
    cut_options = {_CUT_OPTIONS[k]: options.pop(k) for k in list(options) if k in _CUT_OPTIONS}
    user_steps = options.pop("max_steps", None)
    if user_steps is not None and run.complete:
        raise ValueError("max_steps caps the search's steps; beside a complete search the rounds set the steps: "
                         "pass complete=False to set them yourself")
    exact = _Complete(run.complete, run) if run.complete else None
    search = _Search(run, options, cut_options, user_steps, restarts=exact is not None)
    rounds = Portfolio([exact, search] if exact else [search], left=run.remaining,
                       caps=() if user_steps is None else ("max_steps",))
    try:
        verdict = rounds.run()
    finally:
        if exact is not None:
            exact.close()
    result = run.result(verdict.stop_reason, verdict.answer, verdict.found_by)
    result.timings.update(complete_seconds=rounds.seconds.get(run.complete, 0.0), build_seconds=search.build_seconds,
                          search_seconds=rounds.seconds.get("search", 0.0) - search.build_seconds)
    return result


#: Solving methods by name: each takes a prepared run (``_Run``) and returns the result.
METHODS: dict[str, Callable[[_Run], SlitherlinkResult]] = {"lazy": _lazy, "outer": _outer}

_WARM = {}


def _warm_run(result) -> None:
    """A warm-up run stopped by a Ctrl-C (held back during a compile) raises it: the caller reports it."""
    if result.stop_reason == "interrupted":
        raise KeyboardInterrupt


def warmup(formulation: str = "cells", method: str = "lazy") -> float:
    """Compile or load the kernels a solve with ``formulation`` and ``method`` uses; seconds (0 once warm)."""
    key = (formulation, method)
    if key in _WARM:
        return 0.0
    start = time.perf_counter()
    qlib.warmup()
    tiny = Board(((3, None), (None, None)))   # builds a model, runs the presolve and one search
    _warm_run(METHODS[method](_Run(tiny, formulation, "cpu", 0, 1.0, None, {}, method, None)))
    if method == "lazy" and FORMULATIONS[formulation].lazy:
        open_board = Board(((None, None), (None, None)))   # one the presolve leaves open
        _warm_run(METHODS[method](_Run(open_board, formulation, "cpu", 0, 1.0, None, {}, method, None)))
        warm_separation(open_board)
        for kind in COMPLETE:   # a turn of each complete search
            exact = _Complete(kind, _Run(open_board, formulation, "cpu", 0, 1.0, None, {}, method, kind))
            exact.turn(0)
            exact.close()
    _WARM[key] = time.perf_counter() - start
    return _WARM[key]


def solve(board, *, formulation: str = "cells", method: str | None = None, backend: str = "cpu", seed: int | None = None,
          time_limit: float = 60.0, max_iterations: int | None = None, check_unique: bool = False,
          complete: str | bool | None = None, **solver_options) -> SlitherlinkResult:
    """Solve ``board`` by eliminating multi-loop states.

    ``formulation`` chooses the formulation (:data:`~.formulation.FORMULATIONS`):
    ``"cells"`` (the default: one variable per parity class of cells left open
    by the presolve, loops forbidden by their regions; the fastest measured at
    every size), or the source's edge variables with loops forbidden as
    ``"hubo"`` (one product term), ``"inequality"`` (a native ``<=``
    constraint) or ``"qubo"`` (pure QUBO: squared penalties and slack
    variables throughout).

    ``method="lazy"`` (the default; ``"outer"`` for the qubo form): one focused
    search in which every closed loop met in a low-energy state is accepted if
    it alone satisfies every clue, else forbidden at once by a cut
    (:func:`loop_cuts`; ``cut_energy``, ``cut_interval`` and ``cut_weight``
    tune it).  ``method="outer"``: the source's iteration: solve, split the
    state into loops, return a loop that satisfies every clue on its own,
    otherwise forbid every loop found and solve again, warm-started.

    A solve ends with an answer, at ``time_limit`` (seconds in all; JIT
    compilation or cache loading happens before the clock starts and is
    reported apart in ``result.timings``), with a proof that no answer exists,
    or on Ctrl-C (status "interrupted", the best state so far).
    ``max_iterations`` (outer method) stops earlier only when set.
    ``complete`` (lazy method): a complete search run beside the focused
    search, "sat" (CaDiCaL with lazy loop clauses, :mod:`qlib.puzzles.slitherlink.exact`, on the
    board; the default for ``formulation="cells"``) or "backtrack"
    (:class:`qlib.puzzles.slitherlink.counter.BacktrackSearch`); False (the default
    for the source's edge forms) for none.  The search then runs in rounds:
    the complete search's turn with twice its last budget, then a restart of
    the focused search with twice the steps of the last (a new seed, the cuts
    kept; the model is built at its first turn).  The complete search goes
    first since it answers most boards within its first turn.  Restarts cut
    a randomised search's heavy tail; the complete search answers every board
    or proves it has no answer.  Budgets are counts, not
    seconds, so the seed and thread count fix the answer and
    ``result.found_by``.  With ``complete=False`` (the QUBO method alone) the
    presolve probes to a fixed point, and one focused search with lazy cuts
    runs until an answer or the time limit (``max_steps`` caps it).  ``seed``
    seeds iteration ``k`` (from 1) with ``seed + k - 1`` (a random seed is drawn
    and recorded when None).  ``check_unique=True`` proves, after a solve,
    whether the answer is the only one (SAT with the answer blocked, within
    the time left): ``result.unique`` and
    ``result.second_answer``.  Other keyword arguments go to the backend
    (``num_replicas``, ``noise``, ...; the cell model's: :data:`~qlib.puzzles.slitherlink.solve.SEARCH_DEFAULTS`).
    ``backend="gpu"`` runs the focused search on the GPU, one replica per CUDA
    thread; the presolve, the separation and the complete search stay on the CPU.
    """
    board = parse(board)
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of {', '.join(map(repr, FORMULATIONS))}")
    if method is None:
        method = "lazy" if FORMULATIONS[formulation].lazy else "outer"
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(map(repr, METHODS))}")
    time_limit = validate.time_limit(time_limit)
    max_iterations = validate.integer("max_iterations", max_iterations, minimum=1, none=True)
    check_unique = validate.boolean("check_unique", check_unique)
    if complete is None:
        complete = "sat" if formulation == "cells" and method == "lazy" else False
    if complete is False:
        complete = None
    elif not isinstance(complete, str):
        raise TypeError(f"complete must be one of {', '.join(map(repr, COMPLETE))}, False or None, got {complete!r}")
    elif complete not in COMPLETE:
        raise ValueError(f"unknown complete search {complete!r}; choose one of {', '.join(map(repr, COMPLETE))}")
    elif method != "lazy":
        raise ValueError("complete= runs beside the lazy method; method='outer' is the source's iteration alone")
    check_options(backend, solver_options, caller="slitherlink.solve", extra=_CUT_OPTIONS if method == "lazy" else ())
    seed = validate.seed(seed)
    seed = int(np.random.SeedSequence().entropy % (1 << 62)) if seed is None else seed
    jit = warmup(formulation, method) if backend in ("cpu", "gpu", "auto") else 0.0
    if backend == "gpu":   # raise now, even if the presolve or the complete search would answer first
        from qlib.solvers import gpu

        gpu.require_device()
        jit += gpu.warmup()
    args = (board, formulation, backend, int(seed), float(time_limit), max_iterations, solver_options, method, complete)
    with clock.gc_paused():
        run = None
        try:
            run = _Run(*args)
            result = METHODS[method](run)
        except KeyboardInterrupt:   # in the presolve or between two solves: the last state, or an empty drawing
            run = run or _Run(*args, interrupted_presolve=True)
            result = run.result("interrupted")
        except TimeUp:   # building the model took the time
            result = run.result("time_limit")
        result.timings["jit_seconds"] = jit
        if check_unique and result.solved:
            _check_unique(result, board, time_limit - result.seconds)   # the limit covers the check too
    return result


def _check_unique(result: SlitherlinkResult, board: Board, time_limit: float) -> None:
    """Prove ``result``'s answer unique, or find a second one, within ``time_limit``: SAT with the answer
    blocked (:mod:`qlib.puzzles.slitherlink.exact`).  ``unique`` stays None when the time runs out, and after a Ctrl-C, which
    leaves the answer standing with stop reason "interrupted"."""
    from .exact import SatSearch

    t0 = time.perf_counter()
    mask = board.grid.from_hv(result.h, result.v)
    status, second = "time_limit", None
    if time_limit > 0:
        search = SatSearch(board)
        try:
            search.block(mask)
            status, second = search.next_answer(t0 + time_limit)
        except KeyboardInterrupt:
            result.stop_reason = "interrupted"
        finally:
            search.close()
    result.timings["unique_seconds"] = time.perf_counter() - t0
    result.seconds += result.timings["unique_seconds"]
    if status in ("unsat", "solved"):
        result.unique = status == "unsat"
        result.second_answer = second
