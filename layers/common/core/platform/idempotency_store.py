"""Idempotency records for retried POSTs (``Idempotency-Key``), in the main table with a TTL.

A record is claimed with a conditional write before the work and completed with the response
after it, or in the work's own transaction (``completion``), so the work's effect and the record
saying it happened are stored together or not at all. A retry with the same key and body gets
the stored response; a retry while the first is still running (or with a different body) gets
409 ``CONFLICT``. A claim whose lock lapsed (its attempt crashed or failed in doubt) is taken
again with the same ``attempt`` id, so work derived from it is re-derived, not made anew.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from core.platform import main_table as keys
from core.platform.dynamo import StorageUnavailable, from_item, to_item, translate_errors
from core.platform.errors import Conflict, DomainError

IN_PROGRESS_SECONDS = 60  # longer than any function's timeout: a crashed attempt's claim lapses
CLAIMED = "#s = :progress AND attempt = :attempt"  # still this attempt's claim, not completed


@dataclass(frozen=True)
class Replay:
    """A retry's answer: the first attempt's status and JSON body as the record keeps them (redacted), and the
    attempt id it was derived from."""

    status: int
    body: Any
    attempt: str


def known_not_applied(error: BaseException) -> bool:
    """True if ``error`` proves the work wrote nothing: a refusal of ours, or a storage error DynamoDB
    answered with a 4xx (throttled, cancelled). A timeout or a 5xx may have been applied: keep the claim."""
    if isinstance(error, StorageUnavailable):
        cause = error.__cause__
        return isinstance(cause, ClientError) and cause.response["ResponseMetadata"]["HTTPStatusCode"] < 500
    return isinstance(error, DomainError)


class IdempotencyStore:
    def __init__(self, client: Any, table: str, ttl_seconds: int = 24 * 3600):
        self._db = client
        self._table = table
        self._ttl = ttl_seconds

    def claim(self, key_hash: str, request_hash: str, attempt: str) -> tuple[str, Replay | None]:
        """(the claim's attempt id, None) if this call now owns the key; else (``attempt``, the earlier
        request's stored answer).

        ``attempt`` is a random id, stored with a new claim; a lapsed claim of the same request keeps
        the id it was first given, so what a failed-in-doubt attempt derived from it (a minted key's
        secret) is derived again, and its conditional writes find what that attempt already stored.
        """
        now = int(time.time())
        values = {":rh": request_hash, ":progress": "IN_PROGRESS", ":expires": now + self._ttl,
                  ":lock": now + IN_PROGRESS_SECONDS, ":attempt": attempt, ":now": now}  # fmt: skip
        with translate_errors("UpdateItem"):
            try:
                claimed = self._db.update_item(
                    TableName=self._table,
                    Key=to_item(keys.idempotency(key_hash)),
                    UpdateExpression="SET requestHash = :rh, #s = :progress, lockedUntil = :lock, "
                    "expiresAt = if_not_exists(expiresAt, :expires), attempt = if_not_exists(attempt, :attempt)",
                    ConditionExpression="attribute_not_exists(pk) OR "
                    "(#s = :progress AND lockedUntil < :now AND requestHash = :rh)",
                    ExpressionAttributeNames={"#s": "state"},
                    ExpressionAttributeValues=to_item(values),
                    ReturnValues="ALL_NEW",
                    # A refusal answers with the record that refused it (as it stood then): no second read.
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
                return from_item(claimed["Attributes"])["attempt"], None
            except self._db.exceptions.ConditionalCheckFailedException as refused:
                found = refused.response.get("Item")
        record = from_item(found) if found else None
        if record is None:  # only an existing record refuses the claim; stay safe if an answer lacks it
            raise Conflict("A request with this Idempotency-Key is in progress; retry shortly")
        if record["requestHash"] != request_hash:
            raise Conflict("This Idempotency-Key was used with a different request")
        if record["state"] != "COMPLETED":
            raise Conflict("A request with this Idempotency-Key is in progress; retry shortly")
        # Records written before attempts were stored replay what they were derived from then: the key hash.
        return attempt, Replay(record["status"], json.loads(record["body"]), record.get("attempt", key_hash))

    def completion(self, key_hash: str, attempt: str, status: int, body: Any) -> dict[str, Any]:
        """The ``TransactWriteItems`` item completing this attempt's claim with the response (the work's
        store puts it in the work's own transaction); it fails if the claim is no longer this attempt's."""
        values = {":done": "COMPLETED", ":status": status, ":body": json.dumps(body),
                  ":progress": "IN_PROGRESS", ":attempt": attempt}  # fmt: skip
        return {"Update": {
            "TableName": self._table, "Key": to_item(keys.idempotency(key_hash)),
            "UpdateExpression": "SET #s = :done, #status = :status, body = :body", "ConditionExpression": CLAIMED,
            "ExpressionAttributeNames": {"#s": "state", "#status": "status"},
            "ExpressionAttributeValues": to_item(values),
        }}  # fmt: skip

    def complete(self, key_hash: str, attempt: str, status: int, body: Any) -> None:
        """Complete the claim on its own; a claim no longer this attempt's (completed by a twin) is left be."""
        gone = self._db.exceptions.ConditionalCheckFailedException
        with translate_errors("UpdateItem"), contextlib.suppress(gone):
            self._db.update_item(**self.completion(key_hash, attempt, status, body)["Update"])

    def release(self, key_hash: str, attempt: str) -> None:
        """Drop this attempt's claim so the key can be retried at once; never a completed record, nor another's."""
        gone = self._db.exceptions.ConditionalCheckFailedException
        with translate_errors("DeleteItem"), contextlib.suppress(gone):
            self._db.delete_item(
                TableName=self._table, Key=to_item(keys.idempotency(key_hash)), ConditionExpression=CLAIMED,
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues=to_item({":progress": "IN_PROGRESS", ":attempt": attempt}),
            )  # fmt: skip
