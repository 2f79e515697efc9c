"""The book's API reference (``book/api/*.md``) covers the public API, checked without a build.

Every name in the ``__all__`` of ``qlib``, ``qlib.puzzles.slitherlink``, ``qlib.puzzles.nonogram``,
``qlib.dimod`` and ``qlib.sweep`` (which has no ``__all__``: its public top-level names) must be
the target of an autodoc directive (``automodule``, ``autoclass``, ``autofunction``,
``autoexception``, ``autodata``...) or an ``autosummary`` entry in those pages, and have a
docstring: a real one for a class (not a dataclass's generated signature), a ``#:`` comment for
a constant.  A constant that a package re-exports may be listed under the module that assigns it
(``~solve.METHODS`` on the Slitherlink page): the entry counts when it names the same object.
Every module of qlib must have an ``automodule`` somewhere in the reference (the docstrings
cross-reference the modules), and every page must be in ``_toc.yml`` (the book builds only the
pages listed there).  The build itself (``make book``, ``-W -n``) checks the cross-references.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "api"
PUBLIC = ("qlib", "qlib.puzzles.slitherlink", "qlib.puzzles.nonogram", "qlib.dimod", "qlib.sweep")

DIRECTIVE = re.compile(r"^(\s*)\.\. (automodule|autoclass|autofunction|autoexception|autodata|automethod"
                       r"|autoattribute|autosummary|currentmodule|py:currentmodule|module|py:module)::\s*(\S*)")
EVAL_RST = re.compile(r"^```\{eval-rst\}\s*$(.*?)^```\s*$", re.M | re.S)


def pages() -> list[Path]:
    return sorted(API.glob("*.md"))


def directives(text: str):
    """(kind, target, current module) of every autodoc directive and autosummary entry of a page."""
    found = []
    module = None
    for block in EVAL_RST.findall(text):
        lines = block.split("\n")
        i = 0
        while i < len(lines):
            m = DIRECTIVE.match(lines[i])
            i += 1
            if not m:
                continue
            indent, kind, target = len(m.group(1)), m.group(2), m.group(3)
            if kind in ("currentmodule", "py:currentmodule", "module", "py:module"):
                module = target
                continue
            if kind == "automodule":
                module = target
            if kind != "autosummary":
                found.append((kind, target, module))
                continue
            # the entries: the indented lines after the directive, its options skipped
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                entry = lines[i].strip()
                i += 1
                if entry and not entry.startswith(":"):
                    found.append(("autosummary", entry, module))
    return found


def resolve(target: str, module: str | None):
    """The full dotted name and the object of a directive's target, as autodoc finds them."""
    name = target.lstrip("~").split("(", 1)[0].strip()
    candidates = [name] if module is None else [f"{module}.{name}", name]
    for full in candidates:
        parts = full.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return full, obj
    return None, None


def documented():
    """{full name: object} of every directive target and autosummary entry of book/api."""
    out = {}
    for page in pages():
        for kind, target, module in directives(page.read_text()):
            full, obj = resolve(target, module)
            assert full is not None, f"{page.name}: {kind} {target!r} (module {module}) names nothing importable"
            out[full] = obj
    return out


def public_names(modname: str) -> list[str]:
    module = importlib.import_module(modname)
    if hasattr(module, "__all__"):
        return list(module.__all__)
    tree = ast.parse(Path(module.__file__).read_text())
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if not n.startswith("_")]


PUBLIC_NAMES = [(m, n) for m in PUBLIC for n in public_names(m)]


@pytest.fixture(scope="module")
def reference():
    return documented()


def test_pages_found():
    assert pages(), "book/api holds no page"
    assert len(PUBLIC_NAMES) > 100


def test_pages_are_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text()
    listed = set(re.findall(r"file:\s*(book/api/\S+)", toc))
    missing = [p.name for p in pages() if f"book/api/{p.stem}" not in listed]
    assert not missing, f"book/api pages missing from _toc.yml (the book skips them): {missing}"


