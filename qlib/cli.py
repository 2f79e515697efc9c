"""Command line: ``qlib solve slitherlink FILE`` and ``qlib solve nonogram FILE``.

Exit status: 0 solved, 1 not solved within the limits, 2 bad input (the error
goes to stderr).
"""

from __future__ import annotations

import argparse
import json
import sys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qlib", description="Solve logic puzzles as binary polynomials.")
    sub = parser.add_subparsers(dest="command", required=True)
    solve = sub.add_parser("solve", help="solve a puzzle file")
    kinds = solve.add_subparsers(dest="puzzle", required=True)

    def common(p):
        p.add_argument("file", help="puzzle file ('-' reads standard input)")
        p.add_argument("--backend", choices=["cpu", "gpu", "auto"], default="cpu")
        p.add_argument("--seed", type=int, default=None, help="random seed (same seed, same result)")
        p.add_argument("--time-limit", type=float, default=60.0, help="seconds in all (default 60)")
        p.add_argument("--json", action="store_true", help="print one JSON object instead of text")

    sl = kinds.add_parser("slitherlink", help="a Slitherlink board: rows of '.' and digits 0-3")
    common(sl)
    sl.add_argument("--form", choices=["hubo", "inequality", "qubo", "cells"], default="hubo",
                    help="how a found loop is forbidden (default hubo: one product term); "
                         "cells: the cell formulation, one variable per cell")
    sl.add_argument("--method", choices=["lazy", "outer"], default=None,
                    help="lazy: loops are cut during the search; outer: the iteration of the source "
                         "(default: outer for --form cells, else lazy)")
    sl.add_argument("--max-iterations", type=int, default=100)
    nono = kinds.add_parser("nonogram", help="a Nonogram in the .non format")
    common(nono)
    nono.add_argument("--form", choices=["cons", "qubo"], default="cons",
                      help="cons: native constraints; qubo: expanded to a pure QUBO")
    return parser


def _read(path: str):
    if path == "-":
        return sys.stdin.read()
    return path


def _solve_slitherlink(args) -> tuple[dict, str, bool]:
    from .puzzles import slitherlink

    board = slitherlink.parse(_read(args.file))
    result = slitherlink.solve(board, form=args.form, method=args.method, backend=args.backend, seed=args.seed,
                               time_limit=args.time_limit, max_iterations=args.max_iterations)
    iterations = [{"iteration": it["iteration"], "energy": it["energy"], "loops": it["loops"],
                   "seconds": round(it["seconds"], 6)} for it in result.iterations]
    payload = {"puzzle": "slitherlink", "file": args.file, "status": result.status,
               "stop_reason": result.stop_reason, "seconds": round(result.seconds, 6),
               "backend": result.backend, "seed": result.seed, "form": args.form, "method": result.method,
               "h": result.h, "v": result.v, "iterations": iterations,
               "var_count": result.var_count, "term_count": result.term_count}
    text = slitherlink.render_text(board, result.h, result.v).rstrip("\n") + "\n" + result.summary().splitlines()[0]
    return payload, text, result.status == "solved"


def _solve_nonogram(args) -> tuple[dict, str, bool]:
    from .puzzles import nonogram

    puzzle = nonogram.parse(_read(args.file))
    result = nonogram.solve(puzzle, form=args.form, backend=args.backend, seed=args.seed,
                            time_limit=args.time_limit)
    payload = {"puzzle": "nonogram", "file": args.file, "status": result.status,
               "seconds": round(result.seconds, 6), "backend": result.backend, "seed": result.seed,
               "form": args.form, "grid": list(result.grid) if result.grid else None,
               "energy": result.energy, "var_count": result.var_count, "term_count": result.term_count}
    grid = nonogram.render_text(result.grid) + "\n" if result.grid else ""
    summary = (f"{result.status}: energy {result.energy:g}, {result.var_count} variables, "
               f"{result.term_count} terms, {result.seconds:.2f} s, backend={result.backend}, seed={result.seed}")
    return payload, grid + summary, result.status == "solved"


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.puzzle == "slitherlink":
            payload, text, solved = _solve_slitherlink(args)
        else:
            payload, text, solved = _solve_nonogram(args)
    except (ValueError, OSError) as error:  # parse errors name the file, line and column
        print(f"qlib: error: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:  # e.g. --backend gpu without a GPU
        print(f"qlib: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(payload) if args.json else text)
    return 0 if solved else 1


if __name__ == "__main__":
    sys.exit(main())
