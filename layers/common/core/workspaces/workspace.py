"""Workspaces, members and the caller's account (management plane)."""

from __future__ import annotations

from collections.abc import Callable

from core.identity.models import Account
from core.identity.ports import Users
from core.platform import pages
from core.platform.errors import NotFound
from core.platform.ids import now_iso
from core.platform.settings import PlanLimits
from core.workspaces.membership import MembershipCheck
from core.workspaces.models import Member, MemberQuery, StorageConfig, Workspace, WorkspacePlan, WorkspaceSummary
from core.workspaces.ports import WorkspaceKeys, Workspaces
from core.workspaces.records import MembershipRecord, WorkspaceRecord

MEMBERS = "MEMBER#"  # the memberships' range (sort key prefix) in the workspace's partition


class WorkspaceService(MembershipCheck):
    def __init__(
        self,
        workspaces: Workspaces,
        users: Users,
        *,
        plan_of: Callable[[str], PlanLimits],
        bucket: str,
    ):
        super().__init__(workspaces, users)  # access, the caller's user, the owner's plan (core.workspaces.membership)
        self._plan_of = plan_of
        self._bucket = bucket

    # --- workspaces

    def list_for(self, user_id: str) -> list[WorkspaceSummary]:
        memberships = {m.workspace_id: m for m in self._workspaces.memberships_of(user_id)}
        found = self._workspaces.get_many(list(memberships))  # deleted workspaces drop out here, at once
        ordered = sorted(found, key=lambda w: (w.created_at, w.id))
        return [WorkspaceSummary.from_record(ws, role=memberships[ws.id].role) for ws in ordered]

    def get(self, user_id: str, workspace_id: str) -> Workspace:
        # The caller's user is read in the access check's BatchGetItem: when the caller owns the workspace (the usual
        # case) that is the plan, at no extra round trip; another member's plan costs one more read (owner_plan).
        access = self.access(workspace_id, user_id, with_user=True)
        return self.to_workspace(access.workspace, self.owner_plan(access))

    def to_workspace(self, ws: WorkspaceRecord, plan: str) -> Workspace:
        """The wire workspace, with the limits of ``plan`` (its owner's plan's name)."""
        storage = StorageConfig(type="s3", bucket=self._bucket, prefix=f"workspaces/{ws.id}/")
        limits = self._plan_of(plan)
        owned = WorkspacePlan(name=plan, max_object_bytes=limits.object_bytes, max_storage_bytes=limits.storage_bytes)
        # A workspace has no default workflow until one is chosen (agents get their own): null, not "".
        return Workspace.from_record(
            ws, storage_config=storage, plan=owned, default_workflow_id=ws.default_workflow_id or None
        )

    # --- members, brands, account

    def members(self, user_id: str, workspace_id: str, query: MemberQuery) -> tuple[list[Member], str | None]:
        """One page of members in user id order (their sort key) and the next page's cursor (None on the last):
        the page and one member more read beside the member check, then the page's users (one BatchGetItem). A bad
        cursor is refused after the check (a stranger learns nothing)."""

        def page() -> list[MembershipRecord]:
            start = pages.after(query.cursor, MEMBERS)
            return self._workspaces.member_page(workspace_id, query.limit + 1, start)

        members, cursor = pages.cut(self.read_as_member(workspace_id, user_id, page), query.limit,
                                    lambda m: f"{MEMBERS}{m.user_id}")  # fmt: skip
        users = self._workspaces.users([m.user_id for m in members]) if members else {}

        def person(user_id: str) -> dict[str, str]:  # blank for a user gone since (deleted accounts)
            user = users.get(user_id)
            return {field: getattr(user, field) if user else "" for field in ("email", "name", "image")}

        return [Member.from_record(m, **person(m.user_id)) for m in members], cursor

    def account(self, user_id: str) -> Account:
        """The caller; a stale active workspace (deleted, or membership gone) is replaced, or null."""
        user = self.user(user_id)
        active = user.active_workspace_id
        if active and self._workspaces.get_membership(active, user_id) is None:
            remaining = sorted(self._workspaces.memberships_of(user_id), key=lambda m: m.created_at)
            live = {w.id for w in self._workspaces.get_many([m.workspace_id for m in remaining])}
            active = next((m.workspace_id for m in remaining if m.workspace_id in live), None)
            self._users.set_active_workspace(user_id, active)
        return Account(id=user.id, email=user.email, name=user.name, image=user.image, role=user.role,
                       workspace_id=active, created_at=user.created_at)  # fmt: skip


class WorkspaceDeletion:
    """Deleting a workspace (``DELETE /api/workspaces/{id}``): built by ``core.purge.providers.deletion``, which
    gives it the keys to revoke, so that workspaces never import keys (keys check access through workspaces)."""

    def __init__(
        self, service: WorkspaceService, workspaces: Workspaces, keys: WorkspaceKeys, *,
        enqueue_purge: Callable[[str], None],
    ):  # fmt: skip
        self._service = service
        self._workspaces = workspaces
        self._keys = keys
        self._enqueue_purge = enqueue_purge

    def delete(self, user_id: str, workspace_id: str) -> None:
        """Owner only. Gone at once for every API; content and records are purged in the background.

        Safe to retry after a partial failure: the tombstone remembers the owner, and
        every later step is idempotent.
        """
        tombstone = self._workspaces.tombstone(workspace_id)
        if tombstone is None or tombstone.owner_id != user_id:
            workspace = self._service.membership(workspace_id, user_id, roles=("owner",))
            if not self._workspaces.delete(workspace, now_iso()):
                raise NotFound("Workspace not found")
        self._keys.revoke_all(workspace_id, now_iso())
        self._workspaces.remove_memberships(workspace_id)
        self._enqueue_purge(workspace_id)
