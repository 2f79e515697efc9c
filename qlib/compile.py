"""Flatten a model into plain arrays that every solver backend consumes.

Layout (``T`` terms, ``N`` variables, ``R`` constraint rows):

* terms: CSR ``term_ptr`` (T+1) over ``term_vars`` / ``term_negs`` (the literal's
  variable index and whether it is negated), with ``term_coef`` and ``term_row``
  (-1 for objective terms, else the row whose left-hand side the term belongs to).
  Objective terms come first; each row's terms follow contiguously
  (``row_term_ptr``).
* incidence: ``var_term_ptr`` / ``var_terms`` / ``var_term_negs`` (variable ->
  terms, with the literal's sign), ``var_row_ptr`` / ``var_rows``
  (variable -> rows) and ``row_var_ptr`` / ``row_vars`` (row -> variables).
* rows: ``row_const`` (constant of the left-hand side), ``row_weight`` and the
  allowed set as intervals ``row_iv_ptr`` / ``row_iv_lo`` / ``row_iv_hi``.

The kernels take these by role, as :class:`KernelArrays` (``terms``, ``by_var``, ``rows``:
:class:`Terms`, :class:`Incidence`, :class:`Rows`), read by field name.

The energy of a state ``x`` is::

    offset + sum_t coef_t * prod_{l in t} lit_l(x)
           + sum_r weight_r * distance(lhs_r(x), allowed_r)**2
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .constraints import Model, as_model
from .expr import MAX_COEF, Expr, NumericOverflowError, Var, check_finite, id_of, intern, label_of

__all__ = ["CompiledModel", "compile"]

class Terms(NamedTuple):
    """The terms in CSR form: term ``t`` is the product of the literals ``vars[ptr[t]:ptr[t + 1]]`` (negated
    where ``negs`` is 1) times ``coef[t]``, in the left-hand side of row ``row[t]`` (-1: the objective)."""

    ptr: np.ndarray
    vars: np.ndarray
    negs: np.ndarray
    coef: np.ndarray
    row: np.ndarray


class Incidence(NamedTuple):
    """Each variable's terms (``terms[term_ptr[v]:term_ptr[v + 1]]``, its literal negated there where
    ``term_negs`` is 1) and rows (``rows[row_ptr[v]:row_ptr[v + 1]]``): what a flip of ``v`` touches."""

    term_ptr: np.ndarray
    terms: np.ndarray
    term_negs: np.ndarray
    row_ptr: np.ndarray
    rows: np.ndarray


class Rows(NamedTuple):
    """The constraint rows: each one's left-hand side constant and weight, and its allowed set as the
    intervals ``[iv_lo[k], iv_hi[k]]`` for ``k`` in ``iv_ptr[r]:iv_ptr[r + 1]``."""

    const: np.ndarray
    weight: np.ndarray
    iv_ptr: np.ndarray
    iv_lo: np.ndarray
    iv_hi: np.ndarray


class KernelArrays(NamedTuple):
    """The arrays every kernel takes, by role and read by name (numba passes named tuples to kernels as
    they are): the terms, each variable's terms and rows (``by_var``), and the rows."""

    terms: Terms
    by_var: Incidence
    rows: Rows


