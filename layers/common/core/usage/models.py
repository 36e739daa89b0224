"""Usage as owners and admins read it (authoring.md, "Usage"): one entry a UTC day, the query."""

from __future__ import annotations

from pydantic import Field

from core.platform.fields import QueryInt
from core.platform.models import ApiModel
from core.platform.write_fields import ListQuery


class UsageDay(ApiModel):
    date: str = Field(description="the UTC day, YYYY-MM-DD")
    requests: int = Field(description="read-plane requests counted against the key's rate limit")
    chat_turns: int
    credits: int = Field(description="what the chat turns charged, as the ledger has it")
    rate_limited: int = Field(description="429s the key's rate limit answered")


class UsagePage(ApiModel):
    days: list[UsageDay]


class UsageQuery(ListQuery):
    days: QueryInt = Field(30, ge=1, le=90)
