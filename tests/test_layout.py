"""The package's shape: no import cycle, no reach into another module's privates, short modules,
short kernel signatures, and a docstring on every public name.  Read from the source with ast."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "qlib"
MAX_LINES = 600
MAX_KERNEL_PARAMETERS = 8


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(), filename=str(path)) for name, path in MODULES.items()}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _base(name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = name.split(".")
    if not _is_package(name):
        parts = parts[:-1]
    parts = parts[:len(parts) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _owner(dotted: str) -> str | None:
    """The qlib module that ``dotted`` names or lies in."""
    while dotted and dotted not in MODULES:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _imports(name: str):
    """(imported module, name imported from it or None, node) for every import in ``name``, at any depth."""
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.ImportFrom):
            base = _base(name, node)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in MODULES:
                    yield full, None, alias.asname or alias.name
                elif _owner(base):
                    yield _owner(base), alias.name, alias.asname or alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _owner(alias.name):
                    yield _owner(alias.name), None, alias.asname or alias.name.split(".")[0]


def _graph() -> dict[str, set[str]]:
    graph = {name: set() for name in MODULES}
    for name in MODULES:
        for target, _, _ in _imports(name):
            if target != name and not name.startswith(target + "."):   # a package's own modules: not a cycle
                graph[name].add(target)
    return graph


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_the_walker_sees_imports_and_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert "qlib.compile" in _graph()["qlib.solvers.api"]


def test_no_import_cycle():
    """Function-level imports count: a cycle there is still two modules that need each other."""
    assert _cycles(_graph()) == []


def test_no_module_uses_another_modules_private_names():
    found = []
    for name in MODULES:
        modules_here = {}
        for target, imported, bound in _imports(name):
            if target == name:
                continue
            if imported is None:
                modules_here[bound] = target
            elif _private(imported):
                found.append(f"{name} imports {target}.{imported}")
        for node in ast.walk(TREES[name]):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in modules_here and _private(node.attr)):
                found.append(f"{name} uses {modules_here[node.value.id]}.{node.attr}")
    assert sorted(set(found)) == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_are_short(name):
    lines = MODULES[name].read_text().count("\n")
    assert lines <= MAX_LINES, f"{name}: {lines} lines"


def _is_kernel(node) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        label = ast.unparse(target)
        if label.split(".")[-1] in ("njit", "jit") or label.endswith("cuda.jit"):
            return True
    return False


def test_kernels_take_few_parameters():
    long = []
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and _is_kernel(node):
                count = len(node.args.posonlyargs) + len(node.args.args) + len(node.args.kwonlyargs)
                if count > MAX_KERNEL_PARAMETERS:
                    long.append(f"{name}.{node.name}: {count}")
    assert long == []


def _documented_methods(tree) -> dict[str, set[str]]:
    """Per class of ``tree``: the methods with a docstring, its own or a base's from the same module."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    out: dict[str, set[str]] = {}

    def documented(name):
        if name not in out:
            node = classes[name]
            own = {item.name for item in node.body
                   if isinstance(item, ast.FunctionDef) and ast.get_docstring(item) is not None}
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    own |= documented(base.id)
            out[name] = own
        return out[name]

    for name in classes:
        documented(name)
    return out


def test_public_functions_and_classes_have_docstrings():
    """A method that overrides a documented one of its base class inherits that docstring."""
    missing = []
    for name, tree in TREES.items():
        if any(_private(part) for part in name.split(".")):
            continue
        documented = _documented_methods(tree)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not _private(node.name):
                if ast.get_docstring(node) is None:
                    missing.append(f"{name}.{node.name}")
            if isinstance(node, ast.ClassDef) and not _private(node.name):
                for item in node.body:
                    if (isinstance(item, ast.FunctionDef) and not _private(item.name)
                            and not item.name.startswith("__") and item.name not in documented[node.name]
                            and not any(ast.unparse(d).endswith("setter") for d in item.decorator_list)):
                        missing.append(f"{name}.{node.name}.{item.name}")
    assert missing == [], "no docstring: " + ", ".join(missing)


