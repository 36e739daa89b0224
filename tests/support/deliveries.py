"""The webhook delivery worker's harness: receivers on loopback, a fake clock, webhooks and deliveries seeded as
stored, and the worker run on the delivery queue's messages as Lambda's SQS event source would.

SQS holds a delayed message back in real time; a test with a fake clock must not wait, so ``take_deliveries`` takes
every message of the queue at once, each with the delay it still had (``Queued.delay``): the test moves its clock
by that much before handing it to the worker, as the time SQS would have waited.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import to_item
from core.platform.ids import iso, new_id
from core.platform.settings import get_settings
from core.webhooks import signing
from core.webhooks.records import DELIVERY_DAYS, DeliveryRecord, WebhookRecord
from tests.support.lambdas import LambdaContext, handler_module

FUNCTION = "WebhookDeliveryFunction"
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """The worker's ``now``: moves only when the test says."""

    def __init__(self, at: datetime = START):
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@dataclass
class Hit:
    """One request a receiver got."""

    path: str
    headers: dict[str, str]
    body: bytes
    status: int


@dataclass
class Receiver:
    """An HTTP server on 127.0.0.1: ``answer(hit_number, path) -> (status, headers, body)`` decides each answer (or,
    with ``hang``, blocks until ``release`` is set); every request is kept in ``hits``."""

    answer: Callable[[int, str], tuple[int, dict[str, str], bytes]] = lambda n, path: (200, {}, b"ok")
    hang: Callable[[str], bool] = lambda path: False
    hits: list[Hit] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    on_hit: Callable[[Hit], None] = lambda hit: None
    server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.server_address[1]

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def for_path(self, path: str) -> list[Hit]:
        return [hit for hit in self.hits if hit.path == path]


@contextmanager
def receiving(receiver: Receiver) -> Iterator[Receiver]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            with lock:
                number = len(receiver.hits)
                status, headers, answer = receiver.answer(number, self.path)
                hit = Hit(self.path, {k.lower(): v for k, v in self.headers.items()}, body, status)
                receiver.hits.append(hit)
            receiver.on_hit(hit)
            if receiver.hang(self.path):
                receiver.release.wait(60)
                return
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release.set()
        server.shutdown()
        server.server_close()


# --- stored state


def seed_webhook(dynamodb: Any, workspace_id: str, url: str, **fields: Any) -> WebhookRecord:
    at = iso(START)
    webhook = WebhookRecord(
        id=new_id("whk"), workspace_id=workspace_id, url=url, events=["*"], secret=signing.new_secret(),
        created_at=at, updated_at=at, **fields,
    )  # fmt: skip
    item = keys.webhook(workspace_id, webhook.id) | webhook.attributes()
    dynamodb.put_item(TableName=get_settings().main_table, Item=to_item(item))
    return webhook


def seed_delivery(dynamodb: Any, webhook: WebhookRecord, *, event_type: str = "webhook.test") -> DeliveryRecord:
    at = iso(START)
    body = json.dumps({"type": event_type, "timestamp": at, "data": {"workspaceId": webhook.workspace_id}})
    delivery = DeliveryRecord(
        id=new_id("dlv"), webhook_id=webhook.id, workspace_id=webhook.workspace_id, event_id=new_id("evt"),
        type=event_type, body=body, created_at=at, expires_at=int((START + timedelta(days=DELIVERY_DAYS)).timestamp()),
    )  # fmt: skip
    item = (
        keys.delivery(webhook.id, delivery.id)
        | keys.delivery_status_index(webhook.id, delivery.status, delivery.id)
        | delivery.attributes()
    )
    dynamodb.put_item(TableName=get_settings().main_table, Item=to_item(item))
    return delivery


def stored_delivery(dynamodb: Any, delivery: DeliveryRecord) -> dict[str, Any]:
    from core.platform.dynamo import from_item

    key = to_item(keys.delivery(delivery.webhook_id, delivery.id))
    return from_item(dynamodb.get_item(TableName=get_settings().main_table, Key=key, ConsistentRead=True)["Item"])


