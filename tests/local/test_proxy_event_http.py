"""Over a real socket, the proxy event carries repeated headers and query parameters as API Gateway (REST) does.

``headers`` / ``queryStringParameters`` hold the last value of a repeated name, ``multiValueHeaders`` /
``multiValueQueryStringParameters`` all of them in order (the service refuses two Authorization headers
from the latter). A stand-in pool echoes the event the function would get.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from local.gateway.api import ApiGateway
from local.gateway.http_server import serve
from tests.support.gateway_socket import read_response
from tests.support.lambdas import stack


class EchoPool:
    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps(event)}


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = serve(ApiGateway(stack(), "BrainApi", EchoPool()), "127.0.0.1", 0)  # type: ignore[arg-type]
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def event_for(port: int, raw: bytes) -> dict[str, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        reply = read_response(sock)
    assert reply.status == 200, reply
    return reply.json()


def test_repeated_headers_reach_the_function_last_in_headers_all_in_multi_value_headers(port: int) -> None:
    raw = (
        b"GET /v1/agent/_whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer first\r\n"
        b"X-Other: 1\r\nAuthorization: Bearer second\r\n\r\n"
    )
    event = event_for(port, raw)
    assert event["headers"]["Authorization"] == "Bearer second"
    assert event["multiValueHeaders"]["Authorization"] == ["Bearer first", "Bearer second"]
    assert event["multiValueHeaders"]["X-Other"] == ["1"]


def test_repeated_query_parameters_reach_the_function_last_and_all(port: int) -> None:
    event = event_for(port, b"GET /v1/agent/prj_1/feed?channel=a&channel=b&x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert event["queryStringParameters"] == {"channel": "b", "x": "1"}
    assert event["multiValueQueryStringParameters"] == {"channel": ["a", "b"], "x": ["1"]}
    assert event["resource"] == "/v1/agent/{agentId}/feed" and event["pathParameters"] == {"agentId": "prj_1"}
