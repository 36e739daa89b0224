"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from core.models.kinds import ItemKind, ItemOrigin, PostKind, Role, WorkspaceOrigin, WorkspaceType
from core.models.read_plane import FeedPage


class Record(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True)

    def attributes(self) -> dict[str, Any]:
        """Top-level ``None`` fields are omitted (so ``attribute_not_exists`` means unset); nested nulls are kept."""
        return {k: v for k, v in self.model_dump(mode="json", by_alias=True).items() if v is not None}


class UserRecord(Record):
    id: str
    email: str
    name: str = ""
    image: str = ""
    plan: str = "free"
    role: str = "user"
    active_workspace_id: str | None = None
    owned_workspaces: int = 0  # counted in the creation transaction, so the plan limit holds under races
    created_at: str


class WorkspaceRecord(Record):
    id: str
    name: str
    slug: str
    type: WorkspaceType = "team"
    origin: WorkspaceOrigin = "portal"
    owner_id: str
    default_brand_id: str
    default_workflow_id: str = ""
    logo_key: str = ""
    listed: bool = False
    store_conversations: bool = False
    member_count: int = 1
    agent_count: int = 0  # counted in each agent's create and delete transaction, so the plan limit holds
    wrap_config: dict[str, Any] = Field(default_factory=dict)
    version: int = 0  # moved by every settings write: a write conditions on the version it read
    created_at: str
    updated_at: str


class MembershipRecord(Record):
    id: str
    workspace_id: str
    user_id: str
    role: Role
    created_at: str


class BrandRecord(Record):
    id: str
    workspace_id: str
    slug: str
    name: str
    is_default: bool = False
    palette: list[str] = Field(default_factory=list)
    font_family: str = ""
    agent_count: int = 0  # agents naming it: a brand in use is not deleted
    version: int = 0
    created_at: str
    updated_at: str


class WorkflowRecord(Record):
    id: str
    workspace_id: str
    name: str
    # The workflow's starter suggestions as published JSON; its shape is the workflow's own.
    suggestions_json: str | None = None
    agent_count: int = 0  # agents whose active workflow it is: such a workflow is not deleted
    version: int = 0
    created_at: str
    updated_at: str


class AgentRecord(Record):
    id: str
    workspace_id: str
    slug: str
    name: str
    brand_id: str
    active_workflow_id: str
    # Published documents as JSON text, exactly as the editor stored them. They are
    # parsed defensively on read: a bad document must never fail the read plane.
    wrap_json: str | None = None
    site_json: str | None = None
    post_count: int = 0  # drafts included; moved by each post's create and delete transaction
    item_count: int = 0  # inactive included
    version: int = 0
    created_at: str
    updated_at: str


class PostRecord(Record):
    id: str
    agent_id: str
    key: str
    kind: PostKind
    title: str | None = None
    sub: str | None = None
    caption: str | None = None
    hashtags: list[str] = Field(default_factory=list)
    channels: list[str] = Field(default_factory=list)
    category: str | None = None
    width: int | None = None
    height: int | None = None
    pages: list[FeedPage] = Field(default_factory=list)
    poster: str = ""
    playable: str = ""
    published: bool = True
    version: int = 0  # the canonical item's: every move of the post conditions on it
    created_at: str
    updated_at: str | None = None  # None: written before posts had an editor (it shows as createdAt)


class ItemRecord(Record):
    id: str
    agent_id: str
    name: str
    kind: ItemKind
    r2_key: str
    mime_type: str
    size: int
    folder: str = ""
    order: int = 0
    origin: ItemOrigin = "upload"
    active: bool = True
    version: int = 0
    updated_at: str


class ApiKeyRecord(Record):
    id: str
    key_hash: str
    workspace_id: str
    name: str
    prefix: str
    rate_limit: int | None = None
    # Serialized origins a browser may use the key from; None (absent): any (core/origins.py).
    allowed_origins: list[str] | None = None
    created_at: str
    last_used_at: str | None = None
    revoked_at: str | None = None


class SessionRecord(Record):
    id: str
    user_id: str
    created_at: str
    expires_at: int  # epoch seconds; also the table's TTL attribute


class PurgeRecord(Record):
    """Tombstone of a deleted workspace, until its background purge has finished."""

    workspace_id: str
    owner_id: str
    deleted_at: str


class AuditRecord(Record):
    """One write to a workspace, as the audit log keeps it: who, what, on which target, in which request."""

    id: str
    workspace_id: str
    action: str
    actor_id: str
    target: str
    request_id: str
    created_at: str


class UploadRecord(Record):
    """A signed upload not yet known to have landed: its size counts against the workspace's storage meanwhile."""

    signing: str = ""  # upl_<ulid>: the record's own key (records written before it was kept were keyed by path)
    path: str  # workspace-relative
    size: int
    signed_at: str
    expires_at: int  # epoch seconds: the URL's expiry, and the table's TTL
