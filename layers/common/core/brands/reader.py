"""Listing a workspace's brands (``GET /api/workspaces/{id}/brands``): members only, the default first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.brands.models import Brand

if TYPE_CHECKING:
    from core.brands.ports import BrandList
    from core.workspaces.workspace import WorkspaceService


class BrandReader:
    def __init__(self, workspaces: WorkspaceService, brands: BrandList):
        self._workspaces = workspaces
        self._brands = brands

    def list(self, user_id: str, workspace_id: str) -> list[Brand]:
        """The membership check and the Query together (404 for a non-member, as for an unknown workspace)."""
        found = self._workspaces.read_as_member(workspace_id, user_id, lambda: self._brands.list(workspace_id))
        return [Brand.from_record(b) for b in sorted(found, key=lambda b: (not b.is_default, b.created_at, b.id))]
