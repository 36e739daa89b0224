"""The client's models and operations are the OpenAPI documents': regenerated, they equal the committed files.

Also: every operation of both documents is a method of the sync and of the async client (the JSON
ones generated, chat and r2 written by hand), so a new route cannot be missing from the client.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from workspace_client import AsyncBrain, AsyncPortal, Brain, Portal

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "clients" / "python" / "generate.py"
# Operations with no usable success answer: /v1/r2 without a path is always refused (400), so no method.
NO_METHOD = {"get_object_without_key", "get_object_without_key_head"}
HAND_WRITTEN_METHODS = {"chat": "chat", "get_object": "download", "get_object_head": "head"}


def generator(monkeypatch: pytest.MonkeyPatch):
    # The command line imports its package (clientgen/) from beside it, as ``python generate.py`` does.
    monkeypatch.syspath_prepend(str(GENERATOR.parent))
    spec = importlib.util.spec_from_file_location("client_generator", GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_files_match_the_openapi_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = generator(monkeypatch)
    rendered = module.render(ROOT / "docs" / "openapi")
    for path, text in rendered.items():
        (tmp_path / path.name).write_text(text)
    stale = [path.name for path in rendered if (tmp_path / path.name).read_text() != path.read_text()]
    assert not stale, f"stale generated client files {stale}: run python clients/python/generate.py"
    assert set(rendered) == set(module.OUTPUT.glob("*.py")), "a generated file no document produces any more"


@pytest.mark.parametrize(("plane", "clients"), [("portal", (Portal, AsyncPortal)), ("brain", (Brain, AsyncBrain))])
def test_every_operation_is_a_method_of_both_clients(plane: str, clients: tuple[type, type]) -> None:
    document = json.loads((ROOT / "docs" / "openapi" / f"{plane}.json").read_text())
    operation_ids = {
        op["operationId"] for item in document["paths"].values() for op in item.values() if "operationId" in op
    }
    assert operation_ids, plane
    for operation_id in operation_ids - NO_METHOD:
        name = HAND_WRITTEN_METHODS.get(operation_id, operation_id)
        for client in clients:
            assert callable(getattr(client, name, None)), f"{client.__name__} has no method for {operation_id}"