def where_documented(reference, modname: str, name: str):
    """The directive target that documents ``modname.name``, or None."""
    full = f"{modname}.{name}"
    if full in reference:
        return full
    obj = getattr(importlib.import_module(modname), name)
    for target, documented_obj in reference.items():
        if target.rsplit(".", 1)[-1] == name and documented_obj is obj:
            return target  # e.g. a re-exported constant under the module that assigns it
    return None


@pytest.mark.parametrize("modname,name", PUBLIC_NAMES, ids=[f"{m}.{n}" for m, n in PUBLIC_NAMES])
def test_public_name_is_in_the_reference(reference, modname, name):
    assert where_documented(reference, modname, name), (
        f"{modname}.{name} is public but no autodoc directive or autosummary entry of book/api/*.md "
        f"names it; add it to the page of {modname}")


def docstring(modname: str, name: str, target: str | None) -> str | None:
    obj = getattr(importlib.import_module(modname), name)
    if inspect.ismodule(obj) or inspect.isroutine(obj) or hasattr(obj, "py_func"):
        return inspect.getdoc(obj)
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__")
        if doc and obj.__module__ != "builtins" and re.match(rf"{re.escape(obj.__name__)}\(.*\)$", doc.strip()):
            return None  # the signature a dataclass makes up when the class has no docstring
        return doc
    # a constant: its "#:" comment in the module that assigns it
    from sphinx.pycode import ModuleAnalyzer

    owner = (target or f"{modname}.{name}").rsplit(".", 1)[0]
    for mod in (owner, modname):
        docs = ModuleAnalyzer.for_module(mod).find_attr_docs()
        if ("", name) in docs:
            return "\n".join(docs["", name])
    return None


@pytest.mark.parametrize("modname,name", PUBLIC_NAMES, ids=[f"{m}.{n}" for m, n in PUBLIC_NAMES])
def test_public_name_has_a_docstring(reference, modname, name):
    doc = docstring(modname, name, where_documented(reference, modname, name))
    assert doc and doc.strip(), (f"{modname}.{name} has no docstring (a constant: no '#:' comment on the "
                                 "line above its assignment), so the API reference shows nothing for it")


def _deprecated(name: str) -> bool:
    """Whether module ``name`` is an old name kept for a release (its docstring starts "Deprecated:")."""
    doc = ast.get_docstring(ast.parse(Path(importlib.util.find_spec(name).origin).read_text()))
    return bool(doc) and doc.startswith("Deprecated:")


def all_modules() -> list[str]:
    """Every module of qlib but its deprecated old names, which the reference leaves out."""
    import qlib

    return ["qlib"] + sorted(m.name for m in pkgutil.walk_packages(qlib.__path__, "qlib.")
                             if not m.name.endswith(".__main__") and not _deprecated(m.name))


def test_every_module_is_in_the_reference():
    automodules = {target for page in pages() for kind, target, _ in directives(page.read_text())
                   if kind == "automodule"}
    missing = [m for m in all_modules() if m not in automodules]
    assert not missing, (f"modules without an automodule in book/api/*.md: {missing}; add each to the "
                         "internals page of its package, or docstrings referring to it break the build")


def test_directive_parser():
    text = ("```{eval-rst}\n.. currentmodule:: qlib\n\n.. autosummary::\n   :nosignatures:\n\n   var\n"
            "   ~qlib.expr.Expr\n\n.. autofunction:: solve\n.. automodule:: qlib.limits\n   :members:\n```\n")
    assert directives(text) == [("autosummary", "var", "qlib"), ("autosummary", "~qlib.expr.Expr", "qlib"),
                                ("autofunction", "solve", "qlib"), ("automodule", "qlib.limits", "qlib.limits")]
    import qlib

    assert resolve("~qlib.expr.Expr", "qlib") == ("qlib.expr.Expr", qlib.Expr)
    assert resolve("CountStatus(value)", "qlib.puzzles.slitherlink")[0] == "qlib.puzzles.slitherlink.CountStatus"
