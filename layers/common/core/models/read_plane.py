"""Read-plane resources (service-api.md, "Resources and their fields")."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from core.models.base import ApiModel
from core.models.kinds import ItemKind, ItemOrigin, MediaType, PostKind


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


class Item(ApiModel):
    id: str
    name: str
    kind: ItemKind
    r2_key: str
    mime_type: str
    size: int
    folder: str
    order: int
    updated_at: str
    origin: ItemOrigin


class BrandRef(ApiModel):
    id: str
    slug: str
    name: str


class AgentMetadata(ApiModel):
    id: str
    slug: str
    name: str
    brand: BrandRef
    active_workflow_id: str


class WhoAmI(ApiModel):
    workspace_id: str
    api_key_id: str


class WrapConfig(ApiModel):
    """Published presentation config. Known fields are typed; anything else is kept."""

    model_config = ApiModel.model_config | {"extra": "allow"}

    layout: str = "chat"
    greeting: str = ""
    theme: dict[str, Any] = Field(default_factory=dict)


class SiteConfig(ApiModel):
    model_config = ApiModel.model_config | {"extra": "allow"}

    pages: list[Any] = Field(default_factory=list)
    nav: list[Any] = Field(default_factory=list)
    sections: list[Any] = Field(default_factory=list)


class Suggestions(ApiModel):
    suggestions: list[Any] = Field(default_factory=list)
