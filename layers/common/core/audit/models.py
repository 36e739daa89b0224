"""The audit log as owners and admins read it (authoring.md, "Audit"): its entries, a page of them, the query."""

from __future__ import annotations

from pydantic import Field

from core.platform.fields import QueryInt
from core.platform.models import ApiModel
from core.platform.write_fields import ListQuery


class AuditEntry(ApiModel):
    """One write: who (``actorId``, a user id), what (``action``, as ``key.mint``), on what (``target``, an id or an
    object's path) and in which request (API Gateway's ``requestId``); ``count`` for a write that removes many
    (the turns a conversation erasure erased). Never a secret, a prompt or a body."""

    id: str
    action: str
    actor_id: str
    target: str
    request_id: str
    created_at: str
    count: int | None = Field(None, description="how many the write removed, where it says (conversation.erase: turns)")


class AuditPage(ApiModel):
    entries: list[AuditEntry]
    next_cursor: str | None


class AuditQuery(ListQuery):
    limit: QueryInt = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, min_length=1, max_length=512)
