"""The webhook delivery worker (``WebhookDeliveryFunction``) on moto, with receivers on loopback (issue 42, "Delivery"
and "SSRF"): retried through an outage with one ``webhook-id``, counted once under duplicated messages, on the
contract's schedule made of SQS hops of at most 15 minutes (a fake clock: nothing sleeps), 410 and eight days of
failures disabling with an audit entry, a hanging receiver delaying no other, the SSRF checks at delivery.

Receivers are local ``http://`` ones: ``WEBHOOK_ALLOW_LOCAL=true`` (as the local runner sets it); the refusal of
``http://`` where it is off is tested too.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import standardwebhooks.webhooks
import urllib3.util.connection
from standardwebhooks import Webhook as Verifier

from core.platform import aws as core_aws
from core.platform import providers as platform_providers
from core.platform.ids import iso
from core.platform.settings import get_settings
from core.webhooks import addresses
from core.webhooks import providers as webhooks
from core.webhooks.delivery import DeliveryWorker
from core.webhooks.delivery_store import DeliveryStore
from core.webhooks.queue import WebhookQueue
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

WORKSPACE = "ws_01HOOKS0000000000000000000"
SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def worker(aws: Any, monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> Callable[..., DeliveryWorker]:
    """The worker the handler runs, built as its provider builds it but on the fake clock (``make(**overrides)``)."""
    monkeypatch.setenv("WEBHOOK_ALLOW_LOCAL", "true")

    def make(**overrides: Any) -> DeliveryWorker:
        settings = get_settings()
        parts: dict[str, Any] = {
            "allow_local": True, "now": clock, "sender": HttpSender(),
            "resolve": addresses.system_resolve,
        } | overrides  # fmt: skip
        built = DeliveryWorker(
            DeliveryStore(core_aws.dynamodb(), settings.main_table),
            WebhookQueue(core_aws.client("sqs"), settings.webhook_delivery_queue_url),
            parts.pop("sender"), **parts,
        )  # fmt: skip
        monkeypatch.setattr(webhooks, "delivery_worker", lambda: built)
        return built

    make()
    return make


def hook(aws: Any, webhook: Any) -> dict[str, Any]:
    """The webhook as stored now (it must be)."""
    found = stored_webhook(aws.dynamodb, webhook)
    assert found is not None
    return found


def drain(aws: Any, clock: FakeClock, *, rounds: int = 200) -> list[dict[str, Any]]:
    """Run the worker on the queue until it is empty, moving the clock by each round's longest delay (the wait SQS
    would have made). Each round's messages, with their delays, are returned in order."""
    seen: list[dict[str, Any]] = []
    for _ in range(rounds):
        queued = take_deliveries(aws.sqs)
        if not queued:
            return seen
        clock.advance(max(q.delay for q in queued))
        seen.append({"at": clock(), "delays": [q.delay for q in queued], "bodies": [q.body for q in queued]})
        result = run_worker([q.message for q in queued])
        assert result == {"batchItemFailures": []}
    raise AssertionError("the queue never emptied")


def send(aws: Any, delivery: Any) -> None:
    """The fan-out's message for ``delivery``."""
    webhooks.queue().send(delivery.id, delivery.webhook_id, delivery.workspace_id)


class SignedAt(datetime):
    """The verifier library's clock: the moment the message was signed (its 5-minute tolerance is the receiver's,
    and the fake clock's moments are not the machine's)."""

    at: datetime = START

    @classmethod
    def now(cls, tz: Any = None) -> Any:
        return cls.at


