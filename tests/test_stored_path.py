"""qlib.stored finds the stored results from any working directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import qlib

ROOT = Path(__file__).resolve().parents[1]


def test_the_results_are_found_from_any_working_directory(tmp_path, monkeypatch):
    expected = ROOT / "benchmarks" / "results"
    for where in (ROOT, ROOT / "notebooks", tmp_path):   # tmp_path: outside the checkout, beside qlib's
        monkeypatch.chdir(where)
        assert qlib.stored.results_dir().resolve() == expected.resolve()
    monkeypatch.chdir(ROOT / "notebooks")
    user = qlib.stored.load("user")
    assert user == json.loads((expected / "user.json").read_text()) == qlib.stored.load("user.json")
    line = qlib.stored.provenance(user)
    assert user["command"] in line and user["qlib"]["commit"][:10] in line


def test_a_checkout_in_the_working_directory_comes_first(tmp_path, monkeypatch):
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    (results / "mine.json").write_text(json.dumps({"command": "x", "qlib": {"commit": "0123456789abc"}}))
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    assert qlib.stored.load("mine")["command"] == "x"
    assert qlib.stored.provenance(qlib.stored.load("mine")) == "command: x | qlib 0123456789"
    with pytest.raises(FileNotFoundError, match="no stored result user.json .*stored: mine"):
        qlib.stored.load("user")
