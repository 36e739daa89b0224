"""The brands' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

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
