"""A caller's membership of a workspace: the check every workspace route makes first, apart from the service.

Split from ``workspace.py`` (issue 43, cold path): a writer's access check (``core.workspaces.access``) needs the
membership, the workspace and the owner's plan, never the wire models of a workspace, its members or the caller's
account; importing ``WorkspaceService`` for it loaded them (and identity's) into every writer's cold start.
``WorkspaceService`` is a ``MembershipCheck`` with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from core.platform import together
from core.platform.errors import Forbidden, NotFound

if TYPE_CHECKING:  # the records come with the store that reads them; the ports are protocols
    from core.identity.ports import Users
    from core.identity.records import UserRecord
    from core.platform.kinds import Role
    from core.workspaces.ports import Workspaces
    from core.workspaces.records import MembershipRecord, WorkspaceRecord


@dataclass(frozen=True)
class WorkspaceAccess:
    """A caller's checked access: a member of an existing workspace, in a role the route allows."""

    member: MembershipRecord
    workspace: WorkspaceRecord
    user: UserRecord | None  # the caller's user, when asked for
    # The route's agent as stored, when asked for (None: no such agent in this workspace). Finding it is the tenant
    # check; what it says is the agents package's to read (``core.agents.writer.stored_agent``).
    agent: dict[str, Any] | None


class MembershipCheck:
    def __init__(self, workspaces: Workspaces, users: Users):
        self._workspaces = workspaces
        self._users = users

    def membership(self, workspace_id: str, user_id: str, *, roles: tuple[Role, ...] = ()) -> WorkspaceRecord:
        """The workspace if the user is a member (404 otherwise: existence is never leaked), in one of ``roles``."""
        return self.membership_and_caller(workspace_id, user_id, roles=roles, with_caller=False)[0]

    def membership_and_caller(
        self, workspace_id: str, user_id: str, *, roles: tuple[Role, ...] = (), with_caller: bool = True
    ) -> tuple[WorkspaceRecord, UserRecord | None]:
        """``membership`` and (``with_caller``) the caller's user record, all in one read."""
        access = self.access(workspace_id, user_id, roles=roles, with_user=with_caller)
        return access.workspace, access.user

    def access(
        self,
        workspace_id: str,
        user_id: str,
        *,
        roles: tuple[Role, ...] = (),
        with_user: bool = False,
        agent_id: str | None = None,
    ) -> WorkspaceAccess:
        """The caller's access (404 for a non-member: existence is never leaked; 403 outside ``roles``), with the
        caller's user and the route's agent when asked for (``agent`` None: no such agent in this workspace)."""
        found = self._workspaces.access(workspace_id, user_id, with_user=with_user, agent_id=agent_id)
        if found.member is None or found.workspace is None:
            raise NotFound("Workspace not found")
        if roles and found.member.role not in roles:
            raise Forbidden(f"Only a workspace {' or '.join(roles)} may do this")
        return WorkspaceAccess(found.member, found.workspace, found.user, found.agent)

    def read_as_member[T](self, workspace_id: str, user_id: str, read: Callable[[], T]) -> T:
        """``read()``'s answer once the user's membership is checked (404 as ``membership``), read together."""
        access, found = together.run(lambda: self.membership(workspace_id, user_id), read)
        access.result()
        return cast(T, found.result())  # together's futures hold any call's answer: this one is read()'s

    def user(self, user_id: str) -> UserRecord:
        user = self._users.get(user_id)
        if user is None:
            raise NotFound("User not found")
        return user

    def owner_plan(self, access: WorkspaceAccess) -> str:
        """The name of the workspace owner's plan (``free``, ...): from the access read when the caller is the owner
        and it read the caller's user, else one more read."""
        owner_id = access.workspace.owner_id
        owner = access.user if access.user is not None and access.user.id == owner_id else None
        return (owner or self.user(owner_id)).plan
