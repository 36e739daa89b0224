"""What API Gateway does not route: 405 on a known path, 404 elsewhere; and the 256 KiB body limit (413)."""

from __future__ import annotations

import base64

import pytest

from local.gateway.events import SAMPLE_API_KEY_ID
from tests.support.brain import call, error_of, ok_json
from tests.support.lambdas import invoke, sample_event, stack, with_request

BRAIN, PORTAL = "BrainFallbackFunction", "PortalFallbackFunction"
NOT_FOUND = {"error": "Not found", "code": "NOT_FOUND"}
METHOD_NOT_ALLOWED = {"error": "Method not allowed", "code": "METHOD_NOT_ALLOWED"}
TOO_LARGE = {"error": "Request body too large", "code": "PAYLOAD_TOO_LARGE"}
LIMIT = 256 * 1024
PORTAL_ORIGIN = stack().parameters["PortalAllowOrigin"]


def brain_fallback(resource: str, request_path: str, method: str, **params: str):
    event = sample_event(BRAIN)
    event["resource"] = event["requestContext"]["resourcePath"] = resource
    event["pathParameters"] = params or None
    event["path"] = request_path
    return invoke(BRAIN, with_request(event, method=method))


def test_sample_event_known_path_wrong_method_is_405(as_function) -> None:
    as_function(BRAIN)
    result = invoke(BRAIN, sample_event(BRAIN))
    assert error_of(result) == (405, METHOD_NOT_ALLOWED)
    assert result.header("Access-Control-Allow-Origin") == "*"


def test_every_known_brain_path_with_a_wrong_method_is_405(as_function) -> None:
    as_function(BRAIN)
    routes = [r for r in stack().routes("BrainApi") if r.function != BRAIN]
    known = sorted({r.path for r in routes})
    assert len(known) == 12
    samples = {"agentId": "prj_x", "turnId": "turn_x", "path": "assets/x.png"}
    for resource in known:
        params = {k: v for k, v in samples.items() if f"{{{k}" in resource}
        path = resource.replace("{agentId}", "prj_x").replace("{turnId}", "turn_x").replace("{path+}", "assets/x.png")
        taken = {r.method for r in routes if r.path == resource}
        for method in {"POST", "PUT", "PATCH", "DELETE"} - taken:
            result = brain_fallback(resource, path, method, **params)
            assert error_of(result) == (405, METHOD_NOT_ALLOWED), (method, resource)


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("path", ["/v1/agent/prj_x/unknown", "/v2/agent/_whoami", "/", "/api/workspaces"])
def test_unknown_brain_path_is_404_whatever_the_method(as_function, path: str, method: str) -> None:
    as_function(BRAIN)
    result = brain_fallback("/{proxy+}", path, method, proxy=path.lstrip("/"))
    assert error_of(result) == (404, NOT_FOUND)
    assert result.header("Access-Control-Allow-Origin") == "*"


def test_fallback_needs_no_credential(as_function) -> None:
    as_function(BRAIN)
    event = with_request(sample_event(BRAIN), headers={"Authorization": None})
    assert error_of(invoke(BRAIN, event)) == (405, METHOD_NOT_ALLOWED)


def test_sample_event_portal_fallback(as_function) -> None:
    """Whatever path the sample carries: 405 on a known resource, 404 on ``/{proxy+}``."""
    as_function(PORTAL)
    event = sample_event(PORTAL)
    result = invoke(PORTAL, event)
    expected = (404, NOT_FOUND) if event["resource"] == "/{proxy+}" else (405, METHOD_NOT_ALLOWED)
    assert error_of(result) == expected
    # The sample's Origin is a brand page, not the portal app: no CORS grant on the portal plane.
    assert result.header("Access-Control-Allow-Origin") is None


def portal_fallback(resource: str, path: str, method: str, origin: str | None = None, **params: str):
    event = sample_event(PORTAL)
    event["resource"] = event["requestContext"]["resourcePath"] = resource
    event["pathParameters"] = params or None
    event["path"] = path
    return invoke(PORTAL, with_request(event, method=method, headers={"Origin": origin}))


@pytest.mark.parametrize("path", ["/api/nothing", "/v1/agent/_whoami", "/"])
def test_portal_unknown_path_is_404(as_function, path: str) -> None:
    as_function(PORTAL)
    assert error_of(portal_fallback("/{proxy+}", path, "GET", proxy=path.lstrip("/"))) == (404, NOT_FOUND)


def test_portal_known_path_wrong_method_is_405(as_function) -> None:
    as_function(PORTAL)
    known = sorted({r.path for r in stack().routes("PortalApi") if r.function == PORTAL and "+" not in r.path})
    assert known, "the portal fallback covers the portal's known paths"
    for resource in known:
        result = portal_fallback(resource, resource.replace("{", "").replace("}", ""), "PATCH")
        assert error_of(result) == (405, METHOD_NOT_ALLOWED), resource


def test_portal_fallback_grants_cors_to_the_portal_app_only(as_function) -> None:
    as_function(PORTAL)
    result = portal_fallback("/{proxy+}", "/api/nothing", "GET", origin=PORTAL_ORIGIN, proxy="api/nothing")
    assert error_of(result) == (404, NOT_FOUND)
    assert result.header("Access-Control-Allow-Origin") == PORTAL_ORIGIN
    assert result.header("Access-Control-Allow-Credentials") == "true"
    assert result.header("Vary") == "Origin"
    foreign = portal_fallback("/{proxy+}", "/api/nothing", "GET", origin="https://evil.example", proxy="api/nothing")
    assert foreign.header("Access-Control-Allow-Origin") is None


# ---------------------------------------------------------------- 413


@pytest.mark.parametrize("function", ["BrainWhoAmIFunction", "BrainFeedFunction", BRAIN])
def test_body_over_256_kib_is_413(tenant, function: str) -> None:
    result = call(function, body="x" * (LIMIT + 1))
    assert error_of(result) == (413, TOO_LARGE)
    assert result.header("Access-Control-Allow-Origin") == "*"


def test_body_of_exactly_256_kib_is_accepted(tenant) -> None:
    result = call("BrainWhoAmIFunction", body="x" * LIMIT)
    assert ok_json(result)["apiKeyId"] == SAMPLE_API_KEY_ID


def test_the_limit_counts_bytes_not_characters(tenant) -> None:
    # 131,073 characters, 262,146 bytes of UTF-8.
    assert error_of(call("BrainWhoAmIFunction", body="é" * (LIMIT // 2 + 1))) == (413, TOO_LARGE)


def test_a_base64_body_is_measured_decoded(tenant) -> None:
    fits = base64.b64encode(b"\0" * LIMIT).decode()  # ~349,528 characters of base64
    event = with_request(sample_event("BrainWhoAmIFunction"), body=fits)
    event["isBase64Encoded"] = True
    assert invoke("BrainWhoAmIFunction", event).status == 200
    event["body"] = base64.b64encode(b"\0" * (LIMIT + 1)).decode()
    assert error_of(invoke("BrainWhoAmIFunction", event)) == (413, TOO_LARGE)
