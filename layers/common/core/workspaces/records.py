"""The workspaces' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import Field

from core.platform.kinds import InvitedRole, Role, WorkspaceOrigin, WorkspaceType
from core.platform.records import Record

if TYPE_CHECKING:  # the read plane loads these records, and never identity's
    from core.identity.records import UserRecord


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
    conversation_retention_days: int | None = None  # stored turns older than this are removed (core.platform.retention)
    low_credits_threshold: int | None = None  # credits; None: never (credits.low, issue 42's webhooks, reads it)
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


class PurgeRecord(Record):
    """Tombstone of a deleted workspace (or of one deleted agent of it), until its background purge has finished.
    Written in the deletion's own transaction; ``core.purge`` reads it and removes it last."""

    workspace_id: str
    owner_id: str
    deleted_at: str


@dataclass(frozen=True)
class Access:
    """What a workspace route reads first: the caller's membership and the workspace, and when the route needs
    them the caller's user (the plan, when the caller owns the workspace) and the agent it is about."""

    member: MembershipRecord | None
    workspace: WorkspaceRecord | None
    user: UserRecord | None = None
    agent: dict[str, Any] | None = None  # as stored: the agents package reads it (``core.agents.writer``)


class InvitationRecord(Record):
    """A pending invitation (``WS#<ws>`` / ``INVITE#<email>``): renewed in place when the address is invited again,
    deleted when accepted or revoked. ``tokenHash`` names its one live token; every write conditions on it."""

    id: str
    workspace_id: str
    email: str  # lower-case, as sign-in stores addresses
    role: InvitedRole
    invited_by: str
    created_at: str
    expires_at: int  # epoch seconds; also the table's TTL attribute (readers still check it)
    token_hash: str
    # When SES took the mail of ``tokenHash``'s link (set after it, conditioned on that token): absent while that
    # link may never have reached the invitee, so a keyed retry's replay mails a new one (docs/decisions.md).
    mailed_at: str | None = None


class InvitationTokenRecord(Record):
    """An invitation's token (``INVITETOKEN#<sha256>``): what the link's token finds, outside the workspace's
    partition because the link names no workspace."""

    workspace_id: str
    email: str
    invitation_id: str
    role: InvitedRole  # a renewal that changes the role writes a new token, so the token can carry it
    expires_at: int  # epoch seconds; the TTL attribute
    # Who made it (as the invitation's ``invitedBy``): accepting reads their membership beside the workspace. Blank
    # on a token stored before tokens carried it: accepting then takes it from the invitation.
    invited_by: str = ""


@dataclass(frozen=True)
class MemberTarget:
    """The member a route names (None: not a member of this workspace) and their user (None: gone since)."""

    member: MembershipRecord | None
    user: UserRecord | None


@dataclass(frozen=True)
class Invitee:
    """What inviting an address reads beside the access check: its invitation (None: none; an expired one's item
    too, so that renewing it conditions on it) and the user the address belongs to (None: no account yet)."""

    invitation: InvitationRecord | None
    user_id: str | None


@dataclass(frozen=True)
class Joining:
    """What accepting a live token reads next: the workspace (None: deleted since) and the inviter's membership
    (None: no longer a member), whose role decides whether the invitation still stands."""

    workspace: WorkspaceRecord | None
    inviter_id: str  # blank: the invitation is gone (a token stored before tokens named their inviter)
    inviter: MembershipRecord | None


@dataclass(frozen=True)
class Redeeming:
    """A link's token (None: unknown or expired) and the signed-in user presenting it."""

    token: InvitationTokenRecord | None
    user: UserRecord | None
