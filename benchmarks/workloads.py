"""The benchmark's workloads and the solver rows run on each (see run.py for the measuring).

A :class:`Row` turns a setting (a dict of solver options; ``{}`` for rows
without a grid) into ``run(seed, cap) -> (ok, extra)``.  ``ok`` is decided here
by the puzzle's own checker on the answer the solver returns
(``slitherlink.check(board, h, v) == []``, ``nonogram.check(puzzle, grid) == []``),
never by the solver's status.  ``extra`` is a small dict of facts worth keeping
(iterations, stop reason, lowest energy seen...).

Workloads:

* ``sl10``: the 10x10 Slitherlink of the QUBO++ tutorial;
* ``nono15``: the 15x15 Nonogram as a plain QUBO (``nonogram.build_model(formulation="qubo")``),
  the same QUBO for qlib's annealing and for the peers;
* ``sl{N}x{N}-gen-s{K}``: every generated board ``qlib/data/slitherlink-{N}x{N}-gen-s{K}.txt``
  present when the benchmark starts, grouped by size.

The user set (:func:`user_workloads`, ``run.py --set user``): every board of
``benchmarks/boards/manifest.json`` (made by ``make_boards.py``): Slitherlink from
sgt-loopy (hard, 10x10 to 60x60, and 40x30, 60x40) and qlib's minimal-clue generator (20x20 to 50x50),
each with the rows ``qlib-default``, ``qubo-alone``, ``sat-exact`` and ``backtrack``; Nonograms from
sgt-pattern (15x15 to 50x50), random 30x30 grids and webpbn, each with
``qlib-default``, ``qubo-alone`` and ``sat-exact`` (``nonogram_sat.solve_sat``).  ``qubo-alone`` is the
QUBO method with no complete search beside it (Slitherlink ``complete=False``, Nonogram ``complete=False``),
on every workload.  Boards are grouped by
family and size (:attr:`Workload.group`) for the give-up rule.

Every qlib row records the result's ``found_by`` (which part of the solver found
the answer), when the result has one.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import qlib
from qlib.puzzles import nonogram, slitherlink

from peers import GRID, PEERS, setting_label

DATA = Path(qlib.__file__).parent / "data"
BOARDS = Path(__file__).resolve().parent / "boards"
MANIFEST = BOARDS / "manifest.json"
GENERATED = re.compile(r"slitherlink-(\d+)x(\d+)-gen-s(\d+)\.txt\Z")
SIZES = (15, 20, 25, 30)
EXACT_MODULE = "qlib.puzzles.slitherlink.exact"

#: The small boards every row is warmed up on (compiling its kernels) before it is measured.
SMALL_SLITHERLINK = "slitherlink-5x5-blog-ex1.txt"
_SMALL_PICTURE = (".###.", "#...#", "#####", "#...#", ".###.")
SMALL_NONOGRAM = ([nonogram.blocks_of([c == "#" for c in row]) for row in _SMALL_PICTURE],
                  [nonogram.blocks_of([row[j] == "#" for row in _SMALL_PICTURE]) for j in range(5)])


@dataclass
class Row:
    """One solver on one workload.

    ``kind``: "qlib" (a qlib solver), "exact" (an exact, deterministic search:
    ``repeats`` runs, the seed is ignored) or "peer" (a peer sampler, chosen
    from ``grid`` per workload; ``probe``: one run at the setting the peer won
    with on ``sl10``).  ``cap`` overrides the benchmark's cap for this row.
    ``skip`` says why the row cannot run at all.
    """

    name: str
    kind: str
    make: Callable[[dict], Callable[[int, float], tuple[bool, dict]]]
    warm: Callable[[dict], None]
    describe: str = ""
    cap: float | None = None
    grid: list | None = None
    repeats: int | None = None
    probe: bool = False
    skip: str | None = None

    def setting_text(self, setting: dict | None) -> str:
        if self.kind == "peer":
            return setting_label(setting or {})
        return self.describe


@dataclass
class Workload:
    name: str
    puzzle: str            # "slitherlink" or "nonogram"
    file: str
    size: int              # rows of the board
    generated: bool        # one of the generated boards (aggregated per size; the give-up rule spans a group)
    rows: list = field(default_factory=list)
    group: str | None = None    # boards sharing the give-up rule (default: the size)
    family: str | None = None   # a user board's family (loopy, qlib, pattern, random, webpbn)

    @property
    def key(self):
        """What the give-up rule groups by: the group, else the size."""
        return self.group if self.group is not None else self.size


# -- Slitherlink -----------------------------------------------------------------
def _board(file):
    return slitherlink.parse(qlib.data_path(file) if isinstance(file, str) else file)


def _energies(result) -> float | None:
    energies = [it["energy"] for it in result.iterations]
    return min(energies) if energies else None


def slitherlink_qlib(name: str, board, describe: str, cap: float | None = None, **options) -> Row:
    """``slitherlink.solve(board, seed=s, time_limit=cap, **options)``; no options: the library's default."""
    small = _board(SMALL_SLITHERLINK)

    def make(setting, board=board):
        def run(seed, cap):
            r = slitherlink.solve(board, seed=seed, time_limit=cap, **options)
            ok = slitherlink.check(board, r.h, r.v) == []
            return ok, dict(formulation=r.formulation, method=r.method, complete=options.get("complete"),
                            iterations=len(r.iterations), stop=r.stop_reason, found_by=getattr(r, "found_by", None))
        return run

    return Row(name, "qlib", make, lambda setting: make(setting, small)(0, 10.0), describe=describe, cap=cap)


