"""Each algorithm's options: a frozen dataclass whose fields are the option names and defaults.

Creating one checks every value with :mod:`qlib.validate` (``TypeError`` for a
wrong type, ``ValueError`` for a value out of range) and stores it as the
search uses it (Python ints and floats, ``num_threads`` resolved).  The
registry of :mod:`qlib.solvers.api` maps each backend's algorithms to these
classes; :class:`Common` holds the arguments every backend takes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numba

from .. import validate
from .exhaustive import MAX_VARS
from .focused import LazyCuts

__all__ = ["Common", "ExhaustiveOptions", "SAOptions", "FocusedOptions", "GPUSAOptions", "GPUFocusedOptions",
           "option_names", "default_sweeps"]


def option_names(options_class) -> tuple[str, ...]:
    """The option names an options dataclass takes, in order."""
    return tuple(f.name for f in fields(options_class))


def _set(options, name: str, value) -> None:
    object.__setattr__(options, name, value)   # the checked value, on a frozen dataclass


def _num_threads(value) -> int:
    most = numba.config.NUMBA_NUM_THREADS
    if value is None:
        return most
    return validate.integer("num_threads (the cores numba may use)", value, minimum=1, maximum=most)


def _beta_range(value):
    if value is None:
        return None
    hot, cold = validate.pair("beta_range", value)
    hot = validate.number("beta_range's hot end", hot, positive=True)
    cold = validate.number("beta_range's cold end", cold, positive=True)
    if not hot <= cold:
        raise ValueError(f"beta_range must be (hot, cold) with 0 < hot <= cold, got {value!r}")
    return hot, cold


@dataclass(frozen=True)
class Common:
    """The arguments every backend takes, as :func:`qlib.solve` checked them: ``seed`` (an int),
    ``time_limit`` (seconds), ``target_energy`` (a float or None) and ``initial_state``."""

    seed: int
    time_limit: float
    target_energy: float | None = None
    initial_state: object = None


@dataclass(frozen=True)
class ExhaustiveOptions:
    """``backend="exhaustive"``: ``max_vars``, the most variables it enumerates (2**n states)."""

    max_vars: int = MAX_VARS

    def __post_init__(self):
        _set(self, "max_vars", validate.integer("max_vars", self.max_vars, minimum=0))


@dataclass(frozen=True)
class SAOptions:
    """``algorithm="sa"`` on the CPU: simulated annealing with restarts.

    ``num_replicas`` defaults to 2, one per core here.  ``num_sweeps``
    (default None: :func:`default_sweeps` of the model's size) is the length of
    one annealing round.  ``num_threads``: default every core numba may use.
    ``beta_range``: (hot, cold) inverse temperatures, default from the model
    (dwave-samplers' rule for a quadratic model).  ``max_rounds``: rounds of
    sweeps (default 1 without a target, else until the target or the time limit).
    """

    num_replicas: int = 2
    num_threads: int | None = None
    num_sweeps: int | None = None
    beta_range: tuple | None = None
    max_rounds: int | None = None

    def __post_init__(self):
        _set(self, "num_replicas", validate.integer("num_replicas", self.num_replicas, minimum=1))
        _set(self, "num_threads", _num_threads(self.num_threads))
        _set(self, "num_sweeps", validate.integer("num_sweeps", self.num_sweeps, minimum=1, none=True))
        _set(self, "beta_range", _beta_range(self.beta_range))
        _set(self, "max_rounds", validate.integer("max_rounds", self.max_rounds, minimum=1, none=True))


def default_sweeps(var_count: int) -> int:
    """The default length of an annealing round on the CPU: 300 sweeps under 500 variables, 1000
    under 5000, else 3000.

    Measured with ``benchmarks/qubo.py`` (time to the best known energy, 10
    runs per row, restarts until the target): on the 100-variable workloads
    300 sweeps had the lowest or a near-lowest TTS99 (at most 1.3x the best of
    100/300/1000/3000); on the 834-variable frustrated loop 1000 was best and
    300 never reached the target; the other 1000-variable workloads reached
    their targets only with 3000.
    """
    return 300 if var_count < 500 else 1000 if var_count < 5000 else 3000


#: The most steps a focused search may be asked for: the kernels count them in 64-bit integers.
MAX_STEPS = 1 << 62


@dataclass(frozen=True)
class _FocusedShared:
    """The focused search's options on every backend (checked by :func:`_check_focused`)."""

    noise: float = 0.2
    tabu_tenure: tuple = (0, 2)
    weight_smoothing: int | tuple = 0
    lazy_cuts: LazyCuts | None = None
    max_steps: int | None = None
    share_cuts: bool = True
    share_interval: int = 20_000


@dataclass(frozen=True)
class FocusedOptions(_FocusedShared):
    """``algorithm="focused"`` on the CPU: the tabu-guided focused search (:mod:`qlib.solvers.focused`).

    ``noise`` (in [0, 1]): the share of random flips; ``tabu_tenure`` (min,
    max): how many steps a flipped variable stays tabu; ``weight_smoothing``:
    0 (the default) keeps the model's weights; ``k > 0`` turns on dynamic
    penalty weights (clause weighting, as PAWS does for SAT): after each step
    that does not lower the energy, every broken row and objective term of a
    replica weighs one model weight more, and every ``k``-th such raise every
    raised weight steps back one; a tuple of such values gives replica ``r``
    the value ``weight_smoothing[r % len(weight_smoothing)]``, a portfolio of
    weightings (see
    :func:`~qlib.solvers.focused.kernel.raise_weights`; for models whose energy
    is all penalty, with target 0; a run that misses its target then returns
    the best state by the weights of the moment it was met, its energy
    recomputed on the model); ``lazy_cuts``: a
    :class:`~qlib.solvers.focused.driver.LazyCuts`; ``max_steps``: a cap on each
    replica's steps; ``share_cuts``: whether the replicas pool their cuts;
    ``share_interval``: the steps between two poolings (every replica stops
    there until all have come: a step count, so that the result does not
    depend on the threads' timing).
    ``noise=None`` and ``tabu_tenure=None`` mean the defaults.
    """

    num_replicas: int = 2
    num_threads: int | None = None

    def __post_init__(self):
        _set(self, "num_threads", _num_threads(self.num_threads))
        _check_focused(self)


def _smoothing(value) -> int | tuple:
    """``weight_smoothing`` checked: an integer >= 0, or a non-empty tuple of them (one per replica, cycling)."""
    if isinstance(value, (list, tuple)):
        if not len(value):
            raise ValueError("weight_smoothing must be an integer >= 0 or a non-empty sequence of them, got ()")
        return tuple(validate.integer(f"weight_smoothing[{k}]", v, minimum=0, maximum=1 << 62)
                     for k, v in enumerate(value))
    return validate.integer("weight_smoothing", value, minimum=0, maximum=1 << 62)


def _check_focused(options) -> None:
    """Check and store the options the CPU and GPU focused searches share."""
    _set(options, "num_replicas", validate.integer("num_replicas", options.num_replicas, minimum=1))
    noise = 0.2 if options.noise is None else validate.number("noise", options.noise, minimum=0.0)
    if noise > 1.0:
        raise ValueError(f"noise must be a number in [0, 1], got {noise:g}")
    _set(options, "noise", noise)
    low, high = validate.pair("tabu_tenure", (0, 2) if options.tabu_tenure is None else options.tabu_tenure)
    low = validate.integer("tabu_tenure's minimum", low, minimum=0)
    high = validate.integer("tabu_tenure's maximum", high, minimum=low)
    _set(options, "tabu_tenure", (low, high))
    _set(options, "weight_smoothing", _smoothing(options.weight_smoothing))
    if options.lazy_cuts is not None and not isinstance(options.lazy_cuts, LazyCuts):
        raise TypeError(f"lazy_cuts must be a qlib.solvers.focused.driver.LazyCuts or None, "
                        f"got {type(options.lazy_cuts).__name__}")
    _set(options, "max_steps", validate.integer("max_steps", options.max_steps, minimum=1, maximum=MAX_STEPS,
                                                none=True))
    _set(options, "share_cuts", validate.boolean("share_cuts", options.share_cuts))
    _set(options, "share_interval", validate.integer("share_interval", options.share_interval, minimum=1))


@dataclass(frozen=True)
class GPUSAOptions:
    """``backend="gpu"``: simulated annealing with ``num_replicas`` replicas, one per CUDA thread
    (``num_sweeps``, ``beta_range`` and ``max_rounds`` as in :class:`SAOptions`)."""

    num_replicas: int = 1024
    num_sweeps: int = 1000
    beta_range: tuple | None = None
    max_rounds: int | None = None

    def __post_init__(self):
        _set(self, "num_replicas", validate.integer("num_replicas", self.num_replicas, minimum=1))
        _set(self, "num_sweeps", validate.integer("num_sweeps", self.num_sweeps, minimum=1))
        _set(self, "beta_range", _beta_range(self.beta_range))
        _set(self, "max_rounds", validate.integer("max_rounds", self.max_rounds, minimum=1, none=True))


@dataclass(frozen=True)
class GPUFocusedOptions(_FocusedShared):
    """``backend="gpu"``, ``algorithm="focused"``: the focused search with ``num_replicas``
    replicas, one per CUDA thread (the other options as in :class:`FocusedOptions`).

    ``num_replicas`` defaults to 256: every replica that pauses for the
    separation function waits for the host, which serves them one by one.
    """

    num_replicas: int = 256

    def __post_init__(self):
        _check_focused(self)
