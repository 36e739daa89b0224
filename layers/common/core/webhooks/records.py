"""The webhooks' storage records (docs/data-model.md, ``main_table.webhook`` and ``main_table.delivery``), in the
API's camelCase."""

from __future__ import annotations

from typing import Literal

from core.platform.records import Record

DELIVERY_DAYS = 30  # a delivery's state is kept this long (its ``expiresAt``, the table's TTL)
MAX_URL = 2048
MAX_DESCRIPTION = 500

DeliveryStatus = Literal["pending", "delivered", "failed"]
DELIVERY_STATUSES: tuple[DeliveryStatus, ...] = ("pending", "delivered", "failed")
DisabledReason = Literal["gone", "failing"]


class WebhookRecord(Record):
    id: str
    workspace_id: str
    url: str
    events: list[str]  # event types, or ["*"]: every type
    description: str = ""
    enabled: bool = True
    disabled_reason: DisabledReason | None = None  # set by the delivery worker: 410 (gone) or 8 days of failures
    secret: str  # ``whsec_`` + base64 of 24 random bytes: never in an answer but create's and rotate's
    previous_secret: str | None = None  # after a rotation, it signs too until ``previousSecretUntil``
    previous_secret_until: int | None = None  # epoch seconds
    failing_since: str | None = None  # the delivery worker's: first failure of an unbroken run (cleared by a success)
    created_at: str
    updated_at: str
    version: int = 0


class DeliveryRecord(Record):
    id: str  # ``dlv_`` + a ULID of the event's time: the partition read backwards is newest first
    webhook_id: str
    workspace_id: str
    event_id: str  # the ``webhook-id`` header: the same on every attempt
    type: str
    body: str  # the exact JSON sent, so every attempt signs and sends the same bytes
    status: DeliveryStatus = "pending"
    attempts: int = 0
    last_status: int | None = None  # the receiver's HTTP status of the last attempt (None: no answer)
    last_error: str | None = None
    next_attempt_at: str | None = None  # RFC 3339; None once delivered or failed
    created_at: str
    expires_at: int  # epoch seconds: createdAt + DELIVERY_DAYS (TTL)
    # The fan-out's (core.webhooks.fanout): set once its first message was sent. A stream record handed over again
    # finds the delivery written; it sends the message again only when this is unset (a send lost between the two).
    queued_at: str | None = None
