"""Raw bytes to the local API Gateway over a real socket, and the response read back as it arrived.

The gateway tests send what ``urllib`` would refuse or tidy (bad framing, odd methods), so they speak through
a socket and parse the reply by hand.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

from local.gateway.api import ApiGateway
from tests.support.runner import Reply

# The runner's reply (status, lower-case header names, body bytes): one reply type for every test over a socket.
Raw = Reply


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
