"""Solving Slitherlink: checking a drawing, and removing multi-loop states (outer iteration or lazy cuts)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import qlib
from qlib.constraints import Model
from qlib.solvers.focused import LazyCuts
from qlib.solvers.hooks import loop_hook_data

from ..loops import DegreeError, Grid, loop_satisfies_clues, split_loops
from .board import Board, parse
from .display import render_text
from .formulation import SOLVE_FORMS, SlitherlinkModel, build_model, decode, forbid_loop

def check(board, h, v) -> list[str]:
    """Problems of the drawing ``(h, v)``: clue mismatches, bad degrees, not one loop.

    An empty list means ``(h, v)`` solves the puzzle.
    """
    board = parse(board)
    g = board.grid
    mask = board.grid.from_hv(h, v)
    problems = []
    counts = mask.astype(np.int64)[g.cell_edges].sum(axis=1)
    for i, j, n in board.clue_cells:
        k = int(counts[i * board.cols + j])
        if k != n:
            problems.append(f"clue ({i},{j}) is {n} but {k} of its sides are drawn")
    deg = g.degrees(mask)
    bad = np.flatnonzero((deg != 0) & (deg != 2))
    for p in bad:
        i, j = g.point_ij(p)
        problems.append(f"point ({i},{j}) has degree {int(deg[p])}, expected 0 or 2")
    if not mask.any():
        problems.append("no edge is drawn: expected one loop")
    elif not bad.size:
        loops = split_loops(mask, g.endpoints)
        if len(loops) > 1:
            lengths = " ".join(str(len(lp)) for lp in loops)
            problems.append(f"{len(loops)} loops (lengths {lengths}), expected exactly one")
    return problems


def is_solution(board, h, v) -> bool:
    """Whether ``(h, v)`` is one loop satisfying every clue."""
    return not check(board, h, v)


# -----------------------------------------------------------------------------
# The iterative solver
# -----------------------------------------------------------------------------
@dataclass
class SlitherlinkResult:
    """What :func:`solve` found.

    ``status`` is "solved" or "unsolved"; ``stop_reason`` one of "answer",
    "max_iterations", "time_limit", "no_zero_energy_state", "empty_state" (a
    zero-energy state without any loop: the clues allow the empty drawing, and
    no loop was found).  ``h``/``v`` hold the
    answer loop when solved, else the last state found (all zeros if none).
    ``iterations`` has one dict per solve: ``iteration``, ``energy``, ``loops``
    (loop lengths, None if the state could not be split), ``seconds``,
    ``solver_seconds``, ``seed``, ``state`` (edge 0/1 vector), ``forbidden``
    (loops forbidden after it), ``var_count``, ``term_count``, ``solver_stop``.
    ``var_count``/``term_count`` are those of the last model solved.
    """

    status: str
    stop_reason: str
    h: list
    v: list
    iterations: list
    seconds: float
    backend: str
    seed: int | None
    var_count: int
    term_count: int
    loop: list | None
    answer_state: np.ndarray | None
    form: str = "hubo"
    method: str = "outer"
    board: Board | None = field(default=None, repr=False)

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def render(self) -> str:
        return render_text(self.board, self.h, self.v)

    def summary(self) -> str:
        lines = [f"{self.status} ({self.stop_reason}) in {len(self.iterations)} iteration(s), "
                 f"{self.seconds:.2f} s, form={self.form}, backend={self.backend}, seed={self.seed}"]
        for it in self.iterations:
            loops = " ".join(map(str, it["loops"])) if it["loops"] is not None else "-"
            lines.append(f"iteration {it['iteration']}: energy = {it['energy']:g}, loops = {loops}")
        return "\n".join(lines)


@dataclass
class _Run:
    """Shared state and helpers of one :func:`solve` call; a method drives it."""

    board: Board
    form: str
    backend: str
    seed: int
    time_limit: float
    max_iterations: int
    solver_options: dict
    method: str
    sm: SlitherlinkModel = None
    start: float = 0.0
    iterations: list = field(default_factory=list)
    model: Model = None
    forbidden: int = 0

    def __post_init__(self):
        self.start = time.perf_counter()
        self.sm = build_model(self.board, self.form if self.form in ("qubo", "cells") else "cons")
        self.model = self.sm.model

    @property
    def grid(self) -> Grid:
        return self.sm.grid

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        return self.time_limit - self.elapsed()

    def solve_once(self, initial_state=None):
        """One qlib.solve of the current model with the remaining time; returns (solution, mask)."""
        k = len(self.iterations)
        seed = (self.seed + k) % (1 << 63)
        sol = qlib.solve(self.model, backend=self.backend, seed=seed, time_limit=max(self.remaining(), 1e-3),
                         target_energy=0, initial_state=initial_state, **self.solver_options)
        return sol, decode(self.sm, sol)

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
                   var_count=sol.compiled.num_vars, term_count=sol.compiled.model.term_count,
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
            self.model = self.model + forbid_loop(self.sm, lp, self.form)
        self.forbidden += len(loops)
        if self.iterations:
            self.iterations[-1]["forbidden"] = len(loops)

    def result(self, stop_reason: str, loop=None) -> SlitherlinkResult:
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
        return SlitherlinkResult(
            status="solved" if loop is not None else "unsolved", stop_reason=stop_reason, h=h, v=v,
            iterations=self.iterations, seconds=self.elapsed(), backend=self.backend, seed=self.seed,
            var_count=last["var_count"] if last else self.model.var_count,
            term_count=last["term_count"] if last else self.model.term_count,
            loop=None if loop is None else [int(e) for e in loop], answer_state=answer,
            form=self.form, method=self.method, board=self.board)


_ZERO = 1e-9


def _outer(run: _Run) -> SlitherlinkResult:
    """The tutorial's iteration: a full solve per round, forbidding every loop found."""
    previous = None
    while True:
        if len(run.iterations) >= run.max_iterations:
            return run.result("max_iterations")
        if run.remaining() <= 1e-3:
            return run.result("time_limit")
        t0 = time.perf_counter()
        sol, mask = run.solve_once(previous)
        if sol.energy > _ZERO:
            run.record(sol, mask, run.split(mask), t0)
            exact = sol.info.get("stop_reason") == "complete"
            if exact or run.remaining() <= 1e-3:
                return run.result("no_zero_energy_state")
            continue  # not an answer; try again with the time left
        loops = split_loops(mask, run.grid.endpoints)  # energy 0: every degree is 0 or 2
        run.record(sol, mask, loops, t0)
        if not loops:
            return run.result("empty_state")
        answer = run.answer_loop(loops)
        if answer is not None:
            return run.result("answer", answer)
        run.forbid(loops)
        previous = sol


