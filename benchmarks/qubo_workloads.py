"""The QUBO / HUBO workloads of benchmarks/qubo.py (fixed models, built the same way on every run) and
the solver rows run on them (:class:`Solver`: qlib's SA and focused search, dwave-samplers' SA,
OpenJij's SA / HUBO annealer and SQA, each behind ``prepare`` / ``sample`` / ``run``).

Every workload is made from a fixed seed (its own, listed in :data:`WORKLOADS`) by
``dimod.generators`` or by numpy's ``PCG64`` generator, so every run, on every
machine with the pinned requirements (requirements/constraints.txt), sees the same
models.  :func:`Problem.fingerprint` (a hash of the binary terms) is stored with
the reference energies (results/qubo_reference.json), and a reference whose
fingerprint differs from the model built now is not used: it is recomputed.

Variables are the integers ``0 .. n-1``: those that appear in a nonzero term, renumbered in
order (a generator may leave a few with no term, which one solver would sweep and another
drop; ``n`` in a workload's name is the size it was generated at, :attr:`Problem.n` the count
kept).  Spin-valued models are converted to BINARY once
(``dimod.BinaryQuadraticModel.change_vartype``, offset kept), and every solver gets that
binary model: energies are compared in one vartype, all computed here
(:meth:`Problem.energies`) from the states the solvers return.

Quadratic families (a ``dimod.BinaryQuadraticModel``):

* ``sg2d-LxL``: 2D spin glass, ±1 couplings (``dimod.generators.ran_r(1, ...)``) on the
  periodic L x L square lattice;
* ``sg3d-LxLxL``: 3D spin glass, ±1 couplings on the periodic L^3 cubic lattice;
* ``ran3-N``: ``ran_r(3, ...)`` (couplings in ±{1, 2, 3}) on a random graph with 3N edges
  (mean degree 6);
* ``maxcut3r-N``: max-cut on a random 3-regular graph (J = +1 on every edge, h = 0:
  spin energy = edges - 2 x cut);
* ``nae3sat-N``: ``dimod.generators.random_nae3sat`` with 2.1 N clauses (near the
  NAE-3SAT threshold);
* ``floop-LxL``: ``dimod.generators.frustrated_loop`` with 0.3 L^2 loops on the open L x L
  grid, under a random gauge (spin-reversal transform); its planted state is a ground state, so
  the ground energy is known.

Higher-order families (a polynomial ``{tuple of variables: coefficient}``):

* ``hubo3-N`` / ``hubo4-N``: 2N random terms of degree 3 (4) and N of degree 2, each
  coefficient ±1, on distinct random variable sets;
* ``sat3-N``: planted random 3-SAT at 4.2 N clauses; each clause's violation is a product of
  three literals (``x`` or ``1 - x``), so the energy counts violated clauses, is all penalty
  (qlib gets the literal products, where its focused search applies) and is 0 at the planted
  state.  The peers get the same polynomial multiplied out.
"""

from __future__ import annotations

import fnmatch
import hashlib
import math
import time
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

import numpy as np

__all__ = ["Workload", "Problem", "WORKLOADS", "QUICK", "select", "build", "tiny_problems", "torus_edges",
           "grid_edges", "random_regular_edges", "random_graph_edges", "Solver", "Sample", "SOLVERS",
           "SOLVER_CLASSES", "available", "EPS"]

EPS = 1e-6   # energies are integers or halves: a state hits a target when E <= target + EPS


# -- graphs (numpy only, deterministic) ------------------------------------------------
def torus_edges(shape) -> list[tuple[int, int]]:
    """Edges of the periodic lattice of ``shape`` (2 or 3 sides), nodes numbered in C order."""
    shape = tuple(int(s) for s in shape)
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    edges = []
    for axis in range(len(shape)):
        nb = np.roll(idx, -1, axis=axis)
        edges += list(zip(idx.ravel().tolist(), nb.ravel().tolist()))
    return [(min(a, b), max(a, b)) for a, b in edges]


def grid_edges(rows: int, cols: int) -> list[tuple[int, int]]:
    """Edges of the open ``rows`` x ``cols`` grid, nodes numbered row by row."""
    idx = np.arange(rows * cols).reshape(rows, cols)
    right = list(zip(idx[:, :-1].ravel().tolist(), idx[:, 1:].ravel().tolist()))
    down = list(zip(idx[:-1, :].ravel().tolist(), idx[1:, :].ravel().tolist()))
    return right + down


