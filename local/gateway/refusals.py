"""What the local API Gateway refuses before any function runs, always as the service's JSON ``{error, code}``.

http.server answers its own errors (a header line over 64 KiB, a malformed request line, an
unknown method) with an HTML page; API Gateway's front end refuses earlier and in JSON. Its limits
and the service's codes for them are ``stack.api_gateway``'s (the OpenAPI documents declare them too);
here are the refusal itself and a request body reader that never trusts the client's framing (no
read past the limit, no negative or malformed lengths).
"""

from __future__ import annotations

import json
from email.message import Message
from http import HTTPStatus
from io import BufferedIOBase

from stack.api_gateway import CODES

MAX_CHUNK_LINE = 1024


class Refused(Exception):
    """The request is refused with ``status`` before any function sees it."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


class TooLarge(Exception):
    """The body is over API Gateway's payload limit (answered by the REQUEST_TOO_LARGE gateway response)."""


def refusal(status: int, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """A JSON refusal in the service's ``{error, code}`` shape (the message never echoes the request)."""
    message, code = CODES.get(status) or (HTTPStatus(status).phrase, HTTPStatus(status).name)
    body = json.dumps({"error": message, "code": code}).encode()
    return status, {"Content-Type": "application/json"} | (headers or {}), body


def head_size(request_line: str, headers: Message) -> int:
    """Bytes of the request line and header fields, as API Gateway counts them against its quota."""
    return len(request_line) + sum(len(name) + len(str(value)) + 4 for name, value in headers.items())


def read_body(stream: BufferedIOBase, headers: Message, limit: int) -> bytes:
    """The request body framed by Content-Length or chunked encoding; Refused/TooLarge before reading too much."""
    lengths = headers.get_all("Content-Length") or []
    encodings = [e.strip().lower() for value in headers.get_all("Transfer-Encoding") or [] for e in value.split(",")]
    if lengths and encodings:  # both framings: the classic request-smuggling ambiguity
        raise Refused(400)
    if encodings:
        if encodings != ["chunked"]:
            raise Refused(501 if all(e.isalnum() or e == "" for e in encodings) else 400)
        return _read_chunked(stream, limit)
    if not lengths:
        return b""
    if len({v.strip() for v in lengths}) != 1 or not lengths[0].strip().isascii() or not lengths[0].strip().isdigit():
        raise Refused(400)
    length = int(lengths[0])
    if length > limit:
        raise TooLarge()
    body = stream.read(length) if length else b""
    if len(body) < length:  # the client went away mid-body
        raise Refused(400)
    return body


def _read_chunked(stream: BufferedIOBase, limit: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        line = stream.readline(MAX_CHUNK_LINE)
        if not line.endswith(b"\n"):
            raise Refused(400)
        size_text = line.split(b";", 1)[0].strip()
        if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
            raise Refused(400)
        size = int(size_text, 16)
        if size == 0:
            break
        total += size
        if total > limit:
            raise TooLarge()
        data = stream.read(size)
        if len(data) < size or stream.readline(MAX_CHUNK_LINE).strip():
            raise Refused(400)
        parts.append(data)
    while (trailer := stream.readline(MAX_CHUNK_LINE)).strip():  # trailers are read and dropped
        if not trailer.endswith(b"\n"):
            raise Refused(400)
    return b"".join(parts)
