"""Webhooks as the portal writes them: one item each in the workspace's partition, counted on the workspace item
(``webhookCount``, moved in the webhook's own transaction, which caps it); and a webhook's deliveries as the portal
reads and retries them (the fan-out writes them, ``fanout_store.py``; the worker attempts them, ``delivery_store.py``).
"""

from __future__ import annotations

from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import get_item, query_all, to_item
from core.platform.errors import Conflict, NotFound
from core.platform.transactions import EXISTS, NEW, Also, Changed, Transaction
from core.platform.versions import unchanged_since, update_fields, versioned
from core.webhooks.records import DeliveryRecord, DeliveryStatus, WebhookRecord

CHANGED = Changed("The webhook changed while this request was applied; read it again")
DELIVERY_CHANGED = Changed("The delivery changed while this request was applied; read it again")
WORKSPACE_GONE = NotFound("Workspace not found")
# The workspace exists and holds fewer webhooks than the cap (a workspace older than webhooks has no counter).
ROOM = "attribute_exists(pk) AND (attribute_not_exists(webhookCount) OR webhookCount < :cap)"


def full(cap: int) -> Conflict:
    return Conflict(f"The workspace has {cap} webhooks, the most it may hold: delete one before adding another")


class _NoRoom(Conflict):
    """The create's workspace step failed: told apart (gone or full) by one more read."""


def delivery_item(delivery: DeliveryRecord) -> dict[str, Any]:
    """A delivery as stored: its key, its ``gsi1`` row under its status (``?status=``), its attributes."""
    return (
        keys.delivery(delivery.webhook_id, delivery.id)
        | keys.delivery_status_index(delivery.webhook_id, delivery.status, delivery.id)
        | delivery.attributes()
    )


class WebhookStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get(self, workspace_id: str, webhook_id: str) -> WebhookRecord | None:
        found = get_item(self._db, self._table, keys.webhook(workspace_id, webhook_id), consistent=True)
        return WebhookRecord.model_validate(found) if found else None

    def webhooks(self, workspace_id: str) -> list[WebhookRecord]:
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.workspace(workspace_id)["pk"], ":prefix": keys.WEBHOOK}),
        })  # fmt: skip
        return [WebhookRecord.model_validate(r) for r in rows]

    def create(self, webhook: WebhookRecord, cap: int, *, also: Also) -> None:
        """The webhook and its count on the workspace, if the workspace exists and holds fewer than ``cap``: however
        many creates run at once, at most ``cap`` succeed (409 past it; 404 for a workspace deleted meanwhile)."""
        ws = webhook.workspace_id
        tx = Transaction(self._table)
        tx.put(keys.webhook(ws, webhook.id) | webhook.attributes(), condition=NEW)
        tx.update(keys.workspace(ws), "ADD webhookCount :step", condition=ROOM, values={":step": 1, ":cap": cap},
                  name="room")  # fmt: skip
        try:
            tx.carry(also).commit_or_raise(self._db, {"room": _NoRoom(full(cap).message)})
        except _NoRoom:
            if get_item(self._db, self._table, keys.workspace(ws), consistent=True) is None:
                raise NotFound(WORKSPACE_GONE.message) from None
            raise full(cap) from None

    def update(self, old: WebhookRecord, new: WebhookRecord, *, also: Also) -> WebhookRecord:
        """``new``'s changed fields over ``old`` if the webhook is still as read (``version``)."""
        stored = versioned(old.version, new)
        # Only the fields this write changes: the worker's own (``failingSince``) set meanwhile are kept.
        before, after = old.model_dump(by_alias=True), stored.model_dump(by_alias=True)
        fields = {name: value for name, value in after.items() if value != before[name] and name != "version"}
        tx = Transaction(self._table)
        update_fields(tx, keys.webhook(old.workspace_id, old.id), fields, old.version)
        tx.carry(also).commit_or_raise(self._db, {"changed": CHANGED})
        return stored

    def delete(self, webhook: WebhookRecord, *, also: Also) -> None:
        """The webhook and its count. Its deliveries are left to their TTL (30 days): nothing lists or attempts the
        deliveries of a webhook that is gone (docs/decisions.md, "Webhooks: the API's choices")."""
        tx = Transaction(self._table)
        tx.delete(keys.webhook(webhook.workspace_id, webhook.id), condition=unchanged_since(webhook.version),
                  values={":seen": webhook.version}, name="changed")  # fmt: skip
        tx.update(keys.workspace(webhook.workspace_id), "ADD webhookCount :step", condition=EXISTS,
                  values={":step": -1}, name="workspace")  # fmt: skip
        tx.carry(also).commit_or_raise(self._db, {"changed": CHANGED, "workspace": WORKSPACE_GONE})

    def add_delivery(self, delivery: DeliveryRecord, *, also: Also) -> None:
        """A delivery the portal starts (``webhook.test``), with the write's audit entry."""
        Transaction(self._table).put(delivery_item(delivery), condition=NEW).carry(also).commit_or_raise(self._db)

    def delivery(self, webhook_id: str, delivery_id: str) -> DeliveryRecord | None:
        found = get_item(self._db, self._table, keys.delivery(webhook_id, delivery_id), consistent=True)
        return DeliveryRecord.model_validate(found) if found else None

    def deliveries(
        self, webhook_id: str, status: DeliveryStatus | None, limit: int, after: str | None
    ) -> list[DeliveryRecord]:
        """The newest ``limit`` deliveries (ids are time-ordered: the sort key orders them), of one ``status`` through
        ``gsi1`` (eventually consistent, as an index is), or the newest older than the one whose sort key is
        ``after``."""
        partition = keys.deliveries_partition(webhook_id)
        request: dict[str, Any] = {"TableName": self._table, "ScanIndexForward": False, "Limit": limit}
        if status is None:
            request |= {"ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
                        "ExpressionAttributeValues": to_item({":pk": partition})}  # fmt: skip
        else:
            index_pk = keys.delivery_status_index(webhook_id, status, "")["gsi1pk"]
            request |= {"IndexName": "gsi1", "KeyConditionExpression": "gsi1pk = :pk",
                        "ExpressionAttributeValues": to_item({":pk": index_pk})}  # fmt: skip
        if after is not None:
            start = {"pk": partition, "sk": after}
            if status is not None:
                start |= {"gsi1pk": index_pk, "gsi1sk": after}
            request["ExclusiveStartKey"] = to_item(start)
        return [DeliveryRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def requeue(self, old: DeliveryRecord, new: DeliveryRecord, *, also: Also) -> None:
        """``new``'s status and next attempt (its ``gsi1`` row moved with the status), if the delivery's status and
        attempts are still as read: a worker's attempt meanwhile makes this a ``Changed``, read again."""
        index = keys.delivery_status_index(new.webhook_id, new.status, new.id)
        tx = Transaction(self._table)
        tx.update(
            keys.delivery(old.webhook_id, old.id),
            "SET #status = :status, nextAttemptAt = :next, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk",
            condition="#status = :seen AND attempts = :attempts", name="changed", names={"#status": "status"},
            values={":status": new.status, ":next": new.next_attempt_at, ":gsi1pk": index["gsi1pk"],
                    ":gsi1sk": index["gsi1sk"], ":seen": old.status, ":attempts": old.attempts},
        )  # fmt: skip
        tx.carry(also).commit_or_raise(self._db, {"changed": DELIVERY_CHANGED})