def random_regular_edges(n: int, d: int, seed: int) -> list[tuple[int, int]]:
    """A uniform random simple ``d``-regular graph on ``n`` nodes (configuration model, rejection)."""
    if (n * d) % 2:
        raise ValueError("n * d must be even")
    gen = np.random.Generator(np.random.PCG64(seed))
    stubs = np.repeat(np.arange(n), d)
    for _ in range(10_000):
        pairs = gen.permutation(stubs).reshape(-1, 2)
        a, b = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
        if (a == b).any() or len(np.unique(a * n + b)) != len(a):
            continue
        order = np.lexsort((b, a))
        return list(zip(a[order].tolist(), b[order].tolist()))
    raise RuntimeError("no simple regular graph found")  # pragma: no cover - p ~ exp(-(d^2-1)/4) per try


def random_graph_edges(n: int, m: int, seed: int) -> list[tuple[int, int]]:
    """``m`` distinct random edges on ``n`` nodes (G(n, m)), sorted."""
    gen = np.random.Generator(np.random.PCG64(seed))
    keys: set = set()
    out = []
    while len(out) < m:
        a, b = gen.integers(0, n, size=2)
        if a == b:
            continue
        a, b = (int(a), int(b)) if a < b else (int(b), int(a))
        if (a, b) not in keys:
            keys.add((a, b))
            out.append((a, b))
    return sorted(out)


def _random_sets(gen, n: int, k: int, count: int, taken: set) -> list[tuple[int, ...]]:
    out = []
    while len(out) < count:
        s = tuple(sorted(int(v) for v in gen.choice(n, size=k, replace=False)))
        if s not in taken:
            taken.add(s)
            out.append(s)
    return out


# -- problems --------------------------------------------------------------------------
@dataclass
class Problem:
    """One built model: ``n`` variables 0..n-1, its binary terms and what each solver needs.

    ``bqm`` (quadratic workloads): the BINARY ``dimod.BinaryQuadraticModel``.  ``poly``: every
    workload's binary polynomial ``{sorted tuple of variables: coefficient}`` (``()`` the
    constant).  ``clauses`` (sat workloads): each clause's violated literal product as
    (variables, negated flags), for qlib's literal form.  ``known_ground``: the ground
    energy when the generator plants one (None otherwise).
    """

    name: str
    n: int
    poly: dict
    bqm: object = None
    clauses: list | None = None
    known_ground: float | None = None
    meta: dict = field(default_factory=dict)

    @property
    def degree(self) -> int:
        return max((len(t) for t in self.poly), default=0)

    @property
    def quadratic(self) -> bool:
        return self.bqm is not None

    @property
    def term_count(self) -> int:
        return sum(1 for t in self.poly if t)

    @cached_property
    def _arrays(self):
        by_degree: dict[int, tuple[list, list]] = {}
        offset = 0.0
        for t, c in self.poly.items():
            if not t:
                offset += c
                continue
            idx, coef = by_degree.setdefault(len(t), ([], []))
            idx.append(t)
            coef.append(c)
        return offset, {d: (np.array(i, dtype=np.int64), np.array(c, dtype=np.float64))
                        for d, (i, c) in by_degree.items()}

    def energies(self, states) -> np.ndarray:
        """Energies of binary ``states`` (k x n or n), by the binary polynomial: the one yardstick."""
        x = np.atleast_2d(np.asarray(states, dtype=np.float64))
        if x.shape[1] != self.n:
            raise ValueError(f"states have {x.shape[1]} columns, the model {self.n} variables")
        offset, arrays = self._arrays
        e = np.full(x.shape[0], offset)
        for idx, coef in arrays.values():
            e += (x[:, idx].prod(axis=2) * coef).sum(axis=1)
        return e

    def fingerprint(self) -> str:
        """A hash of the binary terms (exact: the coefficients are small integers or halves)."""
        h = hashlib.sha256(f"{self.n};".encode())
        for t in sorted(self.poly, key=lambda t: (len(t), t)):
            h.update(f"{t}:{self.poly[t]:.12g};".encode())
        return h.hexdigest()[:16]

    def qlib_model(self):
        """The model qlib gets: ``qlib.dimod.from_bqm`` / ``from_polynomial`` (labels ``"#i"``), or for
        the sat workloads the literal products ``x * ~y * z`` (penalty terms, all coefficients +1)."""
        import qlib
        from qlib import dimod as qd

        if self.clauses is not None:
            x = [qlib.Var(str(i)) for i in range(self.n)]
            terms = []
            for vs, negs in self.clauses:
                t = None
                for v, neg in zip(vs, negs):
                    lit = ~x[v] if neg else x[v]
                    t = lit if t is None else t * lit
                terms.append(t)
            return qlib.sum(terms)
        if self.bqm is not None:
            return qd.from_bqm(self.bqm)
        import dimod

        return qd.from_polynomial(dimod.BinaryPolynomial(self.poly, dimod.BINARY))


