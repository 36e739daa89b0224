"""Listing a workspace's brands (``GET /api/workspaces/{id}/brands``): members only, the default first, a page at a
time (issue 43)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.brands.models import Brand, BrandQuery
from core.platform import cursors, pages, together

if TYPE_CHECKING:
    from core.brands.ports import BrandList
    from core.brands.records import BrandRecord
    from core.workspaces.workspace import WorkspaceService

BRANDS = "BRAND#"  # the brands' range (sort key prefix) in the workspace's partition


def _start(cursor: str | None) -> str | None:
    """The sort key after which a page starts. ``BRAND#`` alone is the start of the range: the cursor after a first
    page of ``limit=1``, which shows the default brand alone (every other brand is still to come)."""
    if cursor is None:
        return None
    if cursors.decode(cursor) == BRANDS:
        return None
    return pages.after(cursor, BRANDS)


class BrandReader:
    def __init__(self, workspaces: WorkspaceService, brands: BrandList):
        self._workspaces = workspaces
        self._brands = brands

    def list(self, user_id: str, workspace_id: str, query: BrandQuery) -> tuple[list[Brand], str | None]:
        """One page and the next page's cursor (None on the last). The first page opens with the workspace's
        default brand; then brands in id order (ULIDs of their creation: oldest first), the default left out
        wherever it falls. The membership check and the Query of the page and two brands more (one may be the
        default) together (404 for a non-member, as for an unknown workspace; a bad cursor after the check); on the
        first page, the default brand by its key when the Query did not meet it (it was made the default later)."""
        first = query.cursor is None

        def page() -> list[BrandRecord]:
            return self._brands.page(workspace_id, query.limit + 2, _start(query.cursor))

        access, found = together.run(lambda: self._workspaces.access(workspace_id, user_id), page)
        default_id = access.result().workspace.default_brand_id
        read = found.result()
        others = [b for b in read if b.id != default_id]
        room = query.limit - 1 if first else query.limit
        shown, more = others[:room], len(others) > room
        cursor = cursors.encode(f"{BRANDS}{shown[-1].id}" if shown else BRANDS) if more else None
        if first:
            default = next((b for b in read if b.id == default_id), None) or self._brands.get(workspace_id, default_id)
            shown = ([default] if default is not None else []) + shown
        return [Brand.from_record(b) for b in shown], cursor
