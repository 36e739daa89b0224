"""The retry policy and the error mapping, through the real clients on ``httpx.MockTransport``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from workspace_client import (
    AsyncBrain,
    Brain,
    ForbiddenError,
    Portal,
    RateLimitedError,
    RetryPolicy,
    ServerError,
    TokenExpiredError,
    TransportError,
    ValidationError,
)
from workspace_client.errors import retry_after_seconds

KEY = "sk_ws_" + "a" * 49
WHOAMI = {"workspaceId": "ws_1", "apiKeyId": "key_1"}


def error(status: int, code: str, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"error": f"{code} happened", "code": code}, headers=headers)


def scripted(*answers: httpx.Response | Exception) -> tuple[list[httpx.Request], Callable]:
    """A handler answering each request with the next of ``answers`` (an exception is raised), and what it saw."""
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = queue.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return seen, handler


def brain(handler: Callable, sleeps: list[float], **policy: float) -> Brain:
    return Brain(
        "https://brain.test",
        key=KEY,
        transport=httpx.MockTransport(handler),
        sleep=sleeps.append,
        retry=RetryPolicy(**policy),  # type: ignore[arg-type]
    )


def test_a_get_is_retried_on_503_with_jittered_backoff() -> None:
    seen, handler = scripted(
        error(503, "INTERNAL_ERROR"), error(502, "INTERNAL_ERROR"), httpx.Response(200, json=WHOAMI)
    )
    sleeps: list[float] = []
    assert brain(handler, sleeps).whoami().workspace_id == "ws_1"
    assert len(seen) == 3
    assert 0 <= sleeps[0] <= 0.5 and 0 <= sleeps[1] <= 1.0  # full jitter under base · 2^n
    assert all(request.headers["authorization"] == f"Bearer {KEY}" for request in seen)


def test_retry_after_is_honoured_in_seconds_and_as_an_http_date() -> None:
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    _seen, handler = scripted(
        error(429, "RATE_LIMITED", **{"Retry-After": "7"}),
        error(503, "INTERNAL_ERROR", **{"Retry-After": later}),
        httpx.Response(200, json=WHOAMI),
    )
    sleeps: list[float] = []
    brain(handler, sleeps).whoami()
    assert sleeps[0] == 7 and 28 <= sleeps[1] <= 30
    assert retry_after_seconds("soon") is None


def test_a_wait_past_the_time_budget_raises_at_once_with_retry_after() -> None:
    seen, handler = scripted(error(429, "RATE_LIMITED", **{"Retry-After": "120"}))
    sleeps: list[float] = []
    with pytest.raises(RateLimitedError) as raised:
        brain(handler, sleeps, max_elapsed=60).whoami()
    assert (raised.value.status, raised.value.code, raised.value.retry_after) == (429, "RATE_LIMITED", 120)
    assert sleeps == [] and len(seen) == 1


def test_attempts_are_bounded() -> None:
    seen, handler = scripted(*[error(504, "INTERNAL_ERROR")] * 3)
    with pytest.raises(ServerError):
        brain(handler, [], max_attempts=3).whoami()
    assert len(seen) == 3


def test_a_post_without_idempotency_key_is_not_repeated_after_a_502_or_a_cut() -> None:
    seen, handler = scripted(error(502, "INTERNAL_ERROR"))
    with pytest.raises(ServerError):
        list(brain(handler, []).chat("prj_1", "hello"))
    assert len(seen) == 1
    seen, handler = scripted(httpx.ReadError("cut"))
    with pytest.raises(TransportError):
        list(brain(handler, []).chat("prj_1", "hello"))
    assert len(seen) == 1


def test_a_post_that_never_reached_the_service_is_retried() -> None:
    done = httpx.Response(
        200,
        text='{"type":"start","threadKey":"t","turnId":"u"}\n{"type":"done","usage":'
        '{"inputTokens":1,"outputTokens":1,"credits":0}}\n',
    )
    seen, handler = scripted(httpx.ConnectError("refused"), done)
    assert [event.type for event in brain(handler, []).chat("prj_1", "hello")] == ["start", "done"]
    assert len(seen) == 2


def test_a_get_is_retried_after_a_cut_connection() -> None:
    seen, handler = scripted(httpx.RemoteProtocolError("cut"), httpx.Response(200, json=WHOAMI))
    assert brain(handler, []).whoami().api_key_id == "key_1"
    assert len(seen) == 2


def test_key_mint_carries_one_idempotency_key_across_its_retries() -> None:
    minted = {
        "key": {
            "id": "key_2",
            "name": "web",
            "prefix": "sk_ws_abcdef",
            "rateLimit": 600,
            "lastUsedAt": None,
            "createdAt": "2026-01-01T00:00:00.000Z",
            "createdBy": "usr_1",
            "revokedAt": None,
            "key": KEY,
            "allowedOrigins": None,
        }
    }
    seen, handler = scripted(
        error(503, "INTERNAL_ERROR"), error(504, "INTERNAL_ERROR"), httpx.Response(201, json=minted)
    )
    portal = Portal(
        "https://portal.test", token="not-a-jwt", transport=httpx.MockTransport(handler), sleep=lambda _: None
    )
    assert portal.mint_key("ws_1", name="web", rate_limit=None).key.key == KEY
    keys = {request.headers["idempotency-key"] for request in seen}
    assert len(seen) == 3 and len(keys) == 1 and keys != {""}
    assert json.loads(seen[0].content) == {"name": "web"}  # an absent field is left out, not sent as null


def test_errors_carry_status_code_and_message_and_unknown_codes_keep_their_family() -> None:
    seen, handler = scripted(
        error(400, "VALIDATION_ERROR"), error(403, "ORIGIN_NOT_ALLOWED"), httpx.Response(502, text="<html>bad gateway")
    )
    client = brain(handler, [], max_attempts=1)
    with pytest.raises(ValidationError) as bad:
        client.get_feed("prj_1", channel="x")
    assert (bad.value.status, bad.value.code, bad.value.message) == (
        400,
        "VALIDATION_ERROR",
        "VALIDATION_ERROR happened",
    )
    with pytest.raises(ForbiddenError) as forbidden:
        client.get_agent("prj_1")
    assert forbidden.value.code == "ORIGIN_NOT_ALLOWED"
    with pytest.raises(ServerError) as server:
        client.get_agent("prj_1")
    assert (server.value.status, server.value.code) == (502, "HTTP_502")
    assert seen[0].url.params["channel"] == "x" and seen[0].url.path == "/v1/agent/prj_1/feed"


def test_path_values_are_escaped_once() -> None:
    seen, handler = scripted(error(404, "NOT_FOUND"))
    with pytest.raises(Exception, match="NOT_FOUND"):
        brain(handler, []).get_agent("../portal?x")
    assert seen[0].url.raw_path == b"/v1/agent/..%2Fportal%3Fx"


def test_the_async_client_shares_the_policy() -> None:
    seen, handler = scripted(error(429, "RATE_LIMITED", **{"Retry-After": "2"}), httpx.Response(200, json=WHOAMI))
    sleeps: list[float] = []

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    async def run() -> str:
        async with AsyncBrain(
            "https://b.test", key=KEY, transport=httpx.MockTransport(handler), sleep=record
        ) as client:
            return (await client.whoami()).workspace_id

    assert asyncio.run(run()) == "ws_1" and sleeps == [2] and len(seen) == 2


def test_token_expired_is_its_own_class() -> None:
    _seen, handler = scripted(error(401, "TOKEN_EXPIRED"))
    portal = Portal("https://p.test", transport=httpx.MockTransport(handler))
    with pytest.raises(TokenExpiredError):
        portal.refresh_portal_token()
