"""A chapter in JupyterLab, in a real browser: its widget renders and reacts.

Starts JupyterLab from this Python (the project's ``.venv``) on a loopback port with a
token; opens ``loop_elimination.ipynb`` in headless Chromium driven by ChromeDriver (the
W3C WebDriver protocol, spoken over HTTP with urllib: no Python package needed); runs
every cell; checks that the iteration explorer renders as a widget (a slider, not the text
fallback ``VBox(...)``); moves the slider with the keyboard and checks that the kernel
rewrites the report and redraws the image.

JupyterLab is rooted at a stand-in for ``notebooks/``: a temporary folder holding a copy
of the chapter and links to the rest of ``notebooks/``, next to links to the rest of the
repository.  The chapter's relative paths (``../benchmarks/...``) resolve as usual, but
what the session writes (JupyterLab checkpoints the notebook it opens) stays out of the
tree, and a process that rewrites the chapter meanwhile does not disturb the run.
JupyterLab also gets fresh user settings (no autosave, no windowing, no news).

Needs Chromium and ChromeDriver (``make browser-deps``: ``/usr/bin/chromium``,
``/usr/bin/chromedriver``); without them the test is skipped, and with
``QLIB_REQUIRE_HTML=1`` (``make check-html``) it fails instead.  A screenshot of the lab
goes to ``_build/screenshots/lab-loop_elimination.png``.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
NOTEBOOK = NOTEBOOKS / "loop_elimination.ipynb"
WIDGET_CALL = "iteration_explorer("  # the source of the cell whose output is the widget
SHOTS = Path(os.environ.get("QLIB_SCREENSHOTS", ROOT / "_build" / "screenshots"))
CHROMIUM = os.environ.get("QLIB_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("QLIB_CHROMEDRIVER", "/usr/bin/chromedriver")
REQUIRE = os.environ.get("QLIB_REQUIRE_HTML") == "1"
# Generous limits: the check must pass on a loaded 2-core machine.
START_S, KERNEL_S, RUN_S, WIDGET_S = 180, 180, 420, 120
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # W3C WebDriver's key for an element reference
ARROW_RIGHT = "\ue014"

# Fresh user settings: no autosave, every cell in the DOM (no windowing), no news or
# update checks (the machine may be offline).
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
}


def _missing(reason: str):
    """Skip, or fail when QLIB_REQUIRE_HTML=1."""
    if REQUIRE:
        pytest.fail(f"{reason} (QLIB_REQUIRE_HTML=1 requires the browser checks to run)")
    pytest.skip(reason)


def _executable(path: str) -> bool:
    return Path(path).exists() and os.access(path, os.X_OK)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Abort(Exception):
    """Raised inside a :func:`wait_for` check: stop waiting, this will not get better."""


class NotYet(Exception):
    """Raised inside a :func:`wait_for` check: not yet; the message says what was seen."""


def wait_for(check, timeout: float, what: str, interval: float = 0.5):
    """Poll ``check()`` until it returns a truthy value (returned) or ``timeout`` s pass.

    Other errors of ``check`` count as "not yet" (the last one is reported); :class:`Abort`
    fails at once.
    """
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = check()
            if value:
                return value
            last = value
        except Abort as err:
            raise AssertionError(f"while waiting for {what}: {err}") from None
        except Exception as err:  # noqa: BLE001 - the last error goes into the message
            last = err
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")
        time.sleep(interval)


def _stop(process: subprocess.Popen, grace: float = 20):
    """Terminate a process started in its own session, then kill what is left of its group."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _stand_in(home: Path) -> Path:
    """The stand-in for notebooks/ described above; returns its path."""
    tree = home / "tree"
    tree.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != NOTEBOOKS.name:
            (tree / entry.name).symlink_to(entry)
    root = tree / NOTEBOOKS.name
    root.mkdir()
    for entry in NOTEBOOKS.iterdir():
        if entry.name not in (NOTEBOOK.name, ".ipynb_checkpoints"):
            (root / entry.name).symlink_to(entry)
    shutil.copy2(NOTEBOOK, root / NOTEBOOK.name)
    return root


def _http(method: str, url: str, body=None, timeout: float = 60):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode()
    except urllib.error.HTTPError as err:
        text = err.read().decode(errors="replace")
        raise RuntimeError(f"{method} {url}: HTTP {err.code}: {text[:2000]}") from None
    return json.loads(text) if text.strip() else None


# -----------------------------------------------------------------------------
# JupyterLab
# -----------------------------------------------------------------------------
class Lab:
    def __init__(self, base: str, token: str, process: subprocess.Popen, log: Path):
        self.base, self.token, self.process, self.log = base, token, process, log

    def api(self, method: str, path: str, body=None):
        sep = "&" if "?" in path else "?"
        return _http(method, f"{self.base}{path}{sep}token={self.token}", body)

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""


