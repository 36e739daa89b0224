"""Every module the layer's and the functions' code can import, read from the code (``import`` statements at any
depth, inside functions too: boto3 and jwt are imported on first use), and whether a built package holds them.

Imports under ``if TYPE_CHECKING:`` never run, and are left out (the boto3 stubs are not in the layer).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

# Modules the managed Python runtime provides on AWS (the code imports them only where they can be absent).
LAMBDA_RUNTIME = {"snapshot_restore_py"}
# Layer code whose libraries one function's own requirements.txt installs in that function's package, not in the
# layer: the knowledge worker's document readers (they import pypdf, python-docx, ... inside their functions).
OWN_LIBRARIES = {"KnowledgeIndexFunction": "knowledge/extract*.py"}


def reader_files(core: Path) -> set[Path]:
    """The layer's modules whose imports one function's package provides (``OWN_LIBRARIES``)."""
    return {path for pattern in OWN_LIBRARIES.values() for path in core.glob(pattern)}


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.AST) -> Iterable[ast.Import | ast.ImportFrom]:
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            pending.extend(node.orelse)  # the else branch runs
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        pending.extend(ast.iter_child_nodes(node))


def imported(path: Path, package: list[str]) -> set[str]:
    """The absolute names of the modules ``path`` imports (a name imported from a module may itself be one);
    ``package``: the dotted package ``path`` is in, for its relative imports."""
    found: set[str] = set()
    for node in _statements(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
            continue
        base = package[: len(package) - node.level + 1] if node.level else []
        module = ".".join([*base, *(node.module.split(".") if node.module else [])])
        found |= {module} | {f"{module}.{alias.name}" for alias in node.names if alias.name != "*"}
    return found


def code_imports(roots: dict[Path, list[str]], *, skip: set[Path] | frozenset[Path] = frozenset()) -> set[str]:
    """Every module imported by the ``.py`` files under each root (a folder, and the package it is), but ``skip``."""
    found: set[str] = set()
    for root, package in roots.items():
        for path in root.rglob("*.py"):
            if path not in skip:
                found |= imported(path, [*package, *path.relative_to(root).parent.parts])
    return found


def missing(names: set[str], layer: Path, interpreter: list[str], *, function: Path | None = None) -> list[str]:
    """The names none of the layer, the standard library and the name's own package provide.

    ``core.…``: a module file or package of the layer, or a name defined in its parent module (``from .errors
    import NotFound``). Anything else: its top-level package, found by ``interpreter`` (the bare one) with the
    layer (and ``function``'s package, for the libraries of its own) as its only path entries besides the standard
    library."""
    absent = []
    for name in sorted(n for n in names if n.split(".")[0] == "core"):
        parts = name.split(".")
        as_module = layer.joinpath(*parts)
        if as_module.with_suffix(".py").exists() or (as_module / "__init__.py").exists():
            continue
        parent = layer.joinpath(*parts[:-1])
        if parent.with_suffix(".py").exists() or (parent / "__init__.py").exists():
            continue  # a name from a module (a class, a function): the module is there
        absent.append(name)
    provided = {"core", "__future__", *sys.stdlib_module_names, *LAMBDA_RUNTIME}
    others = sorted({n.split(".")[0] for n in names} - provided)
    script = (
        "import importlib.util, json, sys\n"
        f"sys.path[:0] = {[str(p) for p in (function, layer) if p is not None]!r}\n"
        "print(json.dumps([n for n in json.loads(sys.argv[1]) if importlib.util.find_spec(n) is None]))"
    )
    answer = subprocess.run(  # noqa: S603 - our own interpreter and script
        [*interpreter, "-c", script, json.dumps(others)], capture_output=True, text=True, check=True
    )
    return absent + json.loads(answer.stdout)
