"""A workspace's members (authoring.md, "Members and invitations"): a role changed (by the owner), a member removed
(by the owner, or by an admin if the member is neither an admin nor the owner) or leaving, and the ownership
transferred to an admin. The owner never leaves nor is removed: ownership moves first, so no workspace is ever
without an owner.

Every write reads the caller's access and the named member together (one round trip), conditions its transaction
on the roles it read (``MemberStore``), and reads both again when another write came first (``until_unchanged``).
"""

from __future__ import annotations

from collections.abc import Callable

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.identity.records import UserRecord
from core.platform import together
from core.platform.envelopes import Empty
from core.platform.errors import Conflict, Forbidden, NotFound, PlanLimitReached
from core.platform.ids import now_iso
from core.platform.kinds import Role
from core.platform.settings import PlanLimits, plan_limit_message
from core.workspaces.membership import WorkspaceAccess
from core.workspaces.models import Member, WorkspaceEnvelope
from core.workspaces.ports import Memberships
from core.workspaces.records import MembershipRecord, MemberTarget
from core.workspaces.workspace import WorkspaceService
from core.workspaces.writer_models import MemberEnvelope, MemberUpdate, WorkspaceTransfer

MANAGERS: tuple[Role, ...] = ("owner", "admin")
OWNER: tuple[Role, ...] = ("owner",)
NO_MEMBER = "Member not found"
OWNER_STAYS = "The owner cannot leave or be removed: transfer the workspace to an admin first"

Reads = Callable[[], tuple[WorkspaceAccess, MemberTarget]]


def member_view(member: MembershipRecord, user: UserRecord | None) -> Member:
    """The wire member: the membership with its user's address, name and image (blank for a user gone since)."""
    return Member.from_record(member, email=user.email if user else "", name=user.name if user else "",
                              image=user.image if user else "")  # fmt: skip


class MemberService:
    def __init__(
        self, workspaces: WorkspaceService, store: Memberships, writes: Writes, plan_of: Callable[[str], PlanLimits]
    ):
        self._workspaces = workspaces
        self._store = store
        self._writes = writes
        self._plan_of = plan_of

    def _reads(self, user_id: str, workspace_id: str, target_id: str, roles: tuple[Role, ...]) -> Reads:
        """The caller's access (404, 403 outside ``roles``) and the named member, read together now (so a refusal
        comes before the Idempotency-Key is claimed) and again on each later call (an attempt after a lost race)."""

        def both() -> tuple[WorkspaceAccess, MemberTarget]:
            access, target = together.checked_then_read(
                lambda: self._workspaces.access(workspace_id, user_id, roles=roles),
                lambda: self._store.target(workspace_id, target_id),
            )
            return access, target()

        first = [both()]
        return lambda: first.pop() if first else both()

    def set_role(self, author: Author, workspace_id: str, user_id: str, request: MemberUpdate) -> MemberEnvelope:
        """The owner makes a member an admin or an admin a member; the owner's own role moves only by transfer."""
        reads = self._reads(author.user_id, workspace_id, user_id, OWNER)

        def work(write: Write) -> MemberEnvelope:
            def attempt() -> MemberEnvelope:
                access, target = reads()
                member = found(target.member)
                if member.role == "owner":
                    raise Conflict("The owner's role changes only by transferring the workspace to an admin")
                changed = member.model_copy(update={"role": request.role})
                answer = MemberEnvelope(member=member_view(changed, target.user))
                if member.role == request.role:
                    return write.unchanged(f"user:{user_id}", answer, answer)
                self._store.set_role(member, request.role, caller=access.member,
                                     also=write.also(f"user:{user_id}", answer))  # fmt: skip
                return answer

            return until_unchanged(attempt)

        return self._writes.run(author, workspace_id, "member.role", on=user_id, request=request,
                                answer=MemberEnvelope, work=work)  # fmt: skip

    def remove(self, author: Author, workspace_id: str, user_id: str) -> Empty:
        """Remove a member, or leave when it is the caller (any member may leave; the owner never)."""
        leaving = user_id == author.user_id
        reads = self._reads(author.user_id, workspace_id, user_id, () if leaving else MANAGERS)

        def work(write: Write) -> Empty:
            def attempt() -> Empty:
                access, target = reads()
                member = found(target.member)
                if member.role == "owner":
                    raise Conflict(OWNER_STAYS)
                if not leaving and access.member.role == "admin" and member.role != "member":
                    raise Forbidden("An admin removes members, never an admin or the owner")
                self._store.remove(member, caller=access.member, also=write.also(f"user:{user_id}", Empty()))
                return Empty()

            return until_unchanged(attempt)

        action = "member.leave" if leaving else "member.remove"
        return self._writes.run(author, workspace_id, action, on=user_id, request=None, answer=Empty, work=work)

    def transfer(self, author: Author, workspace_id: str, request: WorkspaceTransfer) -> WorkspaceEnvelope:
        """The owner hands the workspace to an admin, whose plan must allow one more workspace (402); the old owner
        stays, as an admin. The workspace counts against the new owner's plan from then on."""
        new_owner = request.user_id
        reads = self._reads(author.user_id, workspace_id, new_owner, OWNER)

        def work(write: Write) -> WorkspaceEnvelope:
            def attempt() -> WorkspaceEnvelope:
                access, target = reads()
                member = found(target.member)
                if member.role != "admin" or target.user is None:
                    raise Conflict("Ownership moves to an admin of the workspace: make them an admin first")
                plan, at = target.user.plan, now_iso()
                moved = access.workspace.model_copy(update={"owner_id": new_owner, "updated_at": at})
                answer = WorkspaceEnvelope(workspace=self._workspaces.to_workspace(moved, plan))
                refusal = PlanLimitReached(plan_limit_message(plan, "workspaces", "workspaces the new owner may own"))
                self._store.transfer(access.workspace, new_owner, self._plan_of(plan).workspaces, at=at,
                                     also=write.also(f"user:{new_owner}", answer), plan_refusal=refusal)  # fmt: skip
                return answer

            return until_unchanged(attempt)

        return self._writes.run(author, workspace_id, "workspace.transfer", on=workspace_id, request=request,
                                answer=WorkspaceEnvelope, work=work)  # fmt: skip


def found(member: MembershipRecord | None) -> MembershipRecord:
    """The named member, or 404 (not a member of this workspace, or no such user: the same answer)."""
    if member is None:
        raise NotFound(NO_MEMBER)
    return member
