"""Make the bench's user workloads, benchmarks/boards/, and their manifest.

    apt-get install sgt-puzzles                                      # once (make bench-deps does it)
    .venv/bin/python benchmarks/make_boards.py                      # every family (~27 min, see below)
    .venv/bin/python benchmarks/make_boards.py --only loopy pattern random webpbn   # the quick ones (~6 min)
    .venv/bin/python benchmarks/make_boards.py --only qlib --sizes 30 --qlib-seeds 2   # one qlib board
    .venv/bin/python benchmarks/make_boards.py --check               # re-prove the boards listed

Families (``--only``):

* ``loopy``: Slitherlink from Simon Tatham's Loopy, hard (``dh``), square grid: 10x10 (seeds 1-2),
  20x20 to 60x60 (seeds 1-10), and 40 wide by 30 high (1-3):
  ``sgt-loopy --generate 1 'WxHt0dh#SEED'``, kept as the game ID
  (``loopy-WxH-dh-sSEED.loopy``, which ``slitherlink.parse`` reads).
* ``qlib``: minimal-clue Slitherlink from qlib's generator,
  ``generate(N, N, SEED, keep=0.0, max_nodes=...)`` at 20x20, 30x30, 40x40 (seeds 1-3) and 50x50
  (seeds 1-2; seed 3's board was not proved unique in 600 s), written with ``to_text()``
  (``qlibgen-NxN-sSEED.txt``).  Every clue is tried for removal; a removal
  whose check stops at ``max_nodes`` search nodes (status unknown) keeps its clue, so
  the boards are minimal only up to that cap (the manifest counts those clues).
* ``pattern``: Nonograms from sgt-puzzles' Pattern, 15x15 to 50x50, seeds 1 and 2:
  ``sgt-pattern --generate 1 'NxN#SEED'`` kept as the game ID
  (``pattern-NxN-sSEED.pattern``) and as a ``.non`` file decoded here.
* ``random``: ten random 30x30 grids (every cell black with probability 0.5,
  ``numpy.random.default_rng(SEED)``, seeds 0-9), clues computed from the grid, as in
  Jan Wolter's survey of nonogram solvers (``random-30x30-sSEED.non``).  They may have
  several answers: any grid meeting the clues is one.
* ``webpbn``: the webpbn puzzles shipped in ``qlib/data/nonogram-webpbn-*.non``
  (listed, not copied).

Every Slitherlink board is proved to have exactly one answer by
``qlib.puzzles.slitherlink.exact.count_exact(board, limit=2)`` (status "exact",
count 1); every Nonogram is counted by ``nonogram_sat.count_sat(limit=2)`` (and the
sgt ones by ``nonogram.count_solutions(limit=2)`` too).  The manifest
(``boards/manifest.json``, rendered as ``boards/README.md``) lists each file with the
command or call that made it, its seed, its source, its clue count, the time it took
to make and the proof; the SAT reference's time on it too.  The sgt-puzzles version
matters: the same seed may give another puzzle in another version (the manifest
records it).

Times (2 cores shared with two other jobs, under ``nice -n 19``; wall): loopy 184 s for the first
ten boards, 10x10-50x50 (sgt-loopy takes 13 s a 40x40 board, 73 s a 50x50 one); the 62 boards of
today's list took about 37 min beside other work (18-45 s a 40x40 board, 78-129 s a 50x50 one,
about 230 s a 60x60 one); pattern 173 s (sgt-pattern 54-81 s a
50x50 board), random 20 s, webpbn 7 s, qlib 1204 s (139 s, 345 s and 707 s for 30x30, 40x40,
50x50); 26.5 min wall and 19 min CPU in all.  ``--check`` re-proves the 38 boards in ~25 s.
Later, ``--only loopy --sizes 50 --loopy-seeds 6 7 8 9 10 --jobs 2`` took 359 s and the 60x60 seeds
4-10 1269 s (88-131 s a 50x50 board, 225-443 s a 60x60 one, two at a time under ``nice``).
"""

from __future__ import annotations

import argparse
import glob
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import qlib  # noqa: E402
from qlib.puzzles import nonogram, slitherlink  # noqa: E402

from provenance import find_sgt, machine, qlib_commit, sgt_version  # noqa: E402

BOARDS = HERE / "boards"
MANIFEST = BOARDS / "manifest.json"
FAMILIES = ("loopy", "qlib", "pattern", "random", "webpbn")

