"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

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
