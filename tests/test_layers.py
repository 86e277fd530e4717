"""The package's layering, checked from the source: no import cycle, few deferred imports,
no oversized file (issue 20's rules, so that they stay true as the library grows)."""

from __future__ import annotations

import ast
import os

import pytest

import rocarray

PACKAGE_DIR = os.path.dirname(rocarray.__file__)
KERNELS_DIR = os.path.join(os.path.dirname(PACKAGE_DIR), "kernels")

#: Imports of rocarray's own modules inside functions: each must say why on its line or the
#: line above (a ``#`` comment), and there may be no more than this many.
MAX_DEFERRED_IMPORTS = 10
MAX_FILE_LINES = 1000


def _modules() -> dict[str, str]:
    found = {}
    for base, top in ((PACKAGE_DIR, "rocarray"), (KERNELS_DIR, "rocarray.kernels")):
        for folder, _, files in os.walk(base):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    rel = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
                    rel = "" if rel == "__init__" else rel.removesuffix(".__init__")
                    found[top + ("." + rel if rel else "")] = path
    return found


MODULES = _modules()


def _targets(module: str, node, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = module if is_package else module.rsplit(".", 1)[0]
        for _ in range(max(node.level - 1, 0)):
            base = base.rsplit(".", 1)[0]
        if node.level:
            stem = base + "." + node.module if node.module else base
        else:
            stem = node.module or ""
        names = [stem + "." + a.name if stem + "." + a.name in MODULES else stem for a in node.names]
    out = []
    for name in names:
        while name not in MODULES and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in MODULES and name != module:
            out.append(name)
    return out


def _imports():
    """(module, imported module, line, inside a function?) for every import of rocarray's own."""
    rows = []
    for module, path in MODULES.items():
        with open(path, encoding="utf-8") as f:
            source = f.read()
        tree = ast.parse(source)
        lines = source.splitlines()
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            deferred = False
            up = node
            while up in parents:
                up = parents[up]
                if isinstance(up, ast.If) and "TYPE_CHECKING" in ast.unparse(up.test):
                    break
                if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    deferred = True
            else:
                for target in _targets(module, node, path.endswith("__init__.py")):
                    rows.append((module, target, node.lineno, deferred, lines))
    return rows


IMPORTS = _imports()


def _cycles(imports) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for module, target, *_ in imports:
        graph.setdefault(module, set()).add(target)
        graph.setdefault(target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    assert _cycles(IMPORTS) == []


def test_deferred_imports_are_few_and_explained():
    deferred = [(m, t, line, lines) for m, t, line, d, lines in IMPORTS if d]
    unexplained = [f"{m}:{line} imports {t}" for m, t, line, lines in deferred
                   if "#" not in lines[line - 1] and not lines[line - 2].strip().startswith("#")]
    assert unexplained == []
    assert len({(m, line) for m, _, line, _ in deferred}) <= MAX_DEFERRED_IMPORTS


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_oversized_file(module):
    with open(MODULES[module], encoding="utf-8") as f:
        assert sum(1 for _ in f) <= MAX_FILE_LINES


def test_the_cycle_finder_sees_a_cycle():
    """Not vacuous: two modules importing each other are one cycle, a chain is none."""
    pair = [("rocarray._dtypes", "rocarray._device"), ("rocarray._device", "rocarray._dtypes")]
    assert _cycles(pair) == [["rocarray._device", "rocarray._dtypes"]]
    assert _cycles(pair[:1]) == []
