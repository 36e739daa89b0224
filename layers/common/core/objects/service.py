"""``/v1/r2/{path}``: workspace objects for browsers, video players and CDNs.

The path is workspace-relative, decoded exactly once, then checked (``INVALID_PATH``)
and held against the prefix allowlist (``PREFIX_NOT_ALLOWED``) before S3 is asked.
S3 evaluates ``Range`` and the validators it understands itself (``media_http`` decides
what to pass on), so a request is one GetObject (or HeadObject) — two only when an
``If-Range`` no longer matches. The body is passed on in chunks, never read whole, and
never more than a Lambda response may carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC
from email.utils import format_datetime
from typing import Any

from core.objects.media_types import attachment, content_disposition, shown_inline
from core.objects.paths import checked_path, key_in_request_path
from core.objects.ports import MediaObjects
from core.objects.ranges import capped_content_range, matches_any, requested_range, split_if_none_match
from core.objects.store import NotModified, StoredObject
from core.platform import observability, rate_limit
from core.platform.errors import RangeNotSatisfiable

ROUTE = "/v1/r2"
CHUNK_BYTES = 1024 * 1024  # bench/stream_memory.py: 128 KiB streamed at ~0.5x raw boto3, 1 MiB at ~0.6-0.7x
PRESIGNED_SECONDS = 300
_MAX_AGE = re.compile(r"max-age=(\d+)", re.IGNORECASE)
# The same URL names another object for every workspace key, so no shared cache may answer one key's request
# with another's response, even when the object's own Cache-Control says "public". (The CORS layer adds its
# own "Vary: Origin" to this when it answers a list of allowed origins.) ``nosniff``: an object's type is its
# uploader's word, and a browser must take it as said (the handler adds it to every other answer, errors included).
NOSNIFF = {"X-Content-Type-Options": "nosniff"}
COMMON_HEADERS = {"Vary": "Authorization"} | NOSNIFF


def nosniff(result: dict[str, Any]) -> dict[str, Any]:
    """A proxy result (what the resolver returns) with ``X-Content-Type-Options: nosniff``: the answers built here
    carry it already, and the others (a refused credential, an unknown object, a bad path) get it too."""
    containers = [result.get(name) for name in ("multiValueHeaders", "headers")]
    if any(name.lower() == "x-content-type-options" for headers in containers if headers for name in headers):
        return result
    if isinstance(result.get("multiValueHeaders"), dict):  # a REST API's result: every header a list of values
        result["multiValueHeaders"]["X-Content-Type-Options"] = ["nosniff"]
    else:
        result["headers"] = (result.get("headers") or {}) | NOSNIFF
    return result


def object_path(request_path: str) -> str:
    """The workspace-relative key in a request path (still percent-encoded, as API Gateway passes it), checked."""
    return checked_path(key_in_request_path(request_path, ROUTE))


@dataclass(frozen=True)
class MediaReply:
    status: int
    headers: dict[str, str]
    body: Iterable[bytes] | None = field(default=None)


class MediaService:
    def __init__(self, reader: MediaObjects, default_cache_control: str, max_bytes: int):
        """``max_bytes``: the most one response may carry (Lambda streams up to 200 MB): a part is cut
        to it, and a whole object larger than that is left to S3 itself, through a presigned URL."""
        self._reader = reader
        self._cache_control = default_cache_control
        self._max_bytes = max_bytes

    def fetch(
        self,
        workspace_id: str,
        path: str,
        *,
        range_header: str | None,
        if_range: str | None,
        if_none_match: str | None,
        head: bool,
        cache_until: int | None = None,
    ) -> MediaReply:
        """The object's answer: 200, 206, 304, 307 (too large for one response) or ``RangeNotSatisfiable``.

        ``cache_until``: a signed URL's expiry; no cache may keep the answer past it (``Cache-Control``
        becomes private, its max-age cut to the seconds left, and a redirect's S3 URL lives no longer).
        """
        max_bytes = self._max_bytes
        cache = _CachePolicy(self._cache_control, cache_until, int(rate_limit.now()))
        key = f"workspaces/{workspace_id}/{path}"
        byte_range, range_etag = requested_range(range_header, if_range, max_bytes)
        s3_none_match, none_match_tags = split_if_none_match(if_none_match)
        try:
            found = self._reader.read(
                key,
                byte_range=byte_range,
                if_range=range_etag,
                if_none_match=s3_none_match,
                head=head,
            )
        except RangeNotSatisfiable as error:
            error.headers.update(COMMON_HEADERS)
            raise
        if isinstance(found, NotModified):
            return self._not_modified(found.etag, cache.of(found.cache_control))
        if matches_any(none_match_tags, found.etag):
            found.close()
            return self._not_modified(found.etag, cache.of(found.cache_control))
        if found.content_range is None and found.content_length > max_bytes and not head:
            found.close()  # never a truncated 200: the client would take it for the whole object
            # S3 answers the URL with the object's own headers: one not shown inline is an attachment there too.
            disposition = None if shown_inline(found.content_type) else attachment(path)
            location = self._reader.presigned_url(key, cache.seconds_left(PRESIGNED_SECONDS), disposition=disposition)
            return MediaReply(307, {"Location": location, "Cache-Control": "no-store"} | COMMON_HEADERS)
        return self._content(found, path, head, max_bytes, cache)

    def _not_modified(self, etag: str, cache_control: str) -> MediaReply:
        return MediaReply(304, {"ETag": etag, "Cache-Control": cache_control} | COMMON_HEADERS)

    def _content(self, found: StoredObject, path: str, head: bool, max_bytes: int, cache: _CachePolicy) -> MediaReply:
        length, content_range = found.content_length, found.content_range
        capped = content_range and capped_content_range(content_range, max_bytes)
        if capped:  # a suffix longer than the cap: its first max_bytes bytes, said so in Content-Range
            length, content_range = max_bytes, capped
        headers = {
            "Content-Type": found.content_type,
            "Content-Length": str(length),
            "ETag": found.etag,
            "Last-Modified": format_datetime(found.last_modified.astimezone(UTC), usegmt=True),
            "Cache-Control": cache.of(found.cache_control),
            "Accept-Ranges": "bytes",
        } | COMMON_HEADERS
        for name, value in (
            ("Content-Range", content_range),
            ("Content-Encoding", found.content_encoding),
            # Shown inline only when inert (media, plain text); anything else is an attachment named by the key.
            ("Content-Disposition", content_disposition(found.content_type, path, found.content_disposition)),
            ("Content-Language", found.content_language),
        ):
            if value:
                headers[name] = value
        body = None if head else observability.counted("R2BytesStreamed", found.chunks(CHUNK_BYTES, limit=length))
        return MediaReply(206 if content_range else 200, headers, body)


@dataclass(frozen=True)
class _CachePolicy:
    default: str
    until: int | None  # a signed URL's expiry (unix seconds)
    now: int

    def seconds_left(self, at_most: int) -> int:
        return at_most if self.until is None else max(1, min(at_most, self.until - self.now))

    def of(self, own: str | None) -> str:
        """The object's own Cache-Control, else the default; for a signed URL private and never past its expiry."""
        value = own or self.default
        if self.until is None or "no-store" in value.lower():
            return value
        declared = _MAX_AGE.search(value)
        left = max(0, self.until - self.now)
        age = min(left, int(declared.group(1))) if declared else left
        return f"private, max-age={age}" + (", no-cache" if "no-cache" in value.lower() else "")
