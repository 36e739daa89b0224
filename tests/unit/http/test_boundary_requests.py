"""core.http boundary hardening (issue 11, holes 4, 9, 10): duplicate credentials, hostile bodies, media types."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from core.http import brain_api, json_response, parse_body, portal_api
from core.identity import providers as identity_providers
from core.platform import errors
from tests.support.http_boundary import FakeAuthenticator, assert_cors, call, feed_event


class Body(BaseModel):
    name: str = "x"
    tags: Any = None


def make_app(app: Any) -> Any:
    @app.get("/v1/agent/<agentId>/feed")
    def feed(agentId: str) -> Any:
        return json_response({"ok": True})

    @app.post("/v1/agent/<agentId>/feed")
    def post_feed(agentId: str) -> Any:
        return json_response({"name": parse_body(app, Body).name})

    return app


def with_authorizations(event: dict[str, Any], *values: str) -> dict[str, Any]:
    """API Gateway's view of a request with these ``Authorization`` lines: the last in ``headers``, all in
    ``multiValueHeaders`` (under the first spelling the client used)."""
    for key in [k for k in event["headers"] if k.lower() == "authorization"]:
        del event["headers"][key]
        event["multiValueHeaders"].pop(key, None)
    event["headers"]["Authorization"] = values[-1]
    event["multiValueHeaders"]["Authorization"] = list(values)
    return event


def json_post(body: str, content_type: str | None = "application/json") -> dict[str, Any]:
    return feed_event(method="POST", body=body, headers={"Content-Type": content_type})


# --- hole 4: duplicate Authorization headers


@pytest.mark.parametrize(
    "values",
    [("Bearer sk_ws_a", "Bearer sk_ws_b"), ("Bearer sk_ws_a", "Bearer sk_ws_a"), ("Bearer x", "Bearer y", "Bearer z")],
)
def test_brain_refuses_more_than_one_authorization(authenticator: FakeAuthenticator, values: tuple[str, ...]) -> None:
    result = call(make_app(brain_api()), with_authorizations(feed_event(), *values))
    assert (result.status, result.json()["code"]) == (401, "UNAUTHORIZED")
    assert authenticator.seen == []  # refused before any key lookup (and before any rate-limit count)
    assert_cors(result)


def test_brain_refuses_authorization_split_across_spellings(authenticator: FakeAuthenticator) -> None:
    """``authorization`` and ``Authorization`` are the same header: two lines of it, whatever their case."""
    event = with_authorizations(feed_event(), "Bearer sk_ws_a")
    event["multiValueHeaders"]["authorization"] = ["Bearer sk_ws_b"]
    result = call(make_app(brain_api()), event)
    assert (result.status, result.json()["code"]) == (401, "UNAUTHORIZED")


def test_portal_refuses_two_bearer_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    import functools

    refuse = functools.cache(lambda: pytest.fail("a doubled credential must not be looked at"))
    monkeypatch.setattr(identity_providers, "sessions", refuse)
    result = call(make_app(portal_api()), with_authorizations(feed_event(), "Bearer jwt.a.b", "Bearer jwt.c.d"))
    assert (result.status, result.json()["code"]) == (401, "UNAUTHORIZED")


def test_one_authorization_in_multi_value_headers_is_fine(authenticator: FakeAuthenticator) -> None:
    result = call(make_app(brain_api()), with_authorizations(feed_event(), "Bearer sk_ws_a"))
    assert result.status == 200
    assert len(authenticator.seen) == 1


def test_sign_in_routes_refuse_two_credentials_too() -> None:
    """No credential is needed there, but two conflicting ones are still a forged-looking request."""
    app = make_app(portal_api(authenticated=False))
    result = call(app, with_authorizations(feed_event(), "Bearer a", "Bearer b"))
    assert (result.status, result.json()["code"]) == (401, "UNAUTHORIZED")


# --- hole 9: hostile bodies


@pytest.mark.parametrize(
    "body",
    ["[" * 10_000 + "]" * 10_000, '{"tags": ' + "[" * 10_000 + "]" * 10_000 + "}",
     '{"tags": ' + '{"a":' * 5_000 + "1" + "}" * 5_000 + "}", '{"tags": ' + "[" * 100 + "]" * 100 + "}",
     "[" * 200_000],
    ids=["arrays", "nested-field", "objects", "deeper-than-allowed", "unclosed"],
)  # fmt: skip
def test_deeply_nested_body_is_400(authenticator: FakeAuthenticator, body: str) -> None:
    result = call(make_app(brain_api()), json_post(body))
    assert (result.status, result.json()["code"]) == (400, "VALIDATION_ERROR"), result.body
    assert result.json()["error"].startswith("body:")


def test_nesting_within_the_limit_is_accepted(authenticator: FakeAuthenticator) -> None:
    body = '{"name": "ok", "tags": ' + "[" * 20 + "]" * 20 + ', "s": "' + "[" * 500 + '"}'
    result = call(make_app(brain_api()), json_post(body.replace(', "s": "' + "[" * 500 + '"', "")))
    assert (result.status, result.json()) == (200, {"name": "ok"})


def test_brackets_inside_strings_do_not_count_as_nesting(authenticator: FakeAuthenticator) -> None:
    result = call(make_app(brain_api()), json_post('{"name": "' + "[{" * 5_000 + '"}'))
    assert result.status == 200 and result.json() == {"name": "[{" * 5_000}


@pytest.mark.parametrize(
    ("body", "why"),
    [('{"name": NaN}', "NaN"), ('{"name": "x", "tags": Infinity}', "Infinity"),
     ('{"name": "a", "name": "b"}', "duplicate key"), ('{"name": "\\ud800"}', "lone surrogate"),
     ('{"name": "x", "tags": ["\\udfff"]}', "nested lone surrogate")],
)  # fmt: skip
def test_non_json_or_ambiguous_bodies_are_400(authenticator: FakeAuthenticator, body: str, why: str) -> None:
    result = call(make_app(brain_api()), json_post(body))
    assert (result.status, result.json()["code"]) == (400, "VALIDATION_ERROR"), why


@pytest.mark.parametrize(
    ("body", "field"),
    [('{"name": "x", "n": 1e400}', "n"), ('{"name": "x", "n": -1E+309}', "n"), ("1e400", "body"),
     ('{"name": "x", "tags": [1, {"a": 9e999}]}', "tags.1.a"), ('{"name": "x", "tags": ["\\ud800"]}', "tags.0")],
)  # fmt: skip
def test_a_number_too_large_for_a_double_is_400_naming_its_field(
    authenticator: FakeAuthenticator, body: str, field: str
) -> None:
    """Issue 25, hole 4: ``1e400`` parses as infinity, which would be stored and answered as ``Infinity``."""
    result = call(make_app(brain_api()), json_post(body))
    assert (result.status, result.json()["code"]) == (400, "VALIDATION_ERROR"), result.body
    assert result.json()["error"].split(": ", 1)[0] == field


def test_large_and_tiny_finite_numbers_are_taken(authenticator: FakeAuthenticator) -> None:
    result = call(make_app(brain_api()), json_post('{"name": "x", "n": 1.7976931348623157e308, "m": 1e-400}'))
    assert (result.status, result.json()) == (200, {"name": "x"})


def test_a_paired_surrogate_escape_is_one_character(authenticator: FakeAuthenticator) -> None:
    result = call(make_app(brain_api()), json_post('{"name": "\\ud83d\\ude00"}'))
    assert (result.status, result.json()) == (200, {"name": "\U0001f600"})


def test_hostile_body_on_unauthenticated_sign_in_route_is_400() -> None:
    result = call(make_app(portal_api(authenticated=False)), json_post("[" * 10_000 + "]" * 10_000))
    assert (result.status, result.json()["code"]) == (400, "VALIDATION_ERROR")


# --- hole 10: media types


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
     None, "", "application/jsonx", "application/json-patch", "json", "application/ json"],
)  # fmt: skip
def test_body_that_is_not_declared_json_is_415(authenticator: FakeAuthenticator, content_type: str | None) -> None:
    result = call(make_app(brain_api()), json_post('{"name": "x"}', content_type))
    assert (result.status, result.json()) == (415, errors.UnsupportedMediaType().body())
    assert authenticator.seen == []  # like 413: refused before the credential is checked
    assert_cors(result)


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8",
     "application/merge-patch+json", "application/vnd.api+json; charset=utf-8", " application/json "],
)  # fmt: skip
def test_json_media_types_are_accepted(authenticator: FakeAuthenticator, content_type: str) -> None:
    result = call(make_app(brain_api()), json_post('{"name": "x"}', content_type))
    assert (result.status, result.json()) == (200, {"name": "x"})


def test_bodyless_request_needs_no_content_type(authenticator: FakeAuthenticator) -> None:
    assert call(make_app(brain_api()), feed_event(headers={"Content-Type": None})).status == 200
    assert call(make_app(brain_api()), feed_event(method="POST", body="", headers={"Content-Type": None})).status == 400


def test_413_comes_before_415(authenticator: FakeAuthenticator) -> None:
    result = call(make_app(brain_api()), json_post("x" * (256 * 1024 + 1), "text/plain"))
    assert result.status == 413


def test_unauthenticated_route_refuses_text_plain() -> None:
    """The cookie-authenticated sign-in routes: a browser's "simple" text/plain POST skips the CORS preflight."""
    result = call(make_app(portal_api(authenticated=False)), json_post('{"name": "x"}', "text/plain"))
    assert (result.status, result.json()["code"]) == (415, "UNSUPPORTED_MEDIA_TYPE")
