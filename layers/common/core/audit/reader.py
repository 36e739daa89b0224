"""The audit log read (authoring.md, "Audit"): a workspace's entries, newest first, a page at a time.

Owners and admins only, but the audit package knows nothing of roles (the workspaces' access check writes audit
entries itself, so it cannot be imported from here): the route hands over its caller's check, which goes out beside
the page's Query and must pass before the page is used. One round trip in all.

The cursor is the last entry's sort key (``<createdAt>#<id>``, ``core.platform.cursors``); anything else is a 400.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.audit.models import AuditEntry, AuditPage, AuditQuery
from core.audit.records import AuditRecord
from core.audit.store import AuditStore
from core.platform import cursors, together
from core.platform.errors import ValidationFailed

SORT_KEY = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#aud_[0-9A-Za-z]{1,64}$")


def decode(cursor: str) -> str:
    """The sort key the cursor starts after; 400 for anything ``cursors.encode`` did not make of one."""
    sort_key = cursors.decode(cursor)
    if not SORT_KEY.match(sort_key):
        raise ValidationFailed(cursors.BAD_CURSOR)
    return sort_key


class AuditReader:
    def __init__(self, store: AuditStore):
        self._store = store

    def page(self, workspace_id: str, query: AuditQuery, *, check: Callable[[], object]) -> AuditPage:
        """``check`` is the caller's access (404 for a stranger, 403 for a member); one entry more than the page is
        read, so ``nextCursor`` is null exactly on the last page."""

        def newest() -> list[AuditRecord]:  # a bad cursor is refused after the check: a stranger learns nothing
            before = decode(query.cursor) if query.cursor is not None else None
            return self._store.newest(workspace_id, query.limit + 1, before)

        _, read = together.checked_then_read(check, newest)
        records = read()
        shown = records[: query.limit]
        more = len(records) > query.limit
        return AuditPage(
            entries=[AuditEntry.from_record(record) for record in shown],
            next_cursor=cursors.encode(f"{shown[-1].created_at}#{shown[-1].id}") if more else None,
        )