def loop_cuts(sm: SlitherlinkModel, compiled, **options) -> LazyCuts:
    """The loop separation hook of :mod:`qlib.solvers.hooks`, wired to this board's edges."""
    g = sm.grid
    cols = [compiled.index(e) for e in sm.edges]
    clues = sm.board.clue_cells
    data = loop_hook_data(cols, g.endpoints[:, 0], g.endpoints[:, 1], g.num_points,
                          [g.cell_edges[i * sm.board.cols + j] for i, j, _ in clues], [n for _, _, n in clues])
    return LazyCuts("loops", data, **options)


def _lazy(run: _Run) -> SlitherlinkResult:
    """qlib's method: one focused search in which every closed loop met in a
    low-energy state is either accepted (it alone satisfies every clue) or
    forbidden at once by a product term, without restarting the solve."""
    if run.form == "qubo":
        raise ValueError("method='lazy' adds loop cuts as product terms; use form='hubo' or 'inequality' "
                         "(the same energy), or method='outer' for the pure QUBO form")
    if run.form == "cells":
        raise ValueError("method='lazy' cuts loops of edge variables; use method='outer' with form='cells'")
    if run.backend not in ("cpu", "auto"):
        raise ValueError("method='lazy' runs on the CPU backend; use method='outer' for other backends")
    t0 = time.perf_counter()
    compiled = qlib.compile(run.model)
    options = dict(run.solver_options)
    cut_options = {k: options.pop(k) for k in ("hook_energy", "hook_interval", "cut_weight") if k in options}
    lazy = loop_cuts(run.sm, compiled, **{k.replace("hook_", "").replace("cut_", ""): v
                                          for k, v in cut_options.items()})
    sol = qlib.solve(compiled, backend="cpu", algorithm="focused", seed=run.seed, time_limit=max(run.remaining(), 1e-3),
                     target_energy=0, lazy_cuts=lazy, **options)
    mask = decode(run.sm, sol)
    loops = run.split(mask)
    rec = run.record(sol, mask, loops, t0)
    rec["cuts"] = [len(c) for c in sol.info["cuts"]]
    rec["forbidden"] = len(rec["cuts"])
    run.forbidden = len(rec["cuts"])
    if sol.info["stop_reason"] == "accepted" and loops is not None:
        answer = run.answer_loop(loops)
        if answer is not None:
            return run.result("answer", answer)
    if sol.info["stop_reason"] == "target_energy":  # energy 0 and the hook saw no loop
        return run.result("empty_state")
    return run.result("time_limit" if sol.info["stop_reason"] == "time_limit" else "no_zero_energy_state")


