"""OpenAPI links between a plane's operations, derived from its routes and answers (nothing to declare per route).

An operation whose success answer is an envelope of one resource, ``{x: {id, …}}`` (``{"agent": {"id": …}}``),
names the resource ``{xId}``: its item path is the operation's own path up to ``{xId}`` when it has one (``GET``,
``PATCH`` or ``…/publish`` of ``…/posts/{postId}``), else its path and ``/{xId}`` (the collection's ``POST``). It
links to every operation at or under that item path (itself included: an edit, then another) whose path
parameters it can fill: ``xId`` from the answer (``$response.body#/x/id``), every other one from its own request
path (``$request.path.workspaceId``).

So ``POST …/agents`` links to ``GET``/``PATCH``/``DELETE …/agents/{agentId}`` and to the agent's posts, items, wrap
and site; ``GET`` and ``PATCH`` of the agent link on to the same operations, which lets a stateful client (a fuzzer,
a generated client) chain create → get → patch → delete with the ids the service handed out. A route needing an
id the answer does not hold (a post's, under an agent) is not linked; a list (``{agents: [...]}``) links nowhere.
"""

from __future__ import annotations

import re
from typing import Any

METHODS = ("get", "put", "post", "patch", "delete")
_PARAM = re.compile(r"\{([^}]+)\}")
_REF = "#/components/schemas/"


def _component(schema: dict[str, Any] | None, schemas: dict[str, Any]) -> dict[str, Any] | None:
    ref = (schema or {}).get("$ref", "")
    return schemas.get(ref.removeprefix(_REF)) if ref.startswith(_REF) else None


def resource_of(operation: dict[str, Any], schemas: dict[str, Any]) -> tuple[str, str] | None:
    """(status, ``x``) when the operation's success answer is ``{x: {id: string, …}}`` and nothing else."""
    for status, response in operation.get("responses", {}).items():
        if not status.startswith("2"):
            continue
        envelope = _component(response.get("content", {}).get("application/json", {}).get("schema"), schemas)
        if envelope is None or len(envelope.get("properties", {})) != 1:
            continue
        ((name, member),) = envelope["properties"].items()
        resource = _component(member, schemas) or {}
        has_id = resource.get("properties", {}).get("id", {}).get("type") == "string"
        if name in envelope.get("required", ()) and has_id and "id" in resource.get("required", ()):
            return status, name
    return None


def _item_path(path: str, parameter: str) -> str:
    marker = "{" + parameter + "}"
    return path[: path.index(marker) + len(marker)] if marker in path else f"{path.rstrip('/')}/{marker}"


def links(paths: dict[str, dict[str, Any]], schemas: dict[str, Any]) -> dict[tuple[str, str], tuple[str, dict]]:
    """``(path, method) -> (status, links)`` of every operation that links to others (the Link Objects by the
    target's operationId)."""
    found: dict[tuple[str, str], tuple[str, dict]] = {}
    for path, item in paths.items():
        for method, operation in item.items():
            if method not in METHODS or (resource := resource_of(operation, schemas)) is None:
                continue
            status, name = resource
            parameter = f"{name}Id"
            base = _item_path(path, parameter)
            known = set(_PARAM.findall(path)) | {parameter}
            out: dict[str, Any] = {}
            for target_path, target_item in paths.items():
                if target_path != base and not target_path.startswith(base + "/"):
                    continue
                wanted = _PARAM.findall(target_path)
                if not set(wanted) <= known:
                    continue  # another id (a post's under an agent): not in this answer
                for target_method, target in target_item.items():
                    if target_method not in METHODS:
                        continue
                    values = {
                        p: f"$response.body#/{name}/id" if p == parameter else f"$request.path.{p}" for p in wanted
                    }
                    out[target["operationId"]] = {
                        "operationId": target["operationId"],
                        "description": f"the {name} this answer holds: `{parameter}` is its `id`",
                        "parameters": values,
                    }
            if out:
                found[(path, method)] = (status, dict(sorted(out.items())))
    return found


def add_links(paths: dict[str, dict[str, Any]], schemas: dict[str, Any]) -> None:
    """Put each operation's links in its success response (``responses[status].links``)."""
    for (path, method), (status, found) in links(paths, schemas).items():
        paths[path][method]["responses"][status]["links"] = found
