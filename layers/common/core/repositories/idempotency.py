"""Idempotency records for retried POSTs (``Idempotency-Key``), in the main table with a TTL.

A record is claimed with a conditional put before the work and completed with
the response after it; a retry with the same key and body gets the stored
response, a retry while the first is still running (or with a different body)
gets 409 ``CONFLICT``. A failed attempt releases its claim so it can be retried.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..errors import Conflict
from . import main_table as keys
from .dynamo import from_item, to_item, translate_errors

IN_PROGRESS_SECONDS = 60  # longer than any function's timeout: a crashed attempt's claim lapses


class IdempotencyRepository:
    def __init__(self, client: Any, table: str, ttl_seconds: int = 24 * 3600):
        self._db = client
        self._table = table
        self._ttl = ttl_seconds

    def claim(self, key_hash: str, request_hash: str, attempt: str) -> tuple[int, Any, str] | None:
        """None if this call now owns the key; else the stored (status, body, attempt) of the earlier request.

        ``attempt`` is a random id of this claim, stored with it: work derived from it (a minted
        key's secret) is the same on every replay of this record and new once the record is gone.
        """
        now = int(time.time())
        item = keys.idempotency(key_hash) | {
            "requestHash": request_hash, "state": "IN_PROGRESS", "expiresAt": now + self._ttl,
            "lockedUntil": now + IN_PROGRESS_SECONDS, "attempt": attempt,
        }  # fmt: skip
        with translate_errors("PutItem"):
            try:
                self._db.put_item(
                    TableName=self._table,
                    Item=to_item(item),
                    ConditionExpression="attribute_not_exists(pk) OR (#s = :progress AND lockedUntil < :now)",
                    ExpressionAttributeNames={"#s": "state"},
                    ExpressionAttributeValues=to_item({":progress": "IN_PROGRESS", ":now": now}),
                )
                return None
            except self._db.exceptions.ConditionalCheckFailedException:
                pass
            found = self._db.get_item(
                TableName=self._table, Key=to_item(keys.idempotency(key_hash)), ConsistentRead=True
            ).get("Item")
        record = from_item(found) if found else None
        if record is None:  # expired between the two calls: let the client retry
            raise Conflict("A request with this Idempotency-Key is in progress; retry shortly")
        if record["requestHash"] != request_hash:
            raise Conflict("This Idempotency-Key was used with a different request")
        if record["state"] != "COMPLETED":
            raise Conflict("A request with this Idempotency-Key is in progress; retry shortly")
        # Records written before attempts were stored replay what they were derived from then: the key hash.
        return record["status"], json.loads(record["body"]), record.get("attempt", key_hash)

    def complete(self, key_hash: str, status: int, body: Any) -> None:
        with translate_errors("UpdateItem"):
            self._db.update_item(
                TableName=self._table,
                Key=to_item(keys.idempotency(key_hash)),
                UpdateExpression="SET #s = :done, #status = :status, body = :body",
                ExpressionAttributeNames={"#s": "state", "#status": "status"},
                ExpressionAttributeValues=to_item({":done": "COMPLETED", ":status": status, ":body": json.dumps(body)}),
            )

    def release(self, key_hash: str) -> None:
        with translate_errors("DeleteItem"):
            self._db.delete_item(TableName=self._table, Key=to_item(keys.idempotency(key_hash)))
