"""The agents' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import Field

from core.platform.fields import QueryInt
from core.platform.models import ApiModel, RequestModel
from core.platform.pages import PAGE
from core.platform.write_fields import (
    ListQuery,
    Name,
    ResourceId,
    Slug,
    free_text_rules,
)

# authoring.md, "How an agent answers": the bounds of each behaviour field (their defaults: core.agents.records).
MAX_INSTRUCTIONS, MAX_FALLBACK = 8000, 500
MIN_REPLY_TOKENS, MAX_REPLY_TOKENS = 64, 4096
# A model's id as the catalogue spells it (core.platform.model_catalogue.ModelSpec.id); whether the deployment lists
# it, and whether the plan offers it, the writer checks (400 and 402).
ModelId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9._-]*$")]
Instructions = Annotated[str, *free_text_rules(MAX_INSTRUCTIONS)]
Fallback = Annotated[str, *free_text_rules(MAX_FALLBACK)]
Temperature = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
ReplyTokens = Annotated[int, Field(ge=MIN_REPLY_TOKENS, le=MAX_REPLY_TOKENS)]


class Behaviour(ApiModel):
    """How the agent answers (management plane only: the read plane never shows any of it)."""

    instructions: str = Field(description="the owner's words: persona, tone, scope; at most 8,000 characters")
    model: str | None = Field(description="an id from GET /api/models; null: the deployment's default model")
    temperature: float = Field(description="0 to 1")
    max_reply_tokens: int = Field(description="64 to 4,096: the reply stops there (done.usage.outputTokens)")
    knowledge_only: bool = Field(
        description="true: answers only from the agent's material; false: may add general knowledge, and says so"
    )
    fallback: str = Field(description="what the agent says when its material has no answer; at most 500 characters")


class Agent(ApiModel):
    id: str
    slug: str
    name: str
    brand_id: str
    active_workflow_id: str
    post_count: int = Field(description="every post of the agent, drafts included")
    item_count: int = Field(description="every item of the agent, inactive ones included")
    behaviour: Behaviour
    created_at: str
    updated_at: str


class AgentEnvelope(ApiModel):
    agent: Agent


class AgentQuery(ListQuery):
    limit: QueryInt = Field(PAGE, ge=1, le=PAGE)
    cursor: str | None = Field(None, min_length=1, max_length=512)


class AgentList(ApiModel):
    agents: list[Agent]
    next_cursor: str | None = Field(description="The next page's cursor; null on the last page")


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


class BehaviourPatch(RequestModel):
    """Any of the behaviour's fields. Each one sent as ``null`` goes back to its default (so every field is
    ``clearable``: its ``null`` stays among the fields sent); one omitted keeps its value (PATCH) or takes its
    default (POST)."""

    clearable: ClassVar[frozenset[str]] = frozenset(
        {"instructions", "model", "temperature", "max_reply_tokens", "knowledge_only", "fallback"}
    )

    instructions: Instructions | None = Field(None, description='at most 8,000 characters; default ""')
    model: ModelId | None = Field(None, description="an id from GET /api/models; null: the deployment's default")
    temperature: Temperature | None = Field(None, description="0 to 1; default 0.3")
    max_reply_tokens: ReplyTokens | None = Field(None, description="64 to 4,096; default 512")
    knowledge_only: bool | None = Field(None, description="default true")
    fallback: Fallback | None = Field(None, description='at most 500 characters; default ""')


class AgentCreate(RequestModel):
    name: Name
    slug: Slug | None = None
    brand_id: ResourceId | None = None
    active_workflow_id: ResourceId | None = None
    behaviour: BehaviourPatch | None = Field(None, description="any of its fields; the others take their defaults")


class AgentUpdate(RequestModel):
    name: Name | None = None
    slug: Slug | None = None
    brand_id: ResourceId | None = None
    active_workflow_id: ResourceId | None = None
    behaviour: BehaviourPatch | None = Field(None, description="any of its fields; a field sent as null: its default")
