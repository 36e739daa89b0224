"""One invocation of an emulated streaming container, and how its response stream is read.

The gateway thread waits on an ``Invocation``; the container's Runtime API (``local.containers.runtime_api``)
feeds it what the function streams: the prelude, body chunks, the end, or a failure.
"""

from __future__ import annotations

import base64
import contextlib
import json
import queue
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from io import BufferedIOBase
from typing import Any

START_TIMEOUT = 30  # a cold start's imports, as for a buffered container
MAX_LINE = 64 * 1024


@dataclass(frozen=True)
class Started:
    deadline: float  # time.monotonic() by which the invocation must be over


@dataclass(frozen=True)
class Prelude:
    status: int
    headers: list[tuple[str, str]]


@dataclass(frozen=True)
class Failed:
    reason: str


# To the gateway, in order: Prelude, body chunks (bytes), then None (the end); or Failed at any point.
Message = Started | Prelude | bytes | Failed | None


class Invocation:
    def __init__(self, event: dict[str, Any], timeout: int):
        self.request_id = str(uuid.uuid4())
        self.event = event
        self.timeout = timeout
        self.connection: socket.socket | None = None  # the response stream's, once it began
        self._messages: queue.Queue[Message] = queue.Queue()
        self._deadline: float | None = None

    def put(self, message: Message) -> None:
        self._messages.put(message)

    def receive(self) -> Prelude | bytes | Failed | None:
        """The next message; Failed once the function's timeout, counted from its dispatch, is up."""
        while True:
            wait = START_TIMEOUT if self._deadline is None else self._deadline - time.monotonic()
            try:
                message = self._messages.get(timeout=max(wait, 0))
            except queue.Empty:
                return Failed(f"timed out after {self.timeout}s" if self._deadline else "never dispatched")
            if not isinstance(message, Started):
                return message
            self._deadline = message.deadline

    def abort(self) -> None:
        """The reader went away: break the response stream, so the function's next write fails."""
        if self.connection is not None:
            with contextlib.suppress(OSError):  # already closed
                self.connection.shutdown(socket.SHUT_RDWR)  # also wakes the thread reading it


def read_chunks(stream: BufferedIOBase, trailers: dict[str, str]) -> Iterator[bytes]:
    """A chunked body's chunks, each as soon as it has arrived; ``trailers`` is filled at the end."""

    def line() -> bytes:
        raw = stream.readline(MAX_LINE)
        if not raw.endswith(b"\n"):
            raise ValueError("the connection closed mid-body")
        return raw.rstrip(b"\r\n")

    while size := int(line().split(b";", 1)[0], 16):
        data = stream.read(size)
        if len(data) < size or line():
            raise ValueError("truncated chunk")
        yield data
    while field := line():
        name, _, value = field.decode("latin-1").partition(":")
        trailers[name.strip().lower()] = value.strip()


def parse_prelude(metadata: bytes) -> Prelude | Failed:
    try:
        meta = json.loads(metadata)
        headers = list(meta.get("headers", {}).items())
        headers += [(name, v) for name, values in meta.get("multiValueHeaders", {}).items() for v in values]
        headers += [("Set-Cookie", cookie) for cookie in meta.get("cookies", [])]
        return Prelude(int(meta["statusCode"]), [(str(k), str(v)) for k, v in headers])
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        return Failed(f"malformed prelude: {exc!r}")


def outcome(trailers: dict[str, str], streamed: bool) -> Failed | None:
    """How a complete response stream ended: cleanly, or with the function error its trailers report."""
    if error_type := trailers.get("lambda-runtime-function-error-type"):
        error = json.loads(base64.b64decode(trailers.get("lambda-runtime-function-error-body") or "e30="))
        return Failed(f"{error_type} after the response began: {error.get('errorMessage', '')}")
    return None if streamed else Failed("the response ended before its prelude")
