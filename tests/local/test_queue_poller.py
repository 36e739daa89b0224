"""The runner's SQS event source closing (``local.triggers.queues.QueuePoller.close``): a delivery under way ends with
its messages deleted before close returns; a poller in its long poll is not waited for, and what it receives once
closing is not delivered (SQS gives it again after its visibility timeout, as it would after a restart)."""

from __future__ import annotations

import threading
import time
from typing import Any

from local.triggers.queues import QueuePoller
from tests.support.lambdas import stack


class Queue:
    """A fake SQS with one queue that holds anything, the purge queue: ``receive_message`` answers its ``batches`` one
    by one, else long-polls (a second) and answers what arrived meanwhile. Every other queue stays empty."""

    def __init__(self, *batches: list[dict[str, Any]]):
        self.batches = list(batches)
        self.deleted: list[str] = []
        self.polling = threading.Event()

    def receive_message(self, *, QueueUrl: str, **_: Any) -> dict[str, Any]:
        if not QueueUrl.endswith("/local-purgequeue"):
            time.sleep(1)
            return {}
        if not self.batches:
            self.polling.set()
            time.sleep(1)
        return {"Messages": self.batches.pop(0)} if self.batches else {}

    def delete_message(self, *, QueueUrl: str, ReceiptHandle: str) -> None:
        self.deleted.append(ReceiptHandle)


class Pool:
    """Functions that take ``seconds`` to run a batch, and note which they ran."""

    def __init__(self, seconds: float = 0):
        self.seconds, self.ran = seconds, threading.Event()
        self.started = threading.Event()

    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        self.started.set()
        time.sleep(self.seconds)
        self.ran.set()
        return {}


def message(n: int) -> dict[str, Any]:
    return {"MessageId": f"m{n}", "ReceiptHandle": f"r{n}", "Body": "{}"}


def poller(queue: Queue, pool: Pool) -> QueuePoller:
    """The template's event sources, on the fake queue and functions."""
    return QueuePoller(stack(), pool, queue)  # type: ignore[arg-type]


def test_close_waits_for_a_delivery_under_way_and_its_deletes() -> None:
    queue, pool = Queue([message(1)]), Pool(seconds=0.5)
    running = poller(queue, pool).start()
    assert pool.started.wait(5)
    running.close()
    assert pool.ran.is_set() and queue.deleted == ["r1"]


def test_close_does_not_wait_for_a_long_poll() -> None:
    queue, pool = Queue(), Pool()
    running = poller(queue, pool).start()
    assert queue.polling.wait(5)
    began = time.monotonic()
    running.close()
    assert time.monotonic() - began < 0.5  # the long poll takes a second; closing takes none of it


def test_a_batch_received_while_closing_is_not_delivered() -> None:
    queue, pool = Queue(), Pool()
    running = poller(queue, pool).start()
    assert queue.polling.wait(5)
    queue.batches.append([message(2)])  # arrives during the long poll that close does not wait for
    running.close()
    time.sleep(1.5)  # that poll ends, returning the batch
    assert not queue.batches  # received
    assert not pool.ran.is_set() and queue.deleted == []