LOOPY_SIZES = (10, 20, 30, 40, 50, 60)
#: Seeds per size: two at 10x10, ten boards a size from 20x20 to 60x60 (sgt-loopy takes one to two
#: minutes a 50x50 board and about four a 60x60 one: ``--jobs 2`` runs two at once).
LOOPY_SEEDS = {10: (1, 2)}
LOOPY_DEFAULT_SEEDS = tuple(range(1, 11))
#: Rectangular boards (width x height, as sgt-loopy's parameters read), seeds 1-3.
LOOPY_RECT = ((40, 30),)
LOOPY_RECT_SEEDS = (1, 2, 3)
PATTERN_SIZES = (15, 20, 30, 40, 50)
PATTERN_SEEDS = (1, 2)
RANDOM_SEEDS = tuple(range(10))
RANDOM_SIZE = 30
QLIB_SIZES = (20, 30, 40, 50)
#: Seeds of qlib's generator per size: three boards a size, but two at 50x50, where SAT did not prove
#: seed 3's board unique within PROOF_TIME_LIMIT (count_exact stopped with status "unknown").
QLIB_SEEDS = {20: (1, 2, 3), 30: (1, 2, 3), 40: (1, 2, 3), 50: (1, 2)}
#: max_nodes of qlib's generator per size: the search-node cap of each removal check (and 4x
#: that for the final recount).  The default, 2_000_000, takes far more than the budget here.
QLIB_MAX_NODES = {20: 20_000, 30: 20_000, 40: 20_000, 50: 20_000}
PROOF_TIME_LIMIT = 600.0


def _sgt(program: str, params: str) -> tuple[str, float, str]:
    """``(game ID, seconds, command)`` of ``program --generate 1 params``."""
    path = find_sgt(program)
    if path is None:
        raise SystemExit(f"{program} not found: apt-get install sgt-puzzles (make bench-deps)")
    command = f"{program} --generate 1 '{params}'"
    t = time.perf_counter()
    res = subprocess.run([path, "--generate", "1", params], capture_output=True, text=True)
    seconds = time.perf_counter() - t
    lines = [line.strip() for line in res.stdout.splitlines() if line.strip()]
    if res.returncode or len(lines) != 1:
        raise SystemExit(f"{command} failed: {res.stderr.strip() or res.stdout.strip()}")
    return lines[0], seconds, command


# -- proofs ------------------------------------------------------------------------
def prove_slitherlink(board) -> dict:
    """``count_exact(board, limit=2)`` (uniqueness) and ``solve_exact``'s time (the SAT reference)."""
    from qlib.puzzles.slitherlink.exact import count_exact, solve_exact, solver_name

    t = time.perf_counter()
    count, status, masks = count_exact(board, limit=2, time_limit=PROOF_TIME_LIMIT)
    proof_seconds = time.perf_counter() - t
    ok = bool(masks) and slitherlink.check(board, *board.grid.to_hv(masks[0])) == []
    r = solve_exact(board, time_limit=PROOF_TIME_LIMIT)
    return dict(unique=status == "exact" and count == 1 and ok,
                proof=dict(call="qlib.puzzles.slitherlink.exact.count_exact(board, limit=2)", solver=solver_name(),
                           count=count, status=status, seconds=round(proof_seconds, 3), answer_checks=ok),
                sat_seconds=round(r.seconds, 3), sat_status=r.status)


def prove_nonogram(puzzle, line_solver: bool = True) -> dict:
    """``count_sat(limit=2)`` (and ``nonogram.count_solutions(limit=2)``) and ``solve_sat``'s time."""
    import nonogram_sat

    t = time.perf_counter()
    count, status, grids = nonogram_sat.count_sat(puzzle, limit=2, time_limit=PROOF_TIME_LIMIT)
    proof_seconds = time.perf_counter() - t
    ok = bool(grids) and all(nonogram.check(puzzle, g) == [] for g in grids)
    out = dict(unique=status == "exact" and count == 1 and ok,
               proof=dict(call="benchmarks/nonogram_sat.count_sat(puzzle, limit=2)",
                          solver=nonogram_sat.solver_name(), count=count, status=status,
                          seconds=round(proof_seconds, 3), answers_check=ok))
    if line_solver:
        t = time.perf_counter()
        c2, s2, _ = nonogram.count_solutions(puzzle, limit=2, time_limit=120.0)
        out["proof_line_solver"] = dict(call="qlib.puzzles.nonogram.count_solutions(puzzle, limit=2)", count=c2,
                                        status=s2, seconds=round(time.perf_counter() - t, 3))
    r = nonogram_sat.solve_sat(puzzle, time_limit=PROOF_TIME_LIMIT)
    out.update(sat_seconds=round(r.seconds, 3), sat_status=r.status, sat_variables=r.variables,
               sat_clauses=r.clauses)
    return out


