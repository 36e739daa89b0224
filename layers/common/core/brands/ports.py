"""The writer's storage interfaces: one ``Protocol`` per store in ``core.repositories.authoring``, holding what the
authoring services call (as ``core.platform.ports`` does for the rest; records are imported for the type checker
only). The concrete stores satisfy them structurally; mypy checks that where ``core.deps.authoring`` wires them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.brands.records import BrandRecord
    from core.platform.transactions import Also


class BrandStore(Protocol):
    def get(self, workspace_id: str, brand_id: str) -> BrandRecord | None: ...
    def create(self, brand: BrandRecord, *, default_was: str | None, also: Also) -> None: ...
    def update(self, old: BrandRecord, new: BrandRecord, *, default_was: str | None, also: Also) -> BrandRecord: ...
    def delete(self, brand: BrandRecord, *, also: Also) -> None: ...
