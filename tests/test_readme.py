"""The README's and the usage page's Python examples run and print what they say.

Every fenced ``python`` (or ``pycon``) block of README.md and book/usage.md runs:
blocks written as an interactive session (``>>>``) are doctests, whose printed
output must match; other blocks must run without error.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USAGE = ROOT / "book" / "usage.md"
FENCE = re.compile(r"^```(python|pycon|py)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(path: Path = README):
    text = path.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 2          # first line inside the fence
        found.append((path, line, m.group(2)))
    return found


def test_readme_has_python_examples():
    assert any(">>>" in code for _, _, code in blocks())
    assert any(">>>" in code for _, _, code in blocks(USAGE))


@pytest.mark.parametrize("path, line, code", blocks() + blocks(USAGE),
                         ids=lambda v: f"line{v}" if isinstance(v, int) else v.name if isinstance(v, Path) else "")
def test_readme_block(path, line, code):
    name = path.relative_to(ROOT)
    if ">>>" in code:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(code, {"__name__": "readme"}, f"{name}:{line}", str(path), line - 1)
        assert test.examples
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        report: list[str] = []
        result = runner.run(test, out=report.append, clear_globs=True)
        assert result.attempted == len(test.examples)
        assert result.failed == 0, "".join(report)
    else:
        exec(compile(code, f"{name}:{line}", "exec"), {"__name__": "readme"})
