"""docs/architecture.md's claims, held by code: the checker of "only stores call AWS" catches a call from elsewhere
in the layer (the integration suite runs it on every call); only stores, adapters and providers import AWS; the
platform imports no resource; resource packages depend on the few resources they name, and those dependencies run
one way but for the two the table's layout makes; no module import circle, lazy imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from botocore.stub import Stubber

from tests.support.boto_callers import LAYER, may_call_aws, watching

CORE = Path(LAYER)
PACKAGES = sorted(p.name for p in CORE.iterdir() if (p / "__init__.py").exists())

# What each resource package's modules may import besides the platform (docs/architecture.md). A new dependency is a
# decision: add it here and there, or put the code where it belongs. ``providers.py`` is left out: wiring a service
# names the stores and services of the packages it uses (a circle among providers is still refused below).
DEPENDS_ON = {
    "agents": {"audit", "brands", "items", "posts", "workflows", "workspaces"},
    "answers": {"audit", "workspaces"},
    "audit": set(),
    "brands": {"audit", "workspaces"},
    "chat": {"agents", "audit", "brands", "credits", "insights", "items", "knowledge", "posts", "workspaces"},
    "credits": set(),
    "identity": set(),
    "insights": {"knowledge", "workspaces"},  # the question key is the knowledge's words; a rating reads the workspace
    "items": {"audit", "objects", "workspaces"},
    "knowledge": {"agents", "answers", "items", "posts"},
    "keys": {"audit", "identity", "objects", "workspaces"},
    "objects": {"audit", "workspaces"},
    "platform": set(),
    "posts": {"audit", "objects", "workspaces"},
    "purge": {"keys", "workspaces"},
    "usage": set(),  # the access check and the key listing are handed to it by its provider
    "workflows": {"audit", "workspaces"},
    "events": set(),  # what changed, read from the streams: nothing but the platform
    "webhooks": {"audit", "events", "workspaces"},
    "workspaces": {"audit", "identity"},
}


def _call_from(filename: str, client: object) -> None:
    """``client.list_queues()`` from code that says it lives at ``core/<filename>``."""
    code = compile("client.list_queues()", LAYER + filename, "exec")
    exec(code, {"client": client})  # noqa: S102 - a fixed statement, only its filename is chosen


@pytest.mark.parametrize(("filename", "caught"), [
    ("posts/writer.py", True), ("agents/models.py", True), ("http.py", True), ("keys/providers.py", True),
    ("posts/write_store.py", False), ("agents/store.py", False), ("chat/bedrock.py", False),
])  # fmt: skip
def test_the_checker_catches_aws_calls_from_outside_the_stores(
    monkeypatch: pytest.MonkeyPatch, filename: str, caught: bool
) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    from core.platform import aws

    with watching(monkeypatch) as check:
        client = aws.client("sqs")
        with Stubber(client) as stub:
            stub.add_response("list_queues", {"QueueUrls": []})
            _call_from(filename, client)
        _call_from_test = client  # a call from a test itself (no frame of the layer) is not the layer's
        with Stubber(_call_from_test) as stub:
            stub.add_response("list_queues", {"QueueUrls": []})
            _call_from_test.list_queues()
    assert bool(check.violations) is caught, check.violations
    if caught:
        assert f"from core/{filename}" in check.violations[0]


def _module(path: Path) -> str:
    parts = ["core", *path.relative_to(CORE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in CORE.rglob("*.py")}


def _imports(path: Path, *, at_import: bool = False) -> set[str]:
    """The modules ``path`` imports, as full names (``core.posts.writer``, ``boto3``); ``at_import``: only those run
    when it is imported (not inside a function, nor under ``TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if at_import else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each circle of ``graph`` found by a depth-first walk (empty: the graph runs one way)."""
    circles: list[list[str]] = []
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> None:
        if node in trail:
            circles.append(trail[trail.index(node) :])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, [*trail, node])
        done.add(node)

    for node in sorted(graph):
        visit(node, [])
    return circles


def _package(module: str) -> str:
    return module.split(".")[1] if module.count(".") else module


def test_only_stores_adapters_and_providers_import_aws() -> None:
    """Services get their stores from the providers; they never hold a client (tests/support/boto_callers.py checks
    the calls themselves)."""
    aws = ("boto3", "botocore", "core.platform.aws")
    offenders = sorted(
        module for module, path in MODULES.items()
        if any(name == a or name.startswith(a + ".") for name in _imports(path) for a in aws)
        and not may_call_aws(str(path.relative_to(CORE)))
        and path.name != "providers.py"
        and module not in {"core.http", "core.platform.aws", "core.platform.lambda_runtime.snapstart"}
    )  # fmt: skip
    assert offenders == []


def test_each_resource_package_imports_only_the_resources_it_names() -> None:
    found: dict[str, set[str]] = {package: set() for package in PACKAGES}
    for module, path in MODULES.items():
        if module in {"core.http", "core"} or path.name == "providers.py":
            continue
        imported = {_package(n) for n in _imports(path) if n.startswith("core.")}
        found[_package(module)] |= imported - {_package(module), "platform"}  # every package uses the platform
    assert found == DEPENDS_ON
    assert found["platform"] == set()  # the platform imports no resource


def test_dependencies_between_resources_run_one_way() -> None:
    """Not only no two-way pair: no circle through several packages either. What the workspace's access check reads
    of an agent, and the brand a workspace is created with, reach it as data and as a given builder
    (``workspaces.service.WorkspaceAccess.agent``, ``workspaces.ports.NewDefaultBrand``)."""
    assert _circles({package: set(named) for package, named in DEPENDS_ON.items()}) == []


def _wiring() -> dict[str, set[str]]:
    """The packages each package uses, ``providers.py`` counted: what its modules import and what it wires."""
    found = {package: set(named) for package, named in DEPENDS_ON.items()}
    for path in CORE.glob("*/providers.py"):
        wired = {_package(n) for n in _imports(path) if n.startswith("core.")}
        found.setdefault(path.parent.name, set()).update(wired - {path.parent.name, "platform"})
    return found


def test_no_circle_runs_through_the_providers() -> None:
    """``DEPENDS_ON`` leaves the providers out, but a package whose providers wire another's that uses it back is a
    circle all the same (a writer queueing the knowledge worker that reads the writer's items). The jobs a write
    leaves for a worker go through ``core.platform.jobs``, so no writer's package imports the worker's; a workspace's
    creation and deletion are wired by the providers of the packages they hand it (``brands.providers``'s default
    brand, ``purge.providers``'s keys to revoke), so workspaces' providers wire none of the packages above."""
    assert _circles(_wiring()) == []


@pytest.mark.parametrize("at_import", [True, False], ids=["at-import", "lazy-imports-too"])
def test_no_module_import_circle(at_import: bool) -> None:
    """Neither among what modules import when they are imported, nor counting the imports inside functions (a
    provider's) and those for the type checker."""
    graph = {m: {n for n in _imports(p, at_import=at_import) if n in MODULES} for m, p in MODULES.items()}
    assert _circles(graph) == []


def test_handlers_import_the_http_factory_and_resources_never_import_it() -> None:
    users = sorted(m for m, p in MODULES.items() if "core.http" in _imports(p))
    assert users == []


def test_the_platforms_parts_import_each_other_one_way() -> None:
    """Its subpackages and modules (``rest``, ``observability``, ``lambda_runtime``, ``settings``, ...) form no circle,
    lazy imports included: the runtime loop and the observability no longer import each other."""

    def part(module: str) -> str:
        return module.split(".")[2] if module.count(".") >= 2 else module

    platform = {m: p for m, p in MODULES.items() if m.startswith("core.platform.")}
    graph: dict[str, set[str]] = {}
    for module, path in platform.items():
        graph.setdefault(part(module), set()).update(
            part(n) for n in _imports(path) if n.startswith("core.platform.") and part(n) != part(module)
        )
    assert _circles(graph) == []
