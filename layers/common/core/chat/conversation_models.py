"""Stored conversations as owners and admins read them (authoring.md, "Conversations"): the queries, a page of
threads, a thread's turns and an erasure's answer. Management plane only: the chat never loads this module."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.platform.fields import QueryInt
from core.platform.models import ApiModel
from core.platform.write_fields import ListQuery, Timestamp

# As the chat takes them (core.chat.models.ChatRequest): never ``#``, the separator of their stored keys.
Client = Annotated[str, Field(min_length=16, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
ThreadKey = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]


class ConversationQuery(ListQuery):
    limit: QueryInt = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, min_length=1, max_length=1024)
    client: Client | None = Field(None, description="one visitor's threads only (the chat's `client`)")
    since: Timestamp | None = Field(None, description="threads whose last turn is at or after this time")
    until: Timestamp | None = Field(None, description="threads whose last turn is before this time")


class VisitorQuery(ListQuery):
    """A thread's read and a visitor's erasure name the visitor: a thread is the visitor's (thread keys can repeat)."""

    client: Client


class Thread(ApiModel):
    thread_key: str
    client: str
    turns: int = Field(description="its turns still stored")
    started_at: str = Field(description="its first turn still stored")
    last_at: str


class ThreadPage(ApiModel):
    threads: list[Thread]
    next_cursor: str | None


class StoredTurn(ApiModel):
    turn_id: str
    prompt: str
    reply: str
    credits: int
    created_at: str


class ThreadTurns(ApiModel):
    turns: list[StoredTurn]


class Erasure(ApiModel):
    deleted: int = Field(description="the visitor's stored turns erased")
