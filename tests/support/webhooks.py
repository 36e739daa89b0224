"""The webhooks' API driven in process (``Studio`` calls of the eight portal routes), and deliveries written as the
fan-out writes them (``core.webhooks.write_store.delivery_item``), for the webhooks' tests."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from core.platform import main_table
from core.platform.dynamo import from_item, to_item
from core.platform.ids import iso, new_id
from core.platform.settings import get_settings
from core.webhooks.records import DELIVERY_DAYS, DeliveryRecord, DeliveryStatus
from core.webhooks.write_store import delivery_item
from tests.support.authoring import Studio
from tests.support.portal import take_messages

LIST, CREATE, UPDATE = "PortalWebhooksListFunction", "PortalWebhookCreateFunction", "PortalWebhookUpdateFunction"
DELETE, ROTATE, TEST = "PortalWebhookDeleteFunction", "PortalWebhookRotateFunction", "PortalWebhookTestFunction"
DELIVERIES, RETRY = "PortalWebhookDeliveriesFunction", "PortalWebhookRetryFunction"
# A public address written as a literal: saving it resolves nothing (the tests have no DNS).
URL = "https://93.184.215.14/hooks/workspace"


def create(studio: Studio, status: int = 201, **body: Any) -> dict[str, Any]:
    """POST …/webhooks: ``{webhook, secret}``."""
    answer: dict[str, Any] = studio.ok(CREATE, status, body={"url": URL, "events": ["*"]} | body)
    return answer


def stored_webhook(studio: Studio, webhook_id: str) -> dict[str, Any] | None:
    found = studio.portal.aws.dynamodb.get_item(
        TableName=get_settings().main_table, Key=to_item(main_table.webhook(studio.workspace_id, webhook_id)),
        ConsistentRead=True,
    ).get("Item")  # fmt: skip
    return from_item(found) if found else None


def stored_delivery(studio: Studio, webhook_id: str, delivery_id: str) -> dict[str, Any] | None:
    found = studio.portal.aws.dynamodb.get_item(
        TableName=get_settings().main_table, Key=to_item(main_table.delivery(webhook_id, delivery_id)),
        ConsistentRead=True,
    ).get("Item")  # fmt: skip
    return from_item(found) if found else None


def webhook_count(studio: Studio) -> int:
    item = studio.portal.aws.dynamodb.get_item(
        TableName=get_settings().main_table, Key=to_item(main_table.workspace(studio.workspace_id)),
        ConsistentRead=True,
    )["Item"]  # fmt: skip
    return int(from_item(item).get("webhookCount", 0))


def put_delivery(
    studio: Studio, webhook_id: str, at: datetime, status: DeliveryStatus = "pending", attempts: int = 0
) -> DeliveryRecord:
    """A delivery as the fan-out writes it (an event of time ``at``), with ``status`` and ``attempts``."""
    at_ms = int(at.timestamp() * 1000)
    body = json.dumps({"type": "feedback.created", "timestamp": iso(at), "data": {"workspaceId": studio.workspace_id}})
    delivery = DeliveryRecord(
        id=new_id("dlv", at_ms), webhook_id=webhook_id, workspace_id=studio.workspace_id,
        event_id=new_id("evt", at_ms), type="feedback.created", body=body, status=status, attempts=attempts,
        last_status=500 if status == "failed" else (200 if status == "delivered" else None),
        next_attempt_at=iso(at) if status == "pending" else None, created_at=iso(at),
        expires_at=int((at + timedelta(days=DELIVERY_DAYS)).timestamp()),
    )  # fmt: skip
    studio.portal.aws.dynamodb.put_item(TableName=get_settings().main_table, Item=to_item(delivery_item(delivery)))
    return delivery


def queued(studio: Studio) -> list[dict[str, Any]]:
    """The delivery queue's messages (their JSON bodies), taken off it."""
    taken = take_messages(studio.portal.aws.sqs, get_settings().webhook_delivery_queue_url)
    return [json.loads(m["Body"]) for m in taken]


def every_delivery(studio: Studio, webhook_id: str, limit: int, status: str | None = None) -> list[dict[str, Any]]:
    """Every delivery through the listing's pages of ``limit``."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {"limit": str(limit)} | ({"cursor": cursor} if cursor else {}) | ({"status": status} if status else {})
        page = studio.ok(DELIVERIES, webhook_id=webhook_id, query=query)
        assert len(page["deliveries"]) <= limit
        found += page["deliveries"]
        if (cursor := page["nextCursor"]) is None:
            return found


def start() -> datetime:
    return datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
