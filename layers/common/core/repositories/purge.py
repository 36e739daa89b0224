"""Finding and deleting every main-table record of a deleted workspace."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import main_table as keys
from .dynamo import batch_delete, query_all, to_item

PAGE = 500


class PurgeRepository:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def _keys_of(self, pk: str) -> list[dict[str, Any]]:
        request = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": pk}),
            "ProjectionExpression": "pk, sk",
        }
        return query_all(self._db, request, limit=PAGE)

    def _drain(self, pk: str, keep_going: Callable[[], bool]) -> int:
        deleted = 0
        while keep_going():
            batch = self._keys_of(pk)
            if not batch:
                break
            batch_delete(self._db, self._table, batch)
            deleted += len(batch)
        return deleted

    def delete_workspace_records(self, workspace_id: str, keep_going: Callable[[], bool]) -> int:
        """Agents' posts and items first, then the workspace partition itself (which lists the agents)."""
        partition = keys.workspace(workspace_id)["pk"]
        rows = query_all(self._db, {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :agent)",
            "ExpressionAttributeValues": to_item({":pk": partition, ":agent": "AGENT#"}),
            "ProjectionExpression": "pk, sk",
        })  # fmt: skip
        deleted = 0
        for row in rows:
            agent_id = row["sk"].removeprefix("AGENT#")
            deleted += self._drain(keys.posts_partition(agent_id), keep_going)
            deleted += self._drain(keys.items_partition(agent_id), keep_going)
        return deleted + self._drain(partition, keep_going)
