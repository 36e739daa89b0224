"""The workflows' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from core.platform.fields import QueryInt
from core.platform.models import ApiModel, RequestModel
from core.platform.pages import PAGE
from core.platform.write_fields import (
    JsonDocument,
    ListQuery,
    Name,
)


class Workflow(ApiModel):
    id: str
    name: str
    suggestions: Any = Field(description="any JSON value; what GET /v1/agent/{agentId}/suggestions serves")
    created_at: str
    updated_at: str


class WorkflowEnvelope(ApiModel):
    workflow: Workflow


class WorkflowQuery(ListQuery):
    limit: QueryInt = Field(PAGE, ge=1, le=PAGE)
    cursor: str | None = Field(None, min_length=1, max_length=512)


class WorkflowList(ApiModel):
    workflows: list[Workflow]
    next_cursor: str | None = Field(description="The next page's cursor; null on the last page")


class WorkflowCreate(RequestModel):
    name: Name
    suggestions: JsonDocument = None


class WorkflowUpdate(RequestModel):
    name: Name | None = None
    suggestions: JsonDocument = None
