"""A workspace's objects in S3 as their owners manage them: look one up, list, delete, and presign an upload
(a POST whose policy pins the key, the type and the size) or a download.

Every key here is a full bucket key (``workspaces/<id>/…``): the service builds it from a checked path, so
nothing in this module can reach outside a workspace's prefix by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.objects.media_types import served_type
from core.platform.dynamo import error_code, translate_errors

LIST_PAGE = 1000  # ListObjectsV2's most per request


@dataclass(frozen=True)
class ObjectHead:
    key: str
    size: int
    content_type: str
    etag: str
    last_modified: datetime


@dataclass(frozen=True)
class Listed:
    key: str
    size: int
    etag: str
    last_modified: datetime


class ObjectStore:
    def __init__(self, client: Any, bucket: str):
        self._s3 = client
        self._bucket = bucket

    def head(self, key: str) -> ObjectHead | None:
        """The object's metadata, or None when there is none (S3 says 403 for a missing key without ListBucket)."""
        with translate_errors("HeadObject"):
            try:
                found = self._s3.head_object(Bucket=self._bucket, Key=key)
            except Exception as exc:
                if error_code(exc) in ("404", "NoSuchKey", "NotFound", "403", "AccessDenied"):
                    return None
                raise
        return ObjectHead(key, found["ContentLength"], served_type(found.get("ContentType")), found["ETag"],
                          found["LastModified"])  # fmt: skip

    def page(self, prefix: str, *, limit: int, after: str | None) -> tuple[list[Listed], bool]:
        """Up to ``limit`` objects under ``prefix`` in key order, after the key ``after``, and whether more follow."""
        request: dict[str, Any] = {"Bucket": self._bucket, "Prefix": prefix, "MaxKeys": limit}
        if after:
            request["StartAfter"] = after
        with translate_errors("ListObjectsV2"):
            answer = self._s3.list_objects_v2(**request)
        listed = [Listed(o["Key"], o["Size"], o["ETag"], o["LastModified"]) for o in answer.get("Contents", [])]
        return listed, bool(answer.get("IsTruncated")) and bool(listed)

    def everything(self, prefix: str) -> list[Listed]:
        """Every current object under ``prefix`` (one request per thousand)."""
        found, more = self.page(prefix, limit=LIST_PAGE, after=None)
        while more:
            batch, more = self.page(prefix, limit=LIST_PAGE, after=found[-1].key)
            found += batch
        return found

    def delete(self, key: str) -> None:
        """A delete marker over the current version: the bucket keeps old versions for its lifecycle's days."""
        with translate_errors("DeleteObject"):
            self._s3.delete_object(Bucket=self._bucket, Key=key)

    def presign_post(self, key: str, content_type: str, size: int, seconds: int) -> tuple[str, dict[str, str]]:
        """(url, form fields) of a browser-style POST that can store exactly ``key``, of exactly this type and size,
        for ``seconds`` (and never past the signing credentials' own expiry)."""
        # The exact key is a condition of its own: boto3 turns a key ending in "${filename}" into a starts-with
        # (S3 puts the file's name there), which would make one ticket store any name under its folder.
        post = self._s3.generate_presigned_post(
            Bucket=self._bucket, Key=key, Fields={"Content-Type": content_type},
            Conditions=[{"key": key}, {"Content-Type": content_type}, ["content-length-range", size, size]],
            ExpiresIn=seconds,
        )  # fmt: skip
        return post["url"], dict(post["fields"])

    def presign_get(self, key: str, seconds: int) -> str:
        url: str = self._s3.generate_presigned_url(
            "get_object", Params={"Bucket": self._bucket, "Key": key}, ExpiresIn=seconds
        )
        return url
