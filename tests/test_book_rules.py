"""House rules of the book, checked on the notebook sources (fast: no build, no kernel).

Every chapter is a notebook listed in ``_toc.yml``; the book's prose is those notebooks' markdown
cells and the pages under ``book/``.

(a) No visible ``glue(...)`` call: a code cell that glues is tagged ``remove-cell`` or
    ``remove-input``, so the reader sees the method and its result, not the bookkeeping.
(b) No code line wider than the page: every line of a code cell whose input is shown (also
    ``hide-input`` cells, which the reader can unfold) has at most ``MAX_WIDTH`` characters.
(c) Every named figure (``mystnb: figure: name`` in a cell's metadata, or ``:name:`` in a figure
    directive) is referred to from the prose somewhere in the book, with ``{numref}`` or ``{ref}``.
(d) Every chapter has at least one ``{exercise}``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toc import toc_files

ROOT = Path(__file__).resolve().parents[1]
MAX_WIDTH = 100
HIDDEN_INPUT = {"remove-input", "remove-cell"}


CHAPTERS = [f for f in toc_files() if (ROOT / f"{Path(f).with_suffix('')}.ipynb").is_file()]


def notebook(chapter: str) -> dict:
    return json.loads((ROOT / f"{Path(chapter).with_suffix('')}.ipynb").read_text())


def source(cell) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def shown_code_cells(nb):
    """(index, source) of the code cells whose input reaches the page (folded or not)."""
    return [(i, source(c)) for i, c in enumerate(nb["cells"])
            if c["cell_type"] == "code" and not tags(c) & HIDDEN_INPUT]


def book_prose() -> str:
    """The markdown of every chapter and every page under book/."""
    parts = [source(c) for ch in CHAPTERS for c in notebook(ch)["cells"] if c["cell_type"] == "markdown"]
    parts += [p.read_text() for p in sorted((ROOT / "book").glob("*.md"))]
    return "\n".join(parts)


def figure_names(nb) -> list[tuple[int, str]]:
    names = []
    for i, cell in enumerate(nb["cells"]):
        name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
        if name:
            names.append((i, name))
        names += [(i, n) for n in re.findall(r"^:name:\s*(\S+)", source(cell), flags=re.M)]
    return names


def test_chapters_found():
    assert CHAPTERS, "_toc.yml names no notebook"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_visible_glue(chapter):
    shown = [i for i, src in shown_code_cells(notebook(chapter)) if re.search(r"\bglue\(", src)]
    assert not shown, (f"{chapter}: cells {shown} call glue( in code the reader sees; move the glue calls "
                       "to a cell tagged remove-cell (or remove-input)")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_code_fits_the_page(chapter):
    wide = [(i, len(line), line.strip()[:60]) for i, src in shown_code_cells(notebook(chapter))
            for line in src.split("\n") if len(line) > MAX_WIDTH]
    assert not wide, f"{chapter}: code lines wider than {MAX_WIDTH} characters (cell, width, start): {wide}"


def test_named_figures_are_referenced():
    prose = book_prose()
    unreferenced = []
    for chapter in CHAPTERS:
        for i, name in figure_names(notebook(chapter)):
            role = re.compile(r"\{(?:numref|ref)\}`(?:[^`<]*<)?" + re.escape(name) + r">?`")
            if not role.search(prose):
                unreferenced.append(f"{chapter} [{i}] {name}")
    assert not unreferenced, "figures that no {numref} or {ref} in the book points to: " + ", ".join(unreferenced)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_has_an_exercise(chapter):
    cells = notebook(chapter)["cells"]
    exercises = sum(len(re.findall(r"^(?:```|:::)\{exercise\}", source(c), flags=re.M))
                    for c in cells if c["cell_type"] == "markdown")
    assert exercises >= 1, f"{chapter} has no {{exercise}}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_has_a_modelling_exercise(chapter):
    """At least one exercise asks for a new model or a variant: ``:class: modelling``."""
    directives = [m for c in notebook(chapter)["cells"] if c["cell_type"] == "markdown"
                  for m in re.findall(r"^(?:```|:::)\{exercise\}.*\n((?::\w+:.*\n)*)", source(c) + "\n",
                                      flags=re.M)]
    modelling = [d for d in directives if re.search(r"^:class:.*\bmodelling\b", d, flags=re.M)]
    assert modelling, f"{chapter} has no exercise with ':class: modelling'"
