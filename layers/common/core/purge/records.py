"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

from __future__ import annotations

from core.platform.records import Record


class PurgeRecord(Record):
    """Tombstone of a deleted workspace, until its background purge has finished."""

    workspace_id: str
    owner_id: str
    deleted_at: str
