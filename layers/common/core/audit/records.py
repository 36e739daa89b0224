"""The audit's storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record


class AuditRecord(Record):
    """One write to a workspace, as the audit log keeps it: who, what, on which target, in which request."""

    id: str
    workspace_id: str
    action: str
    actor_id: str
    target: str
    request_id: str
    created_at: str
    count: int | None = None  # how many things the write removed, where that is its point (turns erased)