#: Solving methods by name: each takes a prepared :class:`_Run` and returns the result.
METHODS: dict[str, Callable[[_Run], SlitherlinkResult]] = {"lazy": _lazy, "outer": _outer}


def solve(board, *, form: str = "hubo", method: str | None = None, backend: str = "cpu", seed: int | None = None,
          time_limit: float = 60.0, max_iterations: int = 100, **solver_options) -> SlitherlinkResult:
    """Solve ``board`` by eliminating multi-loop states.

    ``method=None`` picks ``"outer"`` for ``form="cells"`` and ``"lazy"`` otherwise.

    ``method="lazy"``: one focused search on the clue
    and degree constraints in which every closed loop met in a low-energy state
    is accepted if it alone satisfies every clue, else forbidden at once by a
    product term (lazy cuts; :func:`loop_cuts`).  ``hook_energy``,
    ``hook_interval`` and ``cut_weight`` tune it.

    ``method="outer"``: the source's iteration.  Each iteration solves the clue and degree constraints (plus the loops
    forbidden so far) with ``qlib.solve(..., target_energy=0)``, warm-started
    from the previous solution; splits the state into loops; returns a loop that
    satisfies every clue on its own; otherwise forbids every loop found, in
    ``form`` "hubo" (product term), "inequality" (native ``<=`` constraint),
    "qubo" (pure QUBO: squared penalties and slack variables throughout) or
    "cells" (the cell formulation of :func:`build_model`, whose single flips
    merge and split loops: the fastest on the larger boards).

    ``time_limit`` is the total in seconds (each solve gets what remains);
    ``seed`` seeds iteration ``k`` (from 1) with ``seed + k - 1`` (a random seed
    is drawn and recorded when None).  Other keyword arguments go to the
    backend (e.g. ``num_sweeps``, ``num_replicas`` for ``backend="cpu"``).
    """
    board = parse(board)
    if method is None:
        method = "outer" if form == "cells" else "lazy"
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(map(repr, METHODS))}")
    if form not in SOLVE_FORMS:
        raise ValueError(f"unknown form {form!r}; choose one of {', '.join(map(repr, SOLVE_FORMS))}")
    if not isinstance(time_limit, (int, float)) or not time_limit > 0 or not math.isfinite(time_limit):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or max_iterations < 1:
        raise ValueError(f"max_iterations must be a positive integer, got {max_iterations!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 62))
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    run = _Run(board, form, backend, int(seed), float(time_limit), max_iterations, solver_options, method)
    return METHODS[method](run)
