"""core.http brain_api(): key check, DomainError / validation / unexpected error mapping, 413, CORS."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, Field

from core.http import brain_api, json_response, parse_body, workspace_caller
from core.platform import errors
from core.posts.records import PostRecord
from tests.support.http_boundary import FakeAuthenticator, assert_cors, call, feed_event

LIMIT = 256 * 1024
RATE_HEADERS = {"RateLimit-Limit": "600", "RateLimit-Remaining": "599", "RateLimit-Reset": "42"}
INTERNAL = {"error": "Internal error", "code": "INTERNAL_ERROR"}


class Prompt(BaseModel):
    prompt: str = Field(min_length=1)
    history: list[dict[str, str]] = []


def make_brain(handler: Callable[[], Any] | None = None) -> Any:
    app = brain_api()

    @app.get("/v1/agent/<agentId>/feed")
    def feed(agentId: str) -> Any:
        if handler is not None:
            return handler()
        caller = workspace_caller(app)
        return json_response({"agentId": agentId, "workspaceId": caller.workspace_id, "keyId": caller.api_key_id})

    @app.post("/v1/agent/<agentId>/feed")
    def post_feed(agentId: str) -> Any:
        return json_response({"prompt": parse_body(app, Prompt).prompt})

    return app


def test_success_has_json_cors_and_rate_headers(authenticator: FakeAuthenticator) -> None:
    result = call(make_brain(), feed_event())
    assert result.status == 200
    assert result.json() == {"agentId": "prj_01JD0SAMPLE0AGENT000000000", "workspaceId": "ws_1", "keyId": "key_1"}
    assert result.header("Content-Type") == "application/json; charset=utf-8"
    assert_cors(result)
    for name, value in RATE_HEADERS.items():
        assert result.header(name) == value
    assert authenticator.seen[0]["authorization"].startswith("Bearer sk_ws_")


@pytest.mark.parametrize(
    "error",
    [errors.NotFound("Agent not found"), errors.Forbidden(), errors.ValidationFailed("channel: too long"),
     errors.InsufficientCredits(), errors.Conflict()],
    ids=lambda e: type(e).__name__,
)  # fmt: skip
def test_domain_error_from_route_is_error_body_with_status(authenticator: FakeAuthenticator, error: Any) -> None:
    def fail() -> Any:
        raise error

    result = call(make_brain(fail), feed_event())
    assert result.status == error.status
    assert result.json() == {"error": error.message, "code": error.code}
    assert result.header("Content-Type") == "application/json; charset=utf-8"
    assert_cors(result)
    assert result.header("RateLimit-Remaining") == "599"  # the request was counted


def test_refused_key_is_401_and_route_is_not_run(authenticator: FakeAuthenticator) -> None:
    authenticator.error = errors.Unauthorized("Invalid or missing API key")
    ran: list[bool] = []
    result = call(make_brain(lambda: ran.append(True)), feed_event())
    assert (result.status, result.json()) == (401, {"error": "Invalid or missing API key", "code": "UNAUTHORIZED"})
    assert ran == []
    assert_cors(result)


def test_rate_limited_key_is_429_with_headers(authenticator: FakeAuthenticator) -> None:
    headers = {"Retry-After": "12", "RateLimit-Limit": "5", "RateLimit-Remaining": "0", "RateLimit-Reset": "12"}
    authenticator.error = errors.RateLimited(headers=headers)
    result = call(make_brain(), feed_event())
    assert (result.status, result.json()) == (429, {"error": "Rate limit exceeded", "code": "RATE_LIMITED"})
    for name, value in headers.items():
        assert result.header(name) == value
    assert_cors(result)


def post_event(body: str) -> dict[str, Any]:
    return feed_event(method="POST", body=body)


@pytest.mark.parametrize(
    ("body", "field"),
    [('{"prompt": 5}', "prompt"), ("{}", "prompt"), ('{"prompt": ""}', "prompt"),
     ('{"prompt": "hi", "history": [{"content": 1}]}', "history.0.content")],
)  # fmt: skip
def test_validation_error_is_400_naming_the_field(authenticator: FakeAuthenticator, body: str, field: str) -> None:
    result = call(make_brain(), post_event(body))
    assert result.status == 400
    assert result.json()["code"] == "VALIDATION_ERROR"
    assert result.json()["error"].startswith(f"{field}:")
    assert set(result.json()) == {"error", "code"}
    assert_cors(result)


@pytest.mark.parametrize(
    ("body", "message"),
    [("{not json", "body: must be valid JSON"), ("[1]", "body: must be a JSON object"),
     ("", "body: must be a JSON object"), ('"s"', "body: must be a JSON object")],
)  # fmt: skip
def test_malformed_body_is_400(authenticator: FakeAuthenticator, body: str, message: str) -> None:
    result = call(make_brain(), post_event(body))
    assert (result.status, result.json()) == (400, {"error": message, "code": "VALIDATION_ERROR"})


def test_valid_body_is_parsed(authenticator: FakeAuthenticator) -> None:
    assert call(make_brain(), post_event('{"prompt": "hello"}')).json() == {"prompt": "hello"}


def test_unexpected_exception_is_bare_500(authenticator: FakeAuthenticator) -> None:
    def crash() -> Any:
        raise KeyError("secret_table_name#pk")

    result = call(make_brain(crash), feed_event())
    assert (result.status, result.json()) == (500, INTERNAL)
    assert "secret" not in result.body and "KeyError" not in result.body and "Traceback" not in result.body
    assert_cors(result)


def test_invalid_stored_record_is_500_not_400(authenticator: FakeAuthenticator) -> None:
    result = call(make_brain(lambda: PostRecord.model_validate({"id": "p"})), feed_event())
    assert (result.status, result.json()) == (500, INTERNAL)


@pytest.mark.parametrize(("size", "status"), [(LIMIT, 200), (LIMIT + 1, 413)])
def test_body_size_limit(authenticator: FakeAuthenticator, size: int, status: int) -> None:
    result = call(make_brain(), feed_event(body="x" * size))
    assert result.status == status
    if status == 413:
        assert result.json() == {"error": "Request body too large", "code": "PAYLOAD_TOO_LARGE"}
        assert authenticator.seen == []  # refused before the key is checked
        assert_cors(result)


def test_body_size_counts_utf8_bytes_and_decoded_base64(authenticator: FakeAuthenticator) -> None:
    assert call(make_brain(), feed_event(body="é" * (LIMIT // 2 + 1))).status == 413
    event = feed_event(body=base64.b64encode(b"\x00" * (LIMIT + 1)).decode())
    event["isBase64Encoded"] = True
    assert call(make_brain(), event).status == 413
    event = feed_event(body=base64.b64encode(b"\x00" * LIMIT).decode())
    event["isBase64Encoded"] = True
    assert call(make_brain(), event).status == 200


def test_unknown_path_in_a_route_function_is_404(authenticator: FakeAuthenticator) -> None:
    event = feed_event()
    event["path"] = "/v1/agent/a/b/feed"
    result = call(make_brain(), event)
    assert (result.status, result.json()) == (404, {"error": "Not found", "code": "NOT_FOUND"})
