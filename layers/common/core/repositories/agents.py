"""Agents and their published content: brand, workflow, feed posts, items."""

from __future__ import annotations

from typing import Any

from ..models.records import AgentRecord, BrandRecord, ItemRecord, PostRecord, WorkflowRecord
from . import main_table as keys
from .dynamo import batch_put, from_item, to_item, translate_errors


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

    def get_brand(self, workspace_id: str, brand_id: str) -> BrandRecord | None:
        found = self._get(keys.brand(workspace_id, brand_id))
        return BrandRecord.model_validate(found) if found else None

    def get_workflow(self, workspace_id: str, workflow_id: str) -> WorkflowRecord | None:
        found = self._get(keys.workflow(workspace_id, workflow_id))
        return WorkflowRecord.model_validate(found) if found else None

    def list_feed(self, agent_id: str, *, channel: str | None, category: str | None, limit: int) -> list[PostRecord]:
        """Published posts, newest first, filtered and capped, from one (paginated) Query."""
        conditions = ["published = :true"]
        values: dict[str, Any] = {":pk": keys.posts_partition(agent_id), ":true": True}
        if channel is not None:
            conditions.append("contains(channels, :channel)")
            values[":channel"] = channel
        if category is not None:
            conditions.append("category = :category")
            values[":category"] = category
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "FilterExpression": " AND ".join(conditions),
            "ExpressionAttributeValues": to_item(values),
            "ScanIndexForward": False,
        }
        if channel is None and category is None:
            # Nearly every post is published: a page of ``limit`` posts is (almost always) the whole answer,
            # read in one round trip without paying for a 1 MB page.
            request["Limit"] = limit
        posts: list[PostRecord] = []
        with translate_errors("Query"):
            while len(posts) < limit:
                page = self._db.query(**request)
                posts.extend(PostRecord.model_validate(from_item(i)) for i in page.get("Items", []))
                if "LastEvaluatedKey" not in page:
                    break
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return posts[:limit]

    def list_active_items(self, agent_id: str) -> list[ItemRecord]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "FilterExpression": "active = :true",
            "ExpressionAttributeValues": to_item({":pk": keys.items_partition(agent_id), ":true": True}),
        }
        items: list[ItemRecord] = []
        with translate_errors("Query"):
            while True:
                page = self._db.query(**request)
                items.extend(ItemRecord.model_validate(from_item(i)) for i in page.get("Items", []))
                if "LastEvaluatedKey" not in page:
                    return items
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # Writes (used by the portal's publishing flow and by the demo loader).

    def put_agent(self, agent: AgentRecord) -> None:
        batch_put(self._db, self._table, [keys.agent(agent.workspace_id, agent.id) | agent.attributes()])

    def put_brand(self, brand: BrandRecord) -> None:
        batch_put(self._db, self._table, [keys.brand(brand.workspace_id, brand.id) | brand.attributes()])

    def put_workflow(self, workflow: WorkflowRecord) -> None:
        key = keys.workflow(workflow.workspace_id, workflow.id)
        batch_put(self._db, self._table, [key | workflow.attributes()])

    def put_posts(self, posts: list[PostRecord]) -> None:
        rows = [keys.post(p.agent_id, p.created_at, p.id) | p.attributes() for p in posts]
        batch_put(self._db, self._table, rows)

    def put_items(self, items: list[ItemRecord]) -> None:
        batch_put(self._db, self._table, [keys.item(i.agent_id, i.id) | i.attributes() for i in items])
