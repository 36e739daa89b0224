"""The delivery worker's logic: one message, one delivery, at most one attempt (docs/decisions.md, "Webhooks:
delivery, retries and SSRF").

A message names a delivery (``queue.py``). The worker reads the delivery and its webhook (one BatchGetItem) and:

- drops the message when the delivery is gone (its 30 days passed, its workspace purged) or no longer pending, or
  when the message is a stale copy (it names the attempts it was sent after, and the delivery has moved on);
- ends the delivery ``failed`` when its webhook is deleted or disabled (no attempt);
- sends the message again, delayed, while the delivery's ``nextAttemptAt`` is ahead: SQS delays a message 15 minutes
  at most, so a wait of hours is made of several such hops;
- otherwise resolves the webhook's host and checks every answer (``addresses``: a refused address is the attempt's
  error and nothing is sent), POSTs the body with the Standard Webhooks headers (``sender``), and records the
  attempt conditioned on the attempts it read (``delivery_store``), so a duplicated message never counts twice.

After attempt n fails the delivery waits ``schedule[n-1]`` (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and is
``failed`` after the last. ``410 Gone`` disables the webhook at once; a failure when the webhook's unbroken run of
failures (``failingSince``) is eight days old disables it too; each disabling writes the audit entry
``webhook.disable`` (actor ``system``) in the same transaction.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol

from core.audit.records import AuditRecord
from core.platform.errors import InvalidWebhookUrl
from core.platform.ids import iso, new_id
from core.webhooks import addresses, signing
from core.webhooks.delivery_store import Recorded, WebhookChange
from core.webhooks.ports import DeliveryQueue
from core.webhooks.records import DeliveryRecord, WebhookRecord
from core.webhooks.sender import Answer

logger = logging.getLogger(__name__)

DEFAULT_SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)  # authoring.md: the waits after attempts 1..7
FAILING_DISABLES_AFTER = timedelta(days=8)
MAX_DELAY = 900  # SQS's longest message delay
SYSTEM = "system"  # the audit entry's actor when the worker disables a webhook
USER_AGENT = "workspace-webhooks/1"

Outcome = Literal["dropped", "waiting", "delivered", "retrying", "failed", "disabled"]


def schedule_of(setting: str) -> tuple[int, ...]:
    """``WEBHOOK_RETRY_SECONDS`` ("5,300,…") as the waits; empty: the contract's."""
    waits = tuple(int(part) for part in setting.split(",") if part.strip())
    return waits or DEFAULT_SCHEDULE


class Store(Protocol):
    def read(
        self, workspace_id: str, webhook_id: str, delivery_id: str
    ) -> tuple[DeliveryRecord | None, WebhookRecord | None]: ...
    def record(self, delivery: DeliveryRecord, after: Recorded, change: WebhookChange | None = None) -> bool: ...


class Sender(Protocol):
    def post(self, target: addresses.Target, headers: Mapping[str, str], body: bytes) -> Answer: ...


class RecordRefused(Exception):
    """An attempt's conditional record refused while the delivery is as it was read (SQS retries the message)."""


@dataclass(frozen=True)
class Message:
    delivery_id: str
    webhook_id: str
    workspace_id: str
    attempts: int | None = None  # the attempts the delivery had when this message was sent (absent: any)

    @classmethod
    def of(cls, body: Mapping[str, Any]) -> Message:
        attempts = body.get("attempts")
        return cls(str(body["deliveryId"]), str(body["webhookId"]), str(body["workspaceId"]),
                   attempts if isinstance(attempts, int) else None)  # fmt: skip


