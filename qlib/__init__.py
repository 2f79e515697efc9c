"""qlib: logic puzzles as binary polynomials (QUBO/HUBO), solved on CPU and GPU.

The pipeline: build an expression from :func:`var` and constraints from
:func:`cons`; :func:`compile` flattens it to arrays; :func:`solve` runs a
backend and returns a :class:`Solution`.
"""


from . import startup  # first: it must act before numpy and numba import

startup.quiet_ctrl_c()


def _choose_threading_layer() -> None:
    """Pick a fork-safe numba threading layer unless the user chose one.

    numba's default on Linux is GNU OpenMP when no TBB is installed, and a
    process that forks after running an OpenMP ``parallel=True`` kernel (a
    ``multiprocessing`` fork pool after ``qlib.solve(..., backend="cpu")``)
    hangs in the child's first parallel kernel.  numba's ``"forksafe"`` choice
    takes TBB when installed, else the workqueue layer (on Linux); both survive
    a fork.  The workqueue layer does not allow parallel kernels launched from
    several Python threads at once: install ``tbb`` for that, or set
    ``NUMBA_THREADING_LAYER`` yourself.  A ``NUMBA_THREADING_LAYER`` in the
    environment, or a ``numba.config.THREADING_LAYER`` set before importing
    qlib, is respected; the choice must happen before the first parallel
    kernel runs (``numba.threading_layer()`` reports the layer in use).
    """
    import os

    if os.environ.get("NUMBA_THREADING_LAYER"):
        return
    import numba

    if numba.config.THREADING_LAYER == "default":
        numba.config.THREADING_LAYER = "forksafe"


_choose_threading_layer()

from . import interrupts  # noqa: E402

interrupts.install()   # Ctrl-C waits for a running numba compile to finish, then interrupts

from .compile import CompiledModel, compile
from .constraints import Allowed, Constraint, Model, Relation, between, cons, one_of
from .expand import expand_cons, to_qubo
from .expr import Expr, NumericOverflowError, Var, sum, var
from .info import SolveInfo
from .result import Sample, Solution, Violation
from .solvers import solve, warmup
from . import limits  # noqa: E402 - check_allocation and the memory budget
from . import stored  # noqa: E402 - the benchmarks' stored results, for the book

__version__ = "0.1.0"


def data_path(name: str):
    """Path of a puzzle file shipped with qlib (see ``qlib/data``)."""
    from pathlib import Path

    path = Path(__file__).parent / "data" / name
    if not path.exists():
        available = sorted(p.name for p in path.parent.iterdir() if not p.name.startswith("."))
        raise FileNotFoundError(f"qlib ships no puzzle {name!r}; available: {', '.join(available)}")
    return path

_DIMOD_EXPORTS = ("to_bqm", "to_polynomial", "from_bqm", "from_polynomial", "from_sampleset", "decode")


def __getattr__(name: str):
    """``qlib.to_bqm`` and the other dimod bridges (:mod:`qlib.dimod`), imported on first use
    so that ``import qlib`` never imports dimod."""
    if name in _DIMOD_EXPORTS:
        from . import dimod as _dimod_bridge

        return getattr(_dimod_bridge, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Allowed", "CompiledModel", "Constraint", "Expr", "Model", "Relation", "Sample", "Solution", "SolveInfo",
    "Var", "Violation", "between", "compile", "cons", "expand_cons", "one_of", "solve",
    "sum", "to_qubo", "var", "warmup", "data_path", "NumericOverflowError", "limits",
]
