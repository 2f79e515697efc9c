"""Command line: ``qlib solve slitherlink FILE``, ``qlib solve nonogram FILE`` and ``qlib show ...``.

FILE is a path, ``-`` (standard input) or, for Slitherlink, a puzz.link URL.

Exit status: 0 solved (or shown), 1 not solved within the limits, 2 bad input
or an unusable option (the error goes to stderr), 130 interrupted (Ctrl-C:
one line on stderr; with ``--json`` the best state so far is still printed
when the solver hands one back).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time

from . import startup

EXIT_SOLVED, EXIT_UNSOLVED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qlib", description="Solve logic puzzles as binary polynomials.")
    sub = parser.add_subparsers(dest="command", required=True)
    solve = sub.add_parser("solve", help="solve a puzzle file")
    kinds = solve.add_subparsers(dest="puzzle", required=True)

    def common(p):
        p.add_argument("file", help="puzzle file ('-' reads standard input)")
        p.add_argument("--backend", choices=["cpu", "gpu", "auto"], default="cpu")
        p.add_argument("--seed", type=int, default=None, help="random seed (same seed, same result)")
        p.add_argument("--time-limit", type=float, default=60.0,
                       help="seconds in all, reading the file included (default 60)")
        p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
        p.add_argument("--check-unique", action="store_true",
                       help="also find out whether the answer is the only one (JSON: \"unique\", \"second_answer\")")
        p.add_argument("--no-complete", action="store_true",
                       help="the QUBO method alone: the presolve, the model and its search, with no complete "
                            "(SAT or backtracking) search beside it")

    sl = kinds.add_parser("slitherlink", help="a Slitherlink board: rows of '.' and digits 0-3, or a puzz.link URL")
    common(sl)
    sl.add_argument("--formulation", "--form", choices=["cells", "hubo", "inequality", "qubo"], default="cells",
                    help="the formulation (default cells: one variable per presolved class of cells, "
                         "loops forbidden by their regions); hubo, inequality, qubo: the source's edge "
                         "variables, a loop forbidden by a product term, a <= constraint or a QUBO penalty")
    sl.add_argument("--method", choices=["lazy", "outer"], default=None,
                    help="lazy: loops are cut during the search; outer: the iteration of the source "
                         "(default: the solver's choice for the formulation; outer with --backend gpu)")
    sl.add_argument("--max-iterations", type=int, default=None,
                    help="stop the outer method after this many solves (default: the solver's)")
    nono = kinds.add_parser("nonogram", help="a Nonogram: a .non file or an sgt-puzzles game ID (10x10:2.1/3/...)")
    common(nono)
    nono.add_argument("--formulation", "--form", choices=["cons", "qubo"], default="cons",
                      help="cons: native constraints; qubo: expanded to a pure QUBO")
    nono.add_argument("--method", choices=["auto", "search"], default=None,
                      help="auto: propagation, then the model search and a complete search in turns "
                           "(with --no-complete, the model search alone); search: the source's model of the "
                           "whole puzzle, no propagation (default: auto for --formulation cons on the cpu or "
                           "auto backend, else search)")

    show = sub.add_parser("show", help="print a puzzle in another format")
    shown = show.add_subparsers(dest="puzzle", required=True)
    show_sl = shown.add_parser("slitherlink", help="print the board as rows of '.' and 0-3 (or --url)")
    show_sl.add_argument("file", help="puzzle file or puzz.link URL ('-' reads standard input)")
    show_sl.add_argument("--url", action="store_true", help="print the board's puzz.link URL instead")
    show_nono = shown.add_parser("nonogram", help="print the puzzle in the .non format")
    show_nono.add_argument("file", help="puzzle file ('-' reads standard input)")
    return parser


def _read(module, file: str):
    """The puzzle in ``file`` (``-``: standard input, whose bytes ``module.parse_bytes`` reads and locates)."""
    if file != "-":
        return module.parse(file)
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream without bytes (e.g. replaced in a test)
        return module.parse_text(sys.stdin.read(), "<stdin>")
    return module.parse_bytes(stream.read(), "<stdin>")


def _board(file: str):
    from .puzzles.slitherlink import board

    return _read(board, file)


def _nonogram(file: str):
    from .puzzles import nonogram

    return _read(nonogram, file)


def _check_backend(args) -> None:
    """Fail early, with the real reason, when --backend gpu has no GPU to run on."""
    if args.backend != "gpu":
        return
    from .solvers import gpu

    if not (gpu.is_available() or gpu.device_kind() == "simulator"):
        raise _UsageError("no CUDA GPU is available (numba finds no CUDA device or driver): "
                          "--backend gpu needs one; use --backend cpu")


class _UsageError(Exception):
    """An option that cannot work here; exit status 2."""


def _seconds(value):
    return None if value is None else round(float(value), 6)


def _timings(result) -> dict:
    timings = getattr(result, "timings", None) or {}
    return {"jit_seconds": _seconds(timings.get("jit_seconds")),
            "solve_seconds": _seconds(timings.get("solve_seconds"))}


#: Who proved "no answer", by the result's found_by.
_PROVERS = {"presolve": "the presolve", "sat": "SAT (CaDiCaL)",
            "backtrack": "backtracking", "search": "the exhaustive model search"}


def _unique_line(unique, why: str = "", stop_reason: str = "") -> str:
    if stop_reason == "no_answer":  # a proof that nothing satisfies the clues: not "unknown"
        return "unique: no answer"
    if unique is True:
        return "unique: yes"
    if unique is False:
        return "unique: no"
    return "unique: unknown" + (f" ({why})" if why else "")


class _Puzzle:
    """What the solve command needs to know of a puzzle: its reader, options, answer fields and drawings."""

    name = what = ""
    reader = None   # path -> the puzzle

    @classmethod
    def read(cls, args):
        return cls.reader(args.file)

    @staticmethod
    def options(args) -> dict:
        return dict(formulation=args.formulation, method=args.method)

    @staticmethod
    def first_line(result) -> str:
        return result.summary()

    @staticmethod
    def notes(puzzle, result, fields) -> list[str]:
        return []


class _Slitherlink(_Puzzle):
    name, what = "slitherlink", "drawing"
    reader = staticmethod(_board)

    @staticmethod
    def options(args) -> dict:
        extra = {} if args.max_iterations is None else {"max_iterations": args.max_iterations}
        if args.no_complete:
            extra["complete"] = False
        return dict(formulation=args.formulation, method=args.method, **extra)

    @staticmethod
    def fields(board, result) -> dict:
        second = result.second_answer
        second_hv = None
        if second is not None:
            h2, v2 = board.grid.to_hv(second)
            second_hv = {"h": h2, "v": v2}
        iterations = [{"iteration": it["iteration"], "energy": it["energy"], "loops": it["loops"],
                       "seconds": round(it["seconds"], 6)} for it in result.iterations]
        return {"h": result.h, "v": result.v, "iterations": iterations,
                "var_count": result.var_count, "term_count": result.term_count, "second_answer": second_hv}

    @staticmethod
    def render(board, fields) -> str:
        return _render_slitherlink(board, fields["h"], fields["v"])

    @staticmethod
    def render_second(board, fields) -> str:
        second = fields["second_answer"]
        return _render_slitherlink(board, second["h"], second["v"])

    @staticmethod
    def first_line(result) -> str:
        return result.summary().splitlines()[0]


class _Nonogram(_Puzzle):
    name, what = "nonogram", "grid"
    reader = staticmethod(_nonogram)

    @staticmethod
    def options(args) -> dict:
        if args.no_complete:   # the presolve (line solving, probing), then the model search: no SAT, no backtracking
            return dict(formulation=args.formulation, method=args.method, complete=False)
        return dict(formulation=args.formulation, method=args.method)

    @staticmethod
    def fields(puzzle, result) -> dict:
        second = result.second_answer
        return {"grid": list(result.grid) if result.grid else None, "energy": result.energy,
                "var_count": result.var_count, "term_count": result.term_count, "decided": result.decided,
                "second_answer": list(second) if second else None}

    @staticmethod
    def render(puzzle, fields) -> str:
        from .puzzles import nonogram

        return nonogram.render_text(fields["grid"]) if fields["grid"] else ""

    @staticmethod
    def render_second(puzzle, fields) -> str:
        from .puzzles import nonogram

        return nonogram.render_text(fields["second_answer"])

    @staticmethod
    def notes(puzzle, result, fields) -> list[str]:
        goal = getattr(puzzle, "goal", None)
        matches = None if goal is None or not result.grid else tuple(result.grid) == tuple(goal)
        fields["goal_matches"] = matches
        if matches is None:
            return []
        return ["goal: " + ("the answer matches the file's goal" if matches else "the answer differs from the file's goal")]


def _render_slitherlink(board, h, v) -> str:
    from .puzzles import slitherlink

    return slitherlink.render_text(board, h, v).rstrip("\n")


_PUZZLES = {"slitherlink": _Slitherlink, "nonogram": _Nonogram}


def _solve(args) -> tuple[dict, str, int]:
    """Read, solve and report one puzzle: the JSON payload, the text and the exit status."""
    import importlib

    kind = _PUZZLES[args.puzzle]
    from . import validate

    module = importlib.import_module(f"qlib.puzzles.{kind.name}")
    limit = validate.time_limit(args.time_limit)
    started = time.perf_counter()
    puzzle = kind.read(args)
    _check_backend(args)
    read_seconds = time.perf_counter() - started   # reading the file counts against --time-limit
    result = module.solve(puzzle, backend=args.backend, seed=args.seed, time_limit=max(limit - read_seconds, 1e-3),
                          check_unique=args.check_unique, **kind.options(args))
    interrupted = result.stop_reason == "interrupted"
    fields = kind.fields(puzzle, result)
    unique = result.unique if args.check_unique else None
    if not args.check_unique:
        fields["second_answer"] = None
    notes = kind.notes(puzzle, result, fields)
    payload = {"puzzle": kind.name, "file": args.file,
               "status": "interrupted" if interrupted else result.status,
               "stop_reason": result.stop_reason, "found_by": result.found_by,
               "seconds": round(result.seconds, 6), "read_seconds": round(read_seconds, 6), **_timings(result),
               "backend": result.backend, "seed": result.seed, "formulation": args.formulation, "method": result.method,
               **fields, "unique": unique}
    drawing = kind.render(puzzle, fields)
    lines = ([drawing] if drawing else []) + [kind.first_line(result)]
    if result.stop_reason == "no_answer":
        prover = _PROVERS.get(result.found_by, result.found_by)
        lines.append(f"no answer: {prover} proved that no {kind.what} satisfies every clue")
        if args.check_unique:
            lines.append(_unique_line(unique, stop_reason=result.stop_reason))
    elif args.check_unique and result.solved:
        why = "" if unique is not None else "interrupted" if interrupted else "the check ran out of time"
        line = _unique_line(unique, why)
        if fields["second_answer"] is not None:
            line += ", a second answer:\n" + kind.render_second(puzzle, fields)
        lines.append(line)
    lines += notes
    code = EXIT_INTERRUPTED if interrupted else EXIT_SOLVED if result.status == "solved" else EXIT_UNSOLVED
    return payload, "\n".join(lines), code


def _show(args) -> str:
    if args.puzzle == "slitherlink":
        board = _board(args.file)
        return board.to_url() if args.url else board.to_text().rstrip("\n")
    from .puzzles import nonogram

    return nonogram.to_non(_nonogram(args.file)).rstrip("\n")


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    startup.restore_ctrl_c()   # from here a Ctrl-C is a KeyboardInterrupt, handled below
    args = None
    try:
        args = _parser().parse_args(argv)
        if args.command == "show":
            print(_show(args))
            return EXIT_SOLVED
        payload, text, code = _solve(args)
        print(json.dumps(payload) if args.json else text, flush=True)
    except KeyboardInterrupt:  # Ctrl-C while the solver does not hand back a result
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not print a traceback now
        if args is None:   # while the command line was read
            line = startup.json_line(sys.argv[1:] if argv is None else list(argv))
            if line is not None:
                print(line, flush=True)
        elif getattr(args, "json", False):
            print(json.dumps({"puzzle": args.puzzle, "file": args.file, "status": "interrupted"}), flush=True)
        print("qlib: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (e.g. `qlib show ... | head`): nothing left to say
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_BROKEN_PIPE
    except _UsageError as error:
        print(f"qlib: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ValueError, OSError) as error:  # parse errors name the file, line and column
        print(f"qlib: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RuntimeError as error:  # e.g. a backend that fails to start
        print(f"qlib: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if code == EXIT_INTERRUPTED:
        print("qlib: interrupted", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
