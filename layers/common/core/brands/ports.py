"""The brands' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.brands.records import BrandRecord
    from core.platform.transactions import Also


class StoredBrands(Protocol):
    def get(self, workspace_id: str, brand_id: str) -> BrandRecord | None: ...
    def create(self, brand: BrandRecord, *, default_was: str | None, also: Also) -> None: ...
    def update(self, old: BrandRecord, new: BrandRecord, *, default_was: str | None, also: Also) -> BrandRecord: ...
    def delete(self, brand: BrandRecord, *, also: Also) -> None: ...


class BrandList(Protocol):
    """A workspace's brands, for its members (``BrandReadStore``)."""

    def list(self, workspace_id: str) -> list[BrandRecord]: ...
    def page(self, workspace_id: str, limit: int, start: str | None) -> builtins.list[BrandRecord]: ...
    def get(self, workspace_id: str, brand_id: str) -> BrandRecord | None: ...
