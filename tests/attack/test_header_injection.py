"""CR/LF smuggled into request header values and paths must never become a header of the response
(response splitting), nor a 500. The requests go out through a raw socket: ``http.client`` refuses to send them.

Controls: the HTTP server ends a header at CR or LF, so an injected line is at most a new *request* header;
no handler copies a request header into a response header except the portal's CORS origin, which is echoed
only when it equals an allowed origin exactly; r2 paths with control characters are ``400 INVALID_PATH``.
"""

from __future__ import annotations

import pytest

from tests.support.attack import Cast, demo, raw_request
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

INJECTIONS = {
    "obs-fold": b"\r\n X-Injected: 1\r\n Set-Cookie: session=attacker",
    "bare-cr": b"\rX-Injected: 1\rSet-Cookie: session=attacker",
    "bare-lf": b"\nX-Injected: 1\nSet-Cookie: session=attacker",
    "percent-encoded": b"%0d%0aX-Injected:%201%0d%0aSet-Cookie:%20session=attacker",
    "utf8-line-separators": "\u2028X-Injected: 1\u0085Set-Cookie: session=attacker".encode(),
}
HEADERS = {
    "Idempotency-Key": b"attack-key",
    "Origin": b"http://localhost:5173",
    "Range": b"bytes=0-3",
    "If-None-Match": b'"0123"',
    "If-Range": b'"0123"',
}


def with_header(method: str, path: str, credential: str, name: str, value: bytes, *, body: bytes = b"") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nAuthorization: Bearer {credential}\r\n".encode()
    if body:
        head += b"Content-Type: application/json\r\n"
    return head + name.encode() + b": " + value


def assert_not_split(reply: Reply) -> None:
    assert reply.status < 500, reply.body
    assert "x-injected" not in reply.headers
    assert "set-cookie" not in reply.headers
    for name, value in reply.headers.items():
        assert "\r" not in value and "injected" not in value.lower(), (name, value)
    allowed = reply.header("access-control-allow-origin")
    assert allowed in (None, "*", "http://localhost:5173"), allowed


@pytest.mark.parametrize("injection", INJECTIONS, ids=list(INJECTIONS))
@pytest.mark.parametrize("name", HEADERS)
def test_no_header_injection_on_the_read_plane(service: LocalService, name: str, injection: str) -> None:
    first = demo(service)[0]
    head = with_header("GET", "/v1/r2/public/hello.txt", first["key"], name, HEADERS[name] + INJECTIONS[injection])
    reply = raw_request(service.brain, head)
    assert_not_split(reply)
    assert reply.status in (200, 206, 304, 400), reply.status


@pytest.mark.parametrize("injection", INJECTIONS, ids=list(INJECTIONS))
@pytest.mark.parametrize("name", ["Idempotency-Key", "Origin"])
def test_no_header_injection_on_the_management_plane(
    service: LocalService, cast: Cast, name: str, injection: str
) -> None:
    """B's owner is on the free plan and already owns a workspace: nothing is created whatever the outcome."""
    body = b'{"name": "Injected"}'
    value = HEADERS[name] + INJECTIONS[injection]
    head = with_header("POST", "/api/workspaces", cast.owner_b.jwt, name, value, body=body)
    reply = raw_request(service.portal, head, body)
    assert_not_split(reply)
    # 400: an Idempotency-Key that is not 1-255 printable characters; 402: the plan's workspace limit.
    assert (reply.status, reply.json()["code"]) in ((400, "VALIDATION_ERROR"), (402, "PLAN_LIMIT_REACHED"))


@pytest.mark.parametrize(
    "value",
    [b"abc\x01def", b"abc\x7fdef", b"abc\tdef", b"a" * 256, b""],
    ids=["c0-control", "del", "tab", "too-long", "empty"],
)
def test_a_malformed_idempotency_key_is_a_400(service: LocalService, cast: Cast, value: bytes) -> None:
    body = b'{"name": "Injected"}'
    reply = raw_request(service.portal, with_header("POST", "/api/workspaces", cast.owner_b.jwt,
                                                    "Idempotency-Key", value, body=body), body)  # fmt: skip
    assert (reply.status, reply.json()["code"]) == (400, "VALIDATION_ERROR")


@pytest.mark.parametrize(
    "suffix",
    ["%0d%0aSet-Cookie:%20session=attacker", "%0aX-Injected:%201", "%E5%98%8A%E5%98%8DX-Injected:%201"],
    ids=["crlf", "lf", "unicode-crlf-lookalike"],
)
def test_no_response_splitting_through_the_path(service: LocalService, suffix: str) -> None:
    first = demo(service)[0]
    head = f"GET /v1/r2/public/hello.txt{suffix} HTTP/1.1\r\nAuthorization: Bearer {first['key']}".encode()
    reply = raw_request(service.brain, head)
    assert_not_split(reply)
    assert reply.status in (400, 404)


def test_no_response_splitting_through_the_query(service: LocalService) -> None:
    head = b"GET /api/auth/magic-link?email=a%0d%0aX-Injected:%201 HTTP/1.1\r\nOrigin: http://localhost:5173"
    reply = raw_request(service.portal, head)
    assert_not_split(reply)
    assert reply.status in (404, 405)
