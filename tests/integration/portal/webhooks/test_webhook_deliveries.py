"""A webhook's deliveries: ``webhook.test`` writes a pending delivery and its message; the listing is newest first,
a page and a cursor, ``?status=`` through ``gsi1``; a retry makes a delivery pending now and sends its message."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from core.platform import cursors
from core.webhooks.records import DeliveryStatus
from tests.support.authoring import Studio
from tests.support.portal import assert_error
from tests.support.webhooks import (
    DELIVERIES,
    RETRY,
    TEST,
    UPDATE,
    create,
    every_delivery,
    put_delivery,
    queued,
    start,
    stored_delivery,
)

DELIVERY_FIELDS = {
    "id",
    "eventId",
    "type",
    "status",
    "attempts",
    "lastStatus",
    "lastError",
    "nextAttemptAt",
    "createdAt",
}


def test_a_test_event_writes_a_pending_delivery_and_its_message(studio: Studio) -> None:
    webhook = create(studio, events=["member.joined"])["webhook"]  # sent whatever the webhook's events
    started = studio.ok(TEST, 202, webhook_id=webhook["id"])
    assert set(started) == {"deliveryId"} and started["deliveryId"].startswith("dlv_")
    assert queued(studio) == [
        {"deliveryId": started["deliveryId"], "webhookId": webhook["id"], "workspaceId": studio.workspace_id}
    ]
    listed = studio.ok(DELIVERIES, webhook_id=webhook["id"])
    assert listed["nextCursor"] is None and len(listed["deliveries"]) == 1
    delivery = listed["deliveries"][0]
    assert set(delivery) == DELIVERY_FIELDS
    assert (delivery["id"], delivery["type"], delivery["status"], delivery["attempts"]) == (
        started["deliveryId"], "webhook.test", "pending", 0,
    )  # fmt: skip
    assert delivery["eventId"].startswith("evt_") and delivery["nextAttemptAt"] == delivery["createdAt"]
    stored = stored_delivery(studio, webhook["id"], started["deliveryId"])
    assert stored is not None and stored["gsi1pk"] == f"WEBHOOK#{webhook['id']}#pending"
    body = json.loads(stored["body"])
    assert body["type"] == "webhook.test" and body["timestamp"] == delivery["createdAt"]
    assert body["data"]["workspaceId"] == studio.workspace_id and body["data"]["webhookId"] == webhook["id"]
    assert len(stored["body"].encode()) <= 20 * 1024
    assert stored["expiresAt"] == int(datetime.fromisoformat(delivery["createdAt"]).timestamp()) + 30 * 86400
    pending = studio.ok(DELIVERIES, webhook_id=webhook["id"], query={"status": "pending"})["deliveries"]
    assert [d["id"] for d in pending] == [started["deliveryId"]]


def test_a_disabled_webhook_takes_no_test(studio: Studio) -> None:
    webhook = create(studio)["webhook"]
    studio.ok(UPDATE, webhook_id=webhook["id"], body={"enabled": False})
    assert_error(studio.call(TEST, webhook_id=webhook["id"]), 409, "CONFLICT")
    assert queued(studio) == [] and studio.ok(DELIVERIES, webhook_id=webhook["id"])["deliveries"] == []


def test_the_listing_is_newest_first_a_page_at_a_time_and_by_status(studio: Studio) -> None:
    webhook_id = create(studio)["webhook"]["id"]
    other = create(studio)["webhook"]["id"]
    statuses: list[DeliveryStatus] = ["pending", "delivered", "failed"]
    written = [put_delivery(studio, webhook_id, start() + timedelta(minutes=n), statuses[n % 3]) for n in range(25)]
    put_delivery(studio, other, start() + timedelta(hours=1))  # another webhook's: never listed here
    newest_first = [d.id for d in reversed(written)]

    for limit in (1, 7, 25, 100):
        assert [d["id"] for d in every_delivery(studio, webhook_id, limit)] == newest_first
    first = studio.ok(DELIVERIES, webhook_id=webhook_id, query={"limit": "25"})
    assert first["nextCursor"] is None  # exactly one page: no cursor to an empty one
    assert studio.ok(DELIVERIES, webhook_id=webhook_id)["deliveries"] == first["deliveries"][:20]  # default 20

    for status in statuses:
        expected = [d.id for d in reversed(written) if d.status == status]
        listed = every_delivery(studio, webhook_id, 3, status)
        assert [d["id"] for d in listed] == expected and {d["status"] for d in listed} == {status}


@pytest.mark.parametrize(
    "query",
    [
        {"status": "lost"},
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "ten"},
        {"cursor": "not a cursor"},
        {"cursor": cursors.encode("ANSWER#ans_01JD0SAMPLE0000000000000000")},
    ],
)
def test_bad_queries_are_400(studio: Studio, query: dict[str, str]) -> None:
    webhook_id = create(studio)["webhook"]["id"]
    assert_error(studio.call(DELIVERIES, webhook_id=webhook_id, query=query), 400, "VALIDATION_ERROR")


@pytest.mark.parametrize(("status", "attempts"), [("failed", 8), ("pending", 3), ("delivered", 1)])
def test_a_retry_makes_the_delivery_pending_now_and_sends_it(studio: Studio, status: str, attempts: int) -> None:
    webhook_id = create(studio)["webhook"]["id"]
    delivery = put_delivery(studio, webhook_id, start(), status, attempts)  # type: ignore[arg-type]
    result = studio.call(RETRY, webhook_id=webhook_id, delivery_id=delivery.id)
    assert (result.status, result.json()) == (202, {})
    assert queued(studio) == [{"deliveryId": delivery.id, "webhookId": webhook_id, "workspaceId": studio.workspace_id}]
    stored = stored_delivery(studio, webhook_id, delivery.id)
    assert stored is not None and stored["status"] == "pending" and stored["attempts"] == attempts
    assert stored["nextAttemptAt"] > delivery.created_at and stored["gsi1pk"] == f"WEBHOOK#{webhook_id}#pending"
    assert stored["eventId"] == delivery.event_id and stored["body"] == delivery.body  # the same message again
    assert [d["id"] for d in every_delivery(studio, webhook_id, 10, "pending")] == [delivery.id]
    assert every_delivery(studio, webhook_id, 10, status) == ([] if status != "pending" else every_delivery(
        studio, webhook_id, 10, "pending"))  # fmt: skip


def test_a_retry_of_an_unknown_delivery_or_on_a_disabled_webhook_is_refused(studio: Studio) -> None:
    webhook_id = create(studio)["webhook"]["id"]
    assert_error(studio.call(RETRY, webhook_id=webhook_id, delivery_id="dlv_01JD0SAMPLE00000000000000"), 404,
                 "NOT_FOUND")  # fmt: skip
    delivery = put_delivery(studio, webhook_id, start(), "failed", 8)
    studio.ok(UPDATE, webhook_id=webhook_id, body={"enabled": False})
    assert_error(studio.call(RETRY, webhook_id=webhook_id, delivery_id=delivery.id), 409, "CONFLICT")
    stored = stored_delivery(studio, webhook_id, delivery.id)
    assert stored is not None and stored["status"] == "failed" and queued(studio) == []
