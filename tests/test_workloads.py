"""The bench's user workloads (benchmarks/boards): every answer passes check and equals the exact one.

Speed is the bench's business; these tests hold the answers to the references.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from qlib.puzzles import nonogram
from qlib.puzzles import slitherlink as sl
from qlib.puzzles.slitherlink import exact

BOARDS = Path(__file__).resolve().parent.parent / "benchmarks" / "boards"
MANIFEST = json.loads((BOARDS / "manifest.json").read_text())


def _entries(puzzle):
    return [e for e in MANIFEST["boards"] if e["puzzle"] == puzzle and (BOARDS / e["file"]).exists()]


SLITHERLINK = _entries("slitherlink")
NONOGRAM = _entries("nonogram")


def test_the_manifest_lists_every_family():
    families = {e["family"] for e in MANIFEST["boards"]}
    assert {"loopy", "qlib", "pattern", "random", "webpbn"} <= families
    assert max(e["rows"] for e in SLITHERLINK) == 60 and max(e["rows"] for e in NONOGRAM) == 50


@pytest.mark.slow
@pytest.mark.parametrize("entry", SLITHERLINK, ids=[e["file"] for e in SLITHERLINK])
def test_slitherlink_workload_answer_is_the_exact_one(entry):
    board = sl.parse(BOARDS / entry["file"])
    reference = exact.solve_exact(board, time_limit=60)
    assert reference.solved
    result = sl.solve(board, seed=1, time_limit=60)
    assert result.solved and sl.check(board, result.h, result.v) == []
    assert np.array_equal(board.grid.from_hv(result.h, result.v), reference.mask)   # unique, so equal


@pytest.mark.slow
@pytest.mark.parametrize("entry", NONOGRAM, ids=[e["file"] for e in NONOGRAM])
def test_nonogram_workload_answer_meets_every_clue(entry):
    puzzle = nonogram.parse(BOARDS / entry["file"])
    result = nonogram.solve(puzzle, seed=1, time_limit=60)
    assert result.solved and nonogram.check(puzzle, result.grid) == []
    count, status, grids = nonogram.count_solutions(puzzle, limit=2, time_limit=60)
    assert status in ("exact", "limit")
    if (count, status) == (1, "exact"):       # unique: the answer is the exact one
        assert tuple(result.grid) == tuple(grids[0])
