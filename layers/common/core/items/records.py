"""The items' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

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
