"""qlib: logic puzzles as binary polynomials (QUBO/HUBO), solved on CPU and GPU.

The pipeline: build an expression from :func:`var` and constraints from
:func:`cons`; :func:`compile` flattens it to arrays; :func:`solve` runs a
backend and returns a :class:`Solution`.
"""

from .compile import CompiledModel, compile
from .constraints import Allowed, Constraint, Model, Relation, between, cons, one_of
from .expand import expand_cons, to_qubo
from .expr import Expr, Var, sum, var
from .result import Solution, Violation
from .solvers import solve, warmup

__version__ = "0.1.0"


def data_path(name: str):
    """Path of a puzzle file shipped with qlib (see ``qlib/data``)."""
    from pathlib import Path

    path = Path(__file__).parent / "data" / name
    if not path.exists():
        available = sorted(p.name for p in path.parent.iterdir() if not p.name.startswith("."))
        raise FileNotFoundError(f"qlib ships no puzzle {name!r}; available: {', '.join(available)}")
    return path

__all__ = [
    "Allowed", "CompiledModel", "Constraint", "Expr", "Model", "Relation", "Solution",
    "Var", "Violation", "between", "compile", "cons", "expand_cons", "one_of", "solve",
    "sum", "to_qubo", "var", "warmup", "data_path",
]
