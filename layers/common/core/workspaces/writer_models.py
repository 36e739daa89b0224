"""The workspaces' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes. Members and invitations ("Members and
invitations") are here too."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from core.platform.fields import EMAIL_DOCUMENTED, EMAIL_PATTERN, QueryInt, text_rules, whole_number_rules
from core.platform.kinds import InvitedRole
from core.platform.models import ApiModel, RequestModel
from core.platform.pages import PAGE
from core.platform.write_fields import (
    JsonObject,
    ListQuery,
    Name,
    ResourceId,
)
from core.workspaces.models import Member, WorkspaceSummary

LOW_CREDITS_MAX = 1_000_000_000


class WorkspaceUpdate(RequestModel):
    clearable: ClassVar[frozenset[str]] = frozenset({"conversation_retention_days", "low_credits_threshold"})

    name: Name | None = None
    listed: bool | None = None
    store_conversations: bool | None = None
    # 1 to 3650 days; ``null`` clears it (turns are then kept).
    conversation_retention_days: Annotated[int, *whole_number_rules(1, 3650)] | None = None
    # Credits; ``null`` clears it (never low). A billion is far above any balance, and exact in every JSON reader.
    low_credits_threshold: Annotated[int, *whole_number_rules(0, LOW_CREDITS_MAX)] | None = None
    wrap_config: JsonObject | None = None
    default_brand_id: ResourceId | None = None
    default_workflow_id: ResourceId | None = None


# --- members and invitations

# An address as sign-in takes it (checked by the service with sign-in's own rule, then lower-cased).
# The address rule of sign-in mail, in the document too: a client (and the fuzzer) knows what an address is.
EmailAddress = Annotated[str, *text_rules(3, 254, pattern=EMAIL_PATTERN, documented=EMAIL_DOCUMENTED)]
# A link's token: ``secrets.token_urlsafe(32)`` is 43 characters; anything of another shape finds nothing (404).
InvitationToken = Annotated[str, Field(min_length=1, max_length=128)]


class InvitationCreate(RequestModel):
    email: EmailAddress
    role: InvitedRole


class InvitationAccept(RequestModel):
    token: InvitationToken


class MemberUpdate(RequestModel):
    role: InvitedRole  # ownership moves only by transfer


class WorkspaceTransfer(RequestModel):
    user_id: ResourceId  # an admin of the workspace


class Invitation(ApiModel):
    id: str
    email: str
    role: InvitedRole
    invited_by: str
    created_at: str
    expires_at: str


class InvitationEnvelope(ApiModel):
    invitation: Invitation


class InvitationQuery(ListQuery):
    limit: QueryInt = Field(PAGE, ge=1, le=PAGE)
    cursor: str | None = Field(None, min_length=1, max_length=1024)


class InvitationList(ApiModel):
    invitations: list[Invitation]
    next_cursor: str | None = Field(description="The next page's cursor; null on the last page")


class MemberEnvelope(ApiModel):
    member: Member


class JoinedWorkspace(ApiModel):
    """``POST /api/invitations/accept``'s answer: the workspace joined, as ``GET /api/workspaces`` lists it."""

    workspace: WorkspaceSummary
