"""Responses: a wire model (or plain data) as JSON, a streamed body, a ``DomainError``'s answer."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from core.platform import observability
from core.platform.errors import DomainError
from core.platform.response_stream import StreamBody
from core.platform.rest.router import Response

JSON = "application/json; charset=utf-8"


def serialize(value: Any) -> Any:
    """The resolver's serializer: JSON for plain data; a ``StreamBody`` passes through for the runtime to stream."""
    if isinstance(value, StreamBody):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def stream_response(
    status: int, headers: dict[str, str], chunks: Iterable[bytes] | None, content_type: str | None = None
) -> Response[StreamBody]:
    """A response whose body is produced chunk by chunk (functions with ``ResponseTransferMode: RESPONSE_STREAM``)."""
    body = StreamBody(chunks) if chunks is not None else None
    return Response(status_code=status, content_type=content_type, body=body, headers=headers)


def json_response(
    value: Any, status: int = 200, headers: dict[str, str] | None = None, cookies: list[str] | None = None
) -> Response[str]:
    """Serialise a wire model, a list of them, or plain JSON data."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    elif isinstance(value, list):
        value = [v.model_dump(mode="json", by_alias=True) if isinstance(v, BaseModel) else v for v in value]
    body = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    # ``cookies``: ``Set-Cookie`` values core.platform.cookies has formatted, written as they are
    return Response(status_code=status, content_type=JSON, body=body, headers=headers or {}, cookies=cookies)


def error_response(error: DomainError) -> Response[str]:
    observability.count("Errors", code=error.code)  # every error answer passes here, so it is counted once
    return json_response(error.body(), status=error.status, headers=dict(error.headers))