#: What the "qubo-alone" row runs: the QUBO method with no complete search beside it.
ALONE_SLITHERLINK = "complete=False: presolve (probing to a fixed point), cell model, focused search with lazy cuts"
ALONE_NONOGRAM = "complete=False: presolve (line solving and probing), the domain-wall model of the open cells, focused search"


def slitherlink_alone(board) -> Row:
    """The QUBO method alone: ``slitherlink.solve(board, complete=False)``, no SAT and no backtracking."""
    return slitherlink_qlib("qubo-alone", board, ALONE_SLITHERLINK, complete=False)


def slitherlink_peer(name: str, board, grid=None, probe: bool = False, cap: float | None = None) -> Row:
    """The source's outer iteration with a peer sampler as the backend: the QUBO form
    (``formulation="qubo"``) for the QUBO samplers, the HUBO form for OpenJij's HUBO sampler."""
    form = "hubo" if name == "openjij-hubo" else "qubo"
    small = _board(SMALL_SLITHERLINK)

    def make(setting, board=board):
        def run(seed, cap):
            r = slitherlink.solve(board, method="outer", formulation=form, backend=PEERS[name], seed=seed,
                                  time_limit=cap, max_iterations=1000, **setting)
            ok = slitherlink.check(board, r.h, r.v) == []
            return ok, dict(iterations=len(r.iterations), min_energy=_energies(r), stop=r.stop_reason)
        return run

    return Row(name, "peer", make, lambda setting: make(setting, small)(0, 1.0), cap=cap,
               grid=list(GRID if grid is None else grid), probe=probe, describe=f"formulation={form}, method=outer")


def exact_available() -> str | None:
    """None if the SAT row can run, else why not."""
    try:
        module = importlib.import_module(EXACT_MODULE)
    except ImportError as exc:
        return f"{EXACT_MODULE} not available ({exc})"
    if not hasattr(module, "solve_exact"):
        return f"{EXACT_MODULE} has no solve_exact yet"
    return None


def slitherlink_exact(board, repeats: int = 3) -> Row:
    """The exact SAT row: ``solve_exact(board, time_limit=cap)`` (CaDiCaL with lazy loop clauses)."""
    small = _board(SMALL_SLITHERLINK)

    def make(setting, board=board):
        from qlib.puzzles.slitherlink.exact import solve_exact

        def run(seed, cap):
            r = solve_exact(board, time_limit=cap)
            ok = r.status == "solved" and r.mask is not None and \
                slitherlink.check(board, *board.grid.to_hv(r.mask)) == []
            return ok, dict(status=r.status, solver_seconds=getattr(r, "seconds", None))
        return run

    return Row("sat-exact", "exact", make, lambda setting: make(setting, small)(0, 10.0),
               describe="solve_exact (CaDiCaL, lazy loop clauses)", repeats=repeats, skip=exact_available())


def slitherlink_backtrack(board, repeats: int = 3) -> Row:
    """qlib's own exact backtracking search, stopped at the first answer: ``count_solutions(board, limit=1)``."""
    from qlib.puzzles.slitherlink import count_solutions

    small = _board(SMALL_SLITHERLINK)

    def make(setting, board=board):
        def run(seed, cap):
            r = count_solutions(board, limit=1, time_limit=cap)
            ok = bool(r.solutions) and slitherlink.check(board, *board.grid.to_hv(r.solutions[0])) == []
            return ok, dict(status=r.status, nodes=r.nodes)
        return run

    return Row("backtrack", "exact", make, lambda setting: make(setting, small)(0, 10.0),
               describe="generate.count_solutions(limit=1)", repeats=repeats)


