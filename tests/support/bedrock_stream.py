"""Bedrock's ConverseStream answered offline: an encoder of its event stream (application/vnd.amazon.eventstream) and
a scripted HTTP body botocore reads it from. moto has no ConverseStream, so the adapter's unit tests and the chat
function's Bedrock turn (tests/integration/brain/chat/test_bedrock_turn.py) answer it through botocore's
``before-send`` event with these.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    encoded = b"".join(
        bytes([len(name)]) + name + b"\x07" + struct.pack(">H", len(value)) + value
        for name, value in ((k.encode(), v.encode()) for k, v in headers.items())
    )
    prelude = struct.pack(">II", 12 + len(encoded) + len(payload) + 4, len(encoded))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack(">I", zlib.crc32(message))


def event(event_type: str, body: dict[str, Any]) -> bytes:
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, json.dumps(body).encode())


def exception(exception_type: str, message: str = "boom") -> bytes:
    headers = {":exception-type": exception_type, ":content-type": "application/json", ":message-type": "exception"}
    return frame(headers, json.dumps({"message": message}).encode())


def delta(text: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}})


def answer(*texts: str, usage: tuple[int, int] | None = (42, 7), stop: str = "end_turn") -> list[bytes]:
    frames = [event("messageStart", {"role": "assistant"}), event("contentBlockStart", {"contentBlockIndex": 0})]
    frames += [delta(text) for text in texts]
    frames += [event("contentBlockStop", {"contentBlockIndex": 0}), event("messageStop", {"stopReason": stop})]
    if usage:
        counts = {"inputTokens": usage[0], "outputTokens": usage[1], "totalTokens": sum(usage)}
        frames.append(event("metadata", {"usage": counts, "metrics": {"latencyMs": 12}}))
    return frames


class ScriptedBody:
    """The raw HTTP body botocore reads the event stream from: one chunk per frame, or an exception to raise."""

    def __init__(self, chunks: Sequence[bytes | Exception]) -> None:
        self.chunks = chunks
        self.read = 0
        self.closed = False

    def stream(self, amt: int = 1024, decode_content: bool | None = None) -> Iterator[bytes]:
        for chunk in self.chunks:
            if isinstance(chunk, Exception):
                raise chunk
            self.read += 1
            yield chunk

    def close(self) -> None:
        self.closed = True


def aws_headers(headers: dict[str, str]) -> HTTPHeaders:
    """cast: botocore-stubs wants HTTPHeaders; AWSResponse wraps any mapping in its HeadersDict (what botocore does)."""
    return cast(HTTPHeaders, headers)


def event_stream(request: Any, body: ScriptedBody) -> AWSResponse:
    """ConverseStream's answer to ``request``: a 200 whose body is the event stream ``body`` holds."""
    return AWSResponse(request.url, 200, aws_headers({"Content-Type": "application/vnd.amazon.eventstream"}), body)


def answer_from(client: Any, respond: Callable[[Any], AWSResponse]) -> list[Any]:
    """Answer the client's ConverseStream calls with ``respond(request)``, never over the network; the requests it
    answered.

    botocore calls every before-send handler and keeps the first answer, so moto's, which knows bedrock-runtime but
    not ConverseStream and raises, is taken off this one client."""
    from moto.core.models import botocore_stubber

    requests: list[Any] = []

    def send(request: Any, **_: Any) -> AWSResponse:
        requests.append(request)
        return respond(request)

    # cast: botocore-stubs types every handler as returning None; a before-send handler returns the response.
    client.meta.events.unregister("before-send", botocore_stubber)
    client.meta.events.register("before-send.bedrock-runtime.ConverseStream", cast(Callable[..., None], send))
    return requests
