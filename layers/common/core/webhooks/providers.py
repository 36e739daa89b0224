"""The webhooks' providers: the writer's service on its store and queue (H1 and H4 add the fan-out's and the
worker's)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.webhooks.delivery import DeliveryWorker
    from core.webhooks.fanout import FanOut
    from core.webhooks.queue import WebhookQueue
    from core.webhooks.writer import WebhookService


@per_container
def queue() -> WebhookQueue:
    from core.webhooks.queue import WebhookQueue

    return WebhookQueue(aws.client("sqs"), get_settings().webhook_delivery_queue_url)


@per_container
def writer() -> WebhookService:
    from core.audit import providers as audit
    from core.webhooks import addresses
    from core.webhooks.write_store import WebhookStore
    from core.webhooks.writer import WebhookService
    from core.workspaces import providers as workspaces

    settings = get_settings()
    return WebhookService(
        workspaces.access(), WebhookStore(aws.dynamodb(), settings.main_table), audit.writes(), queue,
        partial(addresses.check_url, allow_local=settings.webhook_allow_local), cap=settings.webhooks_max,
    )  # fmt: skip


@per_container
def delivery_worker() -> DeliveryWorker:
    """The delivery worker's service (``functions/workers/webhook_delivery``): its store, the queue it re-sends to,
    the sender (15 s, 1 KB), the settings' schedule and whether local addresses may be reached."""
    from core.webhooks.delivery import DeliveryWorker, schedule_of
    from core.webhooks.delivery_store import DeliveryStore
    from core.webhooks.sender import HttpSender

    settings = get_settings()
    return DeliveryWorker(
        DeliveryStore(aws.dynamodb(), settings.main_table), queue(), HttpSender(),
        allow_local=settings.webhook_allow_local, schedule=schedule_of(settings.webhook_retry_seconds),
    )  # fmt: skip


@per_container
def fanout() -> FanOut:
    """The events function's (functions/workers/events): stream records -> deliveries and their messages."""
    from core.events import providers as events
    from core.webhooks.fanout import FanOut
    from core.webhooks.fanout_store import FanOutStore

    return FanOut(events.store(), FanOutStore(aws.dynamodb(), get_settings().main_table), queue)
