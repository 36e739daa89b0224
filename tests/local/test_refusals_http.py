"""The local API Gateway's own refusals, over a raw socket: always JSON ``{error, code}``, never http.server's HTML."""

from __future__ import annotations

import email.parser
import io
import json
import logging
import socket
from email.message import Message

import pytest

from local.gateway.refusals import Refused, TooLarge, read_body
from tests.support.gateway_socket import Raw, Served, read_response
from tests.support.lambdas import stack

HOST = b"Host: 127.0.0.1\r\n"


def request(method: str, target: str, *headers: str, body: bytes = b"") -> bytes:
    head = f"{method} {target} HTTP/1.1\r\n".encode() + HOST + b"".join(h.encode() + b"\r\n" for h in headers)
    return head + b"\r\n" + body


def assert_json_error(reply: Raw, status: int, code: str) -> dict:
    assert reply.status == status, reply
    assert reply.headers["content-type"].startswith("application/json"), reply.headers
    document = reply.json()
    assert document["code"] == code and isinstance(document["error"], str) and document["error"]
    assert b"<html" not in reply.body.lower() and b"<!doctype" not in reply.body.lower()
    return document


def template_response(kind: str, default_status: int) -> tuple[int, str]:
    """What template.yaml's GatewayResponses make of a gateway error: (status, code)."""
    responses = stack().api_properties("BrainApi")["GatewayResponses"]
    spec = responses.get(kind) or responses["DEFAULT_4XX"]
    body = spec["ResponseTemplates"]["application/json"]
    body = body.replace("$context.error.messageString", '"x"').replace("$context.error.responseType", kind)
    return int(spec.get("StatusCode", default_status)), json.loads(body)["code"]


def test_a_70_kb_header_is_431_json(brain: Served) -> None:
    reply = brain.send(request("GET", "/v1/agent/_whoami", "X-Big: " + "a" * 70_000))
    assert_json_error(reply, 431, "REQUEST_HEADER_FIELDS_TOO_LARGE")


def test_headers_over_api_gateways_10_kib_quota_together_are_431_json(brain: Served) -> None:
    headers = [f"X-Part-{i}: " + "b" * 2000 for i in range(6)]  # each line small, together over 10240 bytes
    assert_json_error(brain.send(request("GET", "/v1/agent/_whoami", *headers)), 431, "REQUEST_HEADER_FIELDS_TOO_LARGE")


@pytest.mark.parametrize("size", [9 * 1024, 70_000])
def test_an_over_long_url_is_414_json(brain: Served, size: int) -> None:
    reply = brain.send(request("GET", "/v1/agent/_whoami?q=" + "c" * size))
    assert_json_error(reply, 414, "URI_TOO_LONG")


@pytest.mark.parametrize("method", ["TRACE", "FOO", "PROPFIND", "CONNECT", "get"])
def test_a_method_api_gateway_does_not_route_is_405_json_with_allow_on_a_known_path(brain: Served, method: str) -> None:
    reply = brain.send(request(method, "/v1/agent/prj_1/feed"))
    assert_json_error(reply, 405, "METHOD_NOT_ALLOWED")
    assert reply.headers["allow"] == "GET, OPTIONS"


@pytest.mark.parametrize("method", ["TRACE", "FOO"])
def test_a_method_api_gateway_does_not_route_on_an_unknown_path_is_the_templates_missing_token_response(
    brain: Served, method: str
) -> None:
    status, code = template_response("MISSING_AUTHENTICATION_TOKEN", 403)
    assert_json_error(brain.send(request(method, "/nowhere/at/all")), status, code)


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (b"GARBAGE\r\n\r\n", 400, "BAD_REQUEST"),
        (b"GET / HTTP/x.y\r\n\r\n", 400, "BAD_REQUEST"),
        (b"GET / HTTP/2.0\r\n\r\n", 505, "HTTP_VERSION_NOT_SUPPORTED"),
        (b"GET /\r\n\r\n", 400, "BAD_REQUEST"),  # HTTP/0.9
    ],
)
def test_a_malformed_request_is_json(brain: Served, raw: bytes, status: int, code: str) -> None:
    assert_json_error(brain.send(raw), status, code)


