"""Fixed-window request counters, shared by every Lambda container through DynamoDB."""

from __future__ import annotations

from typing import Any

from .dynamo import from_av, to_item, translate_errors


class RateLimitRepository:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def hit(self, counter: str, limit: int, expires_at: int) -> int | None:
        """Count one hit in ``counter``; the new count, or ``None`` if the limit is already reached.

        One conditional UpdateItem: atomic across concurrent containers, and a refused
        hit is not counted. DynamoDB's TTL deletes the counter after its window.
        """
        with translate_errors("UpdateItem"):
            try:
                result = self._db.update_item(
                    TableName=self._table,
                    Key=to_item({"pk": counter}),
                    UpdateExpression="ADD hits :one SET expiresAt = if_not_exists(expiresAt, :exp)",
                    ConditionExpression="attribute_not_exists(hits) OR hits < :limit",
                    ExpressionAttributeValues=to_item({":one": 1, ":limit": limit, ":exp": expires_at}),
                    ReturnValues="UPDATED_NEW",
                )
            except self._db.exceptions.ConditionalCheckFailedException:
                return None
        return from_av(result["Attributes"]["hits"])
