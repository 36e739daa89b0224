"""Every webhook write is audited (``webhook.create``, ``update``, ``delete``, ``rotate``, ``test``, ``retry``) in
its own transaction and honours ``Idempotency-Key``: a retry replays the first answer (create's and rotate's secret
too) and writes nothing more."""

from __future__ import annotations

from tests.support.authoring import Studio
from tests.support.webhooks import (
    CREATE,
    DELETE,
    LIST,
    RETRY,
    ROTATE,
    TEST,
    UPDATE,
    URL,
    put_delivery,
    queued,
    start,
    stored_webhook,
    webhook_count,
)


def test_each_write_leaves_one_entry_naming_its_request(studio: Studio) -> None:
    created = studio.ok(CREATE, 201, body={"url": URL, "events": ["*"]})
    webhook_id = created["webhook"]["id"]
    writes = [("webhook.create", f"webhook:{webhook_id}", studio.last_request_id)]
    studio.ok(UPDATE, webhook_id=webhook_id, body={"description": "CRM"})
    writes.append(("webhook.update", f"webhook:{webhook_id}", studio.last_request_id))
    studio.ok(ROTATE, webhook_id=webhook_id)
    writes.append(("webhook.rotate", f"webhook:{webhook_id}", studio.last_request_id))
    studio.ok(TEST, 202, webhook_id=webhook_id)
    writes.append(("webhook.test", f"webhook:{webhook_id}", studio.last_request_id))
    delivery = put_delivery(studio, webhook_id, start(), "failed", 8)
    studio.ok(RETRY, 202, webhook_id=webhook_id, delivery_id=delivery.id)
    writes.append(("webhook.retry", f"delivery:{delivery.id}", studio.last_request_id))
    studio.ok(DELETE, webhook_id=webhook_id)
    writes.append(("webhook.delete", f"webhook:{webhook_id}", studio.last_request_id))
    entries = [(e.action, e.target, e.request_id) for e in reversed(studio.audit())]
    assert [e for e in entries if e[0].startswith("webhook.")] == writes
    assert all(e.actor_id == studio.who.user_id for e in studio.audit())


def test_a_retried_create_replays_the_first_answer_and_makes_one_webhook(studio: Studio) -> None:
    body = {"url": URL, "events": ["*"]}
    first = studio.call(CREATE, body=body, key="create-1")
    again = studio.call(CREATE, body=body, key="create-1")
    assert (first.status, again.status) == (201, 201) and first.json() == again.json()
    assert len(studio.ok(LIST)["webhooks"]) == 1 and webhook_count(studio) == 1
    assert [e.action for e in studio.audit()].count("webhook.create") == 1


def test_a_retried_rotate_and_test_write_once(studio: Studio) -> None:
    webhook_id = studio.ok(CREATE, 201, body={"url": URL, "events": ["*"]})["webhook"]["id"]
    first = studio.ok(ROTATE, webhook_id=webhook_id, key="rotate-1")
    assert studio.ok(ROTATE, webhook_id=webhook_id, key="rotate-1") == first
    stored = stored_webhook(studio, webhook_id)
    assert stored is not None and stored["secret"] == first["secret"] and stored["version"] == 1
    sent = studio.ok(TEST, 202, webhook_id=webhook_id, key="test-1")
    assert studio.ok(TEST, 202, webhook_id=webhook_id, key="test-1") == sent
    assert [m["deliveryId"] for m in queued(studio)] == [sent["deliveryId"]]
    actions = [e.action for e in studio.audit()]
    assert (actions.count("webhook.rotate"), actions.count("webhook.test")) == (1, 1)
