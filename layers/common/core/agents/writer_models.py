"""The agents' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from core.platform.models import ApiModel, RequestModel
from core.platform.write_fields import (
    Name,
    ResourceId,
    Slug,
)


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


class AgentEnvelope(ApiModel):
    agent: Agent


class AgentList(ApiModel):
    agents: list[Agent]


class WrapEnvelope(ApiModel):
    wrap: dict[str, Any] | None = Field(description="the published wrap document as stored; null before any")


class SiteEnvelope(ApiModel):
    site: dict[str, Any] | None = Field(description="the published site document as stored; null before any")


class WrapDocument(ApiModel):
    """Any JSON object of at most 64 KiB; the read plane reads ``layout``, ``greeting`` and ``theme`` from it
    (decisions.md, "Read plane") and passes every other field through."""

    model_config = ApiModel.model_config | {"extra": "allow"}


class SiteDocument(ApiModel):
    """A JSON object of at most 64 KiB with a ``pages`` array; ``nav``, ``sections`` and any other field pass
    through to ``GET /v1/agent/{agentId}/site``."""

    model_config = ApiModel.model_config | {"extra": "allow"}

    pages: list[Any]


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
