"""PortalFallbackFunction: a known portal path with a method it does not take is 405; anything else 404."""

from __future__ import annotations

import pytest

from core.platform import providers as platform_providers
from tests.support.lambdas import invoke, sample_event, stack, with_request
from tests.support.portal import assert_error

KNOWN = sorted({r.path for r in stack().routes("PortalApi") if r.function != "PortalFallbackFunction"})
SAMPLE_PARAMS = {"workspaceId": "ws_01JDSOMEWORKSPACE000000000", "keyId": "key_01JDSOMEKEY00000000000000",
                 "provider": "google", "agentId": "prj_01JDSOMEAGENT000000000000", "threadKey": "thr_1"}  # fmt: skip


@pytest.fixture(autouse=True)
def fallback_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment template.yaml gives PortalFallbackFunction (``API_PLANE=portal``)."""
    for name, value in stack().functions()["PortalFallbackFunction"].environment.items():
        monkeypatch.setenv(name, value)
    platform_providers.reset()


def fallback(resource: str, method: str, token: str | None = None):
    event = sample_event("PortalFallbackFunction")
    event["resource"] = event["requestContext"]["resourcePath"] = resource
    params = {k: v for k, v in SAMPLE_PARAMS.items() if f"{{{k}}}" in resource}
    if resource == "/{proxy+}":
        params = {"proxy": "api/nothing/here"}
    auth = {"Authorization": f"Bearer {token}" if token else None}
    return invoke("PortalFallbackFunction", with_request(event, path_parameters=params, method=method, headers=auth))


def test_every_portal_path_has_a_fallback_route() -> None:
    ours = {r.path for r in stack().routes("PortalApi") if r.function == "PortalFallbackFunction"}
    assert ours == set(KNOWN) | {"/{proxy+}"}
    assert {"/api/workspaces/{workspaceId}/keys/{keyId}", "/api/credits/history"} <= set(KNOWN) and len(KNOWN) == 55


@pytest.mark.parametrize("resource", KNOWN)
@pytest.mark.parametrize("method", ["PATCH", "PUT"])
def test_known_path_with_an_unrouted_method_is_405(resource: str, method: str) -> None:
    assert_error(fallback(resource, method), 405, "METHOD_NOT_ALLOWED")


def test_405_does_not_need_or_check_a_credential() -> None:
    for token in (None, "garbage"):
        assert_error(fallback("/api/user/account", "DELETE", token), 405, "METHOD_NOT_ALLOWED")
        assert_error(fallback("/api/auth/api-token", "GET", token), 405, "METHOD_NOT_ALLOWED")


def test_unknown_path_is_404() -> None:
    for method in ("GET", "POST", "PATCH"):
        assert_error(fallback("/{proxy+}", method), 404, "NOT_FOUND")


def test_405_carries_the_portal_cors_headers() -> None:
    event = with_request(sample_event("PortalFallbackFunction"), headers={"Origin": "http://localhost:5173"})
    result = invoke("PortalFallbackFunction", event)
    assert result.status == 405 and result.header("Access-Control-Allow-Origin") == "http://localhost:5173"
    assert result.header("Access-Control-Allow-Credentials") == "true"
    other = invoke("PortalFallbackFunction", sample_event("PortalFallbackFunction"))  # Origin: brand.example.com
    assert other.status == 405 and other.header("Access-Control-Allow-Origin") is None
