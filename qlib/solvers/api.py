"""``qlib.solve``: one entry point, one parameter vocabulary, several backends.

The front door holds no search of its own.  :data:`REGISTRY` names each
backend's algorithms; an algorithm is its options dataclass
(:mod:`qlib.solvers.options`: the option names, defaults and checks) and the
function that runs it, ``run(compiled, options, common) -> (state, info)``.
:func:`solve` checks the arguments every backend shares, picks the
algorithm, builds its options (an option of another algorithm, or an unknown
keyword, raises ``TypeError``) and runs it.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..stop import StopReason
from .. import validate
from ..compile import CompiledModel, compile
from ..result import Solution
from . import cpu, exhaustive, focused, gpu
from .options import (Common, ExhaustiveOptions, FocusedOptions, GPUFocusedOptions, GPUSAOptions, SAOptions,
                      option_names)
from .seeding import draw_seed

__all__ = ["solve", "warmup", "resolve", "check_option_names", "check_options",
           "BACKENDS", "REGISTRY", "Algorithm", "Backend", "DEFAULT_TIME_LIMIT"]

BACKENDS = ("exhaustive", "cpu", "gpu", "auto")
DEFAULT_TIME_LIMIT = 10.0
#: The keyword arguments of :func:`solve` that are no backend's options.
SHARED = ("seed", "time_limit", "target_energy", "initial_state", "algorithm")


@dataclass(frozen=True)
class Algorithm:
    """One search of a backend: its ``name``, its frozen ``options`` dataclass, and
    ``run(compiled, options, common) -> (state, info)``."""

    name: str
    options: type
    run: Callable

    @property
    def option_names(self) -> tuple[str, ...]:
        """The keyword options this algorithm takes."""
        return option_names(self.options)


@dataclass(frozen=True)
class Backend:
    """A backend's algorithms, the first the default; ``choose(compiled, target_energy, options)``
    names the one ``algorithm="auto"`` runs (None: the first).  ``warm``: compile the CPU kernels
    before the first solve (:func:`warmup`), off the clock."""

    name: str
    algorithms: tuple[Algorithm, ...]
    choose: Callable | None = None
    warm: bool = False

    def algorithm(self, name: str) -> Algorithm:
        """The algorithm called ``name``; ``ValueError`` names the choices."""
        for alg in self.algorithms:
            if alg.name == name:
                return alg
        names = ", ".join(repr(a.name) for a in self.algorithms)
        raise ValueError(f"backend {self.name!r} has no algorithm {name!r}; choose 'auto' or {names}")


#: Backends by name ("auto" picks "gpu" when a device works, else "cpu").
REGISTRY: dict[str, Backend] = {
    "exhaustive": Backend("exhaustive", (Algorithm("exhaustive", ExhaustiveOptions, exhaustive.run_exhaustive),)),
    "cpu": Backend("cpu", (Algorithm("sa", SAOptions, cpu.run_sa_cpu),
                           Algorithm("focused", FocusedOptions, cpu.run_focused_cpu)),
                   choose=cpu.choose_algorithm, warm=True),
    "gpu": Backend("gpu", (Algorithm("sa", GPUSAOptions, gpu.run_sa_gpu),
                           Algorithm("focused", GPUFocusedOptions, gpu.run_focused_gpu)),
                   choose=cpu.choose_algorithm, warm=True),   # warm: the host runs the CPU's cut kernels
}


def _misplaced(name: str, backend: Backend, alg: Algorithm, auto: bool) -> str:
    """Why option ``name`` does not fit: which algorithms (or backends) take it, if any."""
    here = [a.name for a in backend.algorithms if name in a.option_names]
    chose = f" (algorithm='auto' chose {alg.name!r}; pass algorithm={here[0]!r})" if auto and here else ""
    if here:
        return f"{name} is an option of algorithm {_names(here)}, not of {alg.name!r}{chose}"
    elsewhere = [b.name for b in REGISTRY.values() if any(name in a.option_names for a in b.algorithms)]
    if elsewhere:
        return f"{name} is an option of backend {_names(elsewhere)}, not of {backend.name!r}"
    takes = ", ".join(SHARED + alg.option_names)
    return f"unknown option {name!r} for backend {backend.name!r}, algorithm {alg.name!r}; it takes {takes}"


def _names(names) -> str:
    return " or ".join(repr(n) for n in names)


def check_option_names(backend, names, *, extra=(), caller: str = "solve") -> None:
    """``TypeError`` for an option that no algorithm of ``backend`` takes (nor ``extra``).

    A puzzle's solve checks its options with it up front, since its presolve may
    answer before any search would have refused them.  A backend outside the
    registry (a callable) takes what it takes, so nothing is checked for it.
    """
    if not isinstance(backend, str) or (backend not in REGISTRY and backend != "auto"):
        return
    backends = [REGISTRY["cpu"], REGISTRY["gpu"]] if backend == "auto" else [REGISTRY[backend]]
    known = {"algorithm", *extra} | {n for b in backends for a in b.algorithms for n in a.option_names}
    stray = sorted(set(names) - known)
    if stray:
        raise TypeError(f"{caller}() got unknown option(s) {', '.join(map(repr, stray))}; with backend "
                        f"{backend!r} it takes {', '.join(sorted(known))}")


def check_options(backend, options: dict, *, extra=(), caller: str = "solve") -> None:
    """:func:`check_option_names`, then the values: ``TypeError`` or ``ValueError`` as :func:`solve` would
    raise them, when no algorithm of ``backend`` that takes these options takes their values.

    A puzzle's solve calls it before anything runs, so that ``num_threads=0`` raises even when its
    presolve or its complete search answers before any model search starts.  ``extra`` names the
    caller's own options, which are not checked here.
    """
    check_option_names(backend, options, extra=extra, caller=caller)
    if not isinstance(backend, str) or (backend not in REGISTRY and backend != "auto"):
        return
    entry = REGISTRY["cpu" if backend == "auto" else backend]
    algorithm = options.get("algorithm", "auto")
    names = {n for n in options if n not in extra and n != "algorithm"}
    candidates = [a for a in entry.algorithms if (algorithm == "auto" or a.name == algorithm)
                  and names <= set(a.option_names)]
    errors = []
    for alg in candidates:
        try:
            alg.options(**{n: options[n] for n in options if n in alg.option_names})
            return
        except (TypeError, ValueError) as exc:
            errors.append(exc)
    if errors:
        raise errors[0]


def resolve(backend: Backend, algorithm, compiled, target_energy, options: dict):
    """The algorithm to run on ``backend`` and its checked options instance.

    ``TypeError``: ``algorithm`` is not a string, or an option belongs to
    another algorithm or to none; ``ValueError``: no such algorithm, or an
    option's value is out of range.
    """
    if not isinstance(algorithm, str):
        raise TypeError(f"algorithm must be a string, got {algorithm!r} ({type(algorithm).__name__})")
    auto = algorithm == "auto"
    if auto:
        algorithm = backend.choose(compiled, target_energy, options) if backend.choose else backend.algorithms[0].name
    alg = backend.algorithm(algorithm)
    stray = [name for name in options if name not in alg.option_names]
    if stray:
        raise TypeError("; ".join(_misplaced(name, backend, alg, auto) for name in stray))
    return alg, alg.options(**options)


def solve(model, *, backend: str = "cpu", seed: int | None = None, time_limit: float | None = None,
          target_energy: float | None = None, initial_state=None, algorithm: str = "auto",
          **options) -> Solution:
    """Minimise ``model`` and return a :class:`~qlib.result.Solution`.

    Parameters shared by every backend: ``seed`` (same seed, same result on the
    CPU, unless the time limit is what stopped the search), ``time_limit``
    (seconds, default 10), ``target_energy`` (stop as soon as a state at or
    below it is found), ``initial_state`` (a state, a {variable: value} mapping,
    or a previous Solution, whose values carry over by label).  ``algorithm``
    picks one of the backend's searches ("auto": the backend chooses).  Other
    keyword arguments are the algorithm's options (:mod:`qlib.solvers.options`);
    an option of another algorithm, or an unknown one, raises ``TypeError``.
    A wrong type raises ``TypeError``, a value out of range ``ValueError``.

    ``backend`` is "cpu" (numba; algorithms "sa" and "focused", "auto" picks
    "focused" when there is a target and the energy is all penalty, or lazy
    cuts are given), "gpu" (CUDA; "sa" and "focused", chosen alike), "auto" (the GPU when one works, else
    the CPU; ``info["backend"]`` says which ran), "exhaustive" (exact, up to 24
    variables), or a callable ``f(compiled, *, seed, time_limit,
    target_energy, initial_state, **options) -> (state, info)`` that wraps
    another sampler (the benchmarks wrap dwave-samplers and OpenJij this way).
    """
    requested = backend
    if callable(backend):
        chosen = getattr(backend, "name", getattr(backend, "__name__", "custom"))
        requested = chosen
    elif not isinstance(backend, str):
        raise TypeError(f"backend must be a name or a callable, got {backend!r} ({type(backend).__name__})")
    elif backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}, or pass a callable")
    else:
        chosen = ("gpu" if gpu.is_available() else "cpu") if backend == "auto" else backend
    compiled = model if isinstance(model, CompiledModel) else compile(model)
    time_limit = validate.time_limit(time_limit, none=True)
    target_energy = validate.number("target_energy", target_energy, none=True)
    seed = validate.seed(seed)
    common = Common(seed=draw_seed() if seed is None else seed,
                    time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit,
                    target_energy=target_energy, initial_state=initial_state)
    if callable(backend):
        if algorithm != "auto":
            options["algorithm"] = algorithm
        run = _custom(backend, compiled, common, options)
    else:
        entry = REGISTRY[chosen]
        alg, checked = resolve(entry, algorithm, compiled, target_energy, options)
        run = (lambda: alg.run(compiled, checked, common))
    if compiled.var_count == 0:   # nothing to search; no kernel gets an empty model
        info = dict(backend=chosen, stop_reason=StopReason.COMPLETE, flips=0, seconds=0.0, jit_seconds=0.0,
                    seed=common.seed, requested_backend=requested)
        return Solution(compiled, np.zeros(0, dtype=np.uint8), info)
    jit_seconds = _warm_once() if not callable(backend) and REGISTRY[chosen].warm else 0.0
    start = time.perf_counter()
    state, info = run()
    info.setdefault("backend", chosen)
    info.update(seconds=time.perf_counter() - start, jit_seconds=jit_seconds, seed=common.seed,
                requested_backend=requested)
    return Solution(compiled, state, info)


def _custom(func, compiled, common: Common, options: dict):
    """A call of the callable backend ``func``; its signature must take ``options`` (``TypeError``)."""
    shared = dict(seed=common.seed, time_limit=common.time_limit, target_energy=common.target_energy,
                  initial_state=common.initial_state)
    try:
        inspect.signature(func).bind(compiled, **shared, **options)
    except TypeError as error:
        raise TypeError(f"backend {getattr(func, '__name__', func)!r} does not take these options: {error}") from None
    except ValueError:   # no signature to read (a builtin): the call itself will tell
        pass
    return lambda: func(compiled, **shared, **options)


_WARMED = []


def _warm_once() -> float:
    """:func:`warmup` the first time a CPU solve runs in this process, so that compiling or
    loading the kernels never counts against a ``time_limit``; seconds spent (0 later)."""
    if _WARMED:
        return 0.0
    _WARMED.append(True)
    try:
        return warmup()
    except BaseException:
        _WARMED.clear()
        raise


def warmup() -> float:
    """Compile (or load from cache) every CPU kernel on a tiny model; returns seconds."""
    from ..constraints import cons, one_of
    from ..expr import var

    _WARMED.append(True)   # the solves below must not warm up again
    start = time.perf_counter()
    a = var("_warmup", 3)
    model = a[0] * ~a[1] * a[2] + cons(a[0] + a[1] + a[2] == one_of(0, 2), label="warmup")
    runs = [dict(model=model, backend="exhaustive"),
            *(dict(model=m, backend="cpu", seed=0, num_sweeps=2, max_rounds=2, num_replicas=p,
                  algorithm="sa")
              for m in (model, a[0] * ~a[1] - a[2], a[0] * a[1] * ~a[2] - a[1]) for p in (1, 2)),
            dict(model=model, backend="cpu", seed=0, target_energy=0, num_replicas=1, algorithm="focused")]
    for run in runs:   # every annealer (general, local fields, cached deltas; serial, parallel, restarted); focused
        if solve(**run).info.get("stop_reason") == "interrupted":
            raise KeyboardInterrupt   # a Ctrl-C held back during a compile: the caller reports it
    focused.warmup_cuts(compile(model))
    return time.perf_counter() - start