def slitherlink_rows(board, *, edge_forms: bool = True, edge_cap: float | None = None, peers: str = "grid",
                     peer_grid=None, peer_cap: float | None = None, repeats: int = 3) -> list[Row]:
    """The rows of one Slitherlink board.

    ``edge_forms``: add the edge-form alternatives (lazy cuts and the source's
    outer iteration), with their own ``edge_cap``.  ``peers``: "grid" (each peer
    chooses its setting on this board), "probe" (one short run at the setting
    it won with on sl10), or "none".
    """
    rows = [slitherlink_qlib("qlib-default", board, "slitherlink.solve defaults")]
    if edge_forms:
        rows += [slitherlink_qlib("qlib-lazy", board, "formulation=hubo, method=lazy", cap=edge_cap,
                                  formulation="hubo", method="lazy"),
                 # the outer iteration's rounds are not capped below the time cap, as for the peers
                 slitherlink_qlib("qlib-outer", board, "formulation=hubo, method=outer, max_iterations=1000", cap=edge_cap,
                                  formulation="hubo", method="outer", max_iterations=1000)]
    rows.append(slitherlink_qlib("qlib-cells", board, "formulation=cells", formulation="cells"))
    rows.append(slitherlink_alone(board))
    rows += [slitherlink_exact(board, repeats), slitherlink_backtrack(board, repeats)]
    if peers != "none":
        rows += [slitherlink_peer(name, board, peer_grid, probe=peers == "probe", cap=peer_cap) for name in PEERS]
    return rows


# -- Nonogram --------------------------------------------------------------------
def _nonogram_row(name, kind, puzzle, describe, grid=None, **options) -> Row:
    small = nonogram.parse(SMALL_NONOGRAM)

    def make(setting, puzzle=puzzle):
        def run(seed, cap):
            r = nonogram.solve(puzzle, seed=seed, time_limit=cap, **options, **setting)
            ok = r.grid is not None and nonogram.check(puzzle, r.grid) == []
            return ok, dict(energy=r.energy, min_energy=r.energy, found_by=getattr(r, "found_by", None))
        return run

    return Row(name, kind, make, lambda setting: make(setting, small)(0, 1.0 if kind == "peer" else 5.0),
               describe=describe,
               grid=None if grid is None else list(grid))


def nonogram_alone(puzzle) -> Row:
    """The QUBO method alone: ``nonogram.solve(puzzle, complete=False)``, no SAT and no backtracking."""
    return _nonogram_row("qubo-alone", "qlib", puzzle, ALONE_NONOGRAM, complete=False)


def nonogram_sat_available() -> str | None:
    """None if the Nonogram SAT row can run (python-sat installed), else why not."""
    try:
        import nonogram_sat

        nonogram_sat.solver_name()
    except ImportError as exc:
        return f"nonogram_sat not available ({exc})"
    return None


def nonogram_exact(puzzle, repeats: int | None = None) -> Row:
    """The exact SAT row: ``nonogram_sat.solve_sat(puzzle, time_limit=cap)`` (CaDiCaL, block-start encoding)."""
    small = nonogram.parse(SMALL_NONOGRAM)

    def make(setting, puzzle=puzzle):
        import nonogram_sat

        def run(seed, cap):
            r = nonogram_sat.solve_sat(puzzle, time_limit=cap)
            ok = r.grid is not None and nonogram.check(puzzle, r.grid) == []
            return ok, dict(status=r.status, solver_seconds=r.seconds, variables=r.variables, clauses=r.clauses)
        return run

    return Row("sat-exact", "exact", make, lambda setting: make(setting, small)(0, 10.0),
               describe="nonogram_sat.solve_sat (CaDiCaL, block starts)", repeats=repeats,
               skip=nonogram_sat_available())


def nonogram_rows(puzzle, peer_grid=None, repeats: int | None = None) -> list[Row]:
    grid = GRID if peer_grid is None else peer_grid
    return [_nonogram_row("qlib-default", "qlib", puzzle, "nonogram.solve defaults"),
            nonogram_alone(puzzle),
            _nonogram_row("qlib-sa", "qlib", puzzle, "formulation=qubo, algorithm=sa", formulation="qubo", algorithm="sa"),
            nonogram_exact(puzzle, repeats),
            *(_nonogram_row(name, "peer", puzzle, "formulation=qubo", grid=grid, formulation="qubo", backend=PEERS[name])
              for name in ("dwave-sa", "openjij-sa"))]


