"""The house's names hold: what the documents and the packages' maps name exists (docs/architecture.md, "File
roles"). A rename that leaves a document naming a module, a class or a method no longer there fails here, not in
a reader's hands. Read from the source (ast), never imported: no module's import-time work runs."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "layers/common/core"
DOCS = (
    "docs/architecture.md",
    "docs/glossary.md",
    "docs/ledger.md",
    "docs/observability.md",
    "docs/data-model.md",
    "docs/security.md",
)
PACKAGES = sorted(p.parent for p in CORE.glob("*/__init__.py"))


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def _names(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """What a module or class body defines: functions, classes, assigned and annotated names."""
    found: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node
        elif isinstance(node, ast.If):  # names defined under TYPE_CHECKING or a version check
            found |= _names(node.body) | _names(node.orelse)
    return found


@cache
def _classes() -> dict[str, list[ast.ClassDef]]:
    """Every class the layer defines, by name (a name may be defined in several packages)."""
    found: dict[str, list[ast.ClassDef]] = {}
    for path in CORE.rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


def _has(cls: ast.ClassDef, attribute: str, seen: frozenset[str] = frozenset()) -> bool:
    """``attribute`` is defined on the class or on a base the layer defines (pydantic fields and dataclass fields
    count: they are annotated names of the body)."""
    if attribute in _names(cls.body):
        return True
    for base in cls.bases:
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        if name and name not in seen and any(_has(b, attribute, seen | {cls.name}) for b in _classes().get(name, [])):
            return True
    return False


def _module(dotted: list[str]) -> tuple[Path, list[str]] | None:
    """The longest prefix of ``dotted`` that is a module of the layer (``core.`` optional), and what is left."""
    parts = dotted[1:] if dotted[0] == "core" else dotted
    for cut in range(len(parts), 0, -1):
        base = CORE.joinpath(*parts[:cut])
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                return path, parts[cut:]
    return None


def _resolves(name: str) -> bool:
    """``Class.member``, ``module.name[.member]`` or ``package.module.Class.member`` names something that exists."""
    dotted = name.split(".")
    if dotted[0][:1].isupper():  # Class.member
        classes = _classes().get(dotted[0], [])
        return bool(classes) and (len(dotted) == 1 or any(_has(c, dotted[1], frozenset()) for c in classes))
    found = _module(dotted)
    if found is None:
        return False
    path, rest = found
    if not rest:
        return True
    node = _names(_tree(path).body).get(rest[0])
    if node is None:
        # a package re-exports a submodule's name, or a name is imported into the module
        return any(rest[0] in {a.asname or a.name for a in n.names} for n in ast.walk(_tree(path))
                   if isinstance(n, ast.ImportFrom))  # fmt: skip
    if len(rest) == 1:
        return True
    return isinstance(node, ast.ClassDef) and _has(node, rest[1])


# Backticked names that look like code: a CamelCase class with a member, or a dotted path starting at a package.
_PACKAGE_NAMES = "|".join(p.name for p in PACKAGES)
_CODE_NAME = re.compile(
    rf"`((?:core\.)?(?:{_PACKAGE_NAMES})(?:\.\w+)+|[A-Z][A-Za-z0-9]+\.[a-z_][a-z0-9_]*)(?:\(\))?(?:/\w+)?`"
)
_CORE_PATH = re.compile(r"`(?:layers/common/)?core/([\w/]+\.py)`")


# Names that look like code but are not the layer's: the standard library's, the event types of the contract.
_NOT_OURS = {"Event.set", "CSS.supports"} | set(
    re.findall(r'"(\w+(?:\.\w+)+)"', (CORE / "events/catalogue.py").read_text())
)
_FILES = (".json", ".md", ".py", ".yaml", ".txt", ".toml")


def _doc_names(text: str) -> set[str]:
    return {n for m in _CODE_NAME.finditer(text) if (n := m.group(1)) not in _NOT_OURS and not n.endswith(_FILES)}


@pytest.mark.parametrize("doc", DOCS)
def test_the_documents_name_code_that_exists(doc: str) -> None:
    text = (ROOT / doc).read_text()
    missing = sorted(name for name in _doc_names(text) if not _resolves(name))
    missing += sorted(f"core/{path}" for path in _CORE_PATH.findall(text) if not (CORE / path).is_file())
    assert missing == []


def test_the_checker_catches_a_name_that_is_gone() -> None:
    """What the test above relies on: a stale name is found, a live one is not."""
    assert _doc_names("`IdentityService.authenticate` and `SessionCheck.authenticate`") == {
        "IdentityService.authenticate", "SessionCheck.authenticate"
    }  # fmt: skip
    assert not _resolves("IdentityService.authenticate")
    assert _resolves("SessionCheck.authenticate")
    assert not _resolves("core.workspaces.service.WorkspaceService")
    assert _resolves("audit.writes.Writes.run") and _resolves("core.platform.retention")


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_each_packages_map_names_its_own_modules_and_classes(package: Path) -> None:
    """A package's ``__init__.py`` is its map: each ``module.py`` it names is there, and each ``Class`` it names is
    defined in the package."""
    doc = ast.get_docstring(_tree(package / "__init__.py")) or ""
    modules = set(re.findall(r"``([\w/]+\.py)``", doc))
    missing = sorted(m for m in modules if not (package / m).is_file() and not (CORE / m).is_file())
    defined = {n.name for path in package.rglob("*.py") for n in ast.walk(_tree(path)) if isinstance(n, ast.ClassDef)}
    classes = {name.split(".")[0] for name in re.findall(r"``([A-Z][A-Za-z0-9]+(?:\.\w+)?)``", doc)}
    missing += sorted(c for c in classes if c not in defined and c not in _classes())
    missing += sorted(n for n in re.findall(r"``([A-Z][A-Za-z0-9]+\.\w+)``", doc) if not _resolves(n))
    assert missing == []


def _decisions(handler: Path) -> list[str]:
    """What an API handler decides itself: loops, ``try``, conditional expressions, and any ``if`` but a refusal of
    the request (an ``if`` whose whole body is one ``raise``, e.g. an unknown path value's 404)."""
    found = []
    for node in ast.walk(_tree(handler)):
        refusal = isinstance(node, ast.If) and not node.orelse and [type(n) for n in node.body] == [ast.Raise]
        if isinstance(node, ast.For | ast.While | ast.Try | ast.IfExp | ast.If) and not refusal:
            found.append(f"{type(node).__name__} at line {node.lineno}")
    return found


@pytest.mark.parametrize(
    "handler",
    sorted((ROOT / "functions").glob("[bp]*/*/handler.py")),  # brain/ and portal/: the workers drive batches
    ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}",
)
def test_api_handlers_are_thin(handler: Path) -> None:
    """A handler parses, calls one service method with plain values and returns its model; the logic is the
    package's, where a test of the service reaches it without an API Gateway event."""
    assert _decisions(handler) == []
