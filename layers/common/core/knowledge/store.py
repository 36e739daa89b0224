"""The chat's one read of knowledge: an index object, by the key the agent's pointer names."""

from __future__ import annotations

from typing import Any

from core.platform.dynamo import translate_errors


class KnowledgeReadStore:
    def __init__(self, client: Any, bucket: str):
        self._s3 = client
        self._bucket = bucket

    def index(self, key: str) -> bytes | None:
        """The index object's bytes; None if it is gone (the agent was deleted, or a newer index replaced it and
        the version before that was removed)."""
        with translate_errors("GetObject"):
            try:
                return bytes(self._s3.get_object(Bucket=self._bucket, Key=key)["Body"].read())
            except self._s3.exceptions.NoSuchKey:
                return None