def _compact(poly: dict, n: int, clauses=None):
    """Renumber the variables that appear in a nonzero term as 0..n'-1 (in order): a variable with no
    term (a generator may leave some) would be swept by one solver and dropped by another.
    Returns (poly, n', clauses, the kept original variables)."""
    used = sorted({v for t, c in poly.items() if c for v in t})
    if len(used) == n:
        return poly, n, clauses, used
    new = {v: k for k, v in enumerate(used)}
    poly = {tuple(new[v] for v in t): c for t, c in poly.items() if c}
    if clauses is not None:
        clauses = [([new[v] for v in vs], negs) for vs, negs in clauses]
    return poly, len(used), clauses, used


def _bqm_problem(name, spin_bqm, n, planted=None, **kw) -> Problem:
    """The binary, compacted form of ``spin_bqm``; ``planted`` (a ground state, binary, over the
    generator's variables) gives ``known_ground``."""
    import dimod

    bqm = spin_bqm.change_vartype("BINARY", inplace=False)
    poly = {(): float(bqm.offset)} if bqm.offset else {}
    for v, b in bqm.iter_linear():
        if b:
            poly[(int(v),)] = float(b)
    for u, v, b in bqm.iter_quadratic():
        if b:
            poly[tuple(sorted((int(u), int(v))))] = float(b)
    poly, n, _, used = _compact(poly, n)
    # every solver gets this BQM: variables 0..n-1 in order, no zero terms
    ordered = dimod.BinaryQuadraticModel("BINARY")
    ordered.add_variables_from((v, poly.get((v,), 0.0)) for v in range(n))
    ordered.add_quadratic_from((t[0], t[1], c) for t, c in poly.items() if len(t) == 2)
    ordered.offset = poly.get((), 0.0)
    p = Problem(name=name, n=n, poly=poly, bqm=ordered, **kw)
    if planted is not None:
        p.known_ground = float(p.energies(np.array([planted[v] for v in used]))[0])
    return p


def _lattice(name, shape, seed):
    import dimod

    n = int(np.prod(shape))
    spin = dimod.generators.ran_r(1, (list(range(n)), torus_edges(shape)), seed=seed)
    return _bqm_problem(name, spin, n)


def _ran_r(name, r, n, seed):
    import dimod

    spin = dimod.generators.ran_r(r, (list(range(n)), random_graph_edges(n, 3 * n, seed)), seed=seed + 1)
    return _bqm_problem(name, spin, n)


def _maxcut(name, n, seed):
    import dimod

    edges = random_regular_edges(n, 3, seed)
    spin = dimod.BinaryQuadraticModel({v: 0.0 for v in range(n)}, {e: 1.0 for e in edges}, 0.0, "SPIN")
    return _bqm_problem(name, spin, n, meta=dict(edges=len(edges)))


def _nae3sat(name, n, seed):
    import dimod

    spin = dimod.generators.random_nae3sat(list(range(n)), int(round(2.1 * n)), seed=seed)
    return _bqm_problem(name, spin, n)


