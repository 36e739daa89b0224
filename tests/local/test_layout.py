"""The runner's layout (issue 26): ``local/`` is the runner, in subpackages; ``stack/`` is what other code imports.

Read from the source (``ast``), nothing imported: no import circle among the modules of ``local`` and ``stack`` (at
module level), none between their packages (any import: lazy and type-only ones too), ``stack`` imports nothing
from ``local``, and ``local``'s top level holds only its entry point, its composition root and subpackages.
"""

from __future__ import annotations

import ast
from pathlib import Path

from stack.template import ROOT

PACKAGES = ("local", "stack")
# local/'s top level: the package, ``python -m local``, the composition root (the one module that imports every
# subpackage, so it belongs to none of them) and the main thread's wait for a stop signal. Everything else is in a
# subpackage.
LOCAL_TOP = {"__init__.py", "__main__.py", "runner.py", "stopping.py"}
# Imported on every buffered container's start (``python -m local.containers.worker``): nothing to import there.
IMPORT_FREE = ("local/__init__.py", "local/containers/__init__.py")


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(body: list[ast.stmt], *, module_level: bool) -> list[ast.Import | ast.ImportFrom]:
    """Import statements of ``body``: at module level only those run when the module is imported (not in a function,
    a class body's too, not under ``TYPE_CHECKING``); otherwise every one."""
    if not module_level:
        return [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Import | ast.ImportFrom)]
    found: list[ast.Import | ast.ImportFrom] = []
    for stmt in body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            found.append(stmt)
        elif isinstance(stmt, ast.If):
            if not _type_checking(stmt):
                found += _statements(stmt.body, module_level=True) + _statements(stmt.orelse, module_level=True)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                found += _statements(block, module_level=True)
        elif isinstance(stmt, ast.With | ast.ClassDef):
            found += _statements(stmt.body, module_level=True)
    return found


def _targets(name: str, *, module_level: bool) -> set[str]:
    """What the module ``name`` names in its imports: a module where ``from a import b`` imports module ``a.b``,
    else the module (or package) the names come from; relative imports made absolute."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _statements(ast.parse(path.read_text()).body, module_level=module_level):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join(anchor + ([node.module] if node.module else []))
        targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names}
    return targets


def _imported(name: str, *, module_level: bool) -> set[str]:
    """The modules of ``local`` and ``stack`` that importing ``name`` imports: those it names, and the packages on
    their way (importing ``a.b.c`` runs ``a`` and ``a.b`` first) but its own, which ran before it."""
    own = {name.rsplit(".", i)[0] for i in range(1, name.count(".") + 1)}
    found: set[str] = set()
    for target in _targets(name, module_level=module_level):
        parts = target.split(".")
        found |= {target} | ({".".join(parts[:i]) for i in range(1, len(parts))} - own)
    return (found & MODULES.keys()) - {name}


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` (its nodes in order, the first repeated at the end), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for following in sorted(graph.get(node, ())):
            if found := visit(following):
                return found
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        if found := visit(start):
            return found
    return None


def _unit(name: str) -> str:
    """The package a module belongs to for the package graph: ``stack``, a subpackage of ``local``, or a module of
    ``local``'s top level."""
    parts = name.split(".")
    return "stack" if parts[0] == "stack" else ".".join(parts[:2])


def test_the_modules_form_no_import_circle_at_module_level() -> None:
    graph = {name: _imported(name, module_level=True) for name in MODULES}
    circle = _circle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_the_packages_form_no_import_circle_counting_every_import() -> None:
    graph: dict[str, set[str]] = {}
    for name in MODULES:
        graph.setdefault(_unit(name), set()).update(_unit(t) for t in _imported(name, module_level=False))
    graph = {unit: targets - {unit} for unit, targets in graph.items()}
    circle = _circle(graph)
    assert circle is None, "packages importing each other: " + " -> ".join(circle or [])


def test_stack_imports_nothing_from_local() -> None:
    offending = {
        name: sorted(t for t in _targets(name, module_level=False) if t.split(".")[0] == "local")
        for name in MODULES
        if name.split(".")[0] == "stack"
    }
    assert {name: found for name, found in offending.items() if found} == {}


def test_local_top_level_is_the_entry_point_the_composition_root_and_subpackages() -> None:
    entries = [p for p in (ROOT / "local").iterdir() if p.name != "__pycache__"]
    modules = {p.name for p in entries if p.is_file()}
    assert modules == LOCAL_TOP
    folders = [p for p in entries if p.is_dir()]
    assert folders, "local/ has no subpackages"
    assert [p.name for p in folders if not (p / "__init__.py").is_file()] == []


def test_the_packages_a_worker_start_imports_import_nothing() -> None:
    for relative in IMPORT_FREE:
        tree = ast.parse((ROOT / relative).read_text())
        assert [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)] == [], relative