# -- sgt-pattern game IDs ------------------------------------------------------------
def decode_pattern(game_id: str, title: str | None = None) -> nonogram.Nonogram:
    """The puzzle of an sgt-puzzles Pattern game ID ``WxH:DESCRIPTION``.

    DESCRIPTION is W column clues (left to right) then H row clues (top to bottom),
    separated by '/'; the numbers of a clue by '.'; an empty clue is an all-white line.
    (pattern.c's ``new_game_desc``; the optional ``,`` suffix of fixed cells is not read.)
    """
    params, sep, desc = game_id.strip().partition(":")
    if not sep:
        raise ValueError(f"not a Pattern game ID (no ':'): {game_id!r}")
    w, _, h = params.partition("x")
    w = int(w)
    h = int(h) if h else w
    if "," in desc:
        raise ValueError("the fixed-cells suffix (',') of a Pattern game ID is not read here")
    parts = desc.split("/")
    if len(parts) != w + h:
        raise ValueError(f"expected {w} + {h} clues separated by '/', found {len(parts)}")
    clues = [tuple(int(n) for n in part.split(".")) if part else () for part in parts]
    return nonogram.parse(dict(columns=clues[:w], rows=clues[w:], title=title))


def encode_pattern(puzzle) -> str:
    """The game ID ``WxH:...`` of ``puzzle``'s clues, as pattern.c writes it."""
    lines = [*puzzle.columns, *puzzle.rows]
    return f"{puzzle.width}x{puzzle.height}:" + "/".join(".".join(map(str, c)) for c in lines)


def clues_of_grid(grid) -> tuple[list, list]:
    """Row and column clues of a boolean grid."""
    grid = np.asarray(grid, dtype=bool)
    rows = [nonogram.blocks_of(list(r)) for r in grid]
    cols = [nonogram.blocks_of(list(c)) for c in grid.T]
    return rows, cols


# -- the families ------------------------------------------------------------------
def make_loopy(sizes, log, rect_sizes=None, seeds=None, jobs: int = 1) -> list[dict]:
    """The loopy boards of ``sizes`` (``seeds``: only these seeds), ``jobs`` sgt-loopy runs at once."""
    from concurrent.futures import ThreadPoolExecutor

    out = []
    shapes = [(n, n, seed) for n in sizes for seed in LOOPY_SEEDS.get(n, LOOPY_DEFAULT_SEEDS)]
    shapes += [(w, h, seed) for w, h in LOOPY_RECT if not rect_sizes or h in rect_sizes for seed in LOOPY_RECT_SEEDS]
    shapes = [shape for shape in shapes if not seeds or shape[2] in seeds]
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        made = list(pool.map(lambda shape: _sgt("sgt-loopy", f"{shape[0]}x{shape[1]}t0dh#{shape[2]}"), shapes))
    for (w, h, seed), (game_id, seconds, command) in zip(shapes, made):
        board = slitherlink.parse(game_id)
        if board.to_loopy() != game_id:
            raise SystemExit(f"{command}: the game ID does not read back equal ({game_id})")
        name = f"loopy-{w}x{h}-dh-s{seed}.loopy"
        (BOARDS / name).write_text(game_id + "\n")
        entry = dict(file=name, puzzle="slitherlink", family="loopy", rows=board.rows, cols=board.cols, seed=seed,
                     command=command, source="sgt-puzzles Loopy (Simon Tatham), hard, square grid",
                     clues=len(board.clue_cells), generate_seconds=round(seconds, 3))
        entry.update(prove_slitherlink(board))
        log(_line(entry))
        out.append(entry)
    return out


