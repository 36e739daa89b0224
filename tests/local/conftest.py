"""The local API Gateway over a real socket: the brain API of template.yaml, with containers for its functions.

Only the fallback function ever runs here (unknown paths), so no AWS emulation is needed.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from local.containers import ContainerPool
from local.gateway import ApiGateway, serve
from tests.conftest import FAKE_AWS
from tests.support.lambdas import stack


@dataclass(frozen=True)
class Raw:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Served:
    port: int
    gateway: ApiGateway
    openapi_dir: Path

    def send(self, data: bytes, timeout: float = 10) -> Raw:
        """Send raw bytes; read one response (framed by Content-Length, else to the close)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as sock:
            sock.sendall(data)
            return read_response(sock)


def read_response(sock: socket.socket) -> Raw:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"no complete response head: {data[:200]!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "-1"))
    while length < 0 or len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return Raw(int(status_line.split(" ")[1]), headers, body if length < 0 else body[:length])


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    the_stack = stack()
    functions = the_stack.functions()
    pool = ContainerPool(functions, [str(p) for p in the_stack.layer_dirs()], dict(FAKE_AWS))
    openapi_dir = tmp_path_factory.mktemp("openapi")
    gateway = ApiGateway(the_stack, "BrainApi", pool, openapi_dir=openapi_dir)
    server = serve(gateway, "127.0.0.1", 0)
    try:
        yield Served(server.server_address[1], gateway, openapi_dir)
    finally:
        server.shutdown()
        server.server_close()
        pool.close()
