"""The posts' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent but where a PATCH clears a field), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from core.objects.fields import ObjectKey, OptionalKey
from core.platform.fields import QueryInt, whole_number_rules
from core.platform.kinds import MediaType, PostKind
from core.platform.models import ApiModel, RequestModel
from core.platform.write_fields import ListQuery, Timestamp, free_text_rules
from core.posts.models import FeedPost

PostStatus = Literal["draft", "published"]


class Post(FeedPost):
    """A feed post as its author sees it: published or not, and when it last changed."""

    status: PostStatus
    updated_at: str


class PostEnvelope(ApiModel):
    post: Post


class PostPage(ApiModel):
    posts: list[Post]
    next_cursor: str | None


MAX_CHANNELS = 20

MAX_PAGES = 20

Dimension = Annotated[int, *whole_number_rules(1, 100_000)]

FilterValue = Annotated[str, *free_text_rules(100, min_length=1)]  # the feed's filters take 1-100 characters


class PageInput(RequestModel):
    key: ObjectKey
    media_type: MediaType | None = None
    width: Dimension | None = None
    height: Dimension | None = None
    order: Annotated[int, *whole_number_rules(0, 1000)] | None = None


class PostFields(RequestModel):
    """Every FeedPost field but ``id`` and ``isVideo`` (``mediaType`` follows from ``kind`` and the pages)."""

    key: ObjectKey | None = None
    kind: PostKind | None = None
    media_type: MediaType | None = None
    title: Annotated[str, *free_text_rules(200)] | None = None
    sub: Annotated[str, *free_text_rules(200)] | None = None
    caption: Annotated[str, *free_text_rules(2200)] | None = None
    hashtags: Annotated[list[Annotated[str, *free_text_rules(100, min_length=1)]], Field(max_length=30)] | None = None
    channels: Annotated[list[FilterValue], Field(max_length=MAX_CHANNELS)] | None = None
    category: FilterValue | None = None
    width: Dimension | None = None
    height: Dimension | None = None
    created_at: Timestamp | None = None
    pages: Annotated[list[PageInput], Field(max_length=MAX_PAGES)] | None = None
    poster: OptionalKey | None = None
    playable: OptionalKey | None = None


class PostCreate(PostFields):
    key: ObjectKey
    kind: PostKind
    publish: bool | None = None


class PostUpdate(PostFields):
    """Omitted fields are left as they are; ``null`` clears those the feed allows to be null (``mediaType`` back to
    what ``kind`` and the pages make it)."""

    clearable = frozenset({"title", "sub", "caption", "category", "width", "height", "media_type"})


class PostQuery(ListQuery):
    status: Literal["draft", "published"] | None = None
    limit: QueryInt = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, min_length=1, max_length=2048)