def test_every_test_listed_slow_exists():
    """tests/slow.txt names file::function, or a file; a renamed or removed test must leave the list too."""
    from conftest import SLOW

    for entry in sorted(SLOW):
        path, _, name = entry.partition("::")
        assert (ROOT.parent / path).is_file(), f"tests/slow.txt lists {entry}, which does not exist"
        if not name:
            continue
        tree = ast.parse((ROOT.parent / path).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert name in names, f"tests/slow.txt lists {entry}, which does not exist"


#: The names a kernel tuple goes by in qlib.solvers (KernelArrays ``m``/``mw``/``terms``, its parts
#: ``by_var`` and the like, AnnealArrays ``a``, QuadArrays ``q``, Replicas ``R``, CutPool ``C``, Params ``p``,
#: CutNews ``news``, RowVars ``rows``, Walk ``w``): read by field name only, as are the parts a tuple holds
#: (``m.terms[0]`` is positional too).
KERNEL_TUPLE_NAMES = {"m", "mw", "terms", "by_var", "a", "q", "R", "C", "p", "news", "rows", "w"}
KERNEL_PARTS = {"terms", "by_var", "rows"}
SOLVER_MODULES = [name for name in MODULES if name.startswith("qlib.solvers") or name == "qlib.compile"]


def _positional_reads(tree) -> list[str]:
    """Constant subscripts, unpacking and star-expansion of a kernel tuple's name in ``tree``'s functions."""
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef):
            continue
        params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
        bound = {t.id for n in ast.walk(func) if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Name) and isinstance(n.value, ast.Call)
                 and ast.unparse(n.value.func).split(".")[-1] in ("KernelArrays", "AnnealArrays", "Replicas")}
        names = (params | bound) & KERNEL_TUPLE_NAMES

        def tuple_name(node):   # a kernel tuple, or one of the tuples KernelArrays holds
            return (isinstance(node, ast.Name) and node.id in names) or (
                isinstance(node, ast.Attribute) and node.attr in KERNEL_PARTS and tuple_name(node.value))
        for node in ast.walk(func):
            if (isinstance(node, ast.Subscript) and tuple_name(node.value)
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
                found.append(f"{func.name}:{node.lineno} {ast.unparse(node)}")
            elif isinstance(node, ast.Assign) and tuple_name(node.value) and isinstance(node.targets[0], ast.Tuple):
                found.append(f"{func.name}:{node.lineno} unpacks {ast.unparse(node.value)}")
            elif isinstance(node, ast.Starred) and tuple_name(node.value):
                found.append(f"{func.name}:{node.lineno} *{ast.unparse(node.value)}")
    return found


def test_kernel_tuples_are_read_by_name():
    """Reordering a kernel tuple's fields must not silently change what a kernel reads."""
    found = [f"{name}.{where}" for name in SOLVER_MODULES for where in _positional_reads(TREES[name])]
    assert found == [], "positional access to a kernel tuple: " + ", ".join(found)


def test_the_positional_check_sees_each_form():
    tree = ast.parse("def k(m, R, x):\n    a = m[3]\n    t, u = R\n    f(*m)\n    y = x[0]\n    z = m.terms.coef\n"
                     "    w = m.rows[1]\n    c, d = m.by_var\n")
    assert sorted(s.split()[1] for s in _positional_reads(tree)) == ["*m", "m.rows[1]", "m[3]", "unpacks", "unpacks"]


def test_no_two_public_solver_functions_share_a_name_with_other_signatures():
    """A name in qlib.solvers means one call shape, whichever module it is read from."""
    seen: dict[str, set[str]] = {}
    for name in SOLVER_MODULES:
        for node in TREES[name].body:
            if isinstance(node, ast.FunctionDef) and not _private(node.name):
                seen.setdefault(node.name, set()).add(ast.unparse(node.args))
    clashes = {fn: sorted(sigs) for fn, sigs in seen.items() if len(sigs) > 1}
    assert clashes == {}


def _exports(name: str) -> set[str]:
    """The names in module ``name``'s ``__all__``."""
    for node in TREES[name].body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def _solver_reaches(name: str, tree, exported: set[str]) -> list[str]:
    """Where module ``name`` (its source as ``tree``) reaches into qlib.solvers past its exports."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _base(name, node)
            if base == "qlib.solvers":
                found += [f"{name} imports qlib.solvers.{a.name}" for a in node.names if a.name not in exported]
            elif base.startswith("qlib.solvers."):
                found.append(f"{name} imports from {base}")
        elif isinstance(node, ast.Import):
            found += [f"{name} imports {a.name}" for a in node.names if a.name.startswith("qlib.solvers.")]
        elif (isinstance(node, ast.Attribute) and ast.unparse(node.value) == "qlib.solvers"
              and node.attr not in exported):
            found.append(f"{name} uses qlib.solvers.{node.attr}")
    return found


def test_puzzles_use_only_the_solvers_exports():
    """A puzzle reaches the solvers through what ``qlib.solvers`` exports (its ``__all__``), never a solver module."""
    exported = _exports("qlib.solvers")
    found = [where for name in MODULES if name.startswith("qlib.puzzles")
             for where in _solver_reaches(name, TREES[name], exported)]
    assert found == [], "past qlib.solvers' exports: " + ", ".join(found)


def test_the_solver_reach_check_sees_each_form():
    tree = ast.parse("from qlib.solvers.api import check_options\nfrom qlib.solvers import solve, kernel\n"
                     "from ...solvers import gpu\nfrom ...solvers.focused import LazyCuts\nimport qlib.solvers.sa\n"
                     "x = qlib.solvers.cpu.run_sa_cpu\ny = qlib.solvers.solve\n")
    found = _solver_reaches("qlib.puzzles.nonogram.solver", tree, {"solve", "gpu"})
    assert sorted(found) == ["qlib.puzzles.nonogram.solver imports from qlib.solvers.api",
                             "qlib.puzzles.nonogram.solver imports from qlib.solvers.focused",
                             "qlib.puzzles.nonogram.solver imports qlib.solvers.kernel",
                             "qlib.puzzles.nonogram.solver imports qlib.solvers.sa",
                             "qlib.puzzles.nonogram.solver uses qlib.solvers.cpu"]


@pytest.mark.parametrize("old, new", [("qlib.solvers.anneal", "qlib.solvers.sa.kernel"),
                                      ("qlib.solvers.focused_kernel", "qlib.solvers.focused.kernel"),
                                      ("qlib.solvers.local_field", "qlib.solvers.sa.local_field"),
                                      ("qlib.solvers.kernel", "qlib.solvers.core")])
def test_a_moved_solver_module_keeps_its_old_name_for_a_release(old, new):
    """The old module name imports the new module itself (so its names and patches are the same) and warns."""
    import importlib
    import subprocess
    import sys

    code = (f"import warnings; warnings.simplefilter('error')\ntry:\n    import {old}\nexcept DeprecationWarning as w:\n"
            f"    print('warned', w)\nimport importlib; warnings.simplefilter('ignore')\n"
            f"print(importlib.import_module('{old}') is importlib.import_module('{new}'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"warned {old} is now {new}", "True"]
    assert importlib.import_module(new).__name__ == new