@dataclass
class CompiledModel:
    """A model as flat NumPy arrays (see the module docstring)."""

    model: Model
    var_ids: np.ndarray
    offset: float
    term_ptr: np.ndarray
    term_vars: np.ndarray
    term_negs: np.ndarray
    term_coef: np.ndarray
    term_row: np.ndarray
    num_objective_terms: int
    row_term_ptr: np.ndarray
    var_term_ptr: np.ndarray
    var_terms: np.ndarray
    var_term_negs: np.ndarray
    var_row_ptr: np.ndarray
    var_rows: np.ndarray
    row_const: np.ndarray
    row_weight: np.ndarray
    row_iv_ptr: np.ndarray
    row_iv_lo: np.ndarray
    row_iv_hi: np.ndarray
    row_labels: list
    row_var_ptr: np.ndarray
    row_vars: np.ndarray
    _columns: dict | None = field(default=None, repr=False)
    _derived: dict = field(default_factory=dict, repr=False, compare=False)

    # -- pickling: by label -----------------------------------------------------
    # ``var_ids`` are this process's interned numbers; another process (a pool
    # worker, a later session reading a file) numbers its variables otherwise.
    # So the columns travel as labels and are interned again on arrival; the
    # model inside pickles by label too (see ``Expr.__reduce__``).
    def __getstate__(self):
        state = dict(self.__dict__)
        state["var_ids"] = [label_of(int(v)) for v in self.var_ids]
        state["_columns"] = None
        state["_derived"] = {}
        state["_var_ids_are_labels"] = True
        return state

    def __setstate__(self, state):
        state = dict(state)
        if state.pop("_var_ids_are_labels", False):
            state["var_ids"] = np.array([intern(label) for label in state["var_ids"]], dtype=np.int64)
        state["_columns"] = None
        state["_derived"] = {}
        self.__dict__.update(state)

    def derived(self, key: str, make):
        """``make(self)``, computed once per model: a solver's own flat form of these arrays
        (e.g. the local fields' CSR), so repeated solves of one model do not rebuild it."""
        if key not in self._derived:
            self._derived[key] = make(self)
        return self._derived[key]

    @property
    def var_count(self) -> int:
        """Number of variables (columns of a state)."""
        return len(self.var_ids)

    @property
    def term_count(self) -> int:
        """Number of terms, objective and constraint rows together."""
        return len(self.term_coef)

    @property
    def num_rows(self) -> int:
        """Number of constraint rows."""
        return len(self.row_weight)

    @property
    def labels(self) -> list[str]:
        """The variables' labels in column order."""
        return [label_of(int(i)) for i in self.var_ids]

    def index(self, variable) -> int:
        """Column of ``variable`` (a Var or a label) in this model's states."""
        if isinstance(variable, Var):
            vid = variable.id
        elif isinstance(variable, str):
            vid = id_of(variable)
            if vid is None:
                raise KeyError(f"no variable labelled {variable!r} exists")
        else:
            raise TypeError(f"expected a variable or a label, got {type(variable).__name__}")
        return self.index_by_id(vid)

    def index_by_id(self, vid: int) -> int:
        """Column of the variable with interned number ``vid``."""
        if self._columns is None:
            self._columns = {int(v): k for k, v in enumerate(self.var_ids)}
        pos = self._columns.get(int(vid))
        if pos is None:
            raise KeyError(f"variable {label_of(vid)!r} is not in this model")
        return pos

    def kernel_arrays(self) -> KernelArrays:
        """The arrays every kernel takes, as a :class:`~qlib.compile.KernelArrays` named tuple."""
        return KernelArrays(
            terms=Terms(ptr=self.term_ptr, vars=self.term_vars, negs=self.term_negs, coef=self.term_coef,
                        row=self.term_row),
            by_var=Incidence(term_ptr=self.var_term_ptr, terms=self.var_terms, term_negs=self.var_term_negs,
                             row_ptr=self.var_row_ptr, rows=self.var_rows),
            rows=Rows(const=self.row_const, weight=self.row_weight, iv_ptr=self.row_iv_ptr, iv_lo=self.row_iv_lo,
                      iv_hi=self.row_iv_hi))

    # -- states ---------------------------------------------------------------
    def as_states(self, states) -> np.ndarray:
        """Validate a state, a batch of states or a {variable or label: 0/1} mapping."""
        if isinstance(states, dict):
            arr = np.zeros(self.var_count, dtype=np.uint8)
            for key, value in states.items():
                arr[self.index(key)] = _bit(value, key)
            return arr
        arr = np.asarray(states)
        if arr.ndim not in (1, 2) or arr.shape[-1] != self.var_count:
            raise ValueError(
                f"a state must have {self.var_count} entries (one per variable), got shape {arr.shape}"
            )
        if arr.size and not np.isin(arr, (0, 1)).all():
            raise ValueError("state entries must be 0 or 1")
        return arr.astype(np.uint8)

    def term_values(self, states: np.ndarray) -> np.ndarray:
        """Value (0/1) of every term for a batch of states, shape (B, T)."""
        states = np.atleast_2d(states)
        if self.term_count == 0:
            return np.zeros((states.shape[0], 0), dtype=np.uint8)
        lits = states[:, self.term_vars] ^ self.term_negs[None, :]
        return np.minimum.reduceat(lits, self.term_ptr[:-1], axis=1)

    def row_values(self, states: np.ndarray) -> np.ndarray:
        """Left-hand side of every row, shape (B, R)."""
        states = np.atleast_2d(states)
        tv = self.term_values(states) * self.term_coef[None, :]
        out = np.tile(self.row_const, (states.shape[0], 1))
        if self.num_rows:
            start = self.num_objective_terms
            sums = np.add.reduceat(tv[:, start:], self.row_term_ptr[:-1] - start, axis=1)
            out += sums
        return out

    def row_distances(self, lhs: np.ndarray) -> np.ndarray:
        """Distance of each row's left-hand side to its allowed set, shape (B, R)."""
        lhs = np.atleast_2d(lhs)
        dist = np.full(lhs.shape, np.inf)
        for r in range(self.num_rows):
            lo = self.row_iv_lo[self.row_iv_ptr[r]:self.row_iv_ptr[r + 1]]
            hi = self.row_iv_hi[self.row_iv_ptr[r]:self.row_iv_ptr[r + 1]]
            v = lhs[:, r:r + 1]
            d = np.maximum(np.maximum(lo[None, :] - v, 0.0), v - hi[None, :]).min(axis=1)
            dist[:, r] = d
        return dist

    def energy(self, states) -> np.ndarray | float:
        """Energy of one state (a float) or a batch of states (an array)."""
        arr = self.as_states(states)
        single = arr.ndim == 1
        arr = np.atleast_2d(arr)
        tv = self.term_values(arr)
        # products and a sum, not ``@``: a BLAS call leaves OpenBLAS's threads spinning for about 0.1 s,
        # which takes a core from the parallel kernel that runs next
        t = self.num_objective_terms
        e = self.offset + (tv[:, :t] * self.term_coef[:t]).sum(axis=1)
        if self.num_rows:
            d = self.row_distances(self.row_values(arr))
            e = e + (d ** 2 * self.row_weight).sum(axis=1)
        return float(e[0]) if single else e


