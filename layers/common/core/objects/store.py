"""Workspace content in S3, under ``workspaces/<workspaceId>/``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.objects.media_types import served_type
from core.platform.dynamo import error_code, translate_errors
from core.platform.errors import NotFound, RangeNotSatisfiable


class ObjectChunks:
    """S3's body read ``size`` bytes at a time, at most ``limit`` bytes in all; ``close()`` releases the connection.

    An object rather than a generator: the runtime may close the response before it pulls a
    single chunk, and a generator that never started would not run its ``finally``.
    ``StreamBody.close()`` closes this too, so S3's body is released however the stream ends.
    """

    def __init__(self, body: Any, size: int, limit: int):
        self._body = body
        self._size = size
        self._limit = limit
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        left = self._limit
        try:
            # A whole object is read to its end, where botocore checks its length and checksum.
            for chunk in self._body.iter_chunks(chunk_size=self._size):
                if left <= 0:  # a part cut to the response cap: the rest of S3's answer is never read
                    break
                yield chunk[:left]
                left -= len(chunk)
        finally:
            self.close()  # as soon as the last byte is out, not when the runtime gets round to it

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._body.close()


@dataclass(frozen=True)
class StoredObject:
    """An object (or the requested part of it) from S3; ``body`` is None for HEAD."""

    content_type: str
    content_length: int
    etag: str
    last_modified: datetime
    cache_control: str | None
    content_range: str | None = None
    content_encoding: str | None = None
    content_disposition: str | None = None
    content_language: str | None = None
    body: Any = None  # botocore StreamingBody: read in chunks, never whole

    def chunks(self, size: int, limit: int) -> ObjectChunks:
        return ObjectChunks(self.body, size, limit)

    def close(self) -> None:
        """Release S3's body unread (the answer needs none of it)."""
        if self.body is not None:
            self.body.close()


@dataclass(frozen=True)
class NotModified:
    etag: str
    cache_control: str | None


class ObjectReadStore:
    """Reads single objects for the media proxy, with S3 doing the conditional and range logic."""

    def __init__(self, client: Any, bucket: str):
        self._s3 = client
        self._bucket = bucket

    def read(
        self, key: str, *, byte_range: str | None, if_range: str | None, if_none_match: str | None, head: bool
    ) -> StoredObject | NotModified:
        """One GetObject (or HeadObject): ``NotFound``, ``RangeNotSatisfiable`` or ``NotModified`` as S3 decides.

        ``if_range`` (a strong ETag) makes ``byte_range`` conditional: S3 checks it as ``If-Match``
        and, when the object has changed, a second request reads the whole object (RFC 9110 §13.1.5).
        """
        request: dict[str, Any] = {"Bucket": self._bucket, "Key": key}
        if byte_range:
            request["Range"] = byte_range
            if if_range:
                request["IfMatch"] = if_range
        if if_none_match:
            request["IfNoneMatch"] = if_none_match
        try:
            found = (self._s3.head_object if head else self._s3.get_object)(**request)
        except Exception as exc:
            # If-Range no longer matches: the object changed since the client's first part ("412": HEAD's code).
            if "IfMatch" in request and error_code(exc) in ("PreconditionFailed", "412"):
                return self.read(key, byte_range=None, if_range=None, if_none_match=if_none_match, head=head)
            return self._translate(exc, key)
        return StoredObject(
            content_type=served_type(found.get("ContentType")),
            content_length=found["ContentLength"],
            etag=found["ETag"],
            last_modified=found["LastModified"],
            cache_control=found.get("CacheControl"),
            content_range=found.get("ContentRange"),
            content_encoding=found.get("ContentEncoding"),
            content_disposition=found.get("ContentDisposition"),
            content_language=found.get("ContentLanguage"),
            body=found.get("Body"),
        )

    def presigned_url(self, key: str, expires_in: int, *, disposition: str | None = None) -> str:
        """A GetObject URL for exactly ``key``, valid ``expires_in`` seconds (less if our credentials expire first);
        with ``disposition``, S3 answers it with that ``Content-Disposition`` (a signed response override)."""
        params = {"Bucket": self._bucket, "Key": key}
        if disposition is not None:
            params["ResponseContentDisposition"] = disposition
        url: str = self._s3.generate_presigned_url("get_object", Params=params, ExpiresIn=expires_in)
        return url

    def _translate(self, exc: Exception, key: str) -> NotModified:
        code = error_code(exc)
        headers = (getattr(exc, "response", None) or {}).get("ResponseMetadata", {}).get("HTTPHeaders", {})
        if code in ("304", "NotModified"):
            return NotModified(etag=headers.get("etag", ""), cache_control=headers.get("cache-control"))
        # Without s3:ListBucket (the media proxy has none), S3 answers a missing key with 403.
        if code in ("NoSuchKey", "404", "NotFound", "AccessDenied", "403"):
            raise NotFound("Object not found") from exc
        if code in ("InvalidRange", "416"):  # "416": HEAD has no error body, so no ActualObjectSize either
            size = (getattr(exc, "response", None) or {}).get("Error", {}).get("ActualObjectSize")
            raise RangeNotSatisfiable(headers={"Content-Range": f"bytes */{size or self._size(key)}"}) from exc
        with translate_errors("GetObject"):
            raise exc

    def _size(self, key: str) -> int:
        with translate_errors("HeadObject"):
            size: int = self._s3.head_object(Bucket=self._bucket, Key=key)["ContentLength"]
        return size
