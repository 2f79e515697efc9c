"""What a stored result was made with: the qlib git commit (and whether the tree was dirty), the machine."""

from __future__ import annotations

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
