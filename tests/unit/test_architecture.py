"""docs/architecture.md's claims, held by code: the checker of "only stores call AWS" catches a call from elsewhere
in the layer (the integration suite runs it on every call); only stores, adapters and providers import AWS; the
platform imports no resource; resource packages depend on the few resources they name; no module import circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from botocore.stub import Stubber

from tests.support.boto_callers import LAYER, may_call_aws, watching

CORE = Path(LAYER)
PACKAGES = sorted(p.name for p in CORE.iterdir() if (p / "__init__.py").exists())

# What each resource package may import besides the platform (docs/architecture.md, "Packages"). A new dependency
# is a decision: add it here and there, or put the code where it belongs.
DEPENDS_ON = {
    "agents": {"audit", "brands", "items", "posts", "purge", "workflows", "workspaces"},
    "audit": set(),
    "brands": {"audit", "workspaces"},
    "chat": {"agents", "brands", "credits", "items", "posts", "workspaces"},
    "credits": set(),
    "identity": set(),
    "items": {"audit", "objects", "workspaces"},
    "keys": {"identity", "objects", "workspaces"},
    "objects": {"audit", "workspaces"},
    "platform": set(),
    "posts": {"audit", "objects", "workspaces"},
    "purge": {"keys", "workspaces"},
    "workflows": {"audit", "workspaces"},
    "workspaces": {"agents", "audit", "brands", "identity", "keys", "purge"},
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
        if module in {"core.http", "core"}:
            continue
        imported = {_package(n) for n in _imports(path) if n.startswith("core.")}
        found[_package(module)] |= imported - {_package(module), "platform"}  # every package uses the platform
    assert found == DEPENDS_ON
    assert found["platform"] == set()  # the platform imports no resource


def test_no_module_import_circle() -> None:
    """Among what modules import when they are imported (a lazy import inside a function is not a circle)."""
    graph = {m: {n for n in _imports(p, at_import=True) if n in MODULES} for m, p in MODULES.items()}
    circles, done = [], set()

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            circles.append(trail[trail.index(module) :])
            return
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, [*trail, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert circles == []


def test_handlers_import_the_http_factory_and_resources_never_import_it() -> None:
    users = sorted(m for m, p in MODULES.items() if "core.http" in _imports(p))
    assert users == []
