"""The identity's storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record


class UserRecord(Record):
    id: str
    email: str
    name: str = ""
    image: str = ""
    plan: str = "free"
    role: str = "user"
    active_workspace_id: str | None = None
    owned_workspaces: int = 0  # counted in the creation transaction, so the plan limit holds under races
    created_at: str


class SessionRecord(Record):
    id: str
    user_id: str
    created_at: str
    expires_at: int  # epoch seconds; also the table's TTL attribute