def _floop(name, side, seed):
    import dimod

    n = side * side
    spin = dimod.generators.frustrated_loop((list(range(n)), grid_edges(side, side)), int(0.3 * n),
                                            max_failed_cycles=100_000, plant_solution=True, seed=seed)
    # all +1 (and all -1) are planted ground states; a random gauge (spin-reversal transform) hides them
    gauge = np.random.Generator(np.random.PCG64(seed)).integers(0, 2, size=n)
    for v in np.flatnonzero(gauge):
        spin.flip_variable(int(v))
    return _bqm_problem(name, spin, n, planted=1 - gauge)   # spin +1 (binary 1), gauged


def _hubo(name, n, degree, seed):
    gen = np.random.Generator(np.random.PCG64(seed))
    taken: set = set()
    poly = {}
    for k, count in ((degree, 2 * n), (2, n)):
        for t in _random_sets(gen, n, k, count, taken):
            poly[t] = float(gen.choice((-1.0, 1.0)))
    poly, n, _, _ = _compact(poly, n)
    return Problem(name=name, n=n, poly=poly)


def _sat(name, n, k, ratio, seed):
    """Planted random k-SAT: clauses the planted assignment satisfies; a clause's penalty is
    the product of its literals' negations (1 when all are false)."""
    gen = np.random.Generator(np.random.PCG64(seed))
    planted = gen.integers(0, 2, size=n)
    clauses = []
    while len(clauses) < int(round(ratio * n)):
        vs = np.sort(gen.choice(n, size=k, replace=False))
        signs = gen.integers(0, 2, size=k)   # 1: the literal is x, 0: it is not-x
        if not any(planted[v] == s for v, s in zip(vs, signs)):
            continue   # violated by the planted state
        # violated iff every literal is false: x = 0 where the literal is x, x = 1 where it is not-x.
        # penalty = prod over the clause of (1 - x) for literal x, x for literal not-x
        clauses.append(([int(v) for v in vs], [int(s) for s in signs]))   # negated flag 1: factor (1 - x)
    poly: dict = {}
    for vs, negs in clauses:
        # multiply out prod (1 - x_v if neg else x_v)
        fixed = tuple(v for v, g in zip(vs, negs) if not g)
        free = [v for v, g in zip(vs, negs) if g]
        for r in range(len(free) + 1):
            for sub in combinations(free, r):
                t = tuple(sorted(fixed + sub))
                poly[t] = poly.get(t, 0.0) + (-1.0) ** r
    poly, n, clauses, _ = _compact({t: c for t, c in poly.items() if c}, n, clauses)
    return Problem(name=name, n=n, poly=poly, clauses=clauses, known_ground=0.0,
                   meta=dict(clauses=len(clauses)))


# -- the library -----------------------------------------------------------------------
@dataclass(frozen=True)
class Workload:
    """A named model: ``family``, ``n`` variables, the builder and its arguments (seed included)."""

    name: str
    family: str
    n: int
    make: object
    args: tuple

    def build(self) -> Problem:
        p = self.make(self.name, *self.args)
        p.meta.setdefault("family", self.family)
        return p


def _library() -> list[Workload]:
    out = []
    for side, seed in ((10, 11), (32, 12), (100, 13)):
        out.append(Workload(f"sg2d-{side}x{side}", "sg2d", side * side, _lattice, ((side, side), seed)))
    for side, seed in ((5, 21), (10, 22), (22, 23)):
        out.append(Workload(f"sg3d-{side}x{side}x{side}", "sg3d", side ** 3, _lattice, ((side, side, side), seed)))
    for n, seed in ((100, 31), (1000, 32), (10000, 33)):
        out.append(Workload(f"ran3-{n}", "ran3", n, _ran_r, (3, n, seed)))
    for n, seed in ((100, 41), (1000, 42), (10000, 43)):
        out.append(Workload(f"maxcut3r-{n}", "maxcut3r", n, _maxcut, (n, seed)))
    for n, seed in ((100, 51), (1000, 52)):
        out.append(Workload(f"nae3sat-{n}", "nae3sat", n, _nae3sat, (n, seed)))
    for side, seed in ((10, 61), (32, 62), (100, 63)):
        out.append(Workload(f"floop-{side}x{side}", "floop", side * side, _floop, (side, seed)))
    for degree in (3, 4):
        for n, seed in ((100, 70 + degree), (1000, 80 + degree)):
            out.append(Workload(f"hubo{degree}-{n}", f"hubo{degree}", n, _hubo, (n, degree, seed)))
    for n, seed in ((100, 91), (1000, 92)):
        out.append(Workload(f"sat3-{n}", "sat3", n, _sat, (n, 3, 4.2, seed)))
    return out


