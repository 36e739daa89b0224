"""The posts' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from pydantic import Field

from core.platform.kinds import PostKind
from core.platform.records import Record
from core.posts.models import FeedPage


class PostRecord(Record):
    id: str
    agent_id: str
    key: str
    kind: PostKind
    title: str | None = None
    sub: str | None = None
    caption: str | None = None
    hashtags: list[str] = Field(default_factory=list)
    channels: list[str] = Field(default_factory=list)
    category: str | None = None
    width: int | None = None
    height: int | None = None
    pages: list[FeedPage] = Field(default_factory=list)
    poster: str = ""
    playable: str = ""
    published: bool = True
    version: int = 0  # the canonical item's: every move of the post conditions on it
    created_at: str
    updated_at: str | None = None  # None: written before posts had an editor (it shows as createdAt)