def test_a_receiver_that_fails_then_recovers_gets_every_delivery_with_one_webhook_id(
    aws: Any, worker: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    outage = {"on": True}
    receiver = Receiver(answer=lambda n, path: (503, {}, b"down") if outage["on"] else (200, {}, b"ok"))
    with receiving(receiver):
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())
        deliveries = [seed_delivery(aws.dynamodb, webhook, event_type=t)
                      for t in ("member.joined", "agent.deleted", "feedback.created")]  # fmt: skip
        for delivery in deliveries:
            send(aws, delivery)
        run_worker([q.message for q in take_deliveries(aws.sqs)])  # attempt 1: the outage
        clock.advance(5)
        run_worker([q.message for q in take_deliveries(aws.sqs)])  # attempt 2, five seconds on: still down
        assert hook(aws, webhook)["failingSince"] == iso(START)
        outage["on"] = False
        drain(aws, clock)
    verifier = Verifier(webhook.secret)
    monkeypatch.setattr(standardwebhooks.webhooks, "datetime", SignedAt)
    for delivery in deliveries:
        stored = stored_delivery(aws.dynamodb, delivery)
        assert (stored["status"], stored["attempts"], stored["lastStatus"]) == ("delivered", 3, 200)
        assert stored["nextAttemptAt"] is None and stored["lastError"] is None
        assert stored["gsi1pk"] == f"WEBHOOK#{webhook.id}#delivered"
        hits = [hit for hit in receiver.hits if hit.body == delivery.body.encode()]
        assert [hit.status for hit in hits] == [503, 503, 200]  # delivered once it recovered, never again
        assert {hit.headers["webhook-id"] for hit in hits} == {delivery.event_id}  # one id across the attempts
        for hit in hits:  # signed as the published verifier library checks it (its clock the fake one's then)
            SignedAt.at = datetime.fromtimestamp(int(hit.headers["webhook-timestamp"]), UTC)
            assert verifier.verify(hit.body, hit.headers) == json.loads(delivery.body)
            assert hit.headers["user-agent"] == "workspace-webhooks/1"
    assert "failingSince" not in hook(aws, webhook)  # the success ended the run of failures


def test_the_schedule_is_made_of_hops_of_at_most_fifteen_minutes(aws: Any, worker: Any, clock: FakeClock) -> None:
    attempted_at: list[datetime] = []

    def failing(n: int, path: str) -> tuple[int, dict[str, str], bytes]:
        attempted_at.append(clock())
        return 500, {}, b"no"

    receiver = Receiver(answer=failing)
    with receiving(receiver):
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())
        delivery = seed_delivery(aws.dynamodb, webhook)
        send(aws, delivery)
        rounds = drain(aws, clock)
    assert len(attempted_at) == 8  # the first attempt and seven retries
    waits = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(attempted_at)]
    assert waits == list(SCHEDULE)
    delays = [d for r in rounds for d in r["delays"]]
    assert max(delays) <= 900  # SQS's longest delay: a longer wait is several hops
    hops = sum(1 for r in rounds for body in r["bodies"] if "attempts" in body)
    assert hops == len(delays) - 1  # every message after the fan-out's is the worker's own
    assert sum(delays) == sum(SCHEDULE)
    stored = stored_delivery(aws.dynamodb, delivery)
    assert (stored["status"], stored["attempts"], stored["lastStatus"], stored["nextAttemptAt"]) == (
        "failed", 8, 500, None)  # fmt: skip
    assert stored["lastError"] == "HTTP 500"
    print(f"attempts at +{[int((a - START).total_seconds()) for a in attempted_at]} s; "
          f"{len(delays)} messages, delays {sorted(set(delays))}")  # fmt: skip


def test_a_duplicated_message_counts_its_attempt_once(aws: Any, worker: Any, clock: FakeClock) -> None:
    receiver = Receiver(answer=lambda n, path: (500, {}, b"no"))
    with receiving(receiver):
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())
        delivery = seed_delivery(aws.dynamodb, webhook)
        # Two copies in one batch (handled at once, in two threads), then a third after both.
        assert run_worker([message(delivery), message(delivery)]) == {"batchItemFailures": []}
        assert run_worker([message(delivery)]) == {"batchItemFailures": []}
        stored = stored_delivery(aws.dynamodb, delivery)
        assert stored["attempts"] == 1 and stored["status"] == "pending"
        assert stored["nextAttemptAt"] == iso(START + timedelta(seconds=5))
        assert len(receiver.hits) <= 2  # at most the two concurrent copies POSTed (at least once, never counted twice)
        # Every copy left on the queue comes to one attempt more when its time comes, not one each.
        queued = take_deliveries(aws.sqs)
        assert len(queued) >= 2
        clock.advance(5)
        run_worker([q.message for q in queued])
        run_worker([q.message for q in queued])  # and SQS delivering that batch a second time
        stored = stored_delivery(aws.dynamodb, delivery)
        assert stored["attempts"] == 2
        assert stored["nextAttemptAt"] == iso(START + timedelta(seconds=5 + 300))


