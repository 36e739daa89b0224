"""The chat's wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, field_validator

from core.platform.fields import Prompt
from core.platform.models import ApiModel, RequestModel


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


class ChatSource(ApiModel):
    """What the reply drew on: an item (``itemId``, ``r2Key``), a post (``postId``), an owner's answer (``answerId``;
    ``name`` is its question) or a site section (none of them)."""

    item_id: str | None = None
    post_id: str | None = None
    answer_id: str | None = None
    name: str
    r2_key: str | None = None
    where: str = Field(description="where the passage stands in it: a page, sheet, slide or section; may be empty")


class ChatSourcesEvent(ApiModel):
    """The line before ``done``: the sources of the passages the model was given, most relevant first."""

    type: Literal["sources"]
    sources: list[ChatSource]


class ChatDoneEvent(ApiModel):
    type: Literal["done"]
    usage: ChatUsage


class ChatErrorEvent(ApiModel):
    """The last line of a turn that failed after ``start`` (its status was already 200)."""

    type: Literal["error"]
    message: str
    code: str


ChatEvent = ChatStartEvent | ChatDeltaEvent | ChatKeepaliveEvent | ChatSourcesEvent | ChatDoneEvent | ChatErrorEvent


_MAX_HISTORY_CHARS = 32_000


class HistoryEntry(RequestModel):
    # Fields of history entries beyond ``content`` are the client's own (spec: not shown): kept if known, else ignored.
    model_config = RequestModel.model_config | {"extra": "ignore", "str_strip_whitespace": False}

    content: str
    role: str | None = None  # used when it is "user" or "assistant"; any other value is the client's own


class ChatRequest(RequestModel):
    """The chat body: strict types, unknown fields refused and ``null`` = absent, like every request body."""

    # Only the prompt is trimmed: ``client`` and ``threadKey`` are identifiers, taken exactly as sent.
    model_config = RequestModel.model_config | {"str_strip_whitespace": False}

    prompt: Prompt
    client: str = Field(min_length=16, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")
    thread_key: str | None = Field(None, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")
    history: list[HistoryEntry] = Field(default_factory=list, max_length=50)
    section: str | None = Field(None, max_length=128)
    brand_slug: str | None = Field(None, max_length=128)

    @field_validator("prompt", mode="before")
    @classmethod
    def _trim_prompt(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("client", mode="before")
    @classmethod
    def _not_an_ip(cls, value: object) -> object:
        """Checked first, so an address is told why it is refused (never stored, never logged)."""
        if isinstance(value, str):
            try:
                ipaddress.ip_address(value)
            except ValueError:
                return value
            raise ValueError("must be a salted hash of the visitor, not an IP address")
        return value

    @field_validator("history")
    @classmethod
    def _history_budget(cls, value: list[HistoryEntry]) -> list[HistoryEntry]:
        if sum(len(entry.content) for entry in value) > _MAX_HISTORY_CHARS:
            raise ValueError(f"at most {_MAX_HISTORY_CHARS} characters in all")
        return value
