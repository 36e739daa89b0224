"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

from __future__ import annotations

from core.platform.kinds import ItemKind, ItemOrigin
from core.platform.records import Record


class ItemRecord(Record):
    id: str
    agent_id: str
    name: str
    kind: ItemKind
    r2_key: str
    mime_type: str
    size: int
    folder: str = ""
    order: int = 0
    origin: ItemOrigin = "upload"
    active: bool = True
    version: int = 0
    updated_at: str
