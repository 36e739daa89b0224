"""The events' providers: their store (the fan-out's reads of workspaces and owners)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.events.store import EventStore


@per_container
def store() -> EventStore:
    from core.events.store import EventStore

    return EventStore(aws.dynamodb(), get_settings().main_table)
