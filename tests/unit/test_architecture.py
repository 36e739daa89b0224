"""docs/architecture.md's claims, held by code: the checker of "only repositories call AWS" catches a call from
elsewhere in the layer (the integration suite runs it on every call), and imports run downward."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from botocore.stub import Stubber

from tests.support.boto_callers import LAYER, watching

CORE = Path(LAYER)
FLOORS = ["functions", "http", "services", "repositories", "models"]  # imports run downward, never up


def _call_from(filename: str, client: object) -> None:
    """``client.list_queues()`` from code that says it lives at ``core/<filename>``."""
    code = compile("client.list_queues()", LAYER + filename, "exec")
    exec(code, {"client": client})  # noqa: S102 - a fixed statement, only its filename is chosen


@pytest.mark.parametrize(("filename", "caught"), [
    ("services/anything.py", True), ("models/anything.py", True), ("http.py", True),
    ("repositories/anything.py", False), ("repositories/authoring/posts.py", False), ("chat/bedrock.py", False),
])  # fmt: skip
def test_the_checker_catches_aws_calls_from_outside_the_repositories(
    monkeypatch: pytest.MonkeyPatch, filename: str, caught: bool
) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    from core import aws

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


def _imports(path: Path) -> set[str]:
    """The ``core`` modules a module imports, as ``core.<...>`` names (relative imports resolved)."""
    package = ["core", *path.relative_to(CORE).with_suffix("").parts[:-1]]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("core.")}


@pytest.mark.parametrize("floor", ["models", "repositories", "services"])
def test_imports_run_downward(floor: str) -> None:
    """A model imports no repository or service; a repository no service; a service no handler-facing module."""
    above = {"models": ("core.repositories", "core.services", "core.http", "core.rest", "core.deps"),
             "repositories": ("core.services", "core.http", "core.rest", "core.deps"),
             "services": ("core.http", "core.rest", "core.deps")}[floor]  # fmt: skip
    offenders = {
        str(path.relative_to(CORE)): sorted(name for name in _imports(path) if name.startswith(above))
        for path in (CORE / floor).rglob("*.py")
    }
    assert not {path: names for path, names in offenders.items() if names}