def stored_webhook(dynamodb: Any, webhook: WebhookRecord) -> dict[str, Any] | None:
    from core.platform.dynamo import from_item

    key = to_item(keys.webhook(webhook.workspace_id, webhook.id))
    found = dynamodb.get_item(TableName=get_settings().main_table, Key=key, ConsistentRead=True).get("Item")
    return from_item(found) if found else None


def audit_entries(dynamodb: Any, workspace_id: str) -> list[dict[str, Any]]:
    from core.platform.dynamo import from_item

    found = dynamodb.query(
        TableName=get_settings().main_table, KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues=to_item({":pk": keys.audit_partition(workspace_id)}),
    )["Items"]  # fmt: skip
    return [from_item(item) for item in found]


# --- the queue and the worker


@dataclass(frozen=True)
class Queued:
    """A message of the delivery queue, as ``receive_message`` gives it, and the delay it still had."""

    message: dict[str, Any]
    delay: float

    @property
    def body(self) -> dict[str, Any]:
        return dict(json.loads(self.message["Body"]))


def _moto_queue(url: str) -> Any:
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.sqs.models import sqs_backends

    name = url.rsplit("/", 1)[1]
    for region in ("us-east-1", *sqs_backends[DEFAULT_ACCOUNT_ID].keys()):
        queue = sqs_backends[DEFAULT_ACCOUNT_ID][region].queues.get(name)
        if queue is not None:
            return queue
    raise LookupError(name)


def take_deliveries(sqs: Any) -> list[Queued]:
    """Every message of the delivery queue, delayed or not, removed from it, with the delay each still had."""
    import time

    url = get_settings().webhook_delivery_queue_url
    queue = _moto_queue(url)
    now_ms = time.time() * 1000
    delays = {}
    for message in list(queue._messages):
        delays[message.id] = max(0.0, (message.delayed_until - now_ms) / 1000)
        message.delayed_until = 0  # visible now: the test's clock stands for the wait
    taken: list[Queued] = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0).get("Messages", [])
        if not got:
            return taken
        for message in got:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            taken.append(Queued(message, round(delays.get(message["MessageId"], 0.0))))


def sqs_records(messages: list[dict[str, Any]]) -> dict[str, Any]:
    arn = "arn:aws:sqs:us-east-1:123456789012:" + get_settings().webhook_delivery_queue_url.rsplit("/", 1)[1]
    return {"Records": [
        {"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"], "attributes": {},
         "messageAttributes": {}, "md5OfBody": m.get("MD5OfBody", ""), "eventSource": "aws:sqs",
         "eventSourceARN": arn, "awsRegion": "us-east-1"}
        for m in messages
    ]}  # fmt: skip


def message(delivery: DeliveryRecord, **extra: Any) -> dict[str, Any]:
    """A message naming ``delivery`` as the fan-out sends it (``extra``: the worker's own ``attempts``)."""
    body = {"deliveryId": delivery.id, "webhookId": delivery.webhook_id, "workspaceId": delivery.workspace_id}
    return {"MessageId": new_id("msg"), "ReceiptHandle": new_id("rh"), "Body": json.dumps(body | extra)}


def run_worker(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The worker's handler on one batch, as Lambda's SQS event source hands it."""
    result: dict[str, Any] = handler_module(FUNCTION).lambda_handler(
        sqs_records(messages), LambdaContext(function_name=FUNCTION, timeout_ms=45_000)
    )
    return result


def drain_deliveries(rounds: int = 1, clock: FakeClock | None = None) -> list[dict[str, Any]]:
    """The worker run on the queue's messages, ``rounds`` times (each round takes what the last one queued; with a
    ``clock``, moved on by the longest delay of the round first): each round's handler result."""
    from tests.conftest import Aws

    sqs = Aws().sqs
    results = []
    for _ in range(rounds):
        queued = take_deliveries(sqs)
        if not queued:
            break
        if clock is not None:
            clock.advance(max(q.delay for q in queued))
        for start in range(0, len(queued), 10):
            results.append(run_worker([q.message for q in queued[start : start + 10]]))
    return results
