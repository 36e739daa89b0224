"""Users, workspaces and memberships in the main table."""

from __future__ import annotations

from typing import Any

from ..models.records import MembershipRecord, UserRecord, WorkspaceRecord
from . import main_table as keys
from .dynamo import batch_put


class WorkspaceRepository:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def put_user(self, user: UserRecord) -> None:
        index = {"gsi1pk": f"EMAIL#{user.email.lower()}", "gsi1sk": "USER"}
        batch_put(self._db, self._table, [keys.user(user.id) | index | user.attributes()])

    def put_workspace(self, workspace: WorkspaceRecord) -> None:
        batch_put(self._db, self._table, [keys.workspace(workspace.id) | workspace.attributes()])

    def put_member(self, member: MembershipRecord) -> None:
        index = {"gsi1pk": f"USER#{member.user_id}", "gsi1sk": f"MEMBER#{member.workspace_id}"}
        row = keys.member(member.workspace_id, member.user_id) | index | member.attributes()
        batch_put(self._db, self._table, [row])
