"""What a stored result was made with: the qlib git commit (and whether the tree was dirty), the machine."""

from __future__ import annotations

import ast
import hashlib
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str | None:
    try:
        res = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.rstrip("\n") if res.returncode == 0 else None


def qlib_commit() -> dict:
    """``{"commit": HEAD's hash or None, "dirty": tracked files differ from it, "changed": those files}``.

    ``dirty`` is None when git cannot tell (no git, not a checkout).  Untracked files
    do not make the tree dirty (results and boards are written there).
    """
    commit = _git("rev-parse", "HEAD")
    commit = commit.strip() if commit else None
    status = _git("status", "--porcelain", "--untracked-files=no")
    changed = [line[3:] for line in status.splitlines() if line.strip()] if status else []
    return dict(commit=commit, dirty=None if status is None else bool(changed), changed=changed[:50])


#: The code each stored result measures, as globs under the repository root: the model building and
#: the searches whose results and times it stores (readers, drawings and widgets are not measured).  A
#: change to any of these modules (docstrings aside) makes the stored file stale
#: (tests/test_stored_results.py).  A glob starting with "!" takes files out: the GPU backend, which no
#: stored result runs (benchmarks/gpu.py's file records its commit only).
_CORE = ["qlib/solvers/*.py", "qlib/solvers/sa/*.py", "qlib/solvers/focused/*.py", "!qlib/solvers/gpu*.py",
         "!qlib/solvers/*/gpu.py", "!qlib/solvers/device.py", "qlib/stop.py", "qlib/compile.py", "qlib/expr.py", "qlib/constraints.py",
         "qlib/expand.py", "qlib/puzzles/loops.py", "qlib/puzzles/count.py", "qlib/puzzles/result.py",
         "qlib/puzzles/portfolio.py"]
_SLITHERLINK = [f"qlib/puzzles/slitherlink/{m}.py" for m in
                ("solve", "rules", "presolve", "counter", "propagation", "branching", "exact", "formulation",
                 "model", "separation", "rings")] + ["qlib/puzzles/sat.py", "qlib/puzzles/clock.py"]
_NONOGRAM = [f"qlib/puzzles/nonogram/{m}.py" for m in ("solver", "engine", "lines", "placements", "model", "count",
                                                         "rules", "exact")]
MEASURED = {
    "qubo.json": _CORE + ["qlib/dimod.py", "benchmarks/qubo.py", "benchmarks/qubo_workloads.py"],
    "experiments.json": _CORE + _SLITHERLINK + ["qlib/puzzles/slitherlink/sweep.py", "qlib/sweep.py",
                                                "benchmarks/experiments.py"],
    "bench": _CORE + _SLITHERLINK + _NONOGRAM + ["benchmarks/run.py", "benchmarks/workloads.py",
                                                 "benchmarks/peers.py", "benchmarks/nonogram_sat.py"],
}
MEASURED["latest.json"] = MEASURED["user.json"] = MEASURED["bench"]
MEASURED["single_loop.json"] = _CORE + _SLITHERLINK + ["qlib/puzzles/slitherlink/single_loop.py",
                                                       "qlib/puzzles/slitherlink/generator.py",
                                                       "benchmarks/single_loop.py"]


def _code(path: Path) -> str:
    """The module's code without docstrings and comments (its AST), so that prose edits keep a result fresh."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def measured_files(name: str) -> list[Path]:
    """The files stored result ``name`` measures: its globs' files less those of its "!" globs."""
    globs = MEASURED[name]
    left_out = {f for g in globs if g.startswith("!") for f in ROOT.glob(g[1:])}
    return sorted({f for g in globs if not g.startswith("!") for f in ROOT.glob(g) if f.is_file()} - left_out)


def code_fingerprint(name: str) -> dict:
    """``{"globs": ..., "sha256": ...}`` of the code stored result ``name`` measures (:data:`MEASURED`)."""
    globs = MEASURED[name]
    files = measured_files(name)
    digest = hashlib.sha256()
    for f in files:
        digest.update(str(f.relative_to(ROOT)).encode() + b"\0" + _code(f).encode() + b"\0")
    return dict(globs=globs, files=len(files), sha256=digest.hexdigest())


def machine() -> dict:
    return dict(platform=platform.platform(), cpus=os.cpu_count(), python=platform.python_version())


def sgt_version(program: str = "sgt-loopy") -> str | None:
    """The sgt-puzzles version line (``Version 20230122.806ae71 (Debian package ...)``), or None."""
    path = find_sgt(program)
    if path is None:
        return None
    try:
        res = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line for line in (res.stdout + res.stderr).splitlines() if line.startswith("Version")]
    return lines[0] if lines else None


def find_sgt(program: str) -> str | None:
    """The path of an sgt-puzzles program (Debian installs them in /usr/games), or None."""
    import shutil

    return shutil.which(program) or shutil.which(program, path="/usr/games")
