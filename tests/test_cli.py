"""The command line: answers, JSON, exit statuses and errors."""

import json
import subprocess
import textwrap
import sys

import qlib


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "qlib", *args], capture_output=True, text=True, input=stdin,
                          timeout=300)


def test_slitherlink_json_in_both_forms():
    path = str(qlib.data_path("slitherlink-10x10-qbpp.txt"))
    for extra, method in (([], "lazy"), (["--method", "outer", "--formulation", "inequality"], "outer"),
                          (["--formulation", "cells", "--method", "outer"], "outer")):
        out = run("solve", "slitherlink", path, "--seed", "3", "--json", *extra)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        assert data["method"] == method
        assert data["puzzle"] == "slitherlink" and data["status"] == "solved" and data["seed"] == 3
        assert len(data["h"]) == 11 and len(data["h"][0]) == 10 and len(data["v"]) == 10 and len(data["v"][0]) == 11
        assert sum(map(sum, data["h"])) + sum(map(sum, data["v"])) == 64
        assert data["backend"] == "cpu"
        if method == "outer":
            assert data["iterations"] and data["found_by"] == "search"
        else:   # the default: SAT's first turn answers this board before any model is built
            assert data["iterations"] == [] and data["found_by"] == "sat"


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


# -- Ctrl-C, --backend gpu, --check-unique, timings, show --------------------------------
import os  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402

from qlib.solvers import gpu  # noqa: E402

TWO_ANSWERS = "width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n1\n"


def test_ctrl_c_while_numba_compiles_exits_130(tmp_path):
    """An empty numba cache: the interrupt lands in the compile, which finishes first, then exit 130."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cold-cache")}
    proc = subprocess.Popen([sys.executable, "-m", "qlib", "solve", "slitherlink",
                             str(qlib.data_path("slitherlink-5x5-blog-ex1.txt")), "--seed", "1", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)   # past the imports, inside the first compiles (they take tens of seconds cold)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "qlib: interrupted"
    assert json.loads(out)["status"] == "interrupted"


def test_ctrl_c_during_a_compile_is_raised_after_it():
    """SIGINT inside numba's compiler lock is held, then raised once the compile is done."""
    import numba
    from numba.core import event

    @numba.njit   # no cache: compiles on the first call
    def triple(x):
        return 3 * x

    class Interrupt(event.Listener):
        def on_start(self, ev):
            if not self.sent:
                self.sent = True
                os.kill(os.getpid(), signal.SIGINT)
        def on_end(self, ev):
            pass
    listener = Interrupt()
    listener.sent = False
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)   # also when the run ignores SIGINT
    try:
        with event.install_listener("numba:compile", listener):
            with pytest.raises(KeyboardInterrupt):
                triple(2)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler   # the hold gave back the handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert listener.sent
    assert len(triple.signatures) == 1   # raised after the compile had finished, not inside it
    assert triple(2) == 6


IMPORT_INTERRUPTED = textwrap.dedent("""
    import os, signal, sys
    class SendCtrlC:   # a Ctrl-C the moment numba starts importing, inside `import qlib`
        def find_spec(self, name, path=None, target=None):
            if name == "numba":
                os.kill(os.getpid(), signal.SIGINT)
            return None
    sys.meta_path.insert(0, SendCtrlC())
    sys.argv = [{argv0!r}, "solve", "slitherlink", "x.txt", *{extra!r}]
    from qlib.cli import main
    print("not interrupted")
""")


@pytest.mark.parametrize("argv0, extra", [("/usr/local/bin/qlib", []), ("/usr/local/bin/qlib", ["--json"]),
                                         ("-c", [])])
