"""The built HTML book, as a browser renders it.

Needs ``_build/html`` (``make book``; ``QLIB_BOOK_HTML`` points elsewhere) and headless
Chromium at ``/usr/bin/chromium`` (``make browser-deps``); without either the tests are
skipped, so ``make test``, which runs before the book is built, passes.
``QLIB_REQUIRE_HTML=1`` turns every skip into a failure (for a check that runs after the
build).

A local ``python -m http.server`` serves the HTML on 127.0.0.1; Chromium loads every page
that ``_toc.yml`` lists (read when the tests are collected) and dumps the DOM after
scripts ran (``--dump-dom`` with a virtual time budget, so MathJax has typeset the math).
Each page must load and show no error output, no "NBVAL" text, no raw MyST (a directive
or role the build left as text), only numbered figures ("Fig. N" captions) and only
typeset math.  A screenshot of every page goes to ``_build/screenshots`` (next to the
HTML folder; ``QLIB_SCREENSHOTS`` overrides it).
"""

from __future__ import annotations

import json
import os
import re
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

from toc import toc_files

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("QLIB_BOOK_HTML", ROOT / "_build" / "html")).resolve()
SHOTS = Path(os.environ.get("QLIB_SCREENSHOTS", HTML.parent / "screenshots"))
CHROMIUM = os.environ.get("QLIB_CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("QLIB_REQUIRE_HTML") == "1"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
# What a failed cell leaves in myst-nb's HTML: the traceback text and its output classes.
ERROR_MARKERS = ("Traceback (most recent call last)", 'class="output traceback', 'class="output error')
# MyST that the build did not turn into HTML: a fenced or colon-fenced directive, or a role.
RAW_MYST = re.compile(r"```\{|:::\{|\{(?:numref|doc|ref|eq|term|math|download|abbr|glue(?::\w+)?|cite(?::\w+)?"
                      r"|prf:\w+|include|figure|exercise|solution|solution-start|solution-end|admonition"
                      r"|note|tip|warning|code-cell|bibliography)\}")
# TeX that MathJax did not typeset, in prose (code, pre and typeset math removed first).
RAW_TEX = re.compile(r"\$\$|\\\(|\\\[|\\begin\{|\$[^$\n]*[\\^_][^$\n]*\$")
FIGURE_NUMBER = re.compile(r"^Fig\. \d+(\.\d+)*$")


def _missing(reason: str):
    """Skip, or fail when QLIB_REQUIRE_HTML=1."""
    if REQUIRE:
        pytest.fail(f"{reason} (QLIB_REQUIRE_HTML=1 requires the HTML check to run)")
    pytest.skip(reason)


def toc_pages() -> list[str]:
    """Every document named in ``_toc.yml`` (root first), without its suffix."""
    return [str(Path(p).with_suffix("")) if Path(p).suffix in (".md", ".ipynb") else p for p in toc_files()]


PAGES = toc_pages()


def notebook_has_figures(page: str) -> bool:
    """Whether the page's source notebook holds an image output (then its HTML must show one)."""
    path = ROOT / f"{page}.ipynb"
    if not path.exists():
        return False
    nb = json.loads(path.read_text())
    return any("image/png" in out.get("data", {}) or "image/svg+xml" in out.get("data", {})
               for cell in nb.get("cells", []) for out in cell.get("outputs", []))


def _soup(html: str):
    from bs4 import BeautifulSoup  # a dependency of the book's theme (and of nbconvert)

    return BeautifulSoup(html, "html.parser")


def _main(soup):
    """The page's content (the theme's <main>), without scripts and styles."""
    main = soup.find("main") or soup
    for tag in main.find_all(["script", "style", "noscript"]):
        tag.decompose()
    return main


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


def screenshot_path(page: str) -> Path:
    return SHOTS / f"{Path(page).name}.png"


def dom(site: str, page: str) -> str:
    """The rendered DOM of a page (cached per test session).

    The same Chromium run writes the page's screenshot (1280 x 2000 pixels, the top of the page).
    """
    if page not in _DOMS:
        if not (HTML / f"{page}.html").is_file():
            pytest.fail(f"{page} is in _toc.yml but {page}.html was not built")
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = screenshot_path(page)
        shot.unlink(missing_ok=True)
        result = chromium("--virtual-time-budget=10000", "--window-size=1280,2000", "--hide-scrollbars",
                          f"--screenshot={shot}", "--dump-dom", site + page + ".html")
        assert result.returncode == 0, f"chromium failed on {page}: {result.stderr[-2000:]}"
        _DOMS[page] = result.stdout
    return _DOMS[page]


# -----------------------------------------------------------------------------
# Tests
# -----------------------------------------------------------------------------
def test_toc_lists_pages():
    assert PAGES, "_toc.yml names no page"
    assert len(PAGES) == len(set(PAGES)), "a page is listed twice in _toc.yml"
    shots = [screenshot_path(p).name for p in PAGES]
    assert len(shots) == len(set(shots)), f"two pages would share a screenshot name: {sorted(shots)}"


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


@pytest.mark.parametrize("page", PAGES)
def test_no_nbval_text(site, page):
    html = dom(site, page)  # hidden inputs are in the DOM too: a "# NBVAL_..." comment shows up here
    at = html.find("NBVAL")
    assert at < 0, f"{page}: 'NBVAL' in the page: ...{html[max(0, at - 80):at + 80]}..."


@pytest.mark.parametrize("page", PAGES)
def test_no_raw_myst(site, page):
    main = _main(_soup(dom(site, page)))
    for source in main.select(".cell_input"):  # code may hold braces; MyST leaks into prose and outputs
        source.decompose()
    text = main.get_text(" ")
    found = sorted({m.group(0) for m in RAW_MYST.finditer(text)})
    assert not found, f"{page}: MyST left as text: {found}"


@pytest.mark.parametrize("page", PAGES)
def test_figures_have_numbered_captions(site, page):
    main = _main(_soup(dom(site, page)))
    problems = []
    for figure in main.find_all("figure"):
        number = figure.select_one("figcaption .caption-number")
        text = number.get_text(strip=True) if number else ""
        if not FIGURE_NUMBER.match(text):
            problems.append(f"figure {figure.get('id') or figure.img and figure.img.get('src')!r} has "
                            f"caption number {text!r}, expected 'Fig. N'")
    for img in main.find_all("img"):
        if img.find_parent("figure") is None:
            problems.append(f"<img src={img.get('src', '')[:80]!r}> is not a captioned figure")
    assert not problems, f"{page}: " + "; ".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_math_is_typeset(site, page):
    main = _main(_soup(dom(site, page)))
    math = main.select(".math")
    untypeset = [m.get_text(" ", strip=True)[:60] for m in math if m.find("mjx-container") is None]
    assert not untypeset, f"{page}: {len(untypeset)} of {len(math)} formulas not typeset by MathJax: {untypeset[:5]}"
    for tag in main.find_all(["pre", "code", "mjx-container", "script", "style"]):
        tag.decompose()
    for tag in main.select(".math, .cell_input, .cell_output"):
        tag.decompose()
    raw = sorted({m.group(0)[:40] for m in RAW_TEX.finditer(main.get_text(" "))})
    assert not raw, f"{page}: TeX left as text in the prose: {raw}"


@pytest.mark.parametrize("page", PAGES)
def test_screenshot(site, page):
    dom(site, page)  # writes the screenshot
    out = screenshot_path(page)
    assert out.is_file() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no PNG screenshot at {out}"
    assert out.stat().st_size > 10_000, f"{out} is suspiciously small (a blank page?)"


@pytest.mark.parametrize("page", PAGES)
def test_no_glue_call_in_visible_code(site, page):
    """Code shown on the page (not folded by hide-input) holds no glue(...) bookkeeping."""
    main = _main(_soup(dom(site, page)))
    shown = [cell for cell in main.select(".cell_input") if cell.find_parent("details") is None]
    found = [cell.get_text()[:80] for cell in shown if re.search(r"\bglue\(", cell.get_text())]
    assert not found, f"{page}: visible code calls glue(: {found}"


@pytest.mark.parametrize("page", PAGES)
def test_code_lines_fit_the_page(site, page):
    """No line of a code cell's input (shown or folded) is wider than 100 characters."""
    main = _main(_soup(dom(site, page)))
    wide = [line.strip()[:60] for cell in main.select(".cell_input pre")
            for line in cell.get_text().split("\n") if len(line) > 100]
    assert not wide, f"{page}: code lines wider than 100 characters: {wide}"


# -----------------------------------------------------------------------------
# Static checks of the built HTML (no browser needed)
# -----------------------------------------------------------------------------
CHAPTER_PAGES = [p for p in PAGES if p.startswith("notebooks/")]


def built(page: str):
    """The content of a built page, read from its file."""
    if not (HTML / "index.html").exists():
        _missing(f"no built book at {HTML / 'index.html'}: run `make book` first")
    path = HTML / f"{page}.html"
    if not path.is_file():
        pytest.fail(f"{page} is in _toc.yml but {page}.html was not built")
    return _main(_soup(path.read_text()))


@pytest.mark.parametrize("page", CHAPTER_PAGES)
def test_chapter_has_a_modelling_exercise(page):
    """Every chapter asks the reader to build a model (an exercise of class ``modelling``)."""
    found = built(page).select(".exercise.modelling")
    assert found, f"{page}: no exercise with ':class: modelling'"


def test_every_figure_is_referenced():
    """Every numbered figure of a chapter is the target of a link somewhere in the book."""
    fragments = set()
    for page in PAGES:
        for a in built(page).find_all("a", href=True):
            fragments.add(unquote(urlparse(a["href"]).fragment))
    unreferenced = [f"{page}#{figure['id']}" for page in CHAPTER_PAGES
                    for figure in built(page).find_all("figure", id=True)
                    if figure["id"] not in fragments]
    assert not unreferenced, "figures no link points to: " + ", ".join(unreferenced)
