"""The items' provider: the writer's service on its store, checking the objects a item names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.items.writer import ItemService


@per_container
def writer() -> ItemService:
    from core.audit import providers as audit
    from core.items.write_store import ItemStore
    from core.items.writer import ItemService
    from core.objects import providers as objects
    from core.platform import jobs
    from core.workspaces import providers as workspaces

    store = ItemStore(aws.dynamodb(), get_settings().main_table)
    return ItemService(workspaces.access(), store, objects.write_store(), audit.writes(), jobs.reread_agent)
