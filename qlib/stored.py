"""The benchmarks' stored results, found from any working directory.

The book's chapters read the runs that ``benchmarks/`` stored in
``benchmarks/results/*.json`` (``make results`` remakes them).  A notebook may run
from ``notebooks/``, from the repository's root or from anywhere else, so the
folder is looked up rather than written as a relative path: first in the working
directory and its parents, then beside the checkout qlib itself runs from.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["results_dir", "load", "provenance"]

_RESULTS = Path("benchmarks") / "results"


def results_dir() -> Path:
    """The ``benchmarks/results`` folder: of the working directory's checkout, else of qlib's own."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents, Path(__file__).resolve().parents[1]):
        if (folder / _RESULTS).is_dir():
            return folder / _RESULTS
    raise FileNotFoundError(f"no {_RESULTS} folder in {here} or its parents, nor beside qlib "
                            f"({Path(__file__).resolve().parents[1]}): run the book from a qlib checkout")


def load(name: str) -> dict:
    """The stored result ``name`` (``"user"`` or ``"user.json"``), as the JSON object the bench wrote."""
    path = results_dir() / (name if name.endswith(".json") else f"{name}.json")
    if not path.is_file():
        stored = sorted(p.stem for p in path.parent.glob("*.json"))
        raise FileNotFoundError(f"no stored result {path.name} in {path.parent}; stored: {', '.join(stored)}")
    return json.loads(path.read_text())


def provenance(result: dict) -> str:
    """One line: the command that made ``result``, when, and qlib's commit (the first 10 digits)."""
    qlib = result.get("qlib") or {}
    commit = str(qlib.get("commit", "unknown"))[:10]
    parts = [f"command: {result['command']}" if "command" in result else None,
             result.get("date"), f"qlib {commit}" + (" (with local changes)" if qlib.get("dirty") else "")]
    return " | ".join(p for p in parts if p)
