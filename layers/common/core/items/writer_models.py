"""The items' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from core.items.models import Item
from core.items.records import IndexStatus
from core.objects.fields import ObjectKey
from core.platform.fields import QueryInt, name_rules, whole_number_rules
from core.platform.kinds import ItemKind, ItemOrigin
from core.platform.models import ApiModel, RequestModel
from core.platform.pages import PAGE
from core.platform.write_fields import (
    ListQuery,
    free_text_rules,
)


class ItemIndex(ApiModel):
    """How far the knowledge worker got with the item's document (authoring.md, "Knowledge")."""

    status: IndexStatus
    passages: int
    error: str | None  # why it failed, in words a person can act on; null otherwise
    updated_at: str
    etag: str | None = Field(
        description="S3's ETag, quoted as the objects listing gives it, of the file this state was decided for; null "
        "while pending or where the item has no file. A file replaced at the same path is read once this is its ETag."
    )


class AgentItem(Item):
    """An item as its author sees it: active (on the read plane) or not, and its index state."""

    active: bool
    index: ItemIndex


class ItemEnvelope(ApiModel):
    item: AgentItem


class ItemList(ApiModel):
    items: list[AgentItem]
    next_cursor: str | None = Field(description="The next page's cursor; null on the last page")


class ItemFields(RequestModel):
    name: Annotated[str, *name_rules(200)] | None = None
    kind: ItemKind | None = None
    r2_key: ObjectKey | None = None
    folder: Annotated[str, *free_text_rules(100)] | None = None
    order: Annotated[int, *whole_number_rules(0, 1_000_000)] | None = None
    origin: ItemOrigin | None = None
    active: bool | None = None


class ItemCreate(ItemFields):
    name: Annotated[str, *name_rules(200)]
    kind: ItemKind
    r2_key: ObjectKey


class ItemUpdate(ItemFields):
    pass


class ItemQuery(ListQuery):
    active: Literal["true", "false"] | None = None
    limit: QueryInt = Field(PAGE, ge=1, le=PAGE)
    # a place names the folder (hex of up to 100 characters' UTF-8), the order and the id
    cursor: str | None = Field(None, min_length=1, max_length=1200)
