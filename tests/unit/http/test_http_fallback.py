"""core.http fallback_api() (404 vs 405 by resource), portal CORS, and json_response."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.http import fallback_api, json_response, portal_api
from core.keys.models import WhoAmI
from core.platform import providers as platform_providers
from tests.support.http_boundary import assert_cors, call, feed_event, patch_key_authenticator
from tests.support.lambdas import sample_event, with_request


def fallback_event(resource: str, path: str, method: str = "PATCH") -> dict[str, Any]:
    event = sample_event("BrainFallbackFunction")
    event["resource"] = event["requestContext"]["resourcePath"] = resource
    event["path"] = path
    return with_request(event, method=method)


@pytest.mark.parametrize(
    ("resource", "path", "method", "status", "code"),
    [("/v1/agent/{agentId}", "/v1/agent/prj_1", "PATCH", 405, "METHOD_NOT_ALLOWED"),
     ("/v1/agent/_whoami", "/v1/agent/_whoami", "POST", 405, "METHOD_NOT_ALLOWED"),
     ("/v1/agent/{agentId}/feed", "/v1/agent/prj_1/feed", "DELETE", 405, "METHOD_NOT_ALLOWED"),
     ("/{proxy+}", "/v1/nothing/here", "GET", 404, "NOT_FOUND"),
     ("/{proxy+}", "/v1/agent/prj_1/feed/x", "POST", 404, "NOT_FOUND")],
)  # fmt: skip
def test_fallback_405_on_known_resource_404_elsewhere(
    resource: str, path: str, method: str, status: int, code: str
) -> None:
    result = call(fallback_api(), fallback_event(resource, path, method))
    assert (result.status, result.json()["code"]) == (status, code)
    assert set(result.json()) == {"error", "code"}
    assert_cors(result)


def test_fallback_needs_no_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    patch_key_authenticator(monkeypatch, lambda: pytest.fail("fallback must not authenticate"))
    event = with_request(fallback_event("/{proxy+}", "/x"), headers={"Authorization": None})
    assert call(fallback_api(), event).status == 404


def test_portal_fallback_uses_portal_cors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_PLANE", "portal")
    platform_providers.reset()
    event = with_request(fallback_event("/{proxy+}", "/api/x"), headers={"Origin": "http://localhost:5173"})
    result = call(fallback_api(), event)
    assert result.status == 404
    assert result.header("Access-Control-Allow-Origin") == "http://localhost:5173"
    assert result.header("Access-Control-Allow-Credentials") == "true"


@pytest.mark.parametrize(
    ("origin", "allowed"), [("http://localhost:5173", True), ("https://evil.example", False), (None, False)]
)
def test_portal_cors_echoes_only_the_configured_origin(origin: str | None, allowed: bool) -> None:
    app = portal_api(authenticated=False)

    @app.get("/v1/agent/<agentId>/feed")
    def route(agentId: str) -> Any:
        return json_response({})

    result = call(app, feed_event(headers={"Origin": origin}))
    assert result.status == 200
    if allowed:
        assert result.header("Access-Control-Allow-Origin") == origin
        assert (result.header("Access-Control-Allow-Credentials"), result.header("Vary")) == ("true", "Origin")
    else:
        assert result.header("Access-Control-Allow-Origin") is None
        assert result.header("Access-Control-Allow-Credentials") is None


def test_json_response_serialises_models_by_alias() -> None:
    response = json_response([WhoAmI(workspace_id="ws_1", api_key_id="key_1"), {"plain": True}], status=201)
    assert response.status_code == 201 and response.body is not None
    assert json.loads(response.body) == [{"workspaceId": "ws_1", "apiKeyId": "key_1"}, {"plain": True}]


def test_a_responses_own_vary_is_kept_beside_the_cors_origin() -> None:
    """A route that varies on something else (r2: Authorization) still varies on Origin for a named origin."""
    app = portal_api(authenticated=False)

    @app.get("/v1/agent/<agentId>/feed")
    def route(agentId: str) -> Any:
        return json_response({}, headers={"Vary": "Authorization, origin"})

    result = call(app, feed_event(headers={"Origin": "http://localhost:5173"}))
    assert result.header("Vary") == "Authorization, origin"  # each token once, the route's spelling kept


def test_vary_tokens_merge_in_order_without_repeats() -> None:
    app = portal_api(authenticated=False)

    @app.get("/v1/agent/<agentId>/feed")
    def route(agentId: str) -> Any:
        return json_response({}, headers={"Vary": "Authorization"})

    result = call(app, feed_event(headers={"Origin": "http://localhost:5173"}))
    assert result.header("Vary") == "Authorization, Origin"