#: Every workload, in table order.
WORKLOADS: list[Workload] = _library()
#: The ``--quick`` set: the smallest of each family.
QUICK: list[str] = ["sg2d-10x10", "sg3d-5x5x5", "ran3-100", "maxcut3r-100", "nae3sat-100", "floop-10x10",
                    "hubo3-100", "hubo4-100", "sat3-100"]


def select(patterns=None, names=None) -> list[Workload]:
    """The workloads whose name matches any of ``patterns`` (fnmatch: ``sg2d-*``, ``*-100``, an exact
    name), among ``names`` when given."""
    chosen = [w for w in WORKLOADS if names is None or w.name in names]
    if not patterns:
        return chosen
    return [w for w in chosen if any(fnmatch.fnmatch(w.name, p) for p in patterns)]


def build(name: str) -> Problem:
    """The problem of workload ``name``."""
    for w in WORKLOADS:
        if w.name == name:
            return w.build()
    raise KeyError(name)


def tiny_problems() -> list[Problem]:
    """Three tiny models (a 4x4 spin glass, a cubic HUBO, a 3-SAT penalty) for the warm-up."""
    return [Workload("tiny-sg2d-4x4", "sg2d", 16, _lattice, ((4, 4), 1)).build(),
            Workload("tiny-hubo3-12", "hubo3", 12, _hubo, (12, 3, 1)).build(),
            Workload("tiny-sat3-12", "sat3", 12, _sat, (12, 3, 3.0, 1)).build()]


# -- the solver rows -----------------------------------------------------------------------------
class Sample:
    """What one sampling call returned: ``states`` (reads x n, the problem's variable order),
    the ``seconds`` of its own sampling timer (``timer`` names it) and the call's ``wall`` seconds."""

    def __init__(self, states, seconds, timer, wall, extra=None):
        self.states, self.seconds, self.timer, self.wall = states, seconds, timer, wall
        self.extra = extra or {}


def _columns(variables, n) -> np.ndarray:
    """Where each problem variable 0..n-1 sits in a sampler's ``variables``."""
    pos = {int(v): k for k, v in enumerate(variables)}
    return np.array([pos.get(v, -1) for v in range(n)])


def _reorder(samples, variables, n) -> np.ndarray:
    cols = _columns(variables, n)
    out = np.zeros((len(samples), n), dtype=np.uint8)
    have = cols >= 0
    out[:, have] = np.asarray(samples)[:, cols[have]]
    return out


class Solver:
    """One row: ``applies(problem)`` (None or why not), ``prepare`` (untimed), ``sample`` (a fixed
    number of sweeps and reads) and ``run`` (an independent run to the target or the cap)."""

    name = "?"
    sweeps = True   # has a num_sweeps knob (rate table, grid)
    slices = 1      # spins per variable per sweep (SQA: the Trotter slices)

    def applies(self, problem) -> str | None:
        return None

    def prepare(self, problem):
        return problem

    def one_read_per_call(self, prep) -> bool:
        """True when a call of k reads is k calls anyway (reads per call cannot save overhead)."""
        return False

    def sample(self, prep, sweeps, reads, seed, threads=1) -> Sample:
        raise NotImplementedError

    def describe(self, setting) -> str:
        return f"sweeps={setting['num_sweeps']}, reads/call={setting.get('reads', 1)}"

    def run(self, prep, problem, setting, seed, target, cap):
        """Calls of ``setting`` with fresh seeds until a read reaches ``target`` or the cap.

        A further call is not started when the last one says it would end after the cap.
        Returns (hit, seconds, best energy, calls)."""
        start = time.perf_counter()
        best, calls = math.inf, 0
        while True:
            t0 = time.perf_counter()
            s = self.sample(prep, setting["num_sweeps"], setting.get("reads", 1),
                            (seed * 100_003 + calls) % 2**31)
            last = time.perf_counter() - t0
            calls += 1
            best = min(best, float(problem.energies(s.states).min()))
            elapsed = time.perf_counter() - start
            if best <= target + EPS:
                return True, elapsed, best, calls
            if elapsed + last >= cap:
                return False, elapsed, best, calls


