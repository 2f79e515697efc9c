"""Every stored result names the commit it was made with, and is stale once the code it measured changes.

Whether each one still matches the code it measured is checked by ``make check-results``
(``QLIB_CHECK_RESULTS=1``), run with the remake before an issue that changed a measured module is
resolved, not at every commit: the book shows each result's commit meanwhile.
"""

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import provenance  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
STORED = ["experiments.json", "latest.json", "user.json", "qubo.json", "single_loop.json"]


@pytest.mark.parametrize("name", STORED)
def test_a_stored_result_records_its_commit_and_the_code_it_measured(name):
    stored = json.loads((RESULTS / name).read_text())
    assert len(stored["qlib"]["commit"]) == 40, f"{name} does not say which qlib commit made it"
    recorded = stored.get("measured", {})
    assert recorded.get("globs") and len(recorded.get("sha256", "")) == 64, f"{name} lacks its code's fingerprint"


@pytest.mark.skipif(os.environ.get("QLIB_CHECK_RESULTS") != "1",
                    reason="freshness of stored results: make check-results (before resolving an issue)")
@pytest.mark.parametrize("name", STORED)
def test_a_stored_result_matches_the_code_it_measured(name):
    stored = json.loads((RESULTS / name).read_text())
    now = provenance.code_fingerprint(name)
    recorded = stored.get("measured", {})
    assert recorded.get("globs") == now["globs"], f"{name} was made before its measured modules were listed"
    assert recorded.get("sha256") == now["sha256"], (
        f"benchmarks/results/{name} was measured with other code than this checkout's "
        f"({', '.join(now['globs'])}): regenerate it with `make results`")


def test_the_fingerprint_ignores_prose_and_sees_code(tmp_path, monkeypatch):
    module = tmp_path / "m.py"
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    monkeypatch.setitem(provenance.MEASURED, "x.json", ["m.py"])
    module.write_text('"""Doc."""\n\ndef f(x):\n    """What f does."""\n    return x + 1  # one\n')
    first = provenance.code_fingerprint("x.json")["sha256"]
    module.write_text('"""Other doc."""\n\ndef f(x):\n    """Said otherwise."""\n    return x + 1\n')
    assert provenance.code_fingerprint("x.json")["sha256"] == first
    module.write_text('"""Doc."""\n\ndef f(x):\n    return x + 2\n')
    assert provenance.code_fingerprint("x.json")["sha256"] != first


def test_a_bang_glob_takes_files_out_of_the_fingerprint(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    cpu, gpu = tmp_path / "pkg" / "cpu.py", tmp_path / "pkg" / "gpu.py"
    cpu.write_text("A = 1\n")
    gpu.write_text("B = 1\n")
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    monkeypatch.setitem(provenance.MEASURED, "x.json", ["pkg/*.py", "!pkg/gpu*.py"])
    first = provenance.code_fingerprint("x.json")
    assert first["files"] == 1
    gpu.write_text("B = 2\n")
    assert provenance.code_fingerprint("x.json")["sha256"] == first["sha256"]
    cpu.write_text("A = 2\n")
    assert provenance.code_fingerprint("x.json")["sha256"] != first["sha256"]


def test_no_stored_result_measures_the_gpu_backend():
    for name in STORED:
        files = {f.relative_to(provenance.ROOT).as_posix() for f in provenance.measured_files(name)}
        assert "qlib/solvers/sa/kernel.py" in files and "qlib/solvers/focused/kernel.py" in files
        assert not {f for f in files if f.rsplit("/", 1)[-1] in ("gpu.py", "gpu_kernel.py", "device.py")}