def make_qlib(sizes, seeds, log) -> list[dict]:
    from qlib.puzzles.slitherlink import UnverifiedBoardError, count_solutions, generate

    out = []
    for n, seed in ((n, seed) for n in sizes for seed in (seeds or QLIB_SEEDS.get(n, (1,)))):
        max_nodes = QLIB_MAX_NODES.get(n, 20_000)
        call = f"qlib.puzzles.slitherlink.generate({n}, {n}, {seed}, keep=0.0, max_nodes={max_nodes})"
        progress = []
        t, cpu = time.perf_counter(), time.process_time()
        verified = True
        try:
            board, _ = generate(n, n, seed, keep=0.0, max_nodes=max_nodes, log=progress.append)
        except UnverifiedBoardError as exc:  # the recount hit its cap: the SAT proof below decides
            board = exc.board
            verified = False
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
        name = f"qlibgen-{n}x{n}-s{seed}.txt"
        (BOARDS / name).write_text(board.to_text())
        entry = dict(file=name, puzzle="slitherlink", family="qlib", rows=n, cols=n, seed=seed, command=call,
                     source="qlib's generator: a random loop, every clue tried for removal (minimal-clue up to "
                            f"max_nodes={max_nodes} per check)",
                     clues=len(board.clue_cells), generate_seconds=round(seconds, 1),
                     generate_cpu_seconds=round(cpu, 1),
                     generator_recount="proved unique" if verified else
                     f"stopped at its cap of {4 * max_nodes} nodes (verify raised UnverifiedBoardError)",
                     generator_progress=progress[-1] if progress else None)
        entry.update(prove_slitherlink(board))
        if verified:
            res = count_solutions(board, limit=2, time_limit=60.0, max_nodes=None)
            entry["backtrack_status"] = res.status
        log(_line(entry))
        out.append(entry)
    return out


def make_pattern(sizes, log) -> list[dict]:
    out = []
    for n in sizes:
        for seed in PATTERN_SEEDS:
            game_id, seconds, command = _sgt("sgt-pattern", f"{n}x{n}#{seed}")
            puzzle = decode_pattern(game_id, title=f"sgt-pattern {n}x{n}#{seed}")
            if encode_pattern(puzzle) != game_id:
                raise SystemExit(f"{command}: the decoded clues do not encode back to the game ID")
            stem = f"pattern-{n}x{n}-s{seed}"
            (BOARDS / f"{stem}.pattern").write_text(game_id + "\n")
            nonogram.write(puzzle, BOARDS / f"{stem}.non")
            entry = dict(file=f"{stem}.non", game_id_file=f"{stem}.pattern", puzzle="nonogram", family="pattern",
                         rows=n, cols=n, seed=seed, command=command,
                         source="sgt-puzzles Pattern (Simon Tatham); the .non decoded by make_boards.decode_pattern",
                         clues=sum(map(len, puzzle.rows)) + sum(map(len, puzzle.columns)),
                         generate_seconds=round(seconds, 3))
            entry.update(prove_nonogram(puzzle))
            log(_line(entry))
            out.append(entry)
    return out


def random_grid(seed: int, size: int = RANDOM_SIZE) -> np.ndarray:
    """The random grid of seed ``seed``: each cell black with probability 0.5."""
    return np.random.default_rng(seed).random((size, size)) < 0.5


def make_random(log) -> list[dict]:
    out = []
    for seed in RANDOM_SEEDS:
        t = time.perf_counter()
        grid = random_grid(seed)
        rows, cols = clues_of_grid(grid)
        puzzle = nonogram.parse(dict(rows=rows, columns=cols,
                                     title=f"random {RANDOM_SIZE}x{RANDOM_SIZE}, p=0.5, seed {seed}"))
        name = f"random-{RANDOM_SIZE}x{RANDOM_SIZE}-s{seed}.non"
        nonogram.write(puzzle, BOARDS / name)
        seconds = time.perf_counter() - t
        assert nonogram.check(puzzle, grid.tolist()) == []
        entry = dict(file=name, puzzle="nonogram", family="random", rows=RANDOM_SIZE, cols=RANDOM_SIZE, seed=seed,
                     command=f"np.random.default_rng({seed}).random(({RANDOM_SIZE}, {RANDOM_SIZE})) < 0.5; "
                             "clues from the grid (make_boards.random_grid)",
                     source="random grid, as in Jan Wolter's survey of nonogram solvers (webpbn.com/survey)",
                     clues=sum(map(len, rows)) + sum(map(len, cols)), generate_seconds=round(seconds, 3))
        entry.update(prove_nonogram(puzzle, line_solver=False))
        log(_line(entry))
        out.append(entry)
    return out


