"""``qlib solve nonogram``: stop reasons and found_by in the JSON, "no answer", game IDs,
exit statuses (0 solved, 1 not solved, 2 bad input, 130 interrupted)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import qlib
from test_nonogram_solve import HARD_30

NO_ANSWER = "width 3\nheight 1\nrows\n1,1\ncolumns\n1\n1\n0\n"   # column 2 says 0, the row needs it


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "qlib", "solve", "nonogram", *args], capture_output=True,
                          text=True, input=stdin, timeout=300)


def test_json_says_why_it_stopped_and_who_found_it():
    out = run(str(qlib.data_path("nonogram-webpbn-6.non")), "--json", "--seed", "1", "--check-unique")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["status"], data["stop_reason"], data["found_by"], data["method"]) == \
        ("solved", "answer", "presolve", "auto")
    assert data["unique"] is True and data["goal_matches"] is True and data["decided"] == 1.0
    searched = json.loads(run(str(qlib.data_path("nonogram-15x15-qbpp-logo.non")), "--json", "--seed", "1",
                              "--method", "search").stdout)
    assert (searched["stop_reason"], searched["found_by"], searched["method"]) == ("answer", "search", "search")
    assert searched["var_count"] == 437 and searched["energy"] == 0


def test_no_answer_is_said_and_exits_1():
    out = run("-", "--check-unique", stdin=NO_ANSWER)
    assert out.returncode == 1, out.stderr
    assert "no answer: the presolve proved that no grid satisfies every clue" in out.stdout
    assert "unique: unknown" not in out.stdout and out.stdout.startswith("unsolved (no_answer")
    data = json.loads(run("-", "--json", stdin=NO_ANSWER).stdout)
    assert (data["status"], data["stop_reason"], data["found_by"], data["grid"]) == \
        ("unsolved", "no_answer", "presolve", None)


def test_game_ids_as_the_file_and_on_stdin():
    data = json.loads(run("4x4:2/1/2/1/1.1/2/1/1", "--json", "--seed", "0").stdout)
    assert data["status"] == "solved" and data["grid"][0][0] == "#"
    piped = json.loads(run("-", "--json", "--seed", "0", stdin="4x4:2/1/2/1/1.1/2/1/1\n").stdout)
    assert piped["grid"] == data["grid"]
    bad = run("4x4:2/1/2/1/1.1/2/1")
    assert bad.returncode == 2 and bad.stdout == ""
    assert "<game id>, line 1, column 20: expected 8 clues (4 columns, then 4 rows), found 7" in bad.stderr


def test_time_limit_exits_1(tmp_path):
    start = time.perf_counter()
    out = run(HARD_30, "--json", "--seed", "1", "--time-limit", "0.5", "--check-unique")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert (data["status"], data["stop_reason"], data["found_by"], data["unique"]) == \
        ("unsolved", "time_limit", None, None)
    assert data["solve_seconds"] < 0.5 * 1.1 + 0.05 + 0.5
    assert time.perf_counter() - start < 60


def test_ctrl_c_exits_130(tmp_path):
    path = tmp_path / "hard.txt"
    path.write_text(HARD_30 + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "qlib", "solve", "nonogram", str(path), "--time-limit", "60",
                             "--seed", "1", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    time.sleep(4)   # past the imports and the kernels' cache load, inside the search
    assert proc.poll() is None, proc.communicate()
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert time.perf_counter() - sent < 10
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "qlib: interrupted"
    data = json.loads(out)
    assert (data["status"], data["stop_reason"]) == ("interrupted", "interrupted")


def test_a_webpbn_xml_file_solves_from_the_cli(tmp_path):
    from test_formats_more import WEBPBN_1

    path = tmp_path / "webpbn-1.xml"
    path.write_text(WEBPBN_1)
    out = run(str(path), "--json", "--seed", "1", "--check-unique")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "solved" and data["unique"] is True and data["goal_matches"] is True
