"""Each handler's own route (the path and method its ``@app.<method>`` declares) against template.yaml's event for its
function (tests/support/handler_routes.py): an independent source on each side, so a handler whose path, parameter
names or method differ from the template's fails here (issue 38, weakness 8). The mutations below are the tests of
the test: one path, parameter name or method changed on either side, each caught."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import Any

import pytest

from core.platform.rest.router import RestResolver
from stack.openapi.contracts import handler_module
from stack.template import load
from tests.support.handler_routes import Declared, declared_routes, disagreements, sample_path, template_routes


@cache
def real_declared() -> dict[str, list[Declared]]:
    return {f: declared_routes(handler_module(f)) for f in sorted({r.function for r in template_routes(load())})}


def with_path(function: str, old: str, new: str, *, method: str | None = None) -> dict[str, Any]:
    """A copy of the template where ``function``'s event on ``old`` is on ``new`` (and ``method``, if given)."""
    template = load()
    events = template["Resources"][function]["Properties"]["Events"].values()
    changed = [e["Properties"] for e in events if e["Properties"].get("Path") == old]
    assert changed, f"{function} has no event on {old}"
    for props in changed[:1]:
        props["Path"] = new
        props["Method"] = method or props["Method"]
    return template


def caught(template: dict[str, Any], declared: dict[str, list[Declared]] | None = None) -> list[str]:
    return disagreements(template_routes(template), declared or real_declared())


def one_route(method: str, path: str) -> list[Declared]:
    """What a handler declaring just this route holds (the same resolver the factory builds on)."""
    app = RestResolver()
    app.route(path, method)(lambda **_: None)
    return declared_routes(SimpleNamespace(app=app))


def test_every_handler_declares_the_path_and_method_the_template_routes_to_it() -> None:
    assert caught(load()) == []


def test_every_routed_function_of_both_planes_is_compared() -> None:
    routes = template_routes(load())
    assert {r.api for r in routes} == {"BrainApi", "PortalApi"}
    assert len([r for r in routes if r.method != "ANY"]) > 70
    fallbacks = {r.function for r in routes if r.method == "ANY"}
    assert fallbacks == {"BrainFallbackFunction", "PortalFallbackFunction"}
    assert all(real_declared()[f] for f in {r.function for r in routes} - fallbacks)  # a handler with routes each


def test_the_sample_request_path_fills_each_parameter_and_a_greedy_one_with_segments() -> None:
    assert sample_path("/v1/agent/{agentId}/feed") == "/v1/agent/agentId-1/feed"
    assert sample_path("/v1/r2/{path+}") == "/v1/r2/path-1/deeper/leaf.png"


# --- the tests of the test: each mutation, on either side, is caught ---


@pytest.mark.parametrize(
    ("function", "old", "new", "named"),
    [("BrainFeedFunction", "/v1/agent/{agentId}/feed", "/v1/agent/{agent_id}/feed", "{agent_id}"),
     ("PortalItemsListFunction", "/api/workspaces/{workspaceId}/agents/{agentId}/items",
      "/api/workspaces/{workspaceId}/agents/{agentId}/item", "/item"),
     ("PortalMemberUpdateFunction", "/api/workspaces/{workspaceId}/members/{userId}",
      "/api/workspaces/{workspaceId}/members/{memberId}", "{memberId}"),
     ("PortalObjectGetFunction", "/api/workspaces/{workspaceId}/objects/{path+}",
      "/api/workspaces/{workspace_id}/objects/{path+}", "workspace_id"),
     ("BrainR2Function", "/v1/r2/{path+}", "/v1/r3/{path+}", "/v1/r3"),
     ("PortalAccountFunction", "/api/user/account", "/api/users/account", "/api/users/account")],
)  # fmt: skip
def test_a_template_path_changed_is_caught(function: str, old: str, new: str, named: str) -> None:
    found = caught(with_path(function, old, new))
    assert found and all(function in line for line in found), found
    assert any(named in line for line in found), found


def test_a_template_method_changed_is_caught() -> None:
    found = caught(with_path("BrainFeedFunction", "/v1/agent/{agentId}/feed", "/v1/agent/{agentId}/feed",
                             method="POST"))  # fmt: skip
    assert any("0 handler routes serve POST /v1/agent/{agentId}/feed" in line for line in found), found
    assert any("GET /v1/agent/<agentId>/feed serves no route" in line for line in found), found


@pytest.mark.parametrize(
    ("function", "method", "path", "named"),
    [("BrainFeedFunction", "GET", "/v1/agent/<agent_id>/feed", "<agent_id>"),
     ("BrainFeedFunction", "GET", "/v1/agents/<agentId>/feed", "0 handler routes"),
     ("BrainFeedFunction", "POST", "/v1/agent/<agentId>/feed", "0 handler routes serve GET"),
     ("PortalObjectDeleteFunction", "DELETE", "/api/workspaces/<ws>/objects/.+", "['ws']"),
     ("BrainR2Function", "GET", "/v1/.*", "starts with /v1/,")],
)  # fmt: skip
def test_a_handlers_declared_route_changed_is_caught(function: str, method: str, path: str, named: str) -> None:
    declared = real_declared() | {function: one_route(method, path)}
    found = caught(load(), declared)
    assert found and all(function in line for line in found), found
    assert any(named in line for line in found), found


def test_a_handler_route_the_template_never_sends_and_a_fallback_with_routes_are_caught() -> None:
    feed = real_declared()["BrainFeedFunction"]
    extra = real_declared() | {"BrainFeedFunction": [*feed, *one_route("DELETE", "/v1/agent/<agentId>/feed")]}
    unrouted = "BrainFeedFunction: DELETE /v1/agent/<agentId>/feed serves no route of the template"
    assert caught(load(), extra) == [unrouted]
    routed = real_declared() | {"BrainFallbackFunction": one_route("GET", "/v1/agent/<agentId>/feed")}
    assert any(line.startswith("BrainFallbackFunction (ANY ") for line in caught(load(), routed))