def make_webpbn(log) -> list[dict]:
    out = []
    for path in sorted(glob.glob(str(Path(qlib.__file__).parent / "data" / "nonogram-webpbn-*.non")),
                       key=lambda p: int(Path(p).stem.rsplit("-", 1)[1])):
        puzzle = nonogram.parse(path)
        name = Path(path).name
        entry = dict(file=f"qlib/data/{name}", puzzle="nonogram", family="webpbn", rows=puzzle.height,
                     cols=puzzle.width, seed=None, command="shipped in qlib/data (see qlib/data/README.md)",
                     source=f"webpbn.com {puzzle.catalogue or ''} {puzzle.title or ''}".strip() + f", by {puzzle.by}",
                     clues=sum(map(len, puzzle.rows)) + sum(map(len, puzzle.columns)), generate_seconds=None)
        entry.update(prove_nonogram(puzzle))
        log(_line(entry))
        out.append(entry)
    return out


def _line(e) -> str:
    proof = e["proof"]
    return (f"{e['file']:32s} {e['rows']}x{e['cols']} clues {e['clues']:5d}  made in {e['generate_seconds']} s  "
            f"count {proof['count']} ({proof['status']}, {proof['seconds']:.2f} s)  SAT {e['sat_seconds']:.2f} s")


# -- the manifest --------------------------------------------------------------------
def board_path(entry: dict) -> Path:
    """Where the file of a manifest entry lies."""
    return HERE.parent / entry["file"] if entry["file"].startswith("qlib/") else BOARDS / entry["file"]


def load_manifest() -> dict:
    if MANIFEST.exists():
        return json.loads(MANIFEST.read_text())
    return dict(boards=[])


def _made_text(made: dict) -> str:
    q = made.get("qlib") or {}
    out = f"qlib: {q.get('commit')}" + (" (dirty)" if q.get("dirty") else "") + (f"; {q['note']}" if q.get("note") else "")
    if made.get("command"):
        out += f".  Made by `{made['command']}`"
    secs = made.get("seconds")
    if secs:
        out += " (" + ", ".join(f"{k} {v:g} s" for k, v in secs.items() if k != "note") + \
            (f"; {secs['note']}" if secs.get("note") else "") + ")"
    return out + "."


