"""The fan-out's DynamoDB (MainTable): a workspace's webhooks (one Query: at most ``WEBHOOKS_MAX``), a delivery
written once (conditional Put: its id is deterministic), and the mark that its message went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import from_item, query_all, to_item, translate_errors, written_if
from core.webhooks.records import DeliveryRecord
from core.webhooks.write_store import delivery_item


@dataclass(frozen=True)
class Target:
    """What the fan-out needs of a webhook (its secret is never read here)."""

    id: str
    events: tuple[str, ...]
    enabled: bool
    created_at: str = ""  # RFC 3339: a change committed in an earlier second is not this webhook's


class FanOutStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def webhooks(self, workspace_id: str) -> list[Target]:
        """The workspace's webhooks, strongly consistent (one created just before the change is seen)."""
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ProjectionExpression": "id, #events, enabled, createdAt",
            "ExpressionAttributeNames": {"#events": "events"},
            "ExpressionAttributeValues": to_item({":pk": keys.workspace(workspace_id)["pk"],
                                                  ":prefix": keys.WEBHOOK}),
        })  # fmt: skip
        return [Target(str(r["id"]), tuple(r.get("events") or ()), bool(r.get("enabled", True)),
                       str(r.get("createdAt") or "")) for r in rows]  # fmt: skip

    def put(self, delivery: DeliveryRecord) -> DeliveryRecord | None:
        """Write the delivery unless it exists: None when written, else the one stored (the condition's failure
        returns it: no second read)."""
        with translate_errors("PutItem"):
            try:
                self._db.put_item(
                    TableName=self._table, Item=to_item(delivery_item(delivery)),
                    ConditionExpression="attribute_not_exists(pk)", ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )  # fmt: skip
            except self._db.exceptions.ConditionalCheckFailedException as exc:
                item = exc.response.get("Item")
                if item is None:  # DynamoDB returns it; should it not, read it (consistently) rather than guess
                    found = self._db.get_item(TableName=self._table, ConsistentRead=True,
                                              Key=to_item(keys.delivery(delivery.webhook_id, delivery.id)))  # fmt: skip
                    item = found.get("Item")
                    if item is None:
                        raise
                return DeliveryRecord.model_validate(from_item(item))
        return None

    def mark_queued(self, delivery: DeliveryRecord, at: str) -> None:
        """Its message went: a later hand-over of the same stream record sends none."""
        # False: gone meanwhile (its webhook deleted, its workspace purged): nothing to mark
        written_if(self._db, "UpdateItem", lambda: self._db.update_item(
            TableName=self._table, Key=to_item(keys.delivery(delivery.webhook_id, delivery.id)),
            UpdateExpression="SET queuedAt = :at", ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues=to_item({":at": at}),
        ))  # fmt: skip