def qlib_timer(info: dict):
    """(seconds, key) of qlib's own sampling timer: the first key present of a few names the solver
    may report, else ``seconds`` (its solve time without JIT)."""
    for key in ("sampling_seconds", "sample_seconds", "anneal_seconds", "sweep_seconds", "seconds"):
        if info.get(key) is not None:
            return float(info[key]), key
    return None, None


class QlibSA(Solver):
    name = "qlib-sa"

    def prepare(self, problem):
        import qlib

        from qlib.dimod import dimod_label

        compiled = qlib.compile(problem.qlib_model())
        cols = np.array([int(dimod_label(label)) for label in compiled.labels])   # "#3" (from dimod) or "3"
        if len(cols) != problem.n:
            raise RuntimeError(f"qlib kept {len(cols)} of {problem.n} variables")
        return compiled, cols

    @staticmethod
    def _full(states, cols, n):
        out = np.zeros((len(states), n), dtype=np.uint8)
        out[:, cols] = states
        return out

    def sample(self, prep, sweeps, reads, seed, threads=1) -> Sample:
        import qlib

        compiled, cols = prep
        t = time.perf_counter()
        sol = qlib.solve(compiled, backend="cpu", algorithm="sa", seed=seed, time_limit=1e6, num_sweeps=sweeps,
                         num_replicas=reads, num_threads=threads)
        wall = time.perf_counter() - t
        info = sol.info
        seconds, key = qlib_timer(info)
        states = info.get("replica_states")
        states = np.atleast_2d(sol.state) if states is None else np.asarray(states)
        beta = info.get("beta_range")
        extra = dict(rounds=info.get("rounds"), flips=info.get("flips"), stop_reason=info.get("stop_reason"),
                     kernel=info.get("kernel"),
                     beta_range=None if beta is None else tuple(float(b) for b in beta))
        return Sample(self._full(states, cols, len(cols)), seconds, f"info[{key!r}]" if key else "wall", wall, extra)

    def describe(self, setting) -> str:
        return f"sweeps={setting['num_sweeps']}, 1 replica, 1 thread"

    def run(self, prep, problem, setting, seed, target, cap):
        import qlib

        compiled, cols = prep
        t = time.perf_counter()
        sol = qlib.solve(compiled, backend="cpu", algorithm="sa", seed=seed, time_limit=cap,
                         target_energy=target + EPS, num_sweeps=setting["num_sweeps"], num_replicas=1, num_threads=1)
        wall = time.perf_counter() - t
        e = float(problem.energies(self._full(sol.state[None, :], cols, len(cols)))[0])
        return e <= target + EPS, wall, e, sol.info.get("rounds")


class QlibFocused(QlibSA):
    name = "qlib-focused"
    sweeps = False

    def applies(self, problem) -> str | None:
        import qlib
        from qlib.solvers import api

        compiled = qlib.compile(problem.qlib_model())
        try:
            alg, _ = api.resolve(api.REGISTRY["cpu"], "auto", compiled, 0.0, {})
        except Exception as exc:  # the registry changed: say so rather than guess
            return f"could not ask qlib's algorithm='auto': {type(exc).__name__}: {exc}"
        if alg.name != "focused":
            return (f"not all penalty (negative objective coefficients): algorithm='auto' picks {alg.name!r} "
                    "even with a target")
        return None

    def describe(self, setting) -> str:
        return "defaults, 1 replica, 1 thread"

    def run(self, prep, problem, setting, seed, target, cap):
        import qlib

        compiled, cols = prep
        t = time.perf_counter()
        sol = qlib.solve(compiled, backend="cpu", algorithm="focused", seed=seed, time_limit=cap,
                         target_energy=target + EPS, num_replicas=1, num_threads=1)
        wall = time.perf_counter() - t
        e = float(problem.energies(self._full(sol.state[None, :], cols, len(cols)))[0])
        return e <= target + EPS, wall, e, None


