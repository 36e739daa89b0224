"""Streamed HTTP responses for API Gateway REST APIs with ``ResponseTransferMode: RESPONSE_STREAM``.

A streaming function returns the usual proxy result (what ``core.platform.rest.router``
builds) whose ``body`` may be a ``StreamBody``; ``core.platform.lambda_runtime.loop`` sends it to API
Gateway as a JSON metadata prelude, eight NUL bytes, then the body chunk by chunk.
Stdlib only: handlers import this on their cold path.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

DELIMITER = b"\x00" * 8


class StreamBody:
    """A response body produced chunk by chunk (e.g. a generator of ``bytes``).

    The runtime always calls ``close()``, also when the reader went away mid-stream,
    so a generator's ``finally`` runs (releasing an upstream body, recording usage).
    """

    def __init__(self, chunks: Iterable[bytes]):
        self._chunks = chunks
        self._iterator: Iterator[bytes] | None = None

    def __iter__(self) -> Iterator[bytes]:
        if self._iterator is None:
            self._iterator = iter(self._chunks)
        return self._iterator

    def close(self) -> None:
        # A generator that never started is closed too: close() marks it finished,
        # so nothing runs later by accident. Closing twice is a no-op for generators.
        for source in (self._iterator, self._chunks):
            close = getattr(source, "close", None)
            if close is not None:
                close()


def prelude(result: Mapping[str, Any]) -> bytes:
    """The metadata API Gateway expects before a streamed body, delimiter included.

    ``headers`` and ``multiValueHeaders`` are merged as API Gateway merges them for a
    buffered result (a name in both keeps the multi-value list, plus the single value
    if it is not already there), so the prelude carries each name exactly once.
    """
    multi = {name: [str(v) for v in values] for name, values in (result.get("multiValueHeaders") or {}).items()}
    by_lower = {name.lower(): name for name in multi}
    single: dict[str, str] = {}
    for name, value in (result.get("headers") or {}).items():
        values = multi.get(by_lower.get(name.lower(), ""))
        if values is None:
            single[name] = str(value)
        elif str(value) not in values:
            values.insert(0, str(value))
    metadata = {
        "statusCode": int(result["statusCode"]),  # API Gateway answers 502 without one, so fail here
        "headers": single,
        "multiValueHeaders": multi,
        "cookies": [str(c) for c in result.get("cookies") or []],
    }
    # ensure_ascii escapes every control character (NUL becomes \u0000), so the first
    # NUL byte of the stream is always the delimiter.
    return json.dumps(metadata, separators=(",", ":"), ensure_ascii=True).encode("ascii") + DELIMITER


def body_chunks(result: Mapping[str, Any]) -> Iterator[bytes]:
    """The body as chunks: a ``StreamBody`` as it produces them, a str or base64 body as one chunk.

    A malformed body (bad base64) raises here, before anything has been streamed.
    """
    body = result.get("body")
    if isinstance(body, StreamBody):
        return iter(body)
    if not body:
        return iter(())
    data = base64.b64decode(body) if result.get("isBase64Encoded") else body.encode()
    return iter((data,))
