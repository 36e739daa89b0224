"""The route table the fallback reads (core/routes.json) and the ``Allow`` header of its 405 (RFC 9110)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from stack.route_table import TABLE, render, route_table
from tests.support.lambdas import invoke, sample_event, stack, with_request


def test_checked_in_route_table_matches_the_template() -> None:
    assert TABLE.read_text() == render(), "core/routes.json drifted from template.yaml: run python -m stack.route_table"


def test_table_covers_every_routed_path_of_both_planes() -> None:
    table = route_table(stack())
    for api, plane in (("BrainApi", "brain"), ("PortalApi", "portal")):
        routed = {r.path for r in stack().routes(api) if r.path != "/{proxy+}" and r.method != "ANY"}
        assert set(table[plane]) == routed
        assert all("OPTIONS" in methods for methods in table[plane].values())  # Cors answers preflight everywhere
    assert table["brain"]["/v1/r2/{path+}"] == ["GET", "HEAD", "OPTIONS"]
    assert table["brain"]["/v1/agent/{agentId}/feed"] == ["GET", "OPTIONS"]  # HEAD is not routed there: no HEAD
    assert table["portal"]["/api/workspaces/{workspaceId}"] == ["DELETE", "GET", "OPTIONS", "PATCH"]


def fallback(function: str, resource: str, path: str, method: str) -> Any:
    event = sample_event(function)
    event["resource"] = event["requestContext"]["resourcePath"] = resource
    event["path"] = path
    return invoke(function, with_request(event, method=method))


@pytest.mark.parametrize(
    ("function", "resource", "path", "method", "allow"),
    [("BrainFallbackFunction", "/v1/agent/{agentId}/feed", "/v1/agent/prj_x/feed", "POST", "GET, OPTIONS"),
     ("BrainFallbackFunction", "/v1/agent/{agentId}/feed", "/v1/agent/prj_x/feed", "HEAD", "GET, OPTIONS"),
     ("BrainFallbackFunction", "/v1/agent/{agentId}/chat", "/v1/agent/prj_x/chat", "GET", "OPTIONS, POST"),
     ("BrainFallbackFunction", "/v1/r2/{path+}", "/v1/r2/assets/x.png", "DELETE", "GET, HEAD, OPTIONS"),
     ("PortalFallbackFunction", "/api/workspaces", "/api/workspaces", "PUT", "GET, OPTIONS, POST"),
     ("PortalFallbackFunction", "/api/workspaces/{workspaceId}/keys/{keyId}", "/api/workspaces/w/keys/k", "GET",
      "DELETE, OPTIONS")],
)  # fmt: skip
def test_405_names_the_allowed_methods(  # noqa: PLR0917 - one parametrized case per argument
    as_function: Any, function: str, resource: str, path: str, method: str, allow: str
) -> None:
    as_function(function)
    result = fallback(function, resource, path, method)
    assert (result.status, result.json()["code"]) == (405, "METHOD_NOT_ALLOWED")
    assert result.header("Allow") == allow


def test_404_carries_no_allow(as_function: Any) -> None:
    as_function("BrainFallbackFunction")
    result = fallback("BrainFallbackFunction", "/{proxy+}", "/v1/nothing", "GET")
    assert result.status == 404 and result.header("Allow") is None


def test_table_is_plain_json_in_the_layer() -> None:
    assert TABLE.parent.name == "core" and TABLE.parent.parent.name == "common"
    assert set(json.loads(TABLE.read_text())) == {"brain", "portal"}
