"""Who may write (authoring.md, "Who may write"): owners and admins write, members read, anyone else gets 404.

Checked in the order decisions.md fixes for workspace routes: membership (404), role (403), then the agent the
route names (404, read in the same BatchGetItem: its key holds the workspace, so finding it is the tenant check).
The plan that limits a workspace's agents and storage is its owner's, as for keys.
"""

from __future__ import annotations

from collections.abc import Callable

from core.platform.errors import NotFound
from core.platform.kinds import Role
from core.platform.settings import PlanLimits
from core.workspaces.membership import MembershipCheck, WorkspaceAccess

MANAGERS: tuple[Role, ...] = ("owner", "admin")


class AuthoringAccess:
    def __init__(self, workspaces: MembershipCheck, plan_of: Callable[[str], PlanLimits]):
        self._workspaces = workspaces
        self._plan_of = plan_of

    def writer(
        self, user_id: str, workspace_id: str, *, with_user: bool = False, agent_id: str | None = None
    ) -> WorkspaceAccess:
        """An owner's or admin's access; in the same read, ``with_user`` the caller's user (the plan, when the
        caller is the owner) and ``agent_id`` that agent, if it is this workspace's (``agent`` None if not)."""
        return self._workspaces.access(workspace_id, user_id, roles=MANAGERS, with_user=with_user, agent_id=agent_id)

    def owner(self, user_id: str, workspace_id: str) -> WorkspaceAccess:
        """The owner's access (404 for a stranger, 403 for an admin or a member): roles and the ownership."""
        return self._workspaces.access(workspace_id, user_id, roles=("owner",))

    def agent_writer(self, user_id: str, workspace_id: str, agent_id: str) -> WorkspaceAccess:
        """A writer's access to an agent of the workspace (404 for any other); ``agent`` holds it as stored."""
        access = self.writer(user_id, workspace_id, agent_id=agent_id)
        found(access.agent, "Agent")
        return access

    def member(self, user_id: str, workspace_id: str, agent_id: str | None = None) -> WorkspaceAccess:
        """Any member's access; with ``agent_id``, the agent must be the workspace's (404 otherwise)."""
        access = self._workspaces.access(workspace_id, user_id, agent_id=agent_id)
        if agent_id is not None:
            found(access.agent, "Agent")
        return access

    def plan(self, access: WorkspaceAccess) -> PlanLimits:
        """The workspace owner's plan: from the access read when the caller is the owner, else one more read."""
        return self.limits(self.plan_name(access))

    def limits(self, plan: str) -> PlanLimits:
        return self._plan_of(plan)

    def plan_name(self, access: WorkspaceAccess) -> str:
        """The name of the workspace owner's plan (``free``, ...), read as ``plan`` reads it."""
        return self._workspaces.owner_plan(access)


def found[T](record: T | None, what: str) -> T:
    """``record``, or 404 ``<what> not found`` (unknown, or another tenant's: the same answer)."""
    if record is None:
        raise NotFound(f"{what} not found")
    return record
