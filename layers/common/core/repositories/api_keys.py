"""Workspace API keys, stored by the SHA-256 of the raw key (never the key itself)."""

from __future__ import annotations

import contextlib
from typing import Any

from ..models.records import ApiKeyRecord
from .dynamo import batch_put, from_item, to_item, translate_errors


class ApiKeyRepository:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get_by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        """One strongly consistent GetItem, so a revocation is seen on the very next request."""
        with translate_errors("GetItem"):
            item = self._db.get_item(
                TableName=self._table, Key=to_item({"keyHash": key_hash}), ConsistentRead=True
            ).get("Item")
        return ApiKeyRecord.model_validate(from_item(item)) if item else None

    def touch_last_used(self, key_hash: str, at: str) -> None:
        """Record use; a key deleted meanwhile must not be re-created by this write."""
        gone = self._db.exceptions.ConditionalCheckFailedException
        with translate_errors("UpdateItem"), contextlib.suppress(gone):
            self._db.update_item(
                TableName=self._table,
                Key=to_item({"keyHash": key_hash}),
                UpdateExpression="SET lastUsedAt = :at",
                ConditionExpression="attribute_exists(keyHash)",
                ExpressionAttributeValues=to_item({":at": at}),
            )

    def put(self, record: ApiKeyRecord) -> None:
        batch_put(self._db, self._table, [record.attributes()])
