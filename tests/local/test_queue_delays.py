"""The runner's SQS event sources honour a message's ``DelaySeconds`` (the webhook worker's re-queued waits) and the
event's ``ScalingConfig.MaximumConcurrency`` (a batch held by a hanging webhook receiver does not hold the next).

The webhook delivery worker makes its long waits (30 min … 10 h) by sending a message back with a delay of up to
15 minutes (docs/decisions.md). The runner's moto keeps a delayed message invisible until its delay has passed, and
the poller (``local.triggers.queues``) receives only what SQS gives it: a delayed message is not delivered before its
time, and is once the time has come. moto's clock is moved forward instead of waited for.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.core.utils import unix_time_millis

from local.aws.emulator import create_resources, start_moto
from local.triggers.queues import QueuePoller
from stack.template import Stack

HANG_SECONDS = 30  # only a test that hangs waits this long


def template(**event: Any) -> dict[str, Any]:
    queue = {"Type": "SQS", "Properties": {"Queue": {"Fn::GetAtt": ["Deliveries", "Arn"]}} | event}
    return {
        "Resources": {
            "Deliveries": {"Type": "AWS::SQS::Queue", "Properties": {}},
            "Worker": {"Type": "AWS::Serverless::Function", "Properties": {"Events": {"Queue": queue}}},
        }
    }


class Pool:
    """Notes the bodies it is given; a batch holding a body in ``held`` waits (for the test) before it returns."""

    def __init__(self, held: frozenset[str] = frozenset()) -> None:
        self.bodies: list[str] = []
        self.held, self.release = held, threading.Event()
        self._changed = threading.Condition()

    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        bodies = [record["body"] for record in event["Records"]]
        with self._changed:
            self.bodies += bodies
            self._changed.notify_all()
        if self.held & set(bodies):
            self.release.wait(HANG_SECONDS)
        return {}

    def wait_for(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.bodies) >= count, timeout=HANG_SECONDS), self.bodies


@pytest.fixture
def endpoint() -> Iterator[str]:
    server, url = start_moto()
    yield url
    server.stop()


def queue(endpoint: str, **event: Any) -> tuple[Any, str, Stack]:
    client = boto3.client(
        "sqs", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="local", aws_secret_access_key="local"
    )
    stack = Stack(template(**event), stack_name="delays")
    create_resources(stack, dynamodb=None, s3=None, sqs=client)
    return client, stack.resolve({"Ref": "Deliveries"}), stack


def test_a_delayed_message_is_delivered_once_its_delay_has_passed(
    endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, queue_url, stack = queue(endpoint)
    pool = Pool()
    poller = QueuePoller(stack, pool, client).start()  # type: ignore[arg-type]
    try:
        client.send_message(QueueUrl=queue_url, MessageBody="later", DelaySeconds=900)
        client.send_message(QueueUrl=queue_url, MessageBody="now")
        pool.wait_for(1)
        assert pool.bodies == ["now"]  # the delayed one, sent first, was not given
        counts = client.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["ApproximateNumberOfMessagesDelayed"])
        assert counts["Attributes"]["ApproximateNumberOfMessagesDelayed"] == "1"
        monkeypatch.setattr("moto.sqs.models.unix_time_millis", lambda *a: unix_time_millis(*a) + 901_000)  # 15 min on
        pool.wait_for(2)
        assert pool.bodies == ["now", "later"]
    finally:
        poller.close()


def test_a_held_batch_does_not_hold_the_next_with_maximum_concurrency(endpoint: str) -> None:
    client, queue_url, stack = queue(endpoint, ScalingConfig={"MaximumConcurrency": 2}, BatchSize=1)
    pool = Pool(held=frozenset({"hangs"}))
    poller = QueuePoller(stack, pool, client).start()  # type: ignore[arg-type]
    try:
        client.send_message(QueueUrl=queue_url, MessageBody="hangs")
        pool.wait_for(1)
        client.send_message(QueueUrl=queue_url, MessageBody="next")
        pool.wait_for(2)  # while the first batch is still held: another poller took it
        assert pool.bodies == ["hangs", "next"] and not pool.release.is_set()
    finally:
        pool.release.set()
        poller.close()
