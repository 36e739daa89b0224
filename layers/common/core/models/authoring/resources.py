"""The resources an owner reads back from the management plane (authoring.md), and the envelopes around them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from core.models.base import ApiModel
from core.models.management import Brand
from core.models.read_plane import FeedPost, Item

PostStatus = Literal["draft", "published"]


class Workflow(ApiModel):
    id: str
    name: str
    suggestions: Any = Field(description="any JSON value; what GET /v1/agent/{agentId}/suggestions serves")
    created_at: str
    updated_at: str


class Agent(ApiModel):
    id: str
    slug: str
    name: str
    brand_id: str
    active_workflow_id: str
    post_count: int = Field(description="every post of the agent, drafts included")
    item_count: int = Field(description="every item of the agent, inactive ones included")
    created_at: str
    updated_at: str


class Post(FeedPost):
    """A feed post as its author sees it: published or not, and when it last changed."""

    status: PostStatus
    updated_at: str


class AgentItem(Item):
    """An item as its author sees it: active (on the read plane) or not."""

    active: bool


class UploadTicket(ApiModel):
    """A presigned S3 POST: send ``fields`` and then the file (as the form's last field, ``file``) to ``url``."""

    url: str
    fields: dict[str, str]
    path: str = Field(description="the object's workspace-relative path, as /v1/r2 and items name it")
    expires_at: str


class StoredObject(ApiModel):
    path: str
    size: int
    content_type: str
    etag: str = Field(description="S3's ETag, quoted; the content's MD5 in hex for an object uploaded in one part")
    updated_at: str


class ObjectPage(ApiModel):
    objects: list[StoredObject]
    next_cursor: str | None


class ObjectDownload(ApiModel):
    object: StoredObject
    url: str = Field(description="a presigned S3 GET of the object, valid until expiresAt")
    expires_at: str


# --- envelopes: {"agent": …}, {"posts": […], "nextCursor": …} and the like


class BrandEnvelope(ApiModel):
    brand: Brand


class WorkflowEnvelope(ApiModel):
    workflow: Workflow


class WorkflowList(ApiModel):
    workflows: list[Workflow]


class AgentEnvelope(ApiModel):
    agent: Agent


class AgentList(ApiModel):
    agents: list[Agent]


class WrapEnvelope(ApiModel):
    wrap: dict[str, Any] | None = Field(description="the published wrap document as stored; null before any")


class SiteEnvelope(ApiModel):
    site: dict[str, Any] | None = Field(description="the published site document as stored; null before any")


class PostEnvelope(ApiModel):
    post: Post


class PostPage(ApiModel):
    posts: list[Post]
    next_cursor: str | None


class ItemEnvelope(ApiModel):
    item: AgentItem


class ItemList(ApiModel):
    items: list[AgentItem]


# --- published documents, as the OpenAPI documents describe PUT …/wrap and …/site (the service checks them)


class WrapDocument(ApiModel):
    """Any JSON object of at most 64 KiB; the read plane reads ``layout``, ``greeting`` and ``theme`` from it
    (decisions.md, "Read plane") and passes every other field through."""

    model_config = ApiModel.model_config | {"extra": "allow"}


class SiteDocument(ApiModel):
    """A JSON object of at most 64 KiB with a ``pages`` array; ``nav``, ``sections`` and any other field pass
    through to ``GET /v1/agent/{agentId}/site``."""

    model_config = ApiModel.model_config | {"extra": "allow"}

    pages: list[Any]