def test_ctrl_c_while_the_command_imports_exits_130_in_one_line(argv0, extra):
    """Under the command, a Ctrl-C during the package's imports says "qlib: interrupted" and exits 130
    (with ``--json``, after the JSON line of an interrupted solve); a library import (here:
    ``python -c``) keeps Python's KeyboardInterrupt."""
    proc = subprocess.run([sys.executable, "-c", IMPORT_INTERRUPTED.format(argv0=argv0, extra=extra)],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if argv0 == "-c":
        assert "KeyboardInterrupt" in proc.stderr and proc.returncode != 130
    elif extra:
        assert (proc.returncode, proc.stderr) == (130, "qlib: interrupted\n")
        assert json.loads(proc.stdout) == {"puzzle": "slitherlink", "file": "x.txt", "status": "interrupted"}
    else:
        assert (proc.returncode, proc.stderr, proc.stdout) == (130, "qlib: interrupted\n", "")


def test_ctrl_c_exits_130_without_a_traceback():
    path = str(qlib.data_path("slitherlink-20x20-gen-s1.txt"))
    for extra in ([], ["--json"]):
        # SIGINT as a terminal sends it; the child gets the default handler even when the
        # test runs in the background of a non-interactive shell, where SIGINT is ignored
        proc = subprocess.Popen([sys.executable, "-m", "qlib", "solve", "slitherlink", path, "--form", "hubo",
                                 "--method", "lazy", "--time-limit", "30", "--seed", "1", *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(3)
        assert proc.poll() is None, proc.communicate()
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert time.perf_counter() - sent < 10
        assert "Traceback" not in err and err.strip().splitlines()[-1] == "qlib: interrupted"
        if extra:
            data = json.loads(out)
            assert data["status"] == "interrupted"
            if "h" in data:  # the solver handed back its best state so far
                assert len(data["h"]) == 21 and len(data["v"]) == 20


@pytest.mark.skipif(gpu.device_kind() is not None, reason="this machine has a GPU (or the simulator is on)")
def test_backend_gpu_without_a_gpu_says_so():
    for kind, name in (("slitherlink", "slitherlink-5x5-blog-ex1.txt"), ("nonogram", "nonogram-15x15-qbpp-logo.non")):
        out = run("solve", kind, str(qlib.data_path(name)), "--backend", "gpu")
        assert out.returncode == 2 and out.stdout == ""
        assert "no CUDA GPU is available" in out.stderr and "lazy" not in out.stderr
        assert "Traceback" not in out.stderr


def test_nonogram_check_unique_two_answers(tmp_path):
    path = tmp_path / "two.non"
    path.write_text(TWO_ANSWERS)
    out = run("solve", "nonogram", str(path), "--check-unique", "--json", "--seed", "1", "--time-limit", "20")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "solved" and data["unique"] is False
    assert sorted([data["grid"], data["second_answer"]]) == [["#.", ".#"], [".#", "#."]]
    text = run("solve", "nonogram", str(path), "--check-unique", "--seed", "1", "--time-limit", "20")
    assert text.returncode == 0 and "unique: no, a second answer:" in text.stdout


def test_nonogram_check_unique_logo_and_goal(tmp_path):
    out = run("solve", "nonogram", str(qlib.data_path("nonogram-15x15-qbpp-logo.non")), "--check-unique",
              "--json", "--seed", "1")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["unique"] is True and data["second_answer"] is None and data["goal_matches"] is None
    path = tmp_path / "goal.non"
    path.write_text(TWO_ANSWERS + 'goal "1001"\n')
    data = json.loads(run("solve", "nonogram", str(path), "--json", "--seed", "1", "--time-limit", "20").stdout)
    assert data["goal_matches"] is (data["grid"] == ["#.", ".#"])
    assert data["unique"] is None and "second_answer" in data


def test_slitherlink_check_unique():
    out = run("solve", "slitherlink", "-", "--check-unique", "--json", "--seed", "1", "--time-limit", "20",
              stdin="3.\n..\n")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "solved"
    assert data["unique"] is False and data["second_answer"] is not None     # "3." has two answers
    assert data["second_answer"] != {"h": data["h"], "v": data["v"]}
    assert len(data["second_answer"]["h"]) == 3 and len(data["second_answer"]["v"]) == 2
    out = run("solve", "slitherlink", str(qlib.data_path("slitherlink-5x5-blog-ex1.txt")), "--check-unique",
              "--seed", "1", "--time-limit", "20")
    assert out.returncode == 0 and "unique: yes" in out.stdout                 # the blog's board is unique


def test_json_has_jit_and_solve_seconds():
    for args in (("slitherlink", str(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))),
                 ("nonogram", str(qlib.data_path("nonogram-15x15-qbpp-logo.non")))):
        data = json.loads(run("solve", *args, "--json", "--seed", "1").stdout)
        assert data["status"] == "solved"
        for key in ("seconds", "jit_seconds", "solve_seconds"):
            assert isinstance(data[key], float) and data[key] >= 0, key
        assert data["solve_seconds"] <= data["seconds"] + 1e-6


def test_show_slitherlink_text_and_url():
    path = str(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))
    out = run("show", "slitherlink", path)
    assert out.returncode == 0 and out.stdout == qlib.data_path("slitherlink-5x5-blog-ex1.txt").read_text()
    url = run("show", "slitherlink", path, "--url").stdout.strip()
    assert url.startswith("https://puzz.link/p?slither/5/5/")
    back = run("show", "slitherlink", url)
    assert back.returncode == 0 and back.stdout == out.stdout
    vector = run("show", "slitherlink", "puzz.link/p?slither/5/5/cbcbcddad")
    assert vector.stdout.split() == ["2..1.", ".2..1", "..2..", "3..3.", ".0..3"]
    bad = run("show", "slitherlink", "https://puzz.link/p?slither/5/5/cbcFcddad")
    assert bad.returncode == 2 and "<url>, line 1, column 36" in bad.stderr and "'F'" in bad.stderr
    non = run("show", "nonogram", str(qlib.data_path("nonogram-15x15-qbpp-logo.non")))
    assert non.returncode == 0 and non.stdout.startswith('catalogue "QUBO++ logo')


def test_solve_accepts_a_url():
    out = run("solve", "slitherlink", "https://puzz.link/p?slither/5/5/cbcbcddad", "--json", "--seed", "1",
              "--time-limit", "20")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["status"] == "solved"


def test_input_errors_name_file_line_and_column(tmp_path):
    out = subprocess.run([sys.executable, "-m", "qlib", "solve", "nonogram", "-"], input=b"width 2\n\xff\n",
                         capture_output=True, timeout=300)
    assert out.returncode == 2 and b"<stdin>, line 2, column 1: byte 0xff is not UTF-8" in out.stderr
    out = run("solve", "nonogram", "x.non")
    assert out.returncode == 2 and "x.non: no such file" in out.stderr
    out = run("solve", "slitherlink", str(tmp_path))
    assert out.returncode == 2 and "is a directory" in out.stderr
    long_text = ".0" * 200
    out = run("solve", "slitherlink", long_text)
    assert out.returncode == 2 and "Traceback" not in out.stderr and "cannot be read" in out.stderr
    assert os.path.exists(tmp_path)
