"""The brands of a workspace as its members list them (the writer's store is ``write_store.py``)."""

from __future__ import annotations

import builtins
from typing import Any

from core.brands.records import BrandRecord
from core.platform import main_table as keys
from core.platform import pages
from core.platform.dynamo import get_item, query_all, to_item


class BrandReadStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def list(self, workspace_id: str) -> list[BrandRecord]:
        """Every brand of the workspace: one consistent Query of its partition."""
        rows = query_all(self._db, {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.workspace(workspace_id)["pk"], ":prefix": "BRAND#"}),
            "ConsistentRead": True,
        })  # fmt: skip
        return [BrandRecord.model_validate(r) for r in rows]

    def page(self, workspace_id: str, limit: int, start: str | None) -> builtins.list[BrandRecord]:
        """``limit`` brands in id order (ULIDs of their creation: oldest first), after the sort key ``start``."""
        request = pages.range_query(self._table, keys.workspace(workspace_id)["pk"], "BRAND#", limit, start)
        return [BrandRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def get(self, workspace_id: str, brand_id: str) -> BrandRecord | None:
        found = get_item(self._db, self._table, keys.brand(workspace_id, brand_id), consistent=True)
        return BrandRecord.model_validate(found) if found else None
