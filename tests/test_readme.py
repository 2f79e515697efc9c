"""The README's Python examples run and print what the README says.

Every fenced ``python`` (or ``pycon``) block of README.md runs: blocks written
as an interactive session (``>>>``) are doctests, whose printed output must
match; other blocks must run without error.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(python|pycon|py)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks():
    text = README.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 2          # first line inside the fence
        found.append((line, m.group(2)))
    return found


def test_readme_has_python_examples():
    assert any(">>>" in code for _, code in blocks())


@pytest.mark.parametrize("line, code", blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_readme_block(line, code):
    if ">>>" in code:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(code, {"__name__": "readme"}, f"README.md:{line}", str(README), line - 1)
        assert test.examples
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        report: list[str] = []
        result = runner.run(test, out=report.append, clear_globs=True)
        assert result.attempted == len(test.examples)
        assert result.failed == 0, "".join(report)
    else:
        exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "readme"})
