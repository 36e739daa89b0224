"""Memberships' writes (authoring.md, "Members and invitations"): a role changed, a member removed or leaving, the
ownership transferred. Each is one transaction conditioned on the roles it read, so no two of them can interleave
into a workspace without an owner (or with two): a removal conditions on the role it read, a transfer on the old
owner's and the new owner's roles and the workspace's ``ownerId``; whatever came first, the other reads again.

Counters move in the same transaction: ``memberCount`` on a removal, and ``ownedWorkspaces`` of both owners on a
transfer (the new owner's conditioned on their plan's limit, as creating a workspace is). Members seeded before
invitations existed were never counted, so a counter that would fall below what the workspace must hold (one
member, the owner; no owned workspace) is left as it is rather than refused.
"""

from __future__ import annotations

from typing import Any

from core.identity.records import UserRecord
from core.platform import main_table as keys
from core.platform.dynamo import batch_get
from core.platform.errors import Conflict, DomainError
from core.platform.kinds import Role
from core.platform.transactions import EXISTS, IN_PROGRESS, Also, Changed, Transaction
from core.workspaces.records import MembershipRecord, MemberTarget, WorkspaceRecord

ROLE = {"#role": "role"}  # a reserved word in DynamoDB's expressions
CHANGED = "The workspace's members changed while this request was applied; read them again"


def refusal(failed: str, plan: DomainError | None = None) -> DomainError:
    """The error of a transaction's named step whose condition cancelled it."""
    known: dict[str, DomainError] = {"changed": Changed(CHANGED), "completion": Conflict(IN_PROGRESS)}
    if plan is not None:
        known["plan"] = plan
    return known[failed]


def still(tx: Transaction, member: MembershipRecord) -> None:
    """A step of ``tx``: ``member`` still has the role it was read with (step ``changed``)."""
    tx.check(keys.member(member.workspace_id, member.user_id), "#role = :role", names=ROLE,
             values={":role": member.role}, name="changed")  # fmt: skip


class MemberStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def target(self, workspace_id: str, user_id: str) -> MemberTarget:
        """The named member and their user: one consistent BatchGetItem, issued beside the caller's access check."""
        rows = batch_get(self._db, self._table, [keys.member(workspace_id, user_id), keys.user(user_id)])
        member = next((r for r in rows if r["sk"].startswith("MEMBER#")), None)
        user = next((r for r in rows if r["sk"] == "USER"), None)
        return MemberTarget(
            member=MembershipRecord.model_validate(member) if member else None,
            user=UserRecord.model_validate(user) if user else None,
        )

    def set_role(self, member: MembershipRecord, role: Role, *, caller: MembershipRecord, also: Also) -> None:
        """``role`` for ``member`` if its role is still the one read (an owner's never: the caller checked), and the
        ``caller``'s too (an owner who transferred the workspace meanwhile makes no admin)."""
        tx = Transaction(self._table)
        still(tx, caller)
        tx.update(keys.member(member.workspace_id, member.user_id), "SET #role = :new", condition="#role = :old",
                  names=ROLE, values={":new": role, ":old": member.role}, name="changed")  # fmt: skip
        failed = tx.carry(also).commit(self._db)
        if failed is not None:
            raise refusal(failed)

    def remove(self, member: MembershipRecord, *, caller: MembershipRecord, also: Also) -> None:
        """Delete ``member`` if its role is still the one read (never the owner's: the caller checked), one off the
        workspace's ``memberCount``; the ``caller``'s role too, when another member removes them."""

        def attempt(count: bool) -> str | None:
            tx = Transaction(self._table)
            if caller.user_id != member.user_id:
                still(tx, caller)
            tx.delete(keys.member(member.workspace_id, member.user_id), condition="#role = :role", names=ROLE,
                      values={":role": member.role}, name="changed")  # fmt: skip
            workspace = keys.workspace(member.workspace_id)
            if count:  # the owner is always counted: a count of 1 means members seeded uncounted
                tx.update(workspace, "ADD memberCount :minus", condition="memberCount > :one",
                          values={":minus": -1, ":one": 1}, name="count")  # fmt: skip
            else:
                tx.check(workspace, EXISTS, name="changed")
            return tx.carry(also).commit(self._db)

        failed = attempt(count=True)
        if failed == "count":
            failed = attempt(count=False)
        if failed is not None:
            raise refusal(failed)

    def transfer(self, workspace: WorkspaceRecord, new_owner_id: str, limit: int, *, at: str, also: Also,
                 plan_refusal: DomainError) -> None:  # fmt: skip
        """Ownership from the workspace's owner to ``new_owner_id``, an admin: the workspace names them, their roles
        swap (the old owner stays, as an admin), and the workspace counts against the new owner's plan (``limit``;
        ``plan_refusal`` when it is reached) instead of the old owner's."""
        old, ws = workspace.owner_id, workspace.id

        def attempt(count_old: bool) -> str | None:
            tx = Transaction(self._table)
            tx.update(keys.workspace(ws), "SET ownerId = :new, updatedAt = :at", condition="ownerId = :old",
                      values={":new": new_owner_id, ":old": old, ":at": at}, name="changed")  # fmt: skip
            tx.update(keys.member(ws, old), "SET #role = :admin", condition="#role = :owner", names=ROLE,
                      values={":admin": "admin", ":owner": "owner"}, name="changed")  # fmt: skip
            tx.update(keys.member(ws, new_owner_id), "SET #role = :owner", condition="#role = :admin", names=ROLE,
                      values={":admin": "admin", ":owner": "owner"}, name="changed")  # fmt: skip
            tx.update(keys.user(new_owner_id), "ADD ownedWorkspaces :one",
                      condition="attribute_exists(pk) AND "
                      "(attribute_not_exists(ownedWorkspaces) OR ownedWorkspaces < :limit)",
                      values={":one": 1, ":limit": limit}, name="plan")  # fmt: skip
            if count_old:
                tx.update(keys.user(old), "ADD ownedWorkspaces :minus", condition="ownedWorkspaces > :zero",
                          values={":minus": -1, ":zero": 0}, name="count")  # fmt: skip
            return tx.carry(also).commit(self._db)

        failed = attempt(count_old=True)
        if failed == "count":  # an owner counted before the count existed: nothing to give back
            failed = attempt(count_old=False)
        if failed is not None:
            raise refusal(failed, plan_refusal)
