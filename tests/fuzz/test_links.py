"""The portal document links each resource the writer creates to what reads, changes and deletes it, with ids that
resolve: the stateful fuzz run (``make fuzz``) follows these links (``stack/openapi/links.py`` derives them)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

_DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi" / "portal.json"
# create → (get) → patch → delete; a post's publish and unpublish between; what reads an agent's or a key's use
CHAINS = {
    "agent": ("create_agent", "get_agent", "update_agent", "delete_agent"),
    "post": ("create_post", "update_post", "publish_post", "unpublish_post", "update_post", "delete_post"),
    "item": ("create_item", "update_item", "update_item", "delete_item"),
    "brand": ("create_brand", "update_brand", "update_brand", "delete_brand"),
    "workflow": ("create_workflow", "update_workflow", "update_workflow", "delete_workflow"),
    "invitation": ("create_invitation", "revoke_invitation"),
    "key": ("mint_key", "revoke_key"),
}
# Reads of what a resource did, each reached from the resource's creation (the answer's id fills the path).
READS = {
    "agent": ("list_conversations", "erase_conversations", "agent_usage"),
    "key": ("key_usage",),
}
CREATED_BY = {"agent": "create_agent", "key": "mint_key"}


def _operations() -> dict[str, tuple[str, dict[str, Any]]]:
    document = json.loads(_DOCUMENT.read_text())
    return {op["operationId"]: (path, op) for path, item in document["paths"].items() for op in item.values()}


def _links(operation: dict[str, Any]) -> dict[str, Any]:
    found = [r["links"] for status, r in operation["responses"].items() if status.startswith("2") and "links" in r]
    return found[0] if found else {}


@pytest.mark.parametrize("resource", sorted(CHAINS))
def test_each_step_links_to_the_next(resource: str) -> None:
    operations = _operations()
    chain = CHAINS[resource]
    for source, target in itertools.pairwise(chain):
        link = _links(operations[source][1]).get(target)
        assert link is not None, f"{source} does not link to {target}"
        assert link["parameters"][f"{resource}Id"] == f"$response.body#/{resource}/id"


@pytest.mark.parametrize(("resource", "target"), [(r, t) for r, targets in sorted(READS.items()) for t in targets])
def test_what_a_resource_did_is_linked_from_its_creation(resource: str, target: str) -> None:
    link = _links(_operations()[CREATED_BY[resource]][1]).get(target)
    assert link is not None, f"{CREATED_BY[resource]} does not link to {target}"
    assert link["parameters"][f"{resource}Id"] == f"$response.body#/{resource}/id"


def test_every_link_fills_its_targets_path_from_the_source() -> None:
    operations = _operations()
    for source_path, source in operations.values():
        for name, link in _links(source).items():
            target_path, _ = operations[link["operationId"]]
            assert name == link["operationId"]
            assert set(link["parameters"]) == set(re.findall(r"\{([^}]+)\}", target_path)), (source_path, name)
            for parameter, expression in link["parameters"].items():
                if expression.startswith("$request.path."):
                    assert "{" + expression.removeprefix("$request.path.") + "}" in source_path, (source_path, name)
                else:
                    assert re.fullmatch(r"\$response\.body#/[a-z]+/id", expression), (source_path, name, parameter)
