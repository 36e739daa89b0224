"""The webhook delivery worker (``WebhookDeliveryFunction``, issue 42) failed at every AWS call of one message: the
read of the delivery and its webhook (BatchGetItem), the next attempt's message (SendMessage), the attempt's record
(UpdateItem, or TransactWriteItems when the webhook's run of failures starts or ends, or it is disabled with its
audit entry).

Afterwards the worker either finished or told SQS (``batchItemFailures``); redelivering what it reported and the
messages it queued, as SQS would (a fake clock stands for their delays), completes every delivery: none is lost,
none is left pending, a disabling is audited once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import timedelta
from http.server import ThreadingHTTPServer
from typing import Any

from core.platform import aws as core_aws
from core.platform.ids import iso
from core.platform.settings import get_settings
from core.webhooks import providers as webhooks
from core.webhooks.delivery import DeliveryWorker
from core.webhooks.delivery_store import DeliveryStore
from core.webhooks.queue import WebhookQueue
from core.webhooks.records import DeliveryRecord, WebhookRecord
from core.webhooks.sender import HttpSender
from tests.support.deliveries import (
    START,
    FakeClock,
    Receiver,
    audit_entries,
    message,
    receiving,
    run_worker,
    seed_delivery,
    seed_webhook,
    stored_delivery,
    stored_webhook,
    take_deliveries,
)
from tests.support.fault_harness import World, run_case, run_clean
from tests.support.fault_injection import Call, Fault

WORKSPACE = "ws_01FAULTHOOKS00000000000000"
REDELIVERIES = 30

# One receiver for the module (the arranged webhooks name its port): it answers what ``MODE`` says.
MODE = {"status": 200}
RECEIVER = Receiver(answer=lambda n, path: (MODE["status"], {}, b""))
_started: list[Any] = []
CLOCK: list[FakeClock] = []


def receiver_url() -> str:
    if not _started:
        context = receiving(RECEIVER)
        context.__enter__()
        _started.append(context)
    server: ThreadingHTTPServer | None = RECEIVER.server
    assert server is not None and threading.active_count() > 0
    return RECEIVER.url()


@dataclass(frozen=True)
class Arranged:
    webhook: WebhookRecord
    delivery: DeliveryRecord
    message: dict[str, Any]


@dataclass(frozen=True)
class DeliveryScenario:
    name: str
    act_status: int  # what the receiver answers during the act
    failing_since: bool = False  # the webhook already in a run of failures
    waiting: bool = False  # the delivery's next attempt an hour ahead
    recovered_status: int = 200  # what it answers while SQS redelivers

    def prepare(self, world: World) -> None:
        clock = FakeClock()
        CLOCK[:] = [clock]
        built: list[DeliveryWorker] = []

        def worker() -> DeliveryWorker:  # built on first use: its clients carry the injector
            if not built:
                settings = get_settings()
                built.append(DeliveryWorker(
                    DeliveryStore(core_aws.dynamodb(), settings.main_table),
                    WebhookQueue(core_aws.client("sqs"), settings.webhook_delivery_queue_url),
                    HttpSender(), allow_local=True, now=clock,
                ))  # fmt: skip
            return built[0]

        world.monkeypatch.setenv("WEBHOOK_ALLOW_LOCAL", "true")
        world.monkeypatch.setattr(webhooks, "delivery_worker", worker)

    def arrange(self, world: World) -> Arranged:
        fields: dict[str, Any] = {"failing_since": iso(START - timedelta(hours=1))} if self.failing_since else {}
        webhook = seed_webhook(world.aws.dynamodb, WORKSPACE, receiver_url(), **fields)
        delivery = seed_delivery(world.aws.dynamodb, webhook)
        if self.waiting:
            world.aws.dynamodb.update_item(
                TableName=get_settings().main_table,
                Key={"pk": {"S": f"WEBHOOK#{webhook.id}#DELIVERIES"}, "sk": {"S": f"DLV#{delivery.id}"}},
                UpdateExpression="SET nextAttemptAt = :next",
                ExpressionAttributeValues={":next": {"S": iso(START + timedelta(hours=1))}},
            )  # fmt: skip
        return Arranged(webhook, delivery, message(delivery))

    def act(self, world: World, state: Arranged) -> dict[str, Any]:
        MODE["status"] = self.act_status
        RECEIVER.hits.clear()
        return run_worker([state.message])

    def verify(self, world: World, state: Arranged, result: dict[str, Any], fault: Fault | None) -> None:
        assert fault is not None or result == {"batchItemFailures": []}
        MODE["status"] = self.recovered_status
        clock = CLOCK[0]
        again = [state.message] if result["batchItemFailures"] else []
        for _ in range(REDELIVERIES):  # SQS redelivers a reported message, and delivers the ones queued
            queued = take_deliveries(world.aws.sqs)
            if queued:
                clock.advance(max(q.delay for q in queued))
            batch = again + [q.message for q in queued]
            if not batch:
                break
            failed = {f["itemIdentifier"] for f in run_worker(batch)["batchItemFailures"]}
            assert not failed, "a message failed with nothing injected"
            again = []
        else:
            raise AssertionError("the delivery never finished")
        stored = stored_delivery(world.aws.dynamodb, state.delivery)
        webhook = stored_webhook(world.aws.dynamodb, state.webhook)
        assert webhook is not None
        disables = [e for e in audit_entries(world.aws.dynamodb, WORKSPACE) if e["action"] == "webhook.disable"]
        assert {hit.headers["webhook-id"] for hit in RECEIVER.hits} <= {state.delivery.event_id}
        if self.act_status == 410:
            assert (stored["status"], stored["lastStatus"]) == ("failed", 410)
            assert (webhook["enabled"], webhook["disabledReason"]) == (False, "gone")
            assert len(disables) == 1, disables  # disabled and audited once, whatever was retried
            return
        assert stored["status"] == "delivered", stored  # never lost, never left pending
        assert stored["nextAttemptAt"] is None and stored["lastStatus"] == 200
        assert "failingSince" not in webhook and webhook["enabled"] is True and disables == []

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [
    # BatchGetItem, SendMessage (the retry's message), UpdateItem (a failure within a run of failures)
    DeliveryScenario("failed-attempt", act_status=500, failing_since=True),
    # BatchGetItem, SendMessage, TransactWriteItems (the run of failures starts: failingSince)
    DeliveryScenario("first-failure", act_status=500),
    # BatchGetItem, TransactWriteItems (delivered, and the webhook's run of failures ended)
    DeliveryScenario("recovered", act_status=200, failing_since=True),
    # BatchGetItem, TransactWriteItems (disabled by a 410, with its audit entry)
    DeliveryScenario("gone", act_status=410, recovered_status=410),
    # BatchGetItem, SendMessage (a wait longer than SQS's delay, made of hops)
    DeliveryScenario("waiting", act_status=200, waiting=True),
]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
