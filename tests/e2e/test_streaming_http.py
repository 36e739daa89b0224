"""A streamed route over real HTTP: local API Gateway → core.platform.lambda_runtime.loop (via stream-bootstrap) →
the probe.

The stack is ``tests/support/streaming-template.yaml``; the probe streams NDJSON lines
stamped with the time each was produced; a gate the test opens holds back all but the first (streaming shown by
order).
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from local.gateway.api import ApiGateway
from local.gateway.http_server import serve
from tests.support.streaming import marker_text, probe_pool, probe_stack

pytestmark = pytest.mark.e2e

HANG_SECONDS = 60


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    # A gated probe waits for the test; its timeout only stops a test that hangs (the template's is 5 s).
    with probe_pool(timeout=HANG_SECONDS) as pool:
        server = serve(ApiGateway(probe_stack(), "ProbeApi", pool), "127.0.0.1", 0)
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()
            server.server_close()


def get(port: int, target: str, method: str = "GET") -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, target)
    return connection.getresponse()


def raw_request(port: int, target: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    return sock


def test_the_first_chunk_reaches_the_client_before_the_rest_is_produced(port: int, tmp_path: Path) -> None:
    """The probe makes nothing after line 0 until the gate file exists, and the test makes it only once it has
    read line 0: buffered, line 0 could never arrive (the probe would wait out its timeout). Order, not timing."""
    gate = tmp_path / "gate"
    response = get(port, f"/ticks?count=4&gate={quote(str(gate))}")
    assert response.status == 200
    assert response.getheader("Transfer-Encoding") == "chunked"
    assert response.getheader("Content-Length") is None
    assert response.getheader("Content-Type") == "application/x-ndjson"
    first = json.loads(response.readline())
    assert first["n"] == 0
    gate.touch()  # only now may the probe produce line 1
    rest = [json.loads(line) for line in response.read().splitlines()]
    assert [line["n"] for line in rest] == [1, 2, 3]


def test_multi_value_headers_and_cookies_reach_the_client(port: int) -> None:
    response = get(port, "/ticks?count=1")
    response.read()
    assert response.headers.get_all("X-Probe") == ["one", "two"]
    assert response.headers.get_all("Set-Cookie") == ["a=1; Path=/", "b=2; Path=/"]


def test_a_client_disconnect_mid_stream_runs_the_generators_finally(port: int, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    # 400 lines 50 ms apart: 20 s if nothing stopped the generator.
    with raw_request(port, f"/ticks?count=400&delay=0.05&marker={quote(str(marker))}") as sock:
        received = b""
        while b'"n": 0' not in received:
            received += sock.recv(4096)
    assert b"Transfer-Encoding: chunked" in received
    assert marker_text(marker, timeout=10) == "closed"


def test_an_error_mid_stream_cuts_the_body_short(port: int) -> None:
    with raw_request(port, "/ticks?count=3&failAt=1") as sock:
        received = b""
        while data := sock.recv(4096):  # the gateway closes the connection
            received += data
    assert received.startswith(b"HTTP/1.1 200 ")
    assert b'"n": 0' in received
    assert not received.endswith(b"0\r\n\r\n")  # no last chunk: the client knows the body is incomplete


def test_an_error_before_streaming_is_a_502(port: int) -> None:
    response = get(port, "/boom")
    assert response.status == 502
    assert response.read() == b"Internal server error"


def test_a_content_length_set_by_the_function_is_kept_and_the_body_sent_as_is(port: int) -> None:
    response = get(port, "/sized")
    assert response.getheader("Content-Length") == "6"
    assert response.getheader("Transfer-Encoding") is None
    assert response.read() == b"abcdef"


def test_head_answers_headers_only_and_the_connection_stays_usable(port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("HEAD", "/text")  # the function answers with a body all the same
    head = connection.getresponse()
    assert head.status == 200
    assert head.getheader("Transfer-Encoding") is None
    assert head.read() == b""
    connection.request("GET", "/text")
    assert connection.getresponse().read() == "plain text, é".encode()
    connection.close()
