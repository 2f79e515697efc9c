"""The command line: answers, JSON, exit statuses and errors."""

import json
import subprocess
import sys

import qlib


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "qlib", *args], capture_output=True, text=True, input=stdin,
                          timeout=300)


def test_slitherlink_json_in_both_forms():
    path = str(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    for extra, method in (([], "lazy"), (["--method", "outer", "--form", "inequality"], "outer"),
                          (["--form", "cells"], "outer")):
        out = run("solve", "slitherlink", path, "--seed", "3", "--json", *extra)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        assert data["method"] == method
        assert data["puzzle"] == "slitherlink" and data["status"] == "solved" and data["seed"] == 3
        assert len(data["h"]) == 11 and len(data["h"][0]) == 10 and len(data["v"]) == 10 and len(data["v"][0]) == 11
        assert sum(map(sum, data["h"])) + sum(map(sum, data["v"])) == 64
        assert data["iterations"] and data["backend"] == "cpu"


def test_nonogram_text_output():
    out = run("solve", "nonogram", str(qlib.data_path("nonogram-15x15-qbpp-logo.non")), "--seed", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "....#######...." and lines[14] == "............###"
    assert lines[15].startswith("solved")


def test_bad_input_exits_2_with_the_line():
    out = run("solve", "slitherlink", "-", stdin="..3\n.x.\n")
    assert out.returncode == 2 and "line 2" in out.stderr and out.stdout == ""


def test_unsolved_exits_1():
    out = run("solve", "slitherlink", "-", "--time-limit", "1", "--json", stdin="00\n03\n")
    assert out.returncode == 1
    assert json.loads(out.stdout)["status"] == "unsolved"
