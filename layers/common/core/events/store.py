"""The events' reads (MainTable, raw items: ``core.events`` depends on nothing but the platform).

A workspace's item (is it still there, its ``webhookCount``, ``ownerId``, ``lowCreditsThreshold``), and the
workspaces an account owns (its membership rows on ``gsi1`` whose role is ``owner``).
"""

from __future__ import annotations

from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import get_item, query_all, to_item


class EventStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def workspace(self, workspace_id: str) -> dict[str, Any] | None:
        """The workspace's item, strongly consistent (a deletion committed before the event is seen); None: gone."""
        return get_item(self._db, self._table, keys.workspace(workspace_id), consistent=True)

    def owned_workspace_ids(self, account_id: str) -> list[str]:
        """The workspaces whose membership row gives ``account_id`` the owner's role (``gsi1``, eventually
        consistent: the caller checks each workspace's ``ownerId`` on its own item)."""
        gsi1pk, prefix = keys.user_memberships(account_id)
        rows = query_all(self._db, {
            "TableName": self._table, "IndexName": "gsi1",
            "KeyConditionExpression": "gsi1pk = :pk AND begins_with(gsi1sk, :prefix)",
            "FilterExpression": "#role = :owner",
            "ExpressionAttributeNames": {"#role": "role"},
            "ExpressionAttributeValues": to_item({":pk": gsi1pk, ":prefix": prefix, ":owner": "owner"}),
        })  # fmt: skip
        return [str(row["workspaceId"]) for row in rows if row.get("workspaceId")]
