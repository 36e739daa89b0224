"""The items' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from core.platform.kinds import ItemKind, ItemOrigin
from core.platform.models import ApiModel


class Item(ApiModel):
    id: str
    name: str
    kind: ItemKind
    r2_key: str
    mime_type: str
    size: int
    folder: str
    order: int
    updated_at: str
    origin: ItemOrigin