def _natural_key(label: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", label))


def _bit(value, key) -> int:
    if value not in (0, 1, True, False):
        raise ValueError(f"value for {key!r} must be 0 or 1, got {value!r}")
    return int(value)


def compile(model, *, variables=()) -> CompiledModel:  # noqa: A001 - the verb readers expect
    """Flatten ``model`` (an expression, constraint or :class:`~qlib.Model`) to arrays.

    ``variables`` (single-variable expressions) get a column even where no term
    holds them, as dimod keeps a variable with no bias: a lazy cut may need them
    later, and a state then gives them a value.

    Raises :class:`~qlib.expr.NumericOverflowError` (a ``ValueError``) when a
    coefficient, or the energy some state can reach, does not fit a float64;
    the message names the objective term or the constraint responsible.
    """
    model = as_model(model)
    _check_coefficients(model)
    model = model.simplify_as_binary()
    # Columns in natural label order (h[2][0] before h[10][0]): the same for the same
    # model in any process, whatever other variables were created before it.
    extra = set()
    for x in variables:
        vid = getattr(x, "id", None)
        if vid is None:
            raise TypeError(f"variables must be single-variable expressions, got {x!r}")
        extra.add(int(vid))
    var_ids = np.array(sorted(set(model.var_ids) | extra, key=lambda v: _natural_key(label_of(v))),
                       dtype=np.int64)
    col = {int(v): k for k, v in enumerate(var_ids)}

    offset = float(model.objective.constant_term)
    terms: list[tuple] = []  # (literals, coef, row)
    for t, c in model.objective.terms.items():
        if t:
            terms.append((t, float(c), -1))
    num_objective_terms = len(terms)
    row_term_ptr = [num_objective_terms]
    row_const, row_weight, row_labels = [], [], []
    iv_ptr, iv_lo, iv_hi = [0], [], []
    for r, con in enumerate(model.constraints):
        row_const.append(float(con.lhs.constant_term))
        for t, c in con.lhs.terms.items():
            if t:
                terms.append((t, float(c), r))
        if len(terms) == row_term_ptr[-1]:
            raise ValueError(f"constraint {con.label or r!r} has no variables after simplification")
        row_term_ptr.append(len(terms))
        row_weight.append(float(con.weight))
        row_labels.append(con.label if con.label is not None else f"constraint {r}")
        for lo, hi in con.allowed.intervals():
            iv_lo.append(float(lo))
            iv_hi.append(float(hi))
        iv_ptr.append(len(iv_lo))

    term_ptr = np.zeros(len(terms) + 1, dtype=np.int64)
    term_ptr[1:] = np.cumsum([len(t) for t, _, _ in terms])
    # Each term's literals by column, not by interned id: the solvers break ties in a term's
    # literal order, and ids depend on which variables the process created first.
    lits = [sorted((col[lit >> 1], lit & 1) for lit in t) for t, _, _ in terms]
    term_vars = np.array([k for t in lits for k, _ in t], dtype=np.int32)
    term_negs = np.array([neg for t in lits for _, neg in t], dtype=np.uint8)
    term_coef = np.array([c for _, c, _ in terms], dtype=np.float64)
    term_row = np.array([r for _, _, r in terms], dtype=np.int32)

    n = len(var_ids)
    term_of_lit = np.repeat(np.arange(len(terms), dtype=np.int32), np.diff(term_ptr))
    order = np.argsort(term_vars, kind="stable")
    var_terms = term_of_lit[order].astype(np.int32)
    var_term_negs = term_negs[order]
    var_term_ptr = np.zeros(n + 1, dtype=np.int64)
    var_term_ptr[1:] = np.cumsum(np.bincount(term_vars, minlength=n))

    # (variable, row) incidence, each pair once: sorted by variable then row, and by row then variable
    lit_rows = term_row[term_of_lit].astype(np.int64)
    held = lit_rows >= 0
    num_rows = len(row_weight)
    keys = np.unique(term_vars[held].astype(np.int64) * (num_rows + 1) + lit_rows[held])
    pair_vars, pair_rows = keys // (num_rows + 1), keys % (num_rows + 1)
    var_rows = pair_rows.astype(np.int32)
    var_row_ptr = np.zeros(n + 1, dtype=np.int64)
    var_row_ptr[1:] = np.cumsum(np.bincount(pair_vars, minlength=n))
    by_row = np.lexsort((pair_vars, pair_rows))
    row_vars = pair_vars[by_row].astype(np.int32)
    row_var_ptr = np.zeros(num_rows + 1, dtype=np.int64)
    row_var_ptr[1:] = np.cumsum(np.bincount(pair_rows, minlength=num_rows))

    row_term_ptr = np.array(row_term_ptr, dtype=np.int64)
    row_const, row_weight = np.array(row_const, dtype=np.float64), np.array(row_weight, dtype=np.float64)
    iv_ptr, iv_lo, iv_hi = (np.array(iv_ptr, dtype=np.int64), np.array(iv_lo, dtype=np.float64),
                            np.array(iv_hi, dtype=np.float64))
    _check_energy_range(offset, term_coef, num_objective_terms, row_const, row_term_ptr, row_weight,
                        iv_ptr, iv_lo, iv_hi, row_labels, model.constraints)
    return CompiledModel(
        model=model, var_ids=var_ids, offset=offset,
        term_ptr=term_ptr, term_vars=term_vars, term_negs=term_negs, term_coef=term_coef, term_row=term_row,
        num_objective_terms=num_objective_terms, row_term_ptr=row_term_ptr,
        var_term_ptr=var_term_ptr, var_terms=var_terms, var_term_negs=var_term_negs,
        var_row_ptr=var_row_ptr, var_rows=var_rows,
        row_const=row_const, row_weight=row_weight, row_iv_ptr=iv_ptr, row_iv_lo=iv_lo, row_iv_hi=iv_hi,
        row_labels=row_labels, row_var_ptr=row_var_ptr, row_vars=row_vars,
    )


def _check_coefficients(model: Model) -> None:
    """Every coefficient must be a finite float64; the error names where one is not."""
    check_finite(model.objective.terms, "the objective")
    for r, con in enumerate(model.constraints):
        check_finite(con.lhs.terms, f"constraint {con.label or f'{r} ({con.lhs!r})'!r}")


def _check_energy_range(offset, term_coef, num_obj, row_const, row_term_ptr, row_weight, iv_ptr, iv_lo, iv_hi,
                        row_labels, constraints) -> None:
    """Raise if some state's energy (or an energy difference, which the solvers add up
    flip by flip) could leave the float64 range.

    Bounds: the objective by ``|offset| + sum |coef|``; a row by ``weight * d**2``,
    ``d`` the largest distance from the allowed set over the range its left-hand
    side can take (for each allowed interval the distance is convex in the
    value, so its maximum is at an end of the range).
    """
    limit = MAX_COEF / 2   # energies and their differences must both fit
    with np.errstate(over="ignore", invalid="ignore"):
        obj_coef = term_coef[:num_obj]
        objective = abs(offset) + float(np.abs(obj_coef).sum())
        if not objective <= limit:
            worst = int(np.argmax(np.abs(obj_coef))) if num_obj else -1
            detail = f"; its largest coefficient is {obj_coef[worst]:.3e}" if worst >= 0 else ""
            raise NumericOverflowError(
                f"the objective's energy can reach {objective:.3e}, beyond the float64 range "
                f"(|energy| must stay below {limit:.3e}){detail}; scale the coefficients down"
            )
        num_rows = len(row_weight)
        if not num_rows:
            return
        coefs = term_coef[num_obj:]
        starts = row_term_ptr[:-1] - num_obj
        lhs_lo = row_const + np.add.reduceat(np.minimum(coefs, 0.0), starts)
        lhs_hi = row_const + np.add.reduceat(np.maximum(coefs, 0.0), starts)
        # per interval k of row r: the larger distance of the range's two ends to it
        row_of_iv = np.repeat(np.arange(num_rows), np.diff(iv_ptr))
        lo_k, hi_k = lhs_lo[row_of_iv], lhs_hi[row_of_iv]
        d = np.maximum.reduce([iv_lo - lo_k, np.zeros_like(lo_k), lo_k - iv_hi, iv_lo - hi_k, hi_k - iv_hi])
        far = np.minimum.reduceat(d, iv_ptr[:-1])
        far[~(np.isfinite(lhs_lo) & np.isfinite(lhs_hi))] = np.inf
        bounds = row_weight * far * far
        bad = np.flatnonzero(~(bounds <= limit))      # also catches nan
        if bad.size:
            r = int(bad[0])
            con = constraints[r]
            raise NumericOverflowError(
                f"constraint {row_labels[r]!r} ({con.lhs!r} in {con.allowed!r}, weight {con.weight:g}): "
                f"its left-hand side ranges over [{lhs_lo[r]:.3e}, {lhs_hi[r]:.3e}], so weight * distance**2 "
                f"can reach {bounds[r]:.3e}, beyond the float64 range (|energy| must stay below {limit:.3e}); "
                f"scale the constraint down"
            )
        total = objective + float(bounds.sum())
        if not total <= limit:
            r = int(np.argmax(bounds))
            raise NumericOverflowError(
                f"the energy can reach {total:.3e} (objective up to {objective:.3e}, the largest constraint "
                f"{row_labels[r]!r} up to {bounds[r]:.3e}), beyond the float64 range "
                f"(|energy| must stay below {limit:.3e}); scale the model down"
            )


def evaluate(expr: Expr, compiled: CompiledModel, states: np.ndarray) -> np.ndarray:
    """Value of ``expr`` for a batch of states of ``compiled``."""
    states = np.atleast_2d(states)
    out = np.zeros(states.shape[0])
    for t, c in expr.terms.items():
        if not t:
            out += c
            continue
        prod = np.ones(states.shape[0], dtype=np.uint8)
        for lit in t:
            prod &= states[:, compiled.index_by_id(lit >> 1)] ^ (lit & 1)
        out += c * prod.astype(np.float64)
    return out
