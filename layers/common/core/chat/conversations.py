"""Stored conversations read back (authoring.md, "Conversations"): an agent's threads, most recent first, and one
thread's turns. Owners and admins of the agent's workspace; a member gets 403, anyone else 404.

The access check (with the agent: the tenant check) goes out beside the read and must pass before the read is
used, so each answer is one round trip after the session's. The workspace it reads names the retention: what is
past it is never shown, even before DynamoDB's TTL has deleted it (``core.platform.retention``). Threads are ordered by
their index key ``<lastAt>#<client>#<threadKey>``, which is also the cursor (``core.platform.cursors``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter, ValidationError

from core.chat.conversation_models import (
    ConversationQuery,
    StoredTurn,
    Thread,
    ThreadKey,
    ThreadPage,
    ThreadTurns,
    VisitorQuery,
)
from core.chat.ports import ThreadReads
from core.platform import cursors, together
from core.platform.errors import NotFound, ValidationFailed
from core.platform.retention import DAY_COUNT, DAY_FIRST, day_of, first_kept_day
from core.workspaces.membership import WorkspaceAccess

POSITION = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[A-Za-z0-9_-]{16,128}#[A-Za-z0-9_.:-]{1,128}$")
_THREAD_KEY: TypeAdapter[str] = TypeAdapter(ThreadKey)
Check = Callable[[], WorkspaceAccess]


def decode(cursor: str) -> str:
    position = cursors.decode(cursor)
    if not POSITION.match(position):
        raise ValidationFailed(cursors.BAD_CURSOR)
    return position


def thread_key(value: str) -> str:
    """The path's thread key, as the chat takes them (400 otherwise: it could not name a stored thread)."""
    try:
        return _THREAD_KEY.validate_python(value)
    except ValidationError as exc:
        raise ValidationFailed("threadKey: letters, digits and _ . : - only, at most 128") from exc


def thread_view(row: dict[str, Any], first_day: str) -> Thread:
    """A thread item as listed: only its turns still kept are counted, and it starts at the first of them."""
    days = sorted(name.removeprefix(DAY_COUNT) for name in row if name.startswith(DAY_COUNT))
    kept = [day for day in days if day >= first_day]
    started = row[DAY_FIRST + kept[0]] if first_day and kept else row["startedAt"]
    return Thread(thread_key=row["threadKey"], client=row["client"], turns=sum(int(row[DAY_COUNT + d]) for d in kept),
                  started_at=started, last_at=row["lastAt"])  # fmt: skip


def turn_view(row: dict[str, Any]) -> StoredTurn:
    """A stored turn as read back: what the visitor asked, what the agent answered, what it charged."""
    return StoredTurn(turn_id=row["turnId"], prompt=row["prompt"], reply=row["reply"],
                      credits=int(row.get("credits") or 0), created_at=row["createdAt"])  # fmt: skip


class ConversationReader:
    def __init__(self, store: ThreadReads, access: Callable[[str, str, str], WorkspaceAccess]):
        self._store = store
        self._access = access  # (user, workspace, agent): an owner's or admin's access to the workspace's agent

    def threads(self, user_id: str, workspace_id: str, agent_id: str, query: ConversationQuery) -> ThreadPage:
        """Most recent first; one thread more than the page is read, so ``nextCursor`` is null exactly on the last."""

        def read() -> list[dict[str, Any]]:  # a bad cursor is refused after the check: a stranger learns nothing
            after = decode(query.cursor) if query.cursor is not None else None
            upper = min(b for b in (query.until, after) if b is not None) if query.until or after else None
            if query.client is not None:
                rows = self._store.visitor_threads(agent_id, query.client)
                rows = [r for r in rows if (query.since is None or r["gsi1sk"] >= query.since)
                        and (upper is None or r["gsi1sk"] <= upper)]  # fmt: skip
                rows.sort(key=lambda r: r["gsi1sk"], reverse=True)
            else:  # a page and one more; after a cursor one more again: its own thread is within the bound (<=)
                more = 2 if after is not None else 1
                rows = self._store.newest(agent_id, query.limit + more, lower=query.since, upper=upper)
            return [r for r in rows if after is None or r["gsi1sk"] < after]

        access, rows = together.checked_then_read(lambda: self._access(user_id, workspace_id, agent_id), read)
        first_day = first_kept_day(access.workspace.conversation_retention_days)
        kept = [row for row in rows() if row["gsi1sk"] >= first_day]  # past retention: only at the end (oldest)
        shown = kept[: query.limit]
        more = len(kept) > query.limit
        return ThreadPage(
            threads=[thread_view(row, first_day) for row in shown],
            next_cursor=cursors.encode(shown[-1]["gsi1sk"]) if more else None,
        )

    def thread(self, user_id: str, workspace_id: str, agent_id: str, key: str, query: VisitorQuery) -> ThreadTurns:
        """A visitor's thread, oldest first; 404 when it has no turn kept (never stored, erased or past retention)."""

        def read() -> list[dict[str, Any]]:
            return self._store.turns(agent_id, query.client, thread_key(key))

        access, rows = together.checked_then_read(lambda: self._access(user_id, workspace_id, agent_id), read)
        first_day = first_kept_day(access.workspace.conversation_retention_days)
        kept = [row for row in rows() if day_of(row["createdAt"]) >= first_day]
        if not kept:
            raise NotFound("Conversation not found")
        return ThreadTurns(turns=[turn_view(row) for row in kept])
