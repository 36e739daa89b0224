"""``/v1/r2/{path}``: workspace objects for browsers, video players and CDNs.

The path is workspace-relative, decoded exactly once, then checked (``INVALID_PATH``)
and held against the prefix allowlist (``PREFIX_NOT_ALLOWED``) before S3 is asked.
S3 evaluates ``Range`` and ``If-None-Match`` itself, so a request is one GetObject
(or HeadObject), and the body is passed on in chunks, never read whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC
from email.utils import format_datetime
from urllib.parse import unquote

from ..errors import InvalidPath, PrefixNotAllowed
from ..repositories.content import NotModified, ObjectReader
from ..settings import ALLOWED_R2_PREFIXES

ROUTE = "/v1/r2"
CHUNK_BYTES = 128 * 1024
MAX_KEY_BYTES = 900  # S3 allows 1024 for the whole key, prefix included
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SINGLE_RANGE = re.compile(r"bytes=(\d+-\d*|-\d+)")


def object_path(request_path: str) -> str:
    """The workspace-relative key in a request path (still percent-encoded, as API Gateway passes it)."""
    start = request_path.find(ROUTE)
    rest = request_path[start + len(ROUTE) :] if start >= 0 else ""
    rest = rest.removeprefix("/")
    try:
        path = unquote(rest, errors="strict")  # once: "%2e%2e" is "..", "%252e" stays "%2e"
    except UnicodeDecodeError as exc:
        raise InvalidPath("path: must be UTF-8 once decoded") from exc
    if not path:
        raise InvalidPath("path: must not be empty")
    if path.startswith("/"):
        raise InvalidPath("path: must be relative to the workspace")
    if "\\" in path or _CONTROL.search(path):
        raise InvalidPath("path: must not contain backslashes or control characters")
    if any(segment in ("", ".", "..") for segment in path.split("/")):
        raise InvalidPath("path: must not contain empty, '.' or '..' segments")
    if len(path.encode()) > MAX_KEY_BYTES:
        raise InvalidPath(f"path: at most {MAX_KEY_BYTES} bytes")
    if not path.startswith(ALLOWED_R2_PREFIXES):
        raise PrefixNotAllowed(f"path: must start with one of {', '.join(ALLOWED_R2_PREFIXES)}")
    return path


def single_range(header: str | None) -> str | None:
    """The ``Range`` to ask S3 for, or None to serve the whole object.

    One range of bytes (``N-M``, ``N-``, ``-N``) is honoured; several ranges, other units
    or a malformed header are ignored, as RFC 9110 allows, and the answer is a full 200.
    A reversed range (``5-2``) is malformed too.
    """
    if header is None:
        return None
    value = header.strip().replace(" ", "")
    found = _SINGLE_RANGE.fullmatch(value)
    if not found:
        return None
    start, _, end = found.group(1).partition("-")
    if start and end and int(end) < int(start):
        return None
    return value


@dataclass(frozen=True)
class MediaReply:
    status: int
    headers: dict[str, str]
    body: Iterator[bytes] | None = field(default=None)


class MediaService:
    def __init__(self, reader: ObjectReader, default_cache_control: str):
        self._reader = reader
        self._cache_control = default_cache_control

    def fetch(
        self, workspace_id: str, path: str, *, range_header: str | None, if_none_match: str | None, head: bool
    ) -> MediaReply:
        found = self._reader.read(
            f"workspaces/{workspace_id}/{path}",
            byte_range=single_range(range_header),
            if_none_match=if_none_match,
            head=head,
        )
        if isinstance(found, NotModified):
            return MediaReply(304, {"ETag": found.etag, "Cache-Control": found.cache_control or self._cache_control})
        headers = {
            "Content-Type": found.content_type,
            "Content-Length": str(found.content_length),
            "ETag": found.etag,
            "Last-Modified": format_datetime(found.last_modified.astimezone(UTC), usegmt=True),
            "Cache-Control": found.cache_control or self._cache_control,
            "Accept-Ranges": "bytes",
        }
        if found.content_range:
            headers["Content-Range"] = found.content_range
        body = None if head else found.chunks(CHUNK_BYTES)
        return MediaReply(206 if found.content_range else 200, headers, body)
