"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

from __future__ import annotations

from core.platform.records import Record


class ApiKeyRecord(Record):
    id: str
    key_hash: str
    workspace_id: str
    name: str
    prefix: str
    rate_limit: int | None = None
    # Serialized origins a browser may use the key from; None (absent): any (core/platform/origins.py).
    allowed_origins: list[str] | None = None
    created_at: str
    last_used_at: str | None = None
    revoked_at: str | None = None
