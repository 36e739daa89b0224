"""Agents and their published content: brand, workflow, feed posts, items."""

from __future__ import annotations

from typing import Any

from ..models.records import AgentRecord, BrandRecord, ItemRecord, PostRecord, WorkflowRecord, WorkspaceRecord
from . import main_table as keys
from .dynamo import batch_get, batch_put, from_item, query_all, to_item, translate_errors


class AgentRepository:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def _get(self, key: dict[str, str]) -> dict[str, Any] | None:
        with translate_errors("GetItem"):
            item = self._db.get_item(TableName=self._table, Key=to_item(key)).get("Item")
        return from_item(item) if item else None

    def get_agent(self, workspace_id: str, agent_id: str) -> AgentRecord | None:
        """The agent, only if it belongs to this workspace: the key itself is the tenant check."""
        found = self._get(keys.agent(workspace_id, agent_id))
        return AgentRecord.model_validate(found) if found else None

    def get_agent_with_workspace(
        self, workspace_id: str, agent_id: str
    ) -> tuple[AgentRecord | None, WorkspaceRecord | None]:
        """The agent (if it belongs to this workspace) and the workspace, in one BatchGetItem."""
        agent_key, workspace_key = keys.agent(workspace_id, agent_id), keys.workspace(workspace_id)
        found = {row["sk"]: row for row in batch_get(self._db, self._table, [agent_key, workspace_key])}
        agent, workspace = found.get(agent_key["sk"]), found.get(workspace_key["sk"])
        return (
            AgentRecord.model_validate(agent) if agent else None,
            WorkspaceRecord.model_validate(workspace) if workspace else None,
        )

    def list_brands(self, workspace_id: str) -> list[BrandRecord]:
        """A workspace's brands (a handful): one Query, so it can be read beside the agent that names one."""
        rows = query_all(self._db, {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.workspace(workspace_id)["pk"], ":prefix": "BRAND#"}),
        })  # fmt: skip
        return [BrandRecord.model_validate(r) for r in rows]

    def get_workflow(self, workspace_id: str, workflow_id: str) -> WorkflowRecord | None:
        found = self._get(keys.workflow(workspace_id, workflow_id))
        return WorkflowRecord.model_validate(found) if found else None

    def list_feed(self, agent_id: str, *, channel: str | None, category: str | None, limit: int) -> list[PostRecord]:
        """Published posts, newest first, filtered and capped: one Query of a range that holds only them.

        Unfiltered, the published range of the posts partition (drafts sort elsewhere); filtered, the
        copies of the posts matching every filter. Either way ``Limit`` is the page, so DynamoDB reads
        (and bills) exactly what is returned.
        """
        if channel is None and category is None:
            pk, prefix = keys.posts_partition(agent_id), keys.PUBLISHED_POST
        else:
            pk, prefix = keys.feed_filters_partition(agent_id), keys.feed_filter_prefix(channel, category)
        rows = query_all(self._db, {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": pk, ":prefix": prefix}),
            "ScanIndexForward": False,
            "Limit": limit,
        }, limit)  # fmt: skip
        return [PostRecord.model_validate(r) for r in rows]

    def list_active_items(self, agent_id: str) -> list[ItemRecord]:
        """Active items: one Query of their range (inactive items sort elsewhere), every page of it."""
        rows = query_all(self._db, {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.items_partition(agent_id), ":prefix": keys.ACTIVE_ITEM}),
        })  # fmt: skip
        return [ItemRecord.model_validate(r) for r in rows]

    # Writes (used by the portal's publishing flow and by the demo loader).

    def put_agent(self, agent: AgentRecord) -> None:
        batch_put(self._db, self._table, [keys.agent(agent.workspace_id, agent.id) | agent.attributes()])

    def put_brand(self, brand: BrandRecord) -> None:
        batch_put(self._db, self._table, [keys.brand(brand.workspace_id, brand.id) | brand.attributes()])

    def put_workflow(self, workflow: WorkflowRecord) -> None:
        key = keys.workflow(workflow.workspace_id, workflow.id)
        batch_put(self._db, self._table, [key | workflow.attributes()])

    def put_posts(self, posts: list[PostRecord]) -> None:
        """New posts: a draft's row, or a published post's row and its filter copies (see ``list_feed``).

        Changing a post's publication, channels or category moves it: whatever does that (no endpoint
        does yet) must delete the old row and copies in the same transaction as it writes the new ones.
        """
        rows = []
        for p in posts:
            attributes = p.attributes()
            rows.append(keys.post(p.agent_id, p.created_at, p.id, published=p.published) | attributes)
            if p.published:
                copies = keys.feed_filter_copies(p.agent_id, p.created_at, p.id, p.channels, p.category)
                rows += [copy | attributes for copy in copies]
        batch_put(self._db, self._table, rows)

    def put_items(self, items: list[ItemRecord]) -> None:
        rows = [keys.item(i.agent_id, i.id, active=i.active) | i.attributes() for i in items]
        batch_put(self._db, self._table, rows)
