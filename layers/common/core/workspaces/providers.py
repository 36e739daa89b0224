"""The workspaces' providers: workspaces and members, the writer's access check, the workspace's settings, the
members' writes and invitations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import PlanLimits, get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.workspaces.access import AuthoringAccess
    from core.workspaces.invitations import InvitationService
    from core.workspaces.members import MemberService
    from core.workspaces.membership import MembershipCheck
    from core.workspaces.store import WorkspaceStore
    from core.workspaces.workspace import WorkspaceService
    from core.workspaces.writer import WorkspaceSettingsService


def plan_of(plan: str) -> PlanLimits:
    plans = get_settings().plans
    return plans.get(plan, plans["free"])


@per_container
def service() -> WorkspaceService:
    from core.identity import providers as identity
    from core.workspaces.workspace import WorkspaceService

    return WorkspaceService(store(), identity.users(), plan_of=plan_of, bucket=get_settings().content_bucket)


@per_container
def membership() -> MembershipCheck:
    """A caller's membership, the workspace and its owner's plan: the writers' access check, without the service's
    wire models (core.workspaces.membership)."""
    from core.identity import providers as identity
    from core.workspaces.membership import MembershipCheck

    return MembershipCheck(store(), identity.users())


@per_container
def store() -> WorkspaceStore:
    """Workspaces and memberships in the main table; creating and deleting a workspace write through it too
    (``brands.providers.workspace_creation``, ``purge.providers.deletion``: they give the default brand's builder
    and the keys to revoke, which workspaces cannot import)."""
    from core.workspaces.store import WorkspaceStore

    return WorkspaceStore(aws.dynamodb(), get_settings().main_table)


@per_container
def access() -> AuthoringAccess:
    """Who may read and write a workspace's content (every writer's first check)."""
    from core.workspaces.access import AuthoringAccess

    return AuthoringAccess(membership(), plan_of)


@per_container
def writer() -> WorkspaceSettingsService:
    from core.audit import providers as audit
    from core.platform import jobs
    from core.workspaces.write_store import WorkspaceSettingsStore
    from core.workspaces.writer import WorkspaceSettingsService

    store = WorkspaceSettingsStore(aws.dynamodb(), get_settings().main_table)
    return WorkspaceSettingsService(access(), service(), store, audit.writes(), retention_changed=jobs.restamp)


@per_container
def members() -> MemberService:
    """Roles, removals and leaving, the ownership's transfer."""
    from core.audit import providers as audit
    from core.workspaces.member_store import MemberStore
    from core.workspaces.members import MemberService

    store = MemberStore(aws.dynamodb(), get_settings().main_table)
    return MemberService(service(), store, audit.writes(), plan_of)


@per_container
def invitations() -> InvitationService:
    """Invitations: made, listed, revoked, accepted; their mail goes as sign-in's does (outbox locally, SES)."""
    from core.audit import providers as audit
    from core.identity import providers as identity
    from core.platform.rate_limit import SlidingWindowLimiter
    from core.platform.rate_limit_store import RateLimitStore
    from core.workspaces.invitation_store import InvitationStore
    from core.workspaces.invitations import InvitationLimits, InvitationMailThrottle, InvitationService

    settings = get_settings()
    store = InvitationStore(aws.dynamodb(), settings.main_table)
    limits = InvitationLimits(
        per_workspace=settings.invitations_per_workspace, per_address=settings.invitations_per_address,
        to_address=settings.invitations_to_address, window_seconds=settings.invitation_limit_minutes * 60,
    )  # fmt: skip
    throttle = InvitationMailThrottle(SlidingWindowLimiter(RateLimitStore(aws.dynamodb(), settings.rate_limits_table)),
                                      limits)  # fmt: skip
    return InvitationService(access(), store, audit.writes(), identity.mailer, app_url=identity.app_url(),
                             throttle=throttle)  # fmt: skip
