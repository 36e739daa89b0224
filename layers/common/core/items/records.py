"""The items' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.platform.kinds import ItemKind, ItemOrigin
from core.platform.records import Record

IndexStatus = Literal["pending", "indexed", "skipped", "failed"]


class IndexState(Record):
    """How far the knowledge worker got with the item (authoring.md, "Knowledge"). Every author's write of an item
    sets it ``pending``; the worker alone sets the rest, without moving the item's version."""

    status: IndexStatus = "pending"
    passages: int = 0
    error: str | None = None
    updated_at: str
    etag: str | None = None  # S3's ETag (quoted) of the file the state was decided for; None while pending


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
    index: IndexState | None = None  # None: written before knowledge existed (shown as pending)


@dataclass(frozen=True)
class ItemPage:
    """A page of the listing: its items, and the place of the last one read when more follow (None: the last page).
    A place whose item moved or went between the two reads is left out (it shows where it stands now)."""

    items: list[ItemRecord]
    last: str | None
