"""The posts' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from pydantic import Field

from core.platform.kinds import MediaType, PostKind
from core.platform.models import ApiModel


class FeedQuery(ApiModel):
    """``GET /v1/agent/{agentId}/feed`` filters; the read-plane service checks the same 1-100 characters."""

    model_config = ApiModel.model_config | {"extra": "ignore", "validate_by_name": False}

    channel: str | None = Field(None, min_length=1, max_length=100, description="posts whose channels contain it")
    category: str | None = Field(None, min_length=1, max_length=100, description="posts of exactly this category")


class FeedPage(ApiModel):
    key: str
    media_type: MediaType | None
    width: int | None
    height: int | None
    order: int | None


class FeedPost(ApiModel):
    id: str
    key: str
    kind: PostKind
    media_type: MediaType | None
    title: str | None
    sub: str | None
    caption: str | None
    hashtags: list[str]
    channels: list[str]
    category: str | None
    width: int | None
    height: int | None
    created_at: str
    pages: list[FeedPage]
    poster: str
    playable: str
    is_video: bool