def markdown(manifest: dict) -> str:
    made = manifest.get("made_with", {})
    lines = ["# The bench's user workloads", "",
             "Made by `benchmarks/make_boards.py` (see its docstring; needs `apt-get install sgt-puzzles`, "
             "which `make bench-deps` runs).  This file is written from `manifest.json`; do not edit it by hand.", "",
             f"sgt-puzzles: {made.get('sgt_puzzles')}.  Machine: {made.get('machine', {}).get('platform')}, "
             f"{made.get('machine', {}).get('cpus')} CPUs.  " + _made_text(made), "",
             "Proof: a Slitherlink board has exactly one answer when "
             "`qlib.puzzles.slitherlink.exact.count_exact(board, limit=2)` ends with count 1 and status "
             "\"exact\"; a Nonogram is counted by `benchmarks/nonogram_sat.count_sat(puzzle, limit=2)` "
             "(the sgt and webpbn ones also by `nonogram.count_solutions(limit=2)`).  "
             "Random grids may have several answers (count 2 \"limit\": at least two).  "
             "SAT s: one run of the exact SAT reference (`solve_exact` / `nonogram_sat.solve_sat`).", "",
             "| file | puzzle | rows x cols | clues | made by | seed | made in s | answers (proof) | proof s | SAT s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for e in manifest["boards"]:
        p = e["proof"]
        made_in = "-" if e.get("generate_seconds") is None else f"{e['generate_seconds']:g}"
        lines.append(f"| {e['file']} | {e['puzzle']} | {e['rows']}x{e['cols']} | {e['clues']} | `{e['command']}` | "
                     f"{e['seed'] if e['seed'] is not None else '-'} | {made_in} | {p['count']} ({p['status']}) | "
                     f"{p['seconds']:.2f} | {e['sat_seconds']:.2f} |")
    notes = [e for e in manifest["boards"] if e["family"] == "qlib"]
    if notes:
        lines += ["", "qlib's generator (every clue tried for removal; a check stopped at max_nodes keeps its clue):",
                  ""]
        for e in notes:
            lines.append(f"* {e['file']}: `{e['command']}`; last progress line: {e.get('generator_progress')}; "
                         f"the generator's own recount: {e.get('generator_recount')}"
                         + (" (the board shipped is the error's `board`, proved unique by SAT above)"
                            if "UnverifiedBoardError" in str(e.get("generator_recount")) else "")
                         + (f"; reproduced: {e['reproduced']}" if e.get("reproduced") else "") + ".")
    return "\n".join(lines) + "\n"


def save(manifest: dict) -> None:
    order = {f: k for k, f in enumerate(FAMILIES)}
    manifest["boards"].sort(key=lambda e: (order[e["family"]], e["rows"], e["seed"] if e["seed"] is not None else 0,
                                           e["file"]))
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    (BOARDS / "README.md").write_text(markdown(manifest))


def check(manifest: dict, log=print) -> bool:
    """Re-read every board of the manifest and prove it again; True if all agree."""
    good = True
    for e in manifest["boards"]:
        path = board_path(e)
        if e["puzzle"] == "slitherlink":
            board = slitherlink.parse(path)
            proof = prove_slitherlink(board)
            clues = len(board.clue_cells)
        else:
            puzzle = nonogram.parse(path)
            proof = prove_nonogram(puzzle, line_solver=False)
            clues = sum(map(len, puzzle.rows)) + sum(map(len, puzzle.columns))
        same = (proof["proof"]["count"], proof["proof"]["status"], clues) == \
            (e["proof"]["count"], e["proof"]["status"], e["clues"])
        good &= same
        log(f"{e['file']:40s} {'ok' if same else 'DIFFERS'}: count {proof['proof']['count']} "
            f"({proof['proof']['status']}), SAT {proof['sat_seconds']:.2f} s")
    return good


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="*", choices=FAMILIES, help="families to (re)make (default: all)")
    p.add_argument("--sizes", type=int, nargs="*", help="sizes of the loopy, qlib and pattern families to make")
    p.add_argument("--qlib-seeds", type=int, nargs="*",
                   help="seeds of the qlib family to make (default: QLIB_SEEDS, per size)")
    p.add_argument("--loopy-seeds", type=int, nargs="*", help="seeds of the loopy family to make (default: all)")
    p.add_argument("--jobs", type=int, default=1, help="sgt-loopy runs at once (default 1)")
    p.add_argument("--check", action="store_true", help="re-prove every board of the manifest and exit")
    args = p.parse_args(argv)
    BOARDS.mkdir(parents=True, exist_ok=True)
    manifest = load_manifest()
    if args.check:
        raise SystemExit(0 if check(manifest) else 1)
    families = args.only or FAMILIES

    def sizes(default):
        return [n for n in default if not args.sizes or n in args.sizes]

    made, seconds = [], {}
    for family in families:
        t = time.perf_counter()
        print(f"-- {family}", flush=True)
        log = lambda s: print(s, flush=True)  # noqa: E731
        commit = qlib_commit()  # the qlib this family is made with (HEAD may move during a long run)
        if family == "loopy":
            entries = make_loopy(sizes(LOOPY_SIZES), log, args.sizes, args.loopy_seeds, args.jobs)
        elif family == "qlib":
            entries = make_qlib(sizes(QLIB_SIZES), args.qlib_seeds, log)
        elif family == "pattern":
            entries = make_pattern(sizes(PATTERN_SIZES), log)
        elif family == "random":
            entries = make_random(log)
        else:
            entries = make_webpbn(log)
        for e in entries:
            e["qlib"] = commit
        made += entries
        print(f"   {family}: {time.perf_counter() - t:.1f} s", flush=True)
        files = {e["file"] for e in made}
        manifest["boards"] = [e for e in manifest["boards"] if e["file"] not in files] + made
        seconds[family] = round(time.perf_counter() - t, 1)
        manifest["made_with"] = dict(sgt_puzzles=sgt_version(), qlib=commit, machine=machine(),
                                     date=time.strftime("%Y-%m-%d %H:%M"),
                                     command="benchmarks/make_boards.py " + " ".join(sys.argv[1:] if argv is None
                                                                                      else argv),
                                     seconds=dict(seconds, note="wall seconds of each family in this run"))
        save(manifest)
    bad = [e["file"] for e in made if e["puzzle"] == "slitherlink" and not e["unique"]]
    if bad:
        raise SystemExit(f"not proved unique: {', '.join(bad)}")
    print(f"written {MANIFEST} and {BOARDS / 'README.md'}")


if __name__ == "__main__":
    main()
