"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

from __future__ import annotations

from pydantic import Field

from core.platform.records import Record


class BrandRecord(Record):
    id: str
    workspace_id: str
    slug: str
    name: str
    is_default: bool = False
    palette: list[str] = Field(default_factory=list)
    font_family: str = ""
    agent_count: int = 0  # agents naming it: a brand in use is not deleted
    version: int = 0
    created_at: str
    updated_at: str
