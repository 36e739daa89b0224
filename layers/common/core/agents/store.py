"""Published agents as the read plane reads them: the agent, its brands and workflow, its feed and items.

Reads only, eventually consistent where a moment's staleness is harmless (a published document, a brand), and
never the writer's: owners write through the write stores
(``core.<resource>.write_store``), which keep the layout this reads.
"""

from __future__ import annotations

from typing import Any

from core.agents.records import AgentRecord
from core.brands.records import BrandRecord
from core.items.records import ItemRecord
from core.platform import main_table as keys
from core.platform.dynamo import batch_get, get_item, query_all, to_item
from core.posts.records import PostRecord
from core.workflows.records import WorkflowRecord
from core.workspaces.records import WorkspaceRecord


class PublishedAgentStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get_agent(self, workspace_id: str, agent_id: str) -> AgentRecord | None:
        """The agent, only if it belongs to this workspace: the key itself is the tenant check."""
        found = get_item(self._db, self._table, keys.agent(workspace_id, agent_id), consistent=False)
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
        found = get_item(self._db, self._table, keys.workflow(workspace_id, workflow_id), consistent=False)
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
