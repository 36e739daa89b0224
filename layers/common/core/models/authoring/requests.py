"""Request bodies and queries of the authoring routes: strict, unknown fields refused, ``null`` = absent.

A PATCH body names only what changes: ``model_fields_set`` is what the caller sent. Limits keep every post's
transaction (its row, one copy per filter, the counters) within DynamoDB's 100 items and 4 MB.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from core.models.authoring.fields import (
    JsonDocument,
    JsonObject,
    ObjectKey,
    OptionalKey,
    Palette,
    ResourceId,
    Slug,
    Timestamp,
    UploadType,
    free_text_rules,
)
from core.models.base import ApiModel, RequestModel
from core.models.fields import QueryInt, name_rules, whole_number_rules
from core.models.kinds import ItemKind, ItemOrigin, MediaType, PostKind

MAX_CHANNELS = 20
MAX_PAGES = 20
Dimension = Annotated[int, *whole_number_rules(1, 100_000)]
FilterValue = Annotated[str, *free_text_rules(100, min_length=1)]  # the feed's filters take 1-100 characters
Name = Annotated[str, *name_rules(80)]


def changes(request: RequestModel) -> dict[str, Any]:
    """The fields a PATCH body sent, by their Python names (an explicit ``null`` is not sent: it means absent)."""
    return {name: getattr(request, name) for name in request.model_fields_set}


# --- workspace settings, brands, workflows


class WorkspaceUpdate(RequestModel):
    name: Name | None = None
    listed: bool | None = None
    store_conversations: bool | None = None
    wrap_config: JsonObject | None = None
    default_brand_id: ResourceId | None = None
    default_workflow_id: ResourceId | None = None


class BrandCreate(RequestModel):
    name: Name
    slug: Slug | None = None
    palette: Palette | None = None
    font_family: Annotated[str, *free_text_rules(100)] | None = None
    is_default: bool | None = None


class BrandUpdate(RequestModel):
    name: Name | None = None
    slug: Slug | None = None
    palette: Palette | None = None
    font_family: Annotated[str, *free_text_rules(100)] | None = None
    is_default: bool | None = None


class WorkflowCreate(RequestModel):
    name: Name
    suggestions: JsonDocument = None


class WorkflowUpdate(RequestModel):
    name: Name | None = None
    suggestions: JsonDocument = None


# --- agents


class AgentCreate(RequestModel):
    name: Name
    slug: Slug | None = None
    brand_id: ResourceId | None = None
    active_workflow_id: ResourceId | None = None


class AgentUpdate(RequestModel):
    name: Name | None = None
    slug: Slug | None = None
    brand_id: ResourceId | None = None
    active_workflow_id: ResourceId | None = None


# --- posts


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
    pass


# --- items


class ItemFields(RequestModel):
    name: Annotated[str, *name_rules(200)] | None = None
    kind: ItemKind | None = None
    r2_key: ObjectKey | None = None
    folder: Annotated[str, *free_text_rules(100)] | None = None
    order: Annotated[int, *whole_number_rules(0, 1_000_000)] | None = None
    origin: ItemOrigin | None = None
    active: bool | None = None


class ItemCreate(ItemFields):
    name: Annotated[str, *name_rules(200)]
    kind: ItemKind
    r2_key: ObjectKey


class ItemUpdate(ItemFields):
    pass


# --- objects


class UploadRequest(RequestModel):
    # Exactly as sent (never trimmed); the r2 rules are checked by the service, with r2's answers.
    path: Annotated[str, StringConstraints(strip_whitespace=False), Field(min_length=1, max_length=900)]
    content_type: UploadType
    size: Annotated[int, *whole_number_rules(0, 5 * 1024**3)]


# --- queries: strings from the URL (numbers in plain digits), unknown parameters ignored, as the feed's


class _Query(ApiModel):
    model_config = ApiModel.model_config | {"extra": "ignore", "validate_by_name": False}


class PostQuery(_Query):
    status: Literal["draft", "published"] | None = None
    limit: QueryInt = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, min_length=1, max_length=2048)


class ItemQuery(_Query):
    active: Literal["true", "false"] | None = None


class ObjectQuery(_Query):
    prefix: str = Field("", max_length=900)
    limit: QueryInt = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, min_length=1, max_length=2048)
