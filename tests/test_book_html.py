"""The built HTML book, as a browser renders it.

Needs ``_build/html`` (``make book``) and headless Chromium at ``/usr/bin/chromium``
(``make browser-deps``); without either the tests are skipped, so ``make test``,
which runs before the book is built, passes.  ``QLIB_REQUIRE_HTML=1`` turns every
skip into a failure (for a check that runs after the build).

A local ``python -m http.server`` serves ``_build/html`` on 127.0.0.1; Chromium
loads each page listed in ``_toc.yml`` and dumps the DOM after scripts ran
(``--dump-dom`` with a virtual time budget, so MathJax has typeset the math).
Screenshots of two chapters go to ``_build/screenshots``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = os.environ.get("QLIB_CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("QLIB_REQUIRE_HTML") == "1"
SCREENSHOT_PAGES = ("notebooks/loop_elimination", "notebooks/nonogram_domain_walls")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
# What a failed cell leaves in myst-nb's HTML: the traceback text and its output classes.
ERROR_MARKERS = ("Traceback (most recent call last)", 'class="output traceback', 'class="output error')


def _missing(reason: str):
    """Skip, or fail when QLIB_REQUIRE_HTML=1."""
    if REQUIRE:
        pytest.fail(f"{reason} (QLIB_REQUIRE_HTML=1 requires the HTML check to run)")
    pytest.skip(reason)


def toc_pages() -> list[str]:
    """Every document named in ``_toc.yml`` (root first), without its suffix."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                pages.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return [str(Path(p).with_suffix("")) if Path(p).suffix in (".md", ".ipynb") else p for p in pages]


PAGES = toc_pages()


def notebook_has_figures(page: str) -> bool:
    """Whether the page's source notebook holds an image output (then its HTML must show one)."""
    path = ROOT / f"{page}.ipynb"
    if not path.exists():
        return False
    nb = json.loads(path.read_text())
    return any("image/png" in out.get("data", {}) or "image/svg+xml" in out.get("data", {})
               for cell in nb.get("cells", []) for out in cell.get("outputs", []))


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.append(dict(attrs).get("src") or "")


# -----------------------------------------------------------------------------
# The server and the browser
# -----------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def site():
    """Base URL of ``_build/html`` served on 127.0.0.1."""
    if not (HTML / "index.html").exists():
        _missing(f"no built book at {HTML / 'index.html'}: run `make book` first")
    if not (Path(CHROMIUM).exists() and os.access(CHROMIUM, os.X_OK)):
        _missing(f"no Chromium at {CHROMIUM}: run `make browser-deps`")
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(HTML)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(base + "index.html", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"http.server on port {port} did not start") from None
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def chromium(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    """Run headless Chromium with a fresh profile directory."""
    profile = tempfile.mkdtemp(prefix="qlib-chromium-")
    try:
        return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


_DOMS: dict[str, str] = {}


def dom(site: str, page: str) -> str:
    """The rendered DOM of a page (cached per test session)."""
    if page not in _DOMS:
        result = chromium("--virtual-time-budget=10000", "--dump-dom", site + page + ".html")
        assert result.returncode == 0, f"chromium failed on {page}: {result.stderr[-2000:]}"
        _DOMS[page] = result.stdout
    return _DOMS[page]


# -----------------------------------------------------------------------------
# Tests
# -----------------------------------------------------------------------------
def test_toc_lists_pages():
    assert PAGES, "_toc.yml names no page"
    assert len(PAGES) == len(set(PAGES)), "a page is listed twice in _toc.yml"


@pytest.mark.parametrize("page", PAGES)
def test_page_built(site, page):
    assert (HTML / f"{page}.html").is_file(), f"{page} is in _toc.yml but {page}.html was not built"


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_without_errors(site, page):
    if not (HTML / f"{page}.html").is_file():
        pytest.fail(f"{page}.html was not built")
    html = dom(site, page)
    assert "<main" in html and "</html>" in html, f"{page}: the browser returned no complete page"
    found = [m for m in ERROR_MARKERS if m in html]
    assert not found, f"{page}: the rendered page shows an error output ({', '.join(found)})"


@pytest.mark.parametrize("page", [p for p in PAGES if notebook_has_figures(p)])
def test_figures_are_shown(site, page):
    html = dom(site, page)
    parser = _Images()
    parser.feed(html)
    url = site + page + ".html"
    figures = [s for s in parser.srcs if s and not s.startswith("data:")]
    assert figures, f"{page}: the notebook has figure outputs but the page shows no <img>"
    for src in figures:
        target = urlparse(urljoin(url, src))
        if target.netloc != urlparse(site).netloc:
            continue  # an external image (none expected; the book builds offline)
        path = HTML / unquote(target.path).lstrip("/")
        assert path.is_file(), f"{page}: <img src={src!r}> points to a missing file {path}"
        assert path.stat().st_size > 0, f"{page}: {path} is empty"


def test_mathjax_renders_on_intro(site):
    html = dom(site, PAGES[0])
    assert "mjx-container" in html, "MathJax did not typeset the intro page (no <mjx-container>)"


@pytest.mark.parametrize("page", SCREENSHOT_PAGES)
def test_screenshot(site, page):
    if page not in PAGES:
        _missing(f"{page} is not in _toc.yml")
    SHOTS.mkdir(parents=True, exist_ok=True)
    out = SHOTS / f"{Path(page).name}.png"
    out.unlink(missing_ok=True)
    result = chromium(f"--screenshot={out}", "--window-size=1280,2000", "--hide-scrollbars",
                      "--virtual-time-budget=10000", site + page + ".html")
    assert result.returncode == 0, f"chromium failed: {result.stderr[-2000:]}"
    assert out.is_file() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no PNG screenshot at {out}"
    assert out.stat().st_size > 10_000, f"{out} is suspiciously small (a blank page?)"
