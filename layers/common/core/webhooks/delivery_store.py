"""The delivery worker's DynamoDB: a delivery and its webhook read together, and an attempt's record.

An attempt is recorded on the delivery conditioned on the ``attempts`` the worker read (and ``pending``): a message
delivered twice, or a second copy of it, can never count one attempt twice nor undo a later one. What the attempt
changes on the webhook (the start or end of a run of failures, ``failingSince``; its disabling, with the audit
entry ``webhook.disable``) is in the same transaction; a webhook deleted or disabled meanwhile leaves the delivery's
record alone to be written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from core.audit.records import AuditRecord
from core.audit.store import AuditStore
from core.platform import main_table as keys
from core.platform.dynamo import batch_get, to_item, written_if
from core.platform.transactions import Transaction
from core.webhooks.records import DeliveryRecord, DeliveryStatus, DisabledReason, WebhookRecord


@dataclass(frozen=True)
class Recorded:
    """A delivery after an attempt (or after it was given up without one)."""

    status: DeliveryStatus
    attempts: int
    last_status: int | None
    last_error: str | None
    next_attempt_at: str | None


@dataclass(frozen=True)
class WebhookChange:
    """What an attempt changes on its webhook: ``failing`` (a run of failures starts at ``at``), ``recovered`` (a
    success ends the run that started at ``since``), or ``disable`` (with its ``reason`` and audit ``entry``)."""

    kind: Literal["failing", "recovered", "disable"]
    at: str
    since: str | None = None
    reason: DisabledReason | None = None
    entry: AuditRecord | None = None


class DeliveryStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table
        self._audit = AuditStore(client, table)

    def read(
        self, workspace_id: str, webhook_id: str, delivery_id: str
    ) -> tuple[DeliveryRecord | None, WebhookRecord | None]:
        """The delivery and its webhook, in one consistent BatchGetItem (either may be gone)."""
        wanted = [keys.delivery(webhook_id, delivery_id), keys.webhook(workspace_id, webhook_id)]
        delivery: DeliveryRecord | None = None
        webhook: WebhookRecord | None = None
        for item in batch_get(self._db, self._table, wanted):
            if item["sk"].startswith(keys.DELIVERY):
                delivery = DeliveryRecord.model_validate(item)
            else:
                webhook = WebhookRecord.model_validate(item)
        return delivery, webhook

    def record(self, delivery: DeliveryRecord, after: Recorded, change: WebhookChange | None = None) -> bool:
        """``after`` on the delivery if it is still pending with the attempts read, with ``change`` on its webhook
        when the webhook is still as the change expects. False: the delivery moved meanwhile (another copy of the
        message recorded first): nothing written."""
        index = keys.delivery_status_index(delivery.webhook_id, after.status, delivery.id)
        key = keys.delivery(delivery.webhook_id, delivery.id)
        expression = ("SET #status = :status, attempts = :attempts, lastStatus = :lastStatus, lastError = :lastError, "
                      "nextAttemptAt = :next, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk")  # fmt: skip
        condition, names = "#status = :pending AND attempts = :read", {"#status": "status"}
        values = {
            ":status": after.status, ":attempts": after.attempts, ":lastStatus": after.last_status,
            ":lastError": after.last_error, ":next": after.next_attempt_at, ":gsi1pk": index["gsi1pk"],
            ":gsi1sk": index["gsi1sk"], ":read": delivery.attempts, ":pending": "pending",
        }  # fmt: skip

        def alone() -> bool:
            return written_if(self._db, "UpdateItem", lambda: self._db.update_item(
                TableName=self._table, Key=to_item(key), UpdateExpression=expression, ConditionExpression=condition,
                ExpressionAttributeNames=names, ExpressionAttributeValues=to_item(values)))  # fmt: skip

        if change is None:
            return alone()
        tx = Transaction(self._table)
        tx.update(key, expression, condition=condition, values=values, names=names, name="delivery")
        self._webhook_step(tx, delivery, change)
        failed = tx.commit(self._db)
        if failed == "webhook":  # the webhook was deleted, disabled or recovered meanwhile: the delivery alone
            return alone()
        return failed is None

    def _webhook_step(self, tx: Transaction, delivery: DeliveryRecord, change: WebhookChange) -> None:
        key = keys.webhook(delivery.workspace_id, delivery.webhook_id)
        if change.kind == "failing":  # the first failure of a run; two at once keep the earlier
            tx.update(key, "SET failingSince = if_not_exists(failingSince, :at)", name="webhook",
                      condition="attribute_exists(pk) AND enabled = :true",
                      values={":at": change.at, ":true": True})  # fmt: skip
        elif change.kind == "recovered":
            tx.update(key, "REMOVE failingSince", condition="failingSince = :since", name="webhook",
                      values={":since": change.since})  # fmt: skip
        else:
            assert change.entry is not None and change.reason is not None
            # Disabled once: of two attempts that would disable it, one writes (and audits); the other's delivery
            # is recorded alone. The run of failures ends with it: re-enabled, the webhook starts afresh.
            tx.update(
                key, "SET enabled = :false, disabledReason = :reason, updatedAt = :at REMOVE failingSince "
                "ADD version :one", condition="attribute_exists(pk) AND enabled = :true", name="webhook",
                values={":false": False, ":true": True, ":reason": change.reason, ":at": change.at, ":one": 1},
            )  # fmt: skip
            tx.extend([self._audit.entry(change.entry)])