def test_a_410_disables_the_webhook_at_once_with_an_audit_entry(aws: Any, worker: Any, clock: FakeClock) -> None:
    receiver = Receiver(answer=lambda n, path: (410, {}, b"gone"))
    with receiving(receiver):
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())
        first, second = seed_delivery(aws.dynamodb, webhook), seed_delivery(aws.dynamodb, webhook)
        run_worker([message(first)])
        after = hook(aws, webhook)
        assert (after["enabled"], after["disabledReason"], after["version"]) == (False, "gone", 1)
        stored = stored_delivery(aws.dynamodb, first)
        assert (stored["status"], stored["attempts"], stored["lastStatus"]) == ("failed", 1, 410)
        [entry] = audit_entries(aws.dynamodb, WORKSPACE)
        assert (entry["action"], entry["actorId"], entry["target"]) == ("webhook.disable", "system", webhook.id)
        # A pending delivery of the disabled webhook ends failed when its message comes; nothing is sent.
        run_worker([message(second)])
        assert len(receiver.hits) == 1
    stored = stored_delivery(aws.dynamodb, second)
    assert (stored["status"], stored["attempts"], stored["lastError"]) == ("failed", 0, "webhook disabled")
    assert take_deliveries(aws.sqs) == []


def test_eight_days_of_nothing_but_failures_disable_the_webhook(aws: Any, worker: Any, clock: FakeClock) -> None:
    answers = {"status": 500}
    receiver = Receiver(answer=lambda n, path: (answers["status"], {}, b""))
    with receiving(receiver):
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())

        def attempt_one() -> None:
            run_worker([message(seed_delivery(aws.dynamodb, webhook))])
            take_deliveries(aws.sqs)  # its retries are not this test's

        attempt_one()
        assert hook(aws, webhook)["failingSince"] == iso(START)
        clock.advance(timedelta(days=4).total_seconds())
        answers["status"] = 204
        attempt_one()  # a success in between: the run of failures starts again
        assert "failingSince" not in hook(aws, webhook)
        answers["status"] = 500
        attempt_one()
        restarted = clock()
        clock.advance(timedelta(days=8).total_seconds() - 1)
        attempt_one()  # a second short of eight days: still enabled
        assert hook(aws, webhook)["enabled"] is True
        assert audit_entries(aws.dynamodb, WORKSPACE) == []
        clock.advance(1)
        attempt_one()
    after = hook(aws, webhook)
    assert (after["enabled"], after["disabledReason"]) == (False, "failing")
    assert "failingSince" not in after and restarted == START + timedelta(days=4)
    [entry] = audit_entries(aws.dynamodb, WORKSPACE)
    assert (entry["action"], entry["actorId"]) == ("webhook.disable", "system")


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every address the sender connects to (urllib3's own connect, which its connections call)."""
    made: list[tuple[str, int]] = []
    connect = urllib3.util.connection.create_connection

    def recorded(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        made.append(address)
        return connect(address, *args, **kwargs)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", recorded)
    return made


def test_a_redirect_to_the_metadata_address_is_a_failed_attempt(
    aws: Any, connections: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the function's own provider, built from its settings (WEBHOOK_ALLOW_LOCAL=true reaches the local
    receiver)."""
    monkeypatch.setenv("WEBHOOK_ALLOW_LOCAL", "true")
    platform_providers.reset()
    metadata = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
    receiver = Receiver(answer=lambda n, path: (302, {"location": metadata}, b""))
    with receiving(receiver):
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())
        delivery = seed_delivery(aws.dynamodb, webhook)
        assert run_worker([message(delivery)]) == {"batchItemFailures": []}
    stored = stored_delivery(aws.dynamodb, delivery)
    assert (stored["status"], stored["attempts"], stored["lastStatus"]) == ("pending", 1, 302)
    assert stored["lastError"] == "HTTP 302"
    assert len(receiver.hits) == 1
    assert connections == [("127.0.0.1", receiver.port)]  # the metadata URL never requested


def test_a_name_rebound_after_the_save_is_refused_at_delivery_and_nothing_is_sent(
    aws: Any, worker: Any, connections: list[tuple[str, int]]
) -> None:
    answers = {"hooks.example.com": ["93.184.216.34"]}

    def resolve(host: str, port: int) -> list[str]:
        return answers.get(host, [])

    url = "https://hooks.example.com/in"
    addresses.check_url(url, allow_local=False, resolve=resolve)  # the save passes: a public answer
    worker(resolve=resolve, allow_local=False)
    answers["hooks.example.com"] = ["169.254.169.254"]  # then the name answers the metadata address
    webhook = seed_webhook(aws.dynamodb, WORKSPACE, url)
    delivery = seed_delivery(aws.dynamodb, webhook)
    assert run_worker([message(delivery)]) == {"batchItemFailures": []}
    stored = stored_delivery(aws.dynamodb, delivery)
    assert (stored["status"], stored["attempts"], stored["lastStatus"]) == ("pending", 1, None)
    assert "169.254.169.254" in stored["lastError"] and "metadata" in stored["lastError"]
    assert connections == []  # nothing sent


def test_an_http_url_is_refused_at_delivery_where_local_addresses_are_not_allowed(
    aws: Any, worker: Any, connections: list[tuple[str, int]]
) -> None:
    with receiving(Receiver()) as receiver:
        worker(allow_local=False)
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())
        delivery = seed_delivery(aws.dynamodb, webhook)
        run_worker([message(delivery)])
        assert receiver.hits == [] and connections == []
    stored = stored_delivery(aws.dynamodb, delivery)
    assert stored["attempts"] == 1 and stored["lastError"] == "must start with https://"


class Deadlines:
    """The sender's deadline timer, fired by events instead of the wall clock: a POST's deadline fires once another
    POST of the batch has finished (its timer cancelled), or after ``bound`` seconds if none does. A worker that
    handled the batch one message at a time would reach the fast receiver only after the hanging one's deadline."""

    def __init__(self, events: list[tuple[str, float]], hanging: threading.Event, bound: float = 30.0) -> None:
        self.events = events
        self.hanging = hanging  # the hanging receiver holds its request: the deadline has something to cut
        self.bound = bound
        self.finished = threading.Condition()
        self.done = 0

    def __call__(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        state = {"cancelled": False}
        seen_done = self.done

        def watch() -> None:
            with self.finished:
                self.finished.wait_for(lambda: state["cancelled"] or self.done > seen_done, timeout=self.bound)
                if state["cancelled"]:
                    return
            self.hanging.wait(self.bound)
            self.events.append(("deadline fired", time.monotonic()))
            callback()

        def cancel() -> None:
            with self.finished:
                state["cancelled"] = True
                self.done += 1
                self.finished.notify_all()

        threading.Thread(target=watch, daemon=True).start()
        return cancel


def test_a_hanging_receiver_does_not_delay_another_receivers_post(aws: Any, worker: Any, clock: FakeClock) -> None:
    events: list[tuple[str, float]] = []
    held = threading.Event()
    worker(sender=HttpSender(start_timer=Deadlines(events, held)))

    def hung(hit: Any) -> None:
        events.append(("hanging hit", time.monotonic()))
        held.set()

    hanging = Receiver(hang=lambda path: True, on_hit=hung)
    fast = Receiver(on_hit=lambda hit: events.append(("fast hit", time.monotonic())))
    with receiving(hanging), receiving(fast):
        slow_hook = seed_webhook(aws.dynamodb, WORKSPACE, hanging.url())
        fast_hook = seed_webhook(aws.dynamodb, WORKSPACE, fast.url())
        stuck, quick = seed_delivery(aws.dynamodb, slow_hook), seed_delivery(aws.dynamodb, fast_hook)
        started = time.monotonic()
        assert run_worker([message(stuck), message(quick)]) == {"batchItemFailures": []}  # the hanging one first
    names = [name for name, _ in events]
    at = {name: moment - started for name, moment in events}
    print(f"latencies from the batch's start: hanging hit {at.get('hanging hit', -1):.3f} s, fast hit "
          f"{at.get('fast hit', -1):.3f} s, the hanging POST's deadline "
          f"{at.get('deadline fired', -1):.3f} s")  # fmt: skip
    assert names.index("fast hit") < names.index("deadline fired")
    assert stored_delivery(aws.dynamodb, quick)["status"] == "delivered"
    stuck_now = stored_delivery(aws.dynamodb, stuck)
    assert (stuck_now["status"], stuck_now["attempts"], stuck_now["lastError"]) == (
        "pending", 1, "timed out after 15 s")  # fmt: skip


def test_a_deleted_webhooks_delivery_ends_failed_without_a_post(aws: Any, worker: Any) -> None:
    with receiving(Receiver()) as receiver:
        webhook = seed_webhook(aws.dynamodb, WORKSPACE, receiver.url())
        delivery = seed_delivery(aws.dynamodb, webhook)
        key = {"pk": {"S": f"WS#{WORKSPACE}"}, "sk": {"S": f"WEBHOOK#{webhook.id}"}}
        aws.dynamodb.delete_item(TableName=get_settings().main_table, Key=key)
        run_worker([message(delivery)])
        assert receiver.hits == []
    stored = stored_delivery(aws.dynamodb, delivery)
    assert (stored["status"], stored["lastError"]) == ("failed", "webhook deleted")
    assert stored_webhook(aws.dynamodb, webhook) is None  # nothing wrote the webhook back
