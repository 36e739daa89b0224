"""The audit log read (authoring.md, "Audit"): a workspace's entries, newest first, a page at a time.

Owners and admins only, but the audit package knows nothing of roles (the workspaces' access check writes audit
entries itself, so it cannot be imported from here): the route hands over its caller's check, which goes out beside
the page's Query and must pass before the page is used. One round trip in all.

The cursor is the last entry's sort key (``<createdAt>#<id>``) in base64url; anything else is a 400.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from core.audit.models import AuditEntry, AuditPage, AuditQuery
from core.audit.records import AuditRecord
from core.audit.store import AuditStore
from core.platform import together
from core.platform.errors import ValidationFailed

BAD_CURSOR = "cursor: not a cursor of this listing (start again without one)"
SORT_KEY = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#aud_[0-9A-Za-z]{1,64}$")


def encode(sort_key: str) -> str:
    return base64.urlsafe_b64encode(sort_key.encode()).decode().rstrip("=")


def decode(cursor: str) -> str:
    try:
        sort_key = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, ValueError) as exc:
        raise ValidationFailed(BAD_CURSOR) from exc
    if not SORT_KEY.match(sort_key) or encode(sort_key) != cursor:
        raise ValidationFailed(BAD_CURSOR)
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
            next_cursor=encode(f"{shown[-1].created_at}#{shown[-1].id}") if more else None,
        )