class DeliveryWorker:
    def __init__(
        self,
        store: Store,
        queue: DeliveryQueue,
        sender: Sender,
        *,
        allow_local: bool = False,
        schedule: Sequence[int] = DEFAULT_SCHEDULE,
        resolve: addresses.Resolver = addresses.system_resolve,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):
        self._store = store
        self._queue = queue
        self._sender = sender
        self._allow_local = allow_local
        self._schedule = tuple(schedule)
        self._resolve = resolve
        self._now = now

    def handle(self, message: Message, request_id: str = "") -> Outcome:
        """One message. Storage and queue failures raise (SQS delivers the message again: nothing is lost); a
        receiver's failure is the attempt's, recorded."""
        delivery, webhook = self._store.read(message.workspace_id, message.webhook_id, message.delivery_id)
        if delivery is None or delivery.status != "pending":
            return "dropped"
        if message.attempts is not None and message.attempts < delivery.attempts:
            # A copy older than the last attempt: that attempt's own message (sent before it was recorded) carries
            # the delivery on. A copy ahead of the stored attempts (its attempt's record failed or is not yet
            # written) is taken as current: the conditional record keeps the count right either way.
            return "dropped"
        if webhook is None or not webhook.enabled:
            reason = "webhook deleted" if webhook is None else "webhook disabled"
            ended = Recorded("failed", delivery.attempts, delivery.last_status, reason, None)
            self._recorded(delivery, ended)
            return "failed"
        now = self._now()
        if delivery.next_attempt_at is not None:
            wait = (datetime.fromisoformat(delivery.next_attempt_at) - now).total_seconds()
            if wait > 0:
                self._queue.send(delivery.id, delivery.webhook_id, delivery.workspace_id,
                                 min(math.ceil(wait), MAX_DELAY), attempts=delivery.attempts)  # fmt: skip
                return "waiting"
        answer = self._attempt(delivery, webhook, now)
        return self._record(delivery, webhook, answer, now, request_id)

    def _attempt(self, delivery: DeliveryRecord, webhook: WebhookRecord, now: datetime) -> Answer:
        try:  # resolved again now: the answer at save time is not trusted (DNS rebinding)
            target = addresses.target(webhook.url, allow_local=self._allow_local, resolve=self._resolve)
        except InvalidWebhookUrl as refused:
            return Answer(status=None, error=refused.message.removeprefix("url: "))
        timestamp = int(now.timestamp())
        live = signing.live_secrets(webhook.secret, webhook.previous_secret, webhook.previous_secret_until, timestamp)
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "webhook-id": delivery.event_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": signing.sign(delivery.event_id, timestamp, delivery.body, live),
        }
        return self._sender.post(target, headers, delivery.body.encode())

    def _record(
        self, delivery: DeliveryRecord, webhook: WebhookRecord, answer: Answer, now: datetime, request_id: str
    ) -> Outcome:
        attempts = delivery.attempts + 1
        at = iso(now)
        error = answer.error if answer.status is None else None if answer.delivered else f"HTTP {answer.status}"
        if answer.delivered:
            recovered = WebhookChange("recovered", at, since=webhook.failing_since) if webhook.failing_since else None
            done = Recorded("delivered", attempts, answer.status, None, None)
            return "delivered" if self._recorded(delivery, done, recovered) else "dropped"
        disable = self._disabling(webhook, answer, now)
        if disable is not None:
            entry = AuditRecord(
                id=new_id("aud"), workspace_id=webhook.workspace_id, action="webhook.disable", actor_id=SYSTEM,
                target=webhook.id, request_id=request_id or delivery.id, created_at=at,
            )  # fmt: skip
            change = WebhookChange("disable", at, reason=disable, entry=entry)
            failed = Recorded("failed", attempts, answer.status, error, None)
            recorded = self._recorded(delivery, failed, change)
            if recorded:
                logger.warning("webhook disabled", extra={"webhookId": webhook.id, "reason": disable})
            return "disabled" if recorded else "dropped"
        failing = None if webhook.failing_since else WebhookChange("failing", at)
        if attempts > len(self._schedule):
            recorded = self._recorded(delivery, Recorded("failed", attempts, answer.status, error, None), failing)
            return "failed" if recorded else "dropped"
        wait = self._schedule[attempts - 1]
        later = Recorded("pending", attempts, answer.status, error, iso(now + timedelta(seconds=wait)))
        # The next attempt's message first, the record second: a recorded attempt always has its message (a send
        # that fails raises before anything is recorded, and SQS delivers this message again); a record that fails
        # after the send leaves one copy more, which the conditional record makes harmless.
        self._queue.send(delivery.id, delivery.webhook_id, delivery.workspace_id, min(wait, MAX_DELAY),
                         attempts=attempts)  # fmt: skip
        return "retrying" if self._recorded(delivery, later, failing) else "dropped"

    def _recorded(self, delivery: DeliveryRecord, after: Recorded, change: WebhookChange | None = None) -> bool:
        """The record written (True), or lost to another copy of the message (False: the delivery moved on, and
        whatever moved it carries it on). A refusal that finds the delivery as it was read explains nothing: it is
        raised, so SQS delivers the message again rather than leave the delivery pending with no message."""
        if self._store.record(delivery, after, change):
            return True
        now, _ = self._store.read(delivery.workspace_id, delivery.webhook_id, delivery.id)
        if now is not None and now.status == "pending" and now.attempts == delivery.attempts:
            raise RecordRefused(f"the record of delivery {delivery.id} was refused, yet it is unchanged")
        return False

    @staticmethod
    def _disabling(webhook: WebhookRecord, answer: Answer, now: datetime) -> Literal["gone", "failing"] | None:
        if answer.status == 410:
            return "gone"
        if webhook.failing_since and now - datetime.fromisoformat(webhook.failing_since) >= FAILING_DISABLES_AFTER:
            return "failing"
        return None
