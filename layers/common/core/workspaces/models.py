"""The workspaces' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from core.platform.fields import (
    QueryInt,
    name_rules,
)
from core.platform.kinds import Role, WorkspaceOrigin, WorkspaceType
from core.platform.models import ApiModel, RequestModel
from core.platform.pages import PAGE
from core.platform.write_fields import ListQuery


class StorageConfig(ApiModel):
    type: str
    bucket: str
    prefix: str


class WorkspacePlan(ApiModel):
    """The owner's plan, whose limits bind the workspace: what a client checks before it uploads."""

    name: str
    max_object_bytes: int = Field(description="the largest object an upload may store, in bytes")
    max_storage_bytes: int = Field(description="what the workspace's objects may hold in all, in bytes")


class Workspace(ApiModel):
    id: str
    name: str
    slug: str
    type: WorkspaceType
    origin: WorkspaceOrigin
    owner_id: str
    created_at: str
    storage_config: StorageConfig
    wrap_config: dict[str, Any] = Field(default_factory=dict)
    default_workflow_id: str | None  # null until the owner picks one (decisions.md: null, never "")
    default_brand_id: str
    listed: bool
    store_conversations: bool
    conversation_retention_days: int | None = Field(
        None, description="stored chat turns are removed this many days after their day (null: kept)"
    )
    low_credits_threshold: int | None = Field(
        None, description="credits: the balance under which the workspace counts as low on credits (null: never)"
    )
    plan: WorkspacePlan
    updated_at: str


class WorkspaceSummary(ApiModel):
    id: str
    name: str
    slug: str
    type: WorkspaceType
    origin: WorkspaceOrigin
    role: Role
    owner_id: str
    member_count: int
    created_at: str
    logo_key: str


class Member(ApiModel):
    id: str
    user_id: str
    workspace_id: str
    role: Role
    email: str
    name: str
    image: str
    created_at: str


class MemberQuery(ListQuery):
    """A page of the members' listing; its next page's cursor is the ``Next-Cursor`` header (the body is the bare
    array service-api.md fixes)."""

    limit: QueryInt = Field(PAGE, ge=1, le=PAGE)
    cursor: str | None = Field(None, min_length=1, max_length=512)


class CreateWorkspaceRequest(RequestModel):
    name: Annotated[str, *name_rules(80)]  # also the default brand's name


class WorkspaceEnvelope(ApiModel):
    workspace: Workspace