@pytest.fixture(scope="module")
def lab():
    """JupyterLab on 127.0.0.1 with a token, rooted at a stand-in for notebooks/; stopped at the end."""
    if importlib.util.find_spec("jupyterlab") is None:
        _missing("jupyterlab is not installed in this Python: run `make venv`")
    if not _executable(CHROMIUM) or not _executable(CHROMEDRIVER):
        _missing(f"no Chromium at {CHROMIUM} or ChromeDriver at {CHROMEDRIVER}: run `make browser-deps`")
    home = Path(tempfile.mkdtemp(prefix="qlib-lab-"))
    root = _stand_in(home)
    for name, value in LAB_SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    env = dict(os.environ,
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
               JUPYTER_CONFIG_DIR=str(home / "config"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               MPLBACKEND="module://matplotlib_inline.backend_inline")
    env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    port, token = _free_port(), secrets.token_hex(16)
    log = home / "lab.log"
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               "--port-retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
               "--LabApp.expose_app_in_browser=True"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI often run as root
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    server = Lab(f"http://127.0.0.1:{port}/", token, process, log)
    try:
        def answers():
            if process.poll() is not None:
                raise Abort(f"JupyterLab exited with {process.returncode}:\n{server.log_tail()}")
            return server.api("GET", "api/status") is not None

        try:
            wait_for(answers, START_S, f"JupyterLab to answer on port {port}", interval=1)
        except AssertionError as err:
            raise AssertionError(f"{err}\n{server.log_tail()}") from None
        yield server
    finally:
        try:  # kernels run in their own sessions: shut them down through the server first
            for kernel in server.api("GET", "api/kernels") or []:
                server.api("DELETE", f"api/kernels/{kernel['id']}")
        except Exception:  # noqa: BLE001 - the server may already be gone
            pass
        _stop(process)
        shutil.rmtree(home, ignore_errors=True)  # unlinks the links; what they point to stays


# -----------------------------------------------------------------------------
# The browser, through ChromeDriver
# -----------------------------------------------------------------------------
class Browser:
    """The few WebDriver commands the test needs."""

    def __init__(self, base: str, session: str):
        self.url = f"{base}session/{session}"

    def _cmd(self, method: str, path: str = "", body=None, timeout: float = 120):
        reply = _http(method, self.url + path, body, timeout=timeout)
        return None if reply is None else reply.get("value")

    def get(self, url: str):
        self._cmd("POST", "/url", {"url": url}, timeout=START_S)

    def js(self, script: str, *args):
        """Run ``script`` (a function body; ``arguments`` are ``args``) and return its value."""
        return self._cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def press(self, element: dict, text: str):
        self._cmd("POST", f"/element/{element[ELEMENT]}/value", {"text": text})

    def click(self, element: dict):
        self._cmd("POST", f"/element/{element[ELEMENT]}/click", {})

    def screenshot(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self._cmd("GET", "/screenshot")))


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium under ChromeDriver, with a fresh profile; closed at the end."""
    if not _executable(CHROMIUM) or not _executable(CHROMEDRIVER):
        _missing(f"no Chromium at {CHROMIUM} or ChromeDriver at {CHROMEDRIVER}: run `make browser-deps`")
    profile = tempfile.mkdtemp(prefix="qlib-chromedriver-")
    port = _free_port()
    driver = subprocess.Popen([CHROMEDRIVER, f"--port={port}", "--allowed-ips=127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}/"
    session = None
    try:
        wait_for(lambda: _http("GET", base + "status", timeout=5)["value"]["ready"], 60, "ChromeDriver")
        options = {"binary": CHROMIUM, "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--window-size=1400,1000", f"--user-data-dir={profile}"]}
        reply = _http("POST", base + "session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": options, "pageLoadStrategy": "normal",
            "timeouts": {"pageLoad": START_S * 1000, "script": 60_000, "implicit": 0}}}}, timeout=START_S)
        session = reply["value"]["sessionId"]
        yield Browser(base, session)
    finally:
        if session is not None:
            try:
                _http("DELETE", f"{base}session/{session}", timeout=30)
            except Exception:  # noqa: BLE001
                pass
        _stop(driver)
        shutil.rmtree(profile, ignore_errors=True)


# -----------------------------------------------------------------------------
# What the page says, read through window.jupyterapp (--LabApp.expose_app_in_browser)
# -----------------------------------------------------------------------------
_PANEL = """
const app = window.jupyterapp;
if (!app || !app.shell) { return null; }
const panel = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === arguments[0]);
if (!panel) { return null; }
"""

_KERNEL_READY = _PANEL + """
const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
return !!(kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle');
"""

_RUN_ALL = _PANEL + """
app.shell.activateById(panel.id);
window.__qlibRun = 'running';
app.commands.execute('notebook:run-all-cells').then(
  ok => { window.__qlibRun = 'done:' + ok; }, err => { window.__qlibRun = 'error:' + err; });
return true;
"""

# Progress of the run: the command's promise, the kernel's status and each code cell's count.
_RUN_STATE = _PANEL + """
const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
const cells = panel.content.widgets.filter(c => c.model.type === 'code');
const errors = [];
for (const cell of cells) {
  for (const out of cell.model.outputs.toJSON()) {
    if (out.output_type === 'error') { errors.push(out.ename + ': ' + out.evalue); }
  }
}
return {run: window.__qlibRun, kernel: kernel ? kernel.status : null,
        pending: cells.filter(c => c.model.executionCount === null).length, cells: cells.length, errors};
"""

# The widget cell's output: the slider's handle and readout, the report, the image.
_WIDGET = _PANEL + """
const cell = panel.content.widgets.find(c => c.model.type === 'code'
    && c.model.sharedModel.getSource().includes(arguments[1]));
if (!cell) { return {found: false}; }
const out = cell.node.querySelector('.jp-OutputArea');
const q = s => out ? out.querySelector(s) : null;
const slider = q('.widget-slider');
const handle = q('.widget-slider .noUi-handle');
const readout = q('.widget-slider .widget-readout');
const report = q('.widget-html-content');
const image = q('img.widget-image');
if (slider) { slider.scrollIntoView({block: 'center'}); }
return {found: true, executed: cell.model.executionCount, slider: !!slider, handle: handle,
        readout: readout ? readout.textContent.trim() : null,
        report: report ? report.textContent : null,
        image: image ? image.getAttribute('src') : null,
        text: out ? out.textContent.slice(0, 400) : null};
"""


def test_widget_renders_and_reacts_in_jupyterlab(lab, browser):
    name = NOTEBOOK.name
    shot = SHOTS / f"lab-{NOTEBOOK.stem}.png"
    try:
        browser.get(f"{lab.base}lab/tree/{name}?token={lab.token}")
        wait_for(lambda: browser.js(_KERNEL_READY, name), KERNEL_S,
                 f"{name} to open in JupyterLab with an idle kernel", interval=1)

        assert browser.js(_RUN_ALL, name), "the notebook panel went away before Run All Cells"

        def finished():
            state = browser.js(_RUN_STATE, name)
            if state["errors"]:
                raise Abort(f"a cell raised: {state['errors']}")
            if str(state["run"]).startswith("error"):
                raise Abort(f"Run All Cells failed: {state['run']}")
            if not (str(state["run"]).startswith("done") and state["kernel"] == "idle" and not state["pending"]):
                raise NotYet(state)
            return state

        state = wait_for(finished, RUN_S, "every cell to run", interval=2)
        assert state["cells"] > 0

        def rendered():
            w = browser.js(_WIDGET, name, WIDGET_CALL)
            if not w["found"]:
                raise Abort(f"no code cell calls {WIDGET_CALL!r} in {name}")
            if not (w["slider"] and w["handle"] and w["image"] and w["report"]):
                raise NotYet({k: v for k, v in w.items() if k != "handle"})
            return w

        widget = wait_for(rendered, WIDGET_S, "the iteration explorer to render as a widget")
        assert widget["executed"] is not None
        assert "VBox(" not in (widget["text"] or "") and "IntSlider(" not in (widget["text"] or ""), \
            f"the widget fell back to its text form: {widget['text']!r}"
        assert widget["readout"] == "1" and "iteration 1 of" in widget["report"], widget
        first_image, first_report = widget["image"], widget["report"]

        browser.press(widget["handle"], ARROW_RIGHT)  # focus the slider's handle, one step right

        def moved():
            w = browser.js(_WIDGET, name, WIDGET_CALL)
            if not (w["readout"] == "2" and "iteration 2 of" in (w["report"] or "")):
                raise NotYet({k: w[k] for k in ("readout", "report")})
            return w

        after = wait_for(moved, WIDGET_S, "the slider to move to iteration 2 and the report to follow")
        assert after["report"] != first_report
        wait_for(lambda: browser.js(_WIDGET, name, WIDGET_CALL)["image"] not in (None, first_image),
                 WIDGET_S, "the kernel to redraw the image for iteration 2")
    finally:
        try:
            browser.screenshot(shot)
        except Exception:  # noqa: BLE001 - a missing screenshot must not hide the real failure
            pass
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no PNG screenshot at {shot}"
