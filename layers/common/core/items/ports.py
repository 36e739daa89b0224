"""The items' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.items.records import ItemPage, ItemRecord
    from core.platform.transactions import Also


class StoredItems(Protocol):
    def get(self, agent_id: str, item_id: str) -> ItemRecord | None: ...
    def page(self, agent_id: str, *, active: bool | None, limit: int, after: str | None) -> ItemPage: ...
    def create(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None: ...
    def replace(self, workspace_id: str, old: ItemRecord, new: ItemRecord, *, also: Also) -> ItemRecord: ...
    def delete(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None: ...
