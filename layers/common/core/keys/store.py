"""Workspace API keys, stored by the SHA-256 of the raw key (never the key itself)."""

from __future__ import annotations

import contextlib
from typing import Any

from core.keys.records import ApiKeyRecord
from core.platform.dynamo import batch_delete, from_item, query_all, to_item, translate_errors, written_if
from core.platform.errors import Conflict


class ApiKeyStore:
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

    def hash_of(self, key_id: str) -> str | None:
        """The ``keyHash`` of the key with this id (one Query of the keys-only ``byId`` index), or None.

        The index is eventually consistent: it maps an id to its hash, which never changes; whether the
        key is still live is then read from the table itself (``get_by_hash``, consistent).
        """
        with translate_errors("Query"):
            items = self._db.query(
                TableName=self._table, IndexName="byId", KeyConditionExpression="id = :id",
                ExpressionAttributeValues=to_item({":id": key_id}), Limit=1,
            ).get("Items", [])  # fmt: skip
        return from_item(items[0])["keyHash"] if items else None

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

    def put(
        self, record: ApiKeyRecord, *, audit: dict[str, Any] | None = None, completing: dict[str, Any] | None = None
    ) -> None:
        """Store a new key, never over an existing one (that would bring a revoked key back to life); with ``audit``
        (a mint's entry; the demo's seeded keys have none) in the same transaction.

        ``completing``: an idempotency record's completion, made in the same transaction, so the key is never
        stored without the record saying so; if either condition fails, nothing is written (``Conflict``).
        """
        put = {"TableName": self._table, "Item": to_item(record.attributes()),
               "ConditionExpression": "attribute_not_exists(keyHash)"}  # fmt: skip
        if audit is None and completing is None:
            with translate_errors("PutItem"):
                try:
                    self._db.put_item(**put)
                except self._db.exceptions.ConditionalCheckFailedException:
                    raise Conflict("This key already exists; mint again") from None
            return
        steps = [{"Put": put}, *([completing] if completing else []), *([audit] if audit else [])]
        with translate_errors("TransactWriteItems"):
            try:
                self._db.transact_write_items(TransactItems=steps)
            except self._db.exceptions.TransactionCanceledException as exc:
                failed = _failed_conditions(exc)
                if not failed:
                    raise  # cancelled for another reason (a conflicting transaction): storage, not a conflict
                if failed == [1] and completing:  # only the completion's: the claim is no longer this attempt's
                    raise Conflict("A request with this Idempotency-Key is in progress; retry shortly") from None
                raise Conflict("This key already exists; mint again") from None

    def page(self, workspace_id: str, limit: int, after: tuple[str, str] | None) -> list[ApiKeyRecord]:
        """The newest ``limit`` keys of a workspace, or those older than ``after`` (its ``createdAt`` and
        ``keyHash``: the index's position, ties in a millisecond kept apart by the table's key): one Query of
        ``byWorkspace`` of at most ``limit`` items, whatever the workspace holds."""
        request: dict[str, Any] = {
            "TableName": self._table, "IndexName": "byWorkspace", "KeyConditionExpression": "workspaceId = :ws",
            "ExpressionAttributeValues": to_item({":ws": workspace_id}), "ScanIndexForward": False, "Limit": limit,
        }  # fmt: skip
        if after is not None:
            request["ExclusiveStartKey"] = to_item(
                {"workspaceId": workspace_id, "createdAt": after[0], "keyHash": after[1]}
            )
        return [ApiKeyRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def list_for_workspace(self, workspace_id: str) -> list[ApiKeyRecord]:
        """Every key of a workspace, newest first, revoked ones included (one Query of ``byWorkspace``)."""
        rows = query_all(self._db, {
            "TableName": self._table, "IndexName": "byWorkspace",
            "KeyConditionExpression": "workspaceId = :ws",
            "ExpressionAttributeValues": to_item({":ws": workspace_id}),
            "ScanIndexForward": False,
        })  # fmt: skip
        return [ApiKeyRecord.model_validate(r) for r in rows]

    def revoke(self, key_hash: str, at: str, *, audit: dict[str, Any] | None = None) -> bool:
        """Set ``revokedAt`` once, with ``audit`` (the revocation's entry) in the same transaction. False when it
        changed nothing (revoked already, or deleted meanwhile), and then nothing was written."""
        update = {
            "TableName": self._table, "Key": to_item({"keyHash": key_hash}), "UpdateExpression": "SET revokedAt = :at",
            "ConditionExpression": "attribute_exists(keyHash) AND attribute_not_exists(revokedAt)",
            "ExpressionAttributeValues": to_item({":at": at}),
        }  # fmt: skip
        if audit is None:
            return written_if(self._db, "UpdateItem", lambda: self._db.update_item(**update))
        with translate_errors("TransactWriteItems"):
            try:
                self._db.transact_write_items(TransactItems=[{"Update": update}, audit])
            except self._db.exceptions.TransactionCanceledException as exc:
                if _failed_conditions(exc) != [0]:
                    raise
                return False
        return True

    def revoke_all(self, workspace_id: str, at: str) -> None:
        """Revoke every live key of a workspace (a deleted workspace's keys stop at once; the purge deletes them)."""
        for key in self.list_for_workspace(workspace_id):
            if key.revoked_at is None:
                self.revoke(key.key_hash, at)

    def delete_many(self, key_hashes: list[str]) -> None:
        batch_delete(self._db, self._table, [{"keyHash": h} for h in key_hashes])


def _failed_conditions(exc: Any) -> list[int]:
    """The positions of a cancelled transaction's items whose condition failed."""
    reasons = getattr(exc, "response", {}).get("CancellationReasons", [])
    return [i for i, reason in enumerate(reasons) if reason.get("Code") == "ConditionalCheckFailed"]
