"""Events -> deliveries: each event of a stream record to the workspace's webhooks that ask for its type.

Per (event, webhook): one Delivery item, written with ``attribute_not_exists`` under a deterministic id (the event's
time and a hash of event and webhook), then one message on the delivery queue, then the delivery marked
``queuedAt``. A stream record handed over again (a retried batch, after any failure of this or a later record)
finds its deliveries written and marked: nothing is written or sent twice. A delivery written but never marked (the
send, or the mark, failed) has its message sent again: the worker attempts a delivery once per attempt however many
messages name it (its write is conditioned on the attempts it read), and receivers dedupe on ``webhook-id``.

Before a workspace's events go anywhere its item is read (once a batch): a workspace that is gone (deleted, being
purged) gets none; one with no webhook (``webhookCount`` 0 or absent) costs no Query. A failure raises: the record
is reported in ``batchItemFailures`` and handed over again, from it on (nothing lost).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from core.events.catalogue import subscribed
from core.events.changes import TableKind, events_of
from core.events.owners import Workspaces
from core.events.records import AccountChange, Event
from core.events.store import EventStore
from core.platform.ids import crockford, iso
from core.webhooks.fanout_store import FanOutStore, Target
from core.webhooks.ports import DeliveryQueue
from core.webhooks.records import DELIVERY_DAYS, DeliveryRecord

logger = logging.getLogger(__name__)


def delivery_id(event: Event, webhook_id: str) -> str:
    """``dlv_`` + a ULID whose time is the event's and whose random part is the SHA-256 of event and webhook:
    the same on every hand-over of the record, and newest first when a webhook's deliveries are read backwards."""
    at_ms = max(0, int(datetime.fromisoformat(event.timestamp).timestamp() * 1000))
    digest = hashlib.sha256(f"{event.id}|{webhook_id}".encode()).digest()
    # as core.platform.ids.ulid: 48 bits of milliseconds, then 80 bits (of the hash here), in 26 characters
    return "dlv_" + crockford((at_ms % (1 << 48)) << 80 | int.from_bytes(digest[:10], "big"), 26)


def _before(event: Event, webhook: Target) -> bool:
    """A change committed before the webhook was made is not its (the stream may hand it over after: the owner's
    own joining at the workspace's creation, read once a webhook exists). By whole seconds, as a stream record's
    time is given, so a change in the webhook's own second is delivered rather than lost."""
    return bool(webhook.created_at) and event.timestamp[:19] < webhook.created_at[:19]


@dataclass
class Tally:
    """What one record came to (logged per batch; the benchmark counts them)."""

    events: int = 0
    dropped: int = 0  # events of a workspace that is gone
    written: int = 0  # deliveries new this time
    resent: int = 0  # deliveries found written but not marked sent: their message sent again
    kinds: list[str] = field(default_factory=list)


class FanOut:
    def __init__(self, events: EventStore, store: FanOutStore, queue: Callable[[], DeliveryQueue],
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)):  # fmt: skip
        self._events = events
        self._store = store
        self._queue = queue
        self._now = now
        self.begin()

    def begin(self) -> None:
        """A new batch: what the last one read is forgotten (a retried batch reads everything again)."""
        self._workspaces = Workspaces(self._events)
        self._webhooks: dict[str, list[Target]] = {}

    def record(self, table: TableKind, record: Mapping[str, Any]) -> Tally:
        tally = Tally()
        for change in events_of(table, record):
            for event in self._workspaces.route(change) if isinstance(change, AccountChange) else [change]:
                tally.events += 1
                tally.kinds.append(event.type)
                self._fan(event, tally)
        return tally

    def _fan(self, event: Event, tally: Tally) -> None:
        workspace = self._workspaces.item(event.workspace_id)
        if workspace is None:
            tally.dropped += 1
            return
        if not workspace.get("webhookCount"):
            return
        if event.workspace_id not in self._webhooks:
            self._webhooks[event.workspace_id] = self._store.webhooks(event.workspace_id)
        for webhook in self._webhooks[event.workspace_id]:
            if webhook.enabled and subscribed(webhook.events, event.type) and not _before(event, webhook):
                self.deliver(event, webhook.id, tally)

    def deliver(self, event: Event, webhook_id: str, tally: Tally | None = None) -> DeliveryRecord:
        """The event's delivery to the webhook, written once and its message sent once it is (see the module)."""
        tally = tally if tally is not None else Tally()
        now = self._now()
        delivery = DeliveryRecord(
            id=delivery_id(event, webhook_id), webhook_id=webhook_id, workspace_id=event.workspace_id,
            event_id=event.id, type=event.type, body=event.body(), next_attempt_at=iso(now), created_at=iso(now),
            expires_at=int((now + timedelta(days=DELIVERY_DAYS)).timestamp()),
        )  # fmt: skip
        stored = self._store.put(delivery)
        if stored is None:
            tally.written += 1
        elif stored.queued_at is None and stored.status == "pending" and stored.attempts == 0:
            delivery = stored  # written by an earlier hand-over whose send (or mark) failed
            tally.resent += 1
        else:
            return stored  # written and sent before: nothing to do twice
        self._queue().send(delivery.id, delivery.webhook_id, delivery.workspace_id)
        try:
            self._store.mark_queued(delivery, iso(self._now()))
        except Exception:  # the message went: unmarked, a retry would only send it again (harmless), so go on
            logger.exception("marking a delivery queued failed", extra={"deliveryId": delivery.id})
        return delivery
