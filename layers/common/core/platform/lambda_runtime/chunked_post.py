"""A chunked HTTP/1.1 POST written straight to a socket, for ``core.platform.lambda_runtime.loop``.

The Runtime API takes a streamed response as a chunked request body, and a function
error raised after streaming began as trailers after the last chunk; ``http.client``
cannot send trailers, so the request is written by hand. Stdlib only.
"""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterable


class ReaderGone(Exception):
    """The connection broke mid-request: whoever was reading the stream went away."""


class ChunkedPost:
    def __init__(self, address: str, path: str, headers: Iterable[tuple[str, str]]):
        host, _, port = address.rpartition(":")
        self._sock = socket.create_connection((host, int(port)))
        # A chunk must leave as soon as it is written, not wait for the last one's ACK (Nagle).
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        lines = [f"POST {path} HTTP/1.1", f"Host: {address}", "Transfer-Encoding: chunked"]
        lines += [f"{name}: {value}" for name, value in headers]
        try:
            self._send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        except ReaderGone:
            self._sock.close()
            raise

    def write(self, data: bytes) -> None:
        """Send one non-empty chunk now (an empty one would end the body)."""
        self._send(b"%x\r\n%b\r\n" % (len(data), data))

    def finish(self, trailers: Iterable[tuple[str, str]] = ()) -> int:
        """End the body (with ``trailers``) and return the status the server answers."""
        fields = "".join(f"{name}: {value}\r\n" for name, value in trailers)
        self._send(b"0\r\n" + fields.encode("latin-1") + b"\r\n")
        response = http.client.HTTPResponse(self._sock)
        try:
            response.begin()
            response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise ReaderGone(f"no reply to the streamed response: {exc!r}") from exc
        return response.status

    def close(self) -> None:
        self._sock.close()

    def _send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError as exc:  # BrokenPipeError, ConnectionResetError, …
            raise ReaderGone(repr(exc)) from exc
