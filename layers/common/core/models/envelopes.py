"""Response envelopes and stream events: the wire shapes around the resources of ``management`` and ``read_plane``.

Handlers that answer ``{"workspace": …}``, ``{"keys": […]}``, ``{"deleted": true}`` or ``{}``
build these, so the OpenAPI documents (``local/openapi``) describe exactly the bytes sent.
The chat events are the lines ``core.services.chat_stream`` writes (decisions.md, "Chat").
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from core.models.base import ApiModel
from core.models.management import ApiKey, MintedApiKey, Workspace


class Empty(ApiModel):
    """``{}``: key revocation and sign-out."""


class Deleted(ApiModel):
    deleted: Literal[True] = True


class Sent(ApiModel):
    """The magic-link answer, the same whether or not the address has an account."""

    sent: Literal[True] = True


class WorkspaceEnvelope(ApiModel):
    workspace: Workspace


class KeyList(ApiModel):
    keys: list[ApiKey]


class MintedKeyEnvelope(ApiModel):
    key: MintedApiKey


class FeedQuery(ApiModel):
    """``GET /v1/agent/{agentId}/feed`` filters; the read-plane service checks the same 1-100 characters."""

    model_config = ApiModel.model_config | {"extra": "ignore", "validate_by_name": False}

    channel: str | None = Field(None, min_length=1, max_length=100, description="posts whose channels contain it")
    category: str | None = Field(None, min_length=1, max_length=100, description="posts of exactly this category")


# --- chat: one JSON object per line of application/x-ndjson


class ChatStartEvent(ApiModel):
    type: Literal["start"]
    thread_key: str
    turn_id: str


class ChatDeltaEvent(ApiModel):
    type: Literal["delta"]
    text: str


class ChatKeepaliveEvent(ApiModel):
    """Sent while the model is silent (every 10 s); carries no text."""

    type: Literal["keepalive"]


class ChatUsage(ApiModel):
    input_tokens: int
    output_tokens: int
    credits: int = Field(description="charged for this turn: 0 when no reply text was streamed")


class ChatDoneEvent(ApiModel):
    type: Literal["done"]
    usage: ChatUsage


class ChatErrorEvent(ApiModel):
    """The last line of a turn that failed after ``start`` (its status was already 200)."""

    type: Literal["error"]
    message: str
    code: str


ChatEvent = ChatStartEvent | ChatDeltaEvent | ChatKeepaliveEvent | ChatDoneEvent | ChatErrorEvent
