"""The runner's SQS event sources honour a message's ``DelaySeconds`` (the webhook worker's re-queued waits).

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

TEMPLATE = {
    "Resources": {
        "Deliveries": {"Type": "AWS::SQS::Queue", "Properties": {}},
        "Worker": {
            "Type": "AWS::Serverless::Function",
            "Properties": {
                "Events": {
                    "Queue": {"Type": "SQS", "Properties": {"Queue": {"Fn::GetAtt": ["Deliveries", "Arn"]}}},
                }
            },
        },
    }
}


class Pool:
    def __init__(self) -> None:
        self.bodies: list[str] = []
        self._changed = threading.Condition()

    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        with self._changed:
            self.bodies += [record["body"] for record in event["Records"]]
            self._changed.notify_all()
        return {}

    def wait_for(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.bodies) >= count, timeout=HANG_SECONDS), self.bodies


@pytest.fixture
def sqs() -> Iterator[tuple[Any, str, Stack]]:
    server, url = start_moto()
    client = boto3.client(
        "sqs", endpoint_url=url, region_name="us-east-1", aws_access_key_id="local", aws_secret_access_key="local"
    )
    stack = Stack(TEMPLATE, stack_name="delays")
    create_resources(stack, dynamodb=None, s3=None, sqs=client)
    yield client, stack.resolve({"Ref": "Deliveries"}), stack
    server.stop()


def test_a_delayed_message_is_delivered_once_its_delay_has_passed(
    sqs: tuple[Any, str, Stack], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, queue_url, stack = sqs
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