class DwaveSA(Solver):
    name = "dwave-sa"

    def applies(self, problem):
        return None if problem.quadratic else "dwave-samplers has no HUBO sampler"

    def prepare(self, problem):
        from dwave.samplers import SimulatedAnnealingSampler

        return SimulatedAnnealingSampler(), problem.bqm

    def sample(self, prep, sweeps, reads, seed, threads=1) -> Sample:
        sampler, bqm = prep
        t = time.perf_counter()
        ss = sampler.sample(bqm, num_reads=reads, num_sweeps=sweeps, seed=seed % 2**32)
        wall = time.perf_counter() - t
        ns = ss.info.get("timing", {}).get("sampling_ns")
        states = _reorder(ss.record.sample, ss.variables, bqm.num_variables)
        beta = ss.info.get("beta_range")
        return Sample(states, ns / 1e9 if ns else None, "info['timing']['sampling_ns']" if ns else "wall", wall,
                      dict(beta_range=None if beta is None else tuple(float(b) for b in beta)))


class OpenjijSA(Solver):
    name = "openjij-sa"

    def prepare(self, problem):
        import openjij as oj

        if problem.quadratic:
            b = problem.bqm
            return "bqm", oj.SASampler(), oj.model.model.BinaryQuadraticModel(
                dict(b.linear), dict(b.quadratic), b.offset, "BINARY", sparse=True), problem.n
        return "hubo", oj.SASampler(), {t: c for t, c in problem.poly.items() if t}, problem.n

    def one_read_per_call(self, prep) -> bool:
        return prep[0] == "bqm"

    def sample(self, prep, sweeps, reads, seed, threads=1) -> Sample:
        kind, sampler, model, n = prep
        if kind == "bqm":
            return _single_reads(sampler, model, n, sweeps, reads, seed)
        t = time.perf_counter()
        r = sampler.sample_hubo(model, vartype="BINARY", num_reads=reads, num_sweeps=sweeps, num_threads=1,
                                seed=seed % 2**31)
        wall = time.perf_counter() - t
        return Sample(_reorder(r.record.sample, r.variables, n), float(r.info["time"]["sample"]),
                      "info['time']['sample']", wall, dict(beta_range=_oj_betas(r.info)))

    def describe(self, setting) -> str:
        return super().describe(setting)


def _oj_betas(info):
    sch = info.get("schedule") or {}
    lo, hi = sch.get("beta_min"), sch.get("beta_max")
    return None if lo is None or hi is None else (float(lo), float(hi))


def _single_reads(sampler, model, n, sweeps, reads, seed) -> Sample:
    """``reads`` calls of one read each, seeds apart: OpenJij 0.12's ``sample(num_reads=k, seed=s)``
    (SA and SQA on a BQM) reseeds every read with ``s``, so its k reads are one read k times."""
    t = time.perf_counter()
    rows, secs, info = [], 0.0, {}
    for k in range(reads):
        r = sampler.sample(model, num_reads=1, num_sweeps=sweeps, seed=(seed * 1009 + k) % 2**31)
        rows.append(_reorder(r.record.sample, r.variables, n)[0])
        secs += sum(r.info["list_exec_times"]) / 1e6
        info = r.info
    wall = time.perf_counter() - t
    return Sample(np.array(rows, dtype=np.uint8), secs, "sum(info['list_exec_times'])", wall,
                  dict(beta_range=_oj_betas(info)))


class OpenjijSQA(OpenjijSA):
    name = "openjij-sqa"
    slices = 4   # SQASampler's default trotter

    def applies(self, problem):
        return None if problem.quadratic else "OpenJij 0.12's SQASampler has no HUBO method"

    def prepare(self, problem):
        import openjij as oj

        kind, _, model, n = super().prepare(problem)
        return kind, oj.SQASampler(), model, n

    def sample(self, prep, sweeps, reads, seed, threads=1) -> Sample:
        _, sampler, model, n = prep
        return _single_reads(sampler, model, n, sweeps, reads, seed)


#: The solver rows by name, in table order.
SOLVER_CLASSES = {c.name: c for c in (QlibSA, QlibFocused, DwaveSA, OpenjijSA, OpenjijSQA)}
SOLVERS = tuple(SOLVER_CLASSES)


def available() -> str | None:
    try:
        import dimod  # noqa: F401
        import dwave.samplers  # noqa: F401
        import openjij  # noqa: F401
    except ImportError as exc:
        return f"peer samplers not installed ({exc}); run `make bench-deps`"
    return None
