"""The writer's storage interfaces: one ``Protocol`` per store in ``core.repositories.authoring``, holding what the
authoring services call (as ``core.platform.ports`` does for the rest; records are imported for the type checker
only). The concrete stores satisfy them structurally; mypy checks that where ``core.deps.authoring`` wires them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.items.records import ItemRecord
    from core.platform.transactions import Also


class ItemStore(Protocol):
    def get(self, agent_id: str, item_id: str) -> ItemRecord | None: ...
    def list(self, agent_id: str, *, active: bool | None) -> list[ItemRecord]: ...
    def create(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None: ...
    def replace(self, workspace_id: str, old: ItemRecord, new: ItemRecord, *, also: Also) -> ItemRecord: ...
    def delete(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None: ...
