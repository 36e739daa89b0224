"""Workspaces, memberships and their tombstones in the main table (a workspace's default brand is written in its
creation's transaction). See docs/data-model.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.identity.records import UserRecord
from core.platform import agent_counts_store, pages
from core.platform import main_table as keys
from core.platform.dynamo import (
    batch_delete,
    batch_get,
    batch_put,
    cancelled_by_condition,
    from_item,
    query_all,
    to_item,
)
from core.platform.dynamo import translate_errors as storage
from core.platform.errors import Conflict, PlanLimitReached
from core.workspaces.records import Access, MembershipRecord, PurgeRecord, WorkspaceRecord

if TYPE_CHECKING:
    from core.workspaces.ports import DefaultBrand


def member_row(member: MembershipRecord) -> dict[str, Any]:
    """A membership as stored: its key in the workspace's partition and its ``gsi1`` row under the user (how
    ``GET /api/workspaces`` finds a user's workspaces). The owner's (``create``) and a joining member's (an
    invitation's acceptance) are written by this one function, so the two cannot differ."""
    gsi1pk, prefix = keys.user_memberships(member.user_id)
    index = {"gsi1pk": gsi1pk, "gsi1sk": f"{prefix}{member.workspace_id}"}
    return keys.member(member.workspace_id, member.user_id) | index | member.attributes()


class SlugTaken(Conflict):
    """Another workspace holds the slug (the service retries with a suffix)."""


class WorkspaceStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    # --- reads

    def _get(self, key: dict[str, str]) -> dict[str, Any] | None:
        with storage("GetItem"):
            item = self._db.get_item(TableName=self._table, Key=to_item(key), ConsistentRead=True).get("Item")
        return from_item(item) if item else None

    def get(self, workspace_id: str) -> WorkspaceRecord | None:
        found = self._get(keys.workspace(workspace_id))
        return WorkspaceRecord.model_validate(found) if found else None

    def get_many(self, workspace_ids: list[str]) -> list[WorkspaceRecord]:
        rows = batch_get(self._db, self._table, [keys.workspace(i) for i in workspace_ids])
        return [WorkspaceRecord.model_validate(r) for r in rows]

    def access(
        self, workspace_id: str, user_id: str, *, with_user: bool = False, agent_id: str | None = None
    ) -> Access:
        """The membership, the workspace and, if asked, the user and the agent: one consistent BatchGetItem.
        The agent's key holds the workspace's id, so finding it is the tenant check."""
        wanted = {"member": keys.member(workspace_id, user_id), "workspace": keys.workspace(workspace_id)}
        if with_user:
            wanted["user"] = keys.user(user_id)
        if agent_id is not None:  # with its counters item: the agent as stored carries its counts
            wanted |= {"agent": keys.agent(workspace_id, agent_id), "counts": keys.agent_counts(workspace_id, agent_id)}
        found = {(row["pk"], row["sk"]): row for row in batch_get(self._db, self._table, list(wanted.values()))}
        rows = {name: found.get((key["pk"], key["sk"])) for name, key in wanted.items()}
        member, workspace, user, agent = (rows.get(n) for n in ("member", "workspace", "user", "agent"))
        agent = agent_counts_store.counted(agent, rows.get("counts")) if agent is not None else None
        return Access(
            member=MembershipRecord.model_validate(member) if member else None,
            workspace=WorkspaceRecord.model_validate(workspace) if workspace else None,
            user=UserRecord.model_validate(user) if user else None,
            agent=agent,
        )

    def get_membership(self, workspace_id: str, user_id: str) -> MembershipRecord | None:
        found = self._get(keys.member(workspace_id, user_id))
        return MembershipRecord.model_validate(found) if found else None

    def memberships_of(self, user_id: str) -> list[MembershipRecord]:
        """Every membership of a user (one Query of the ``gsi1`` index, eventually consistent)."""
        gsi1pk, prefix = keys.user_memberships(user_id)
        rows = query_all(self._db, {
            "TableName": self._table, "IndexName": "gsi1",
            "KeyConditionExpression": "gsi1pk = :pk AND begins_with(gsi1sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": gsi1pk, ":prefix": prefix}),
        })  # fmt: skip
        return [MembershipRecord.model_validate(r) for r in rows]

    def _partition(self, workspace_id: str, prefix: str) -> list[dict[str, Any]]:
        return query_all(self._db, {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.workspace(workspace_id)["pk"], ":prefix": prefix}),
            "ConsistentRead": True,
        })  # fmt: skip

    def members(self, workspace_id: str) -> list[MembershipRecord]:
        return [MembershipRecord.model_validate(r) for r in self._partition(workspace_id, "MEMBER#")]

    def member_page(self, workspace_id: str, limit: int, start: str | None) -> list[MembershipRecord]:
        """``limit`` memberships in user id order (their sort key), after the sort key ``start``."""
        request = pages.range_query(self._table, keys.workspace(workspace_id)["pk"], "MEMBER#", limit, start)
        return [MembershipRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def users(self, user_ids: list[str]) -> dict[str, UserRecord]:
        rows = batch_get(self._db, self._table, [keys.user(i) for i in user_ids])
        return {r["id"]: UserRecord.model_validate(r) for r in rows}

    # --- writes

    def put_workspace(self, workspace: WorkspaceRecord) -> None:
        """Overwrite a workspace's record (tests set fields no endpoint changes yet); ``create`` makes one."""
        claim = keys.slug_claim(workspace.slug) | {"workspaceId": workspace.id}
        batch_put(self._db, self._table, [keys.workspace(workspace.id) | workspace.attributes(), claim])

    def put_member(self, member: MembershipRecord) -> None:
        """Add or replace a membership other than the owner's, for seeds and the demo (members join through an
        invitation, ``InvitationStore.accept``; the owner's membership is part of ``create``). ``memberCount`` is
        left as it is: seeds set it themselves when it matters."""
        batch_put(self._db, self._table, [member_row(member)])

    def mark_retention_applied(self, workspace_id: str, days: int | None, at: str) -> bool:
        """A re-stamping pass finished with the retention ``days`` (None: kept for good): SET ``retentionAppliedAt``
        and ``retentionAppliedDays`` (removed for None), which ``conversations.retention.applied`` streams from.

        Only while the setting is still ``days`` (a pass that applied a setting changed since leaves it to the pass
        queued by that change) and ``days`` is not what the last pass applied (a re-run, or a pass queued before a
        settings write that then failed, changed nothing: nothing to tell). Absent means None: the TTLs a workspace
        starts with. False when not written (those conditions, or the workspace is gone). No ``version`` move: this
        is no settings write, and one in flight must not be refused by it."""
        values: dict[str, Any] = {":at": at}
        if days is None:
            update = "SET retentionAppliedAt = :at REMOVE retentionAppliedDays"
            condition = "attribute_not_exists(conversationRetentionDays) AND attribute_exists(retentionAppliedDays)"
        else:
            values[":days"] = days
            update = "SET retentionAppliedAt = :at, retentionAppliedDays = :days"
            condition = ("conversationRetentionDays = :days AND "
                         "(attribute_not_exists(retentionAppliedDays) OR retentionAppliedDays <> :days)")  # fmt: skip
        with storage("UpdateItem"):
            try:
                self._db.update_item(
                    TableName=self._table, Key=to_item(keys.workspace(workspace_id)), UpdateExpression=update,
                    ConditionExpression=f"attribute_exists(pk) AND {condition}",
                    ExpressionAttributeValues=to_item(values),
                )  # fmt: skip
            except self._db.exceptions.ConditionalCheckFailedException:
                return False
        return True

    def create(self, ws: WorkspaceRecord, owner: MembershipRecord, brand: DefaultBrand, plan_limit: int) -> None:
        """One transaction: slug claim, workspace, owner membership, default brand (and its claim on its slug in the
        workspace), and the owner's workspace count (conditioned on the plan limit) plus activation. Exact under
        concurrency."""
        new = "attribute_not_exists(pk)"
        items = [
            {"Put": {"TableName": self._table, "ConditionExpression": new,
                     "Item": to_item(keys.slug_claim(ws.slug) | {"workspaceId": ws.id})}},
            {"Update": {
                "TableName": self._table, "Key": to_item(keys.user(owner.user_id)),
                "UpdateExpression": "SET activeWorkspaceId = :ws ADD ownedWorkspaces :one",
                "ConditionExpression": "attribute_exists(pk) AND "
                "(attribute_not_exists(ownedWorkspaces) OR ownedWorkspaces < :limit)",
                "ExpressionAttributeValues": to_item({":ws": ws.id, ":one": 1, ":limit": plan_limit}),
            }},
            {"Put": {"TableName": self._table, "ConditionExpression": new,
                     "Item": to_item(keys.workspace(ws.id) | ws.attributes())}},
            {"Put": {"TableName": self._table, "Item": to_item(member_row(owner))}},
            {"Put": {"TableName": self._table,
                     "Item": to_item(keys.brand(ws.id, brand.id) | brand.attributes())}},
            {"Put": {"TableName": self._table,
                     "Item": to_item(keys.brand_slug_claim(ws.id, brand.slug) | {"brandId": brand.id})}},
        ]  # fmt: skip
        failed = self._transact(items, expected=(0, 1))
        if failed == 0:
            raise SlugTaken()
        if failed == 1:
            raise PlanLimitReached("Your plan's workspace limit is reached")

    def delete(self, ws: WorkspaceRecord, deleted_at: str) -> bool:
        """Make the workspace disappear at once and leave a purge tombstone; False if already gone."""
        tombstone = PurgeRecord(workspace_id=ws.id, owner_id=ws.owner_id, deleted_at=deleted_at)
        items = [
            {"Delete": {"TableName": self._table, "Key": to_item(keys.workspace(ws.id)),
                        "ConditionExpression": "attribute_exists(pk)"}},
            {"Delete": {"TableName": self._table, "Key": to_item(keys.slug_claim(ws.slug))}},
            {"Put": {"TableName": self._table, "Item": to_item(keys.purge(ws.id) | tombstone.attributes())}},
            {"Update": {"TableName": self._table, "Key": to_item(keys.user(ws.owner_id)),
                        "UpdateExpression": "ADD ownedWorkspaces :minus",
                        "ConditionExpression": "ownedWorkspaces > :zero",
                        "ExpressionAttributeValues": to_item({":minus": -1, ":zero": 0})}},
        ]  # fmt: skip
        failed = self._transact(items, expected=(0, 3))
        if failed == 3:  # an owner whose count is already zero (data from before the count): delete anyway
            self._transact(items[:3], expected=())
        return failed != 0

    def _transact(self, items: list[dict[str, Any]], *, expected: tuple[int, ...]) -> int | None:
        """Commit ``items`` at once: None, or the first of the ``expected`` items whose condition cancelled it.
        A cancellation for any other reason is raised (as storage trouble, by ``storage``)."""
        with storage("TransactWriteItems"):
            try:
                self._db.transact_write_items(TransactItems=items)
            except self._db.exceptions.TransactionCanceledException as exc:
                failed = next((i for i in expected if cancelled_by_condition(exc, i)), None)
                if failed is None:
                    raise
                return failed
        return None

    def remove_memberships(self, workspace_id: str) -> None:
        rows = self._partition(workspace_id, "MEMBER#")
        batch_delete(self._db, self._table, [{"pk": r["pk"], "sk": r["sk"]} for r in rows])

    def tombstone(self, workspace_id: str) -> PurgeRecord | None:
        found = self._get(keys.purge(workspace_id))
        return PurgeRecord.model_validate(found) if found else None

    def remove_tombstone(self, workspace_id: str) -> None:
        batch_delete(self._db, self._table, [keys.purge(workspace_id)])
