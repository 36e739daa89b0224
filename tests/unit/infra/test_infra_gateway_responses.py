"""API Gateway's own refusals (GatewayResponses) speak the application's vocabulary: {error, code}, CORS as the APIs.

A client handles one set of codes whether a function or API Gateway itself answered: a body over
10 MiB is 413 PAYLOAD_TOO_LARGE, API Gateway's throttling 429 RATE_LIMITED, never BAD_REQUEST or THROTTLED.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from core.platform import errors
from stack.template import load

# Every response type API Gateway (REST) can answer with itself.
RESPONSE_TYPES = frozenset({
    "ACCESS_DENIED", "API_CONFIGURATION_ERROR", "AUTHORIZER_CONFIGURATION_ERROR", "AUTHORIZER_FAILURE",
    "BAD_REQUEST_PARAMETERS", "BAD_REQUEST_BODY", "DEFAULT_4XX", "DEFAULT_5XX", "EXPIRED_TOKEN",
    "INTEGRATION_FAILURE", "INTEGRATION_TIMEOUT", "INVALID_API_KEY", "INVALID_SIGNATURE",
    "MISSING_AUTHENTICATION_TOKEN", "QUOTA_EXCEEDED", "REQUEST_TOO_LARGE", "RESOURCE_NOT_FOUND", "THROTTLED",
    "UNAUTHORIZED", "UNSUPPORTED_MEDIA_TYPE", "WAF_FILTERED",
})  # fmt: skip
# The one code only API Gateway uses: its catch-all 4xx (whatever the status), as the local runner's refusals.
GATEWAY_ONLY = {"BAD_REQUEST"}
APIS = ("BrainApi", "PortalApi")


def _domain_errors() -> list[type[errors.DomainError]]:
    found, todo = [], [errors.DomainError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


STATUS_OF = {cls.code: cls.status for cls in _domain_errors()}


@cache
def responses(api: str) -> dict[str, Any]:
    return load()["Resources"][api]["Properties"]["GatewayResponses"]


def body(spec: dict[str, Any]) -> dict[str, Any]:
    """The JSON body API Gateway sends: $context.error.messageString is a quoted JSON string."""
    template = spec["ResponseTemplates"]["application/json"]
    rendered = template.replace("$context.error.messageString", json.dumps('Some "quoted" message'))
    assert "$" not in rendered, f"only messageString may be interpolated: {template}"
    return json.loads(rendered)


@pytest.mark.parametrize("api", APIS)
def test_every_response_type_is_mapped(api: str) -> None:
    assert set(responses(api)) == RESPONSE_TYPES


@pytest.mark.parametrize("api", APIS)
def test_every_body_is_error_and_code_from_the_applications_vocabulary(api: str) -> None:
    for kind, spec in responses(api).items():
        sent = body(spec)
        assert set(sent) == {"error", "code"}, kind
        assert isinstance(sent["error"], str) and sent["error"], kind
        assert sent["code"] in STATUS_OF or sent["code"] in GATEWAY_ONLY, (kind, sent["code"])


@pytest.mark.parametrize("api", APIS)
def test_status_agrees_with_the_code(api: str) -> None:
    for kind, spec in responses(api).items():
        code, status = body(spec)["code"], spec.get("StatusCode")
        if code == "INTERNAL_ERROR":  # API Gateway's 5xx: 500, 502 (a function failed) or 504 (timed out)
            assert status is None or int(status) in (500, 502, 504), kind
        elif code in GATEWAY_ONLY:
            assert status is None, kind  # keeps whatever 4xx API Gateway chose
        else:
            assert int(status) == STATUS_OF[code], kind


@pytest.mark.parametrize("api", APIS)
def test_the_holes_found(api: str) -> None:
    found = responses(api)
    assert (found["REQUEST_TOO_LARGE"]["StatusCode"], body(found["REQUEST_TOO_LARGE"])["code"]) == (
        "413", "PAYLOAD_TOO_LARGE")  # fmt: skip
    for kind in ("THROTTLED", "QUOTA_EXCEEDED"):
        assert (found[kind]["StatusCode"], body(found[kind])["code"]) == ("429", "RATE_LIMITED")
    # API Gateway's throttle is a token bucket refilled every second: a static Retry-After of 1 is true.
    assert found["THROTTLED"]["ResponseParameters"]["Headers"]["Retry-After"] == "'1'"
    unknown_route = found["MISSING_AUTHENTICATION_TOKEN"]
    assert (unknown_route["StatusCode"], body(unknown_route)["code"]) == ("404", "NOT_FOUND")
    assert found["INTEGRATION_TIMEOUT"]["StatusCode"] == "504"


def test_cors_headers_as_each_api_answers() -> None:
    for kind, spec in responses("BrainApi").items():
        assert spec["ResponseParameters"]["Headers"]["Access-Control-Allow-Origin"] == "'*'", kind
    for kind, spec in responses("PortalApi").items():
        headers = spec["ResponseParameters"]["Headers"]
        assert headers["Access-Control-Allow-Origin"] == {"Fn::Sub": "'${PortalAllowOrigin}'"}, kind
        assert headers["Access-Control-Allow-Credentials"] == "'true'", kind
