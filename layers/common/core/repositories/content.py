"""Workspace content in S3, under ``workspaces/<workspaceId>/``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dynamo import translate_errors

DELETE_BATCH = 1000  # DeleteObjects' limit


class ContentRepository:
    def __init__(self, client: Any, bucket: str):
        self._s3 = client
        self._bucket = bucket

    def delete_prefix(self, prefix: str, keep_going: Callable[[], bool]) -> int:
        """Delete every object under ``prefix``, 1000 per request, while ``keep_going()``; returns the count.

        Always lists from the start: what an earlier pass deleted is simply no longer listed.
        """
        deleted = 0
        with translate_errors("DeleteObjects"):
            while keep_going():
                page = self._s3.list_objects_v2(Bucket=self._bucket, Prefix=prefix, MaxKeys=DELETE_BATCH)
                keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
                if not keys:
                    break
                result = self._s3.delete_objects(Bucket=self._bucket, Delete={"Objects": keys, "Quiet": True})
                failed = result.get("Errors", [])
                deleted += len(keys) - len(failed)
                if failed and len(failed) == len(keys):
                    raise RuntimeError(f"could not delete under {prefix}: {failed[0].get('Code')}")
        return deleted

    def any_under(self, prefix: str) -> bool:
        with translate_errors("ListObjectsV2"):
            return bool(self._s3.list_objects_v2(Bucket=self._bucket, Prefix=prefix, MaxKeys=1).get("KeyCount"))
