"""The audit log: one entry per write to a workspace, newest first in the workspace's own partition.

An entry is written in the write's own transaction (``Also.audit``), so there is an entry exactly when the write
happened; a write to S3 (an object's deletion) commits its entry right after. Entries hold who, what, which
target and which request: never a secret, a prompt or a body. They go only with their workspace (the purge).
Read newest first, a page at a time (``core.audit.reader``).
"""

from __future__ import annotations

from typing import Any

from core.audit.records import AuditRecord
from core.platform import main_table as keys
from core.platform.dynamo import query_all, to_item
from core.platform.transactions import Also, Transaction


class AuditStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def entry(self, record: AuditRecord) -> dict[str, Any]:
        """The entry as a ``TransactWriteItems`` step, for the write that it records."""
        key = keys.audit_entry(record.workspace_id, record.created_at, record.id)
        return {"Put": {"TableName": self._table, "Item": to_item(key | record.attributes())}}

    def commit(self, also: Also) -> None:
        """An entry (and an idempotency record's completion) for a write made outside DynamoDB, right after it."""
        Transaction(self._table).carry(also).commit_or_raise(self._db)

    def newest(self, workspace_id: str, limit: int, before: str | None = None) -> list[AuditRecord]:
        """The newest ``limit`` entries, or the newest older than the entry whose sort key is ``before``."""
        partition = keys.audit_partition(workspace_id)
        request = {
            "TableName": self._table, "ConsistentRead": True, "ScanIndexForward": False, "Limit": limit,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": partition}),
        }  # fmt: skip
        if before is not None:
            request["ExclusiveStartKey"] = to_item({"pk": partition, "sk": before})
        return [AuditRecord.model_validate(r) for r in query_all(self._db, request, limit)]
