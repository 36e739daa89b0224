"""Workflows: a name and the suggestions agents serve. One that an agent runs (its ``agentCount``, moved by the
agents' transactions) or that is the workspace's default is never deleted: both are conditions of the delete."""

from __future__ import annotations

import builtins
from typing import Any

from core.platform import main_table as keys
from core.platform import pages
from core.platform.dynamo import get_item, query_all, to_item
from core.platform.errors import Conflict
from core.platform.transactions import EXISTS, NEW, Also, Changed, Transaction
from core.platform.versions import NOT_IN_USE, update_fields, versioned
from core.workflows.records import WorkflowRecord


class WorkflowStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get(self, workspace_id: str, workflow_id: str) -> WorkflowRecord | None:
        found = get_item(self._db, self._table, keys.workflow(workspace_id, workflow_id), consistent=True)
        return WorkflowRecord.model_validate(found) if found else None

    def list(self, workspace_id: str) -> list[WorkflowRecord]:
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.workspace(workspace_id)["pk"], ":prefix": "WORKFLOW#"}),
        })  # fmt: skip
        return [WorkflowRecord.model_validate(r) for r in rows]

    def page(self, workspace_id: str, limit: int, start: str | None) -> builtins.list[WorkflowRecord]:
        """``limit`` workflows in id order (ULIDs of their creation: oldest first), after the sort key ``start``."""
        request = pages.range_query(self._table, keys.workspace(workspace_id)["pk"], "WORKFLOW#", limit, start)
        return [WorkflowRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def create(self, workflow: WorkflowRecord, *, also: Also) -> None:
        key = keys.workflow(workflow.workspace_id, workflow.id)
        Transaction(self._table).put(key | workflow.attributes(), condition=NEW).carry(also).commit_or_raise(self._db)

    def update(self, old: WorkflowRecord, new: WorkflowRecord, *, also: Also) -> WorkflowRecord:
        stored = versioned(old.version, new)
        tx = Transaction(self._table)
        update_fields(tx, keys.workflow(old.workspace_id, old.id), {
            "name": stored.name, "suggestionsJson": stored.suggestions_json, "updatedAt": stored.updated_at,
        }, old.version)  # fmt: skip
        tx.carry(also).commit_or_raise(self._db, {
            "changed": Changed("The workflow changed while this request was applied; read it again"),
        })  # fmt: skip
        return stored

    def delete(self, workflow: WorkflowRecord, *, also: Also) -> None:
        ws = workflow.workspace_id
        tx = Transaction(self._table)
        tx.delete(keys.workflow(ws, workflow.id), condition=f"{EXISTS} AND ({NOT_IN_USE})", values={":zero": 0},
                  name="in-use")  # fmt: skip
        tx.check(keys.workspace(ws), "defaultWorkflowId <> :id", values={":id": workflow.id}, name="default")
        tx.carry(also).commit_or_raise(self._db, {
            "in-use": Conflict("This is an agent's active workflow: give its agents another workflow first"),
            "default": Conflict("This is the workspace's default workflow: make another one the default first"),
        })  # fmt: skip
