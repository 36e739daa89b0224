"""Chat request and stream events (decisions.md, "Chat")."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, field_validator, model_validator

from .base import ApiModel

_MAX_HISTORY_CHARS = 32_000


class HistoryEntry(ApiModel):
    model_config = ApiModel.model_config | {"extra": "ignore"}

    content: str
    role: Literal["user", "assistant"] | None = None


class ChatRequest(ApiModel):
    model_config = ApiModel.model_config | {"extra": "ignore", "str_strip_whitespace": False}

    prompt: str = Field(min_length=1, max_length=4000)
    client: str = Field(min_length=16, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")
    thread_key: str | None = Field(None, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")
    history: list[HistoryEntry] = Field(default_factory=list, max_length=50)
    section: str | None = Field(None, max_length=128)
    brand_slug: str | None = Field(None, max_length=128)

    @field_validator("prompt", mode="before")
    @classmethod
    def _trim_prompt(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("client")
    @classmethod
    def _not_an_ip(cls, value: str) -> str:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            return value
        raise ValueError("must be a salted hash, not an IP address")

    @model_validator(mode="after")
    def _history_budget(self) -> ChatRequest:
        if sum(len(entry.content) for entry in self.history) > _MAX_HISTORY_CHARS:
            raise ValueError(f"history: at most {_MAX_HISTORY_CHARS} characters in all")
        return self


class ChatStreamEvent(ApiModel):
    model_config = ApiModel.model_config | {"extra": "allow"}

    type: str | None = None
    text: str | None = None
    content: str | None = None
    message: str | None = None
