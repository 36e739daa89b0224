"""Agents as their owners write them: the agent, its slug claim, and the counters of what names what.

An agent counts against its workspace's plan (``agentCount``) and keeps its brand and workflow from being
deleted (their ``agentCount``); each of these moves in the one transaction that creates, repoints or deletes
the agent, so the limit and the "in use" refusals hold under any concurrency.
"""

from __future__ import annotations

import builtins
from typing import Any

from core.agents.records import AgentRecord
from core.platform import agent_counts_store as agent_counts
from core.platform import main_table as keys
from core.platform import pages
from core.platform.dynamo import get_item, query_all, to_item
from core.platform.errors import Conflict, NotFound, PlanLimitReached, ValidationFailed
from core.platform.transactions import EXISTS, NEW, Also, Changed, Transaction
from core.platform.versions import unchanged_since, update_fields, versioned
from core.workflows.records import WorkflowRecord
from core.workspaces.records import PurgeRecord

SLUG_TAKEN = Conflict("slug: another agent of this workspace has it")
CHANGED = Changed("The agent changed while this request was applied; read it again")


class AgentStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get(self, workspace_id: str, agent_id: str) -> AgentRecord | None:
        """The agent with its counts: its item and its counters item in one consistent BatchGetItem."""
        found = agent_counts.get_counted(self._db, self._table, workspace_id, agent_id)
        return AgentRecord.model_validate(found) if found else None

    def _range(self, workspace_id: str, prefix: str) -> list[dict[str, Any]]:
        return query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.workspace(workspace_id)["pk"], ":prefix": prefix}),
        })  # fmt: skip

    def list(self, workspace_id: str) -> list[AgentRecord]:
        """The workspace's agents as their items hold them: read ``counts`` beside it (``counted`` joins them)."""
        return [AgentRecord.model_validate(r) for r in self._range(workspace_id, "AGENT#")]

    def page(self, workspace_id: str, limit: int, after_id: str | None) -> builtins.list[AgentRecord]:
        """``limit`` agents in id order (ULIDs of their creation: oldest first) after the agent ``after_id``, as
        their items hold them (``page_counts`` reads their counters beside it)."""
        start = keys.agent(workspace_id, after_id)["sk"] if after_id else None
        request = pages.range_query(self._table, keys.workspace(workspace_id)["pk"], "AGENT#", limit, start)
        return [AgentRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def page_counts(self, workspace_id: str, limit: int, after_id: str | None) -> dict[str, dict[str, Any]]:
        """The counters items of the agents ``page`` reads with the same ``limit`` and ``after_id``, by agent id.

        ``COUNTS#`` is ordered by agent id as ``AGENT#`` is, and every counters item has its agent (they are made
        and deleted in one transaction), so the first ``limit`` counters items after the same start hold those of
        the page's agents, whatever else the workspace holds: the two Queries run together, one round trip. An agent
        older than counters items has none (it carries its counts itself); a counters item of an agent past the
        page is read and left unused."""
        start = keys.agent_counts(workspace_id, after_id)["sk"] if after_id else None
        pk = keys.workspace(workspace_id)["pk"]
        rows = query_all(self._db, pages.range_query(self._table, pk, keys.AGENT_COUNTS, limit, start), limit)
        return {row["sk"].removeprefix(keys.AGENT_COUNTS): row for row in rows}

    def counted(self, agent: AgentRecord, counts: dict[str, Any] | None) -> AgentRecord:
        return AgentRecord.model_validate(agent_counts.counted(agent.model_dump(mode="json", by_alias=True), counts))

    def create(self, agent: AgentRecord, *, new_workflow: WorkflowRecord | None, limit: int, also: Also) -> None:
        """The agent, its slug claim and its counts, at once; ``new_workflow``: made for it in the same write."""
        ws, one = agent.workspace_id, {":one": 1}
        tx = Transaction(self._table)
        tx.put(keys.agent(ws, agent.id) | agent_counts.without_counts(agent.attributes()), condition=NEW)
        tx.put(agent_counts.new_counts(ws, agent.id), condition=NEW)  # what its posts, items and answers move
        tx.put(keys.items_ordered(agent.id), condition=NEW)  # its items' listing reads their places (none yet)
        tx.put(keys.agent_slug_claim(ws, agent.slug) | {"agentId": agent.id}, condition=NEW, name="slug")
        tx.update(keys.workspace(ws), "ADD agentCount :one", values=one | {":limit": limit}, name="limit",
                  condition=f"{EXISTS} AND (attribute_not_exists(agentCount) OR agentCount < :limit)")  # fmt: skip
        tx.update(keys.brand(ws, agent.brand_id), "ADD agentCount :one", condition=EXISTS, values=one, name="brand")
        if new_workflow is not None:
            counted = new_workflow.model_copy(update={"agent_count": 1})
            tx.put(keys.workflow(ws, counted.id) | counted.attributes(), condition=NEW)
        else:
            workflow = keys.workflow(ws, agent.active_workflow_id)
            tx.update(workflow, "ADD agentCount :one", condition=EXISTS, values=one, name="workflow")
        tx.carry(also).commit_or_raise(self._db, {
            "slug": SLUG_TAKEN,
            "limit": PlanLimitReached("The plan's agents per workspace are reached"),
            "brand": ValidationFailed("brandId: not a brand of this workspace"),
            "workflow": ValidationFailed("activeWorkflowId: not a workflow of this workspace"),
        })  # fmt: skip

    def update(self, old: AgentRecord, new: AgentRecord, *, also: Also) -> AgentRecord:
        """Change name, slug, brand, workflow or behaviour, if the agent is still as ``old`` was read; moves claim and
        counts."""
        ws, stored = old.workspace_id, versioned(old.version, new)
        tx = Transaction(self._table)
        update_fields(tx, keys.agent(ws, old.id), {
            "name": stored.name, "slug": stored.slug, "brandId": stored.brand_id,
            "activeWorkflowId": stored.active_workflow_id, "updatedAt": stored.updated_at,
            "behaviour": stored.behaviour.model_dump(mode="json", by_alias=True),
        }, old.version)  # fmt: skip
        if old.slug != new.slug:
            tx.delete(keys.agent_slug_claim(ws, old.slug))
            tx.put(keys.agent_slug_claim(ws, new.slug) | {"agentId": old.id}, condition=NEW, name="slug")
        moves = {"brand": (keys.brand, old.brand_id, new.brand_id),
                 "workflow": (keys.workflow, old.active_workflow_id, new.active_workflow_id)}  # fmt: skip
        for name, (key, before, after) in moves.items():
            if before != after:
                tx.update(key(ws, before), "ADD agentCount :minus", condition=EXISTS, values={":minus": -1})
                tx.update(key(ws, after), "ADD agentCount :one", condition=EXISTS, values={":one": 1}, name=name)
        tx.carry(also).commit_or_raise(self._db, {
            "changed": CHANGED, "slug": SLUG_TAKEN,
            "brand": ValidationFailed("brandId: not a brand of this workspace"),
            "workflow": ValidationFailed("activeWorkflowId: not a workflow of this workspace"),
        })  # fmt: skip
        return stored

    def put_document(self, workspace_id: str, agent_id: str, field: str, text: str, at: str, *, also: Also) -> None:
        """Publish a document (``wrapJson``, ``siteJson``): the read plane serves it on its next read."""
        Transaction(self._table).update(
            keys.agent(workspace_id, agent_id), "SET #doc = :text, updatedAt = :at", condition=EXISTS,
            names={"#doc": field}, values={":text": text, ":at": at}, name="agent",
        ).carry(also).commit_or_raise(self._db, {"agent": NotFound("Agent not found")})  # fmt: skip

    def delete(self, agent: AgentRecord, tombstone: PurgeRecord, *, also: Also) -> None:
        """Gone for every reader at once; its tombstone (outside the workspace's partition) names the purge's work.
        Only if the agent is still as read (``Changed`` otherwise): the slug and counters it frees are the ones read."""
        ws, minus = agent.workspace_id, {":minus": -1}
        tx = Transaction(self._table)
        tx.delete(keys.agent(ws, agent.id), condition=unchanged_since(agent.version), values={":seen": agent.version},
                  name="changed")  # fmt: skip
        tx.delete(keys.agent_slug_claim(ws, agent.slug))
        # Its counters item goes with it: a post, item or answer write, conditioned on it, is refused from now on.
        tx.delete(keys.agent_counts(ws, agent.id))
        tx.update(keys.workspace(ws), "ADD agentCount :minus", condition=EXISTS, values=minus, name="agent")
        for key in (keys.brand(ws, agent.brand_id), keys.workflow(ws, agent.active_workflow_id)):
            # They cannot be deleted while the agent names them; the condition keeps an update from making one.
            tx.update(key, "ADD agentCount :minus", condition=EXISTS, values=minus)
        tx.put(keys.agent_purge(ws, agent.id) | tombstone.attributes() | {"agentId": agent.id})
        tx.carry(also).commit_or_raise(self._db, {"changed": CHANGED, "agent": NotFound("Agent not found")})

    def tombstone(self, workspace_id: str, agent_id: str) -> PurgeRecord | None:
        found = get_item(self._db, self._table, keys.agent_purge(workspace_id, agent_id), consistent=True)
        return PurgeRecord.model_validate(found) if found else None