# -- the set -----------------------------------------------------------------------
def generated_boards(sizes=SIZES, per_size: int | None = None) -> dict[int, list[Path]]:
    """{size: [paths]} of the generated square boards present now, by seed number."""
    found: dict[int, list[tuple[int, Path]]] = {}
    for path in DATA.glob("slitherlink-*-gen-s*.txt"):
        m = GENERATED.match(path.name)
        if not m or m[1] != m[2] or int(m[1]) not in sizes:
            continue
        found.setdefault(int(m[1]), []).append((int(m[3]), path))
    return {size: [p for _, p in sorted(found[size])][:per_size] for size in sorted(found)}


def workloads(*, sizes=SIZES, per_size: int | None = None, edge_cap: float = 20.0,
              probe_cap: float = 10.0, repeats: int = 3) -> list[Workload]:
    """Every workload, in the order run.py measures them (sl10 first: its peer settings feed the probes)."""
    sl10 = "slitherlink-10x10-qbpp.txt"
    out = [Workload("sl10", "slitherlink", sl10, 10, False, slitherlink_rows(_board(sl10), repeats=repeats))]
    nono = "nonogram-15x15-qbpp-logo.non"
    puzzle = nonogram.parse(qlib.data_path(nono))
    out.append(Workload("nono15", "nonogram", nono, puzzle.height, False, nonogram_rows(puzzle, repeats=repeats)))
    probed = False
    for size, paths in generated_boards(sizes, per_size).items():
        for path in paths:
            board = _board(path)
            edge = size <= 15
            peers = "none"
            if not probed:  # the peers never solve boards this large: one short run on the first board only
                peers, probed = "probe", True
            rows = slitherlink_rows(board, edge_forms=edge, edge_cap=edge_cap if edge else None, peers=peers,
                                    peer_cap=probe_cap, repeats=repeats)
            out.append(Workload(path.stem.replace("slitherlink-", "sl"), "slitherlink", path.name, size, True, rows))
    return out


# -- the user set ----------------------------------------------------------------------
USER_FAMILIES = ("loopy", "qlib", "pattern", "random", "webpbn")


def manifest_boards(manifest: Path = MANIFEST) -> list[dict]:
    """The boards listed in ``manifest`` (``make_boards.py`` writes it), each with its ``path``."""
    if not manifest.exists():
        return []
    root = manifest.parent
    out = []
    for e in json.loads(manifest.read_text())["boards"]:
        path = root.parent.parent / e["file"] if e["file"].startswith("qlib/") else root / e["file"]
        out.append(dict(e, path=path))
    return out


def user_name(entry: dict) -> str:
    """A short workload name: ``loopy-10x10-s1``, ``qlibgen-30x30``, ``pattern-15x15-s1``, ``random-30x30-s0``,
    ``webpbn-529``."""
    stem = Path(entry["file"]).stem
    if entry["family"] == "webpbn":
        return stem.replace("nonogram-", "")
    if entry["family"] == "loopy":
        return stem.replace("-dh", "")
    if entry["family"] == "qlib":
        return stem.replace(f"-s{entry['seed']}", "") if entry["seed"] == 1 else stem
    return stem


def user_workloads(*, families=USER_FAMILIES, sizes=None, repeats: int = 3, manifest: Path = MANIFEST,
                   per_group: int | None = None) -> list[Workload]:
    """The user set: every board of the manifest in ``families`` (and ``sizes``, rows of the board, if given),
    Slitherlink first, in the manifest's order; ``per_group`` keeps the first boards of each family and size."""
    out, taken = [], {}
    for e in sorted(manifest_boards(manifest), key=lambda e: e["puzzle"] != "slitherlink"):
        if e["family"] not in families or (sizes and e["rows"] not in sizes):
            continue
        group = f"{e['family']}-{e['rows']}x{e['cols']}"
        taken[group] = taken.get(group, 0) + 1
        if per_group is not None and taken[group] > per_group:
            continue
        out.append(user_workload(e, repeats=repeats, group=group))
    return out


def user_workload(entry: dict, repeats: int = 3, group: str | None = None) -> Workload:
    """One manifest board as a workload: qlib-default, sat-exact and (Slitherlink) backtrack."""
    name, path = user_name(entry), Path(entry["path"])
    file = entry["file"]
    if entry["puzzle"] == "slitherlink":
        board = slitherlink.parse(path)
        rows = [slitherlink_qlib("qlib-default", board, "slitherlink.solve defaults"), slitherlink_alone(board),
                slitherlink_exact(board, repeats), slitherlink_backtrack(board, repeats)]
    else:
        puzzle = nonogram.parse(path)
        rows = [_nonogram_row("qlib-default", "qlib", puzzle, "nonogram.solve defaults"), nonogram_alone(puzzle),
                nonogram_exact(puzzle, repeats)]
    return Workload(name, entry["puzzle"], file, entry["rows"], True, rows, group=group, family=entry["family"])
