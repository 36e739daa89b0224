"""The workspaces' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

# Only for the type checker: importing the records here would load them into every function that imports a
# service (tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.identity.records import UserRecord
    from core.platform.errors import DomainError
    from core.platform.kinds import Role
    from core.platform.transactions import Also
    from core.workspaces.records import (
        Access,
        InvitationRecord,
        InvitationTokenRecord,
        Invitee,
        Joining,
        MembershipRecord,
        MemberTarget,
        PurgeRecord,
        Redeeming,
        WorkspaceRecord,
    )


class DefaultBrand(Protocol):
    """The brand a workspace is created with, as its creating transaction writes it (a ``BrandRecord``)."""

    @property
    def id(self) -> str: ...
    @property
    def slug(self) -> str: ...
    def attributes(self) -> dict[str, Any]: ...


class NewDefaultBrand(Protocol):
    """Builds that brand (``core.brands.records.default_brand``): given, so that workspaces never import brands."""

    def __call__(self, workspace_id: str, slug: str, name: str, at: str, fields: Mapping[str, Any]) -> DefaultBrand: ...


class CreatesWorkspaces(Protocol):
    """The one write creating a workspace needs (``core.workspaces.create``, used by seeds and the demo)."""

    def create(self, ws: WorkspaceRecord, owner: MembershipRecord, brand: DefaultBrand, plan_limit: int) -> None: ...


class Workspaces(CreatesWorkspaces, Protocol):
    """Workspaces, memberships and purge tombstones in the main table (``WorkspaceStore``)."""

    def get_many(self, workspace_ids: list[str]) -> list[WorkspaceRecord]: ...
    def access(
        self, workspace_id: str, user_id: str, *, with_user: bool = False, agent_id: str | None = None
    ) -> Access: ...
    def get_membership(self, workspace_id: str, user_id: str) -> MembershipRecord | None: ...
    def memberships_of(self, user_id: str) -> list[MembershipRecord]: ...
    def members(self, workspace_id: str) -> list[MembershipRecord]: ...
    def member_page(self, workspace_id: str, limit: int, start: str | None) -> list[MembershipRecord]: ...
    def users(self, user_ids: list[str]) -> dict[str, UserRecord]: ...
    def delete(self, ws: WorkspaceRecord, deleted_at: str) -> bool: ...
    def remove_memberships(self, workspace_id: str) -> None: ...
    def tombstone(self, workspace_id: str) -> PurgeRecord | None: ...
    def remove_tombstone(self, workspace_id: str) -> None: ...


class WorkspaceKeys(Protocol):
    """What deleting a workspace does to its keys (``ApiKeyStore``): they stop at once."""

    def revoke_all(self, workspace_id: str, at: str) -> None: ...


class WorkspaceRecords(Protocol):
    """Every main-table record of a deleted workspace or agent, for the purge (``PurgeStore``)."""

    def delete_workspace_records(self, workspace_id: str, keep_going: Callable[[], bool]) -> int: ...
    def delete_agent_records(self, agent_id: str, keep_going: Callable[[], bool]) -> int: ...
    def agent_tombstone(self, workspace_id: str, agent_id: str) -> PurgeRecord | None: ...
    def remove_agent_tombstone(self, workspace_id: str, agent_id: str) -> None: ...


class StoredSettings(Protocol):
    def update(
        self, workspace_id: str, seen: int, fields: Mapping[str, Any], *, default_brand_was: str | None = None,
        workflow_id: str | None = None, also: Also,
    ) -> None: ...  # fmt: skip


class Invitations(Protocol):
    """Invitations and their tokens in the main table (``InvitationStore``)."""

    def invitee(self, workspace_id: str, email: str) -> Invitee: ...
    def is_member(self, workspace_id: str, user_id: str) -> bool: ...
    def all(self, workspace_id: str) -> list[InvitationRecord]: ...
    def page(self, workspace_id: str, limit: int, start: str | None) -> list[InvitationRecord]: ...
    def roles(self, workspace_id: str, user_ids: set[str]) -> dict[str, Role]: ...
    def redeeming(self, token_hash: str, user_id: str) -> Redeeming: ...
    def joining(self, token_hash: str, token: InvitationTokenRecord) -> Joining: ...
    def save(
        self, invitation: InvitationRecord, *, replacing: InvitationRecord | None, user_id: str | None, also: Also
    ) -> None: ...
    def revoke(self, invitation: InvitationRecord, *, also: Also) -> None: ...
    def mailed(self, invitation: InvitationRecord, at: str) -> bool: ...
    def renew_token(self, invitation: InvitationRecord, token_hash: str) -> None: ...
    def accept(
        self, token_hash: str, token: InvitationTokenRecord, member: MembershipRecord, seen_count: int, *,
        inviter_id: str, inviter_roles: tuple[Role, ...], also: Also,
    ) -> None: ...  # fmt: skip
    def void(
        self, token_hash: str, token: InvitationTokenRecord, *, inviter_id: str, inviter_roles: tuple[Role, ...],
        also: Also,
    ) -> None: ...  # fmt: skip


class Memberships(Protocol):
    """Memberships' writes (``MemberStore``): roles, removals, the ownership."""

    def target(self, workspace_id: str, user_id: str) -> MemberTarget: ...
    def set_role(self, member: MembershipRecord, role: Role, *, caller: MembershipRecord, also: Also) -> None: ...
    def remove(self, member: MembershipRecord, *, caller: MembershipRecord, also: Also) -> None: ...
    def transfer(
        self, workspace: WorkspaceRecord, new_owner_id: str, limit: int, *, at: str, also: Also,
        plan_refusal: DomainError,
    ) -> None: ...  # fmt: skip