@pytest.mark.parametrize(
    "framing",
    [
        ("Content-Length: abc",),
        ("Content-Length: -5",),
        ("Content-Length: 5", "Content-Length: 6"),
        ("Content-Length: 5", "Transfer-Encoding: chunked"),
        ("Transfer-Encoding: chunked, gzip",),
    ],
)
def test_a_body_framed_ambiguously_or_badly_is_refused_in_json(brain: Served, framing: tuple[str, ...]) -> None:
    reply = brain.send(request("POST", "/v1/agent/_whoami", *framing, body=b"hello"))
    assert reply.status in (400, 501) and reply.json()["code"] in ("BAD_REQUEST", "NOT_IMPLEMENTED")


def test_a_body_over_10_mib_is_refused_before_it_is_read_with_the_templates_413(brain: Served) -> None:
    status, code = template_response("REQUEST_TOO_LARGE", 413)
    reply = brain.send(request("POST", "/v1/agent/_whoami", f"Content-Length: {11 * 1024 * 1024}"))  # no body sent
    assert_json_error(reply, status, code)
    assert reply.headers.get("connection") == "close"


def test_a_chunked_body_is_read_whole_and_the_connection_carries_the_next_request(brain: Served) -> None:
    first = request("POST", "/nowhere", "Transfer-Encoding: chunked", body=b"5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n")
    with socket.create_connection(("127.0.0.1", brain.port), timeout=10) as sock:
        sock.sendall(first)  # unread chunks would be parsed as the next request line: a 400
        assert_json_error(read_response(sock), 404, "NOT_FOUND")  # the fallback function answered
        sock.sendall(request("GET", "/openapi.json"))
        assert_json_error(read_response(sock), 404, "NOT_FOUND")


def test_read_body_frames_and_limits() -> None:
    def headers(*lines: str) -> Message:
        return email.parser.Parser().parsestr("".join(f"{line}\n" for line in lines) + "\n")

    assert read_body(io.BytesIO(b"abcdef"), headers("Content-Length: 3"), 10) == b"abc"
    chunked = headers("Transfer-Encoding: chunked")
    assert read_body(io.BytesIO(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), chunked, 10) == b"abcde"
    assert read_body(io.BytesIO(b""), headers(), 10) == b""
    with pytest.raises(TooLarge):
        read_body(io.BytesIO(b""), headers("Content-Length: 11"), 10)
    with pytest.raises(TooLarge):
        read_body(io.BytesIO(b"8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n"), headers("Transfer-Encoding: chunked"), 10)
    for bad in (b"-5\r\nabc\r\n", b"zz\r\n", b"3\r\nab", b"3\r\nabcX\r\n0\r\n\r\n"):
        with pytest.raises(Refused):
            read_body(io.BytesIO(bad), headers("Transfer-Encoding: chunked"), 10)
    with pytest.raises(Refused):
        read_body(io.BytesIO(b"ab"), headers("Content-Length: 5"), 10)  # the client went away mid-body


def test_the_access_log_has_the_path_but_never_the_query_string(
    brain: Served, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "tok3nValueThatMustNotBeLogged"
    with caplog.at_level(logging.INFO, logger="local.gateway"):
        brain.send(request("GET", f"/nowhere/else?token={secret}&x=1"))
        brain.send(request("GET", f"/v1/agent/_whoami?token={secret}" + "d" * 9000))  # refused: 414
        brain.send(b"GET /x?token=" + secret.encode() + b" HTTP/9\r\n\r\n")  # malformed: 400
    access = [r.getMessage() for r in caplog.records if r.name == "local.gateway"]
    assert any("/nowhere/else" in line and "404" in line for line in access), access
    assert any("414" in line for line in access), access
    assert not [line for line in access if secret in line or "?" in line], access


def test_openapi_json_is_served_from_the_checked_in_document(brain: Served) -> None:
    path = brain.openapi_dir / "brain.json"
    path.write_text('{"openapi": "3.1.0"}')
    try:
        reply = brain.send(request("GET", "/openapi.json"))
    finally:
        path.unlink()
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    assert reply.json() == {"openapi": "3.1.0"}


def test_openapi_json_missing_is_404_json(brain: Served) -> None:
    assert_json_error(brain.send(request("GET", "/openapi.json")), 404, "NOT_FOUND")
