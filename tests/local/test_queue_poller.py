"""The runner's SQS event source closing (``local.triggers.queues.QueuePoller.close``): a delivery under way ends with
its messages deleted before close returns; a poller in its long poll is not waited for, and what it receives once
closing is not delivered (SQS gives it again after its visibility timeout, as it would after a restart).

The fake queue's long poll lasts until the test ends it (a gate, not a second of sleep): that close returns while a
poll is still held open is shown by order, and no test reads a clock. Waits are bounded only to stop a hang.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from local.triggers.queues import QueuePoller
from tests.support.lambdas import stack

HANG_SECONDS = 30  # the longest the test waits for anything: only a test that hangs reaches it


class Queue:
    """A fake SQS with one queue that holds anything, the purge queue: ``receive_message`` answers its ``batches`` one
    by one, else long-polls until the test ends the poll (``end_polls``, however long that takes) and answers what
    arrived meanwhile. Every other queue's poll lasts until then too, and answers nothing."""

    def __init__(self, *batches: list[dict[str, Any]]):
        self.batches = list(batches)
        self.deleted: list[str] = []
        self.polling = threading.Event()
        self.polls_end = threading.Event()

    def receive_message(self, *, QueueUrl: str, **_: Any) -> dict[str, Any]:
        if not QueueUrl.endswith("/local-purgequeue"):
            self.polls_end.wait()
            return {}
        if not self.batches:
            self.polling.set()
            self.polls_end.wait()
        return {"Messages": self.batches.pop(0)} if self.batches else {}

    def delete_message(self, *, QueueUrl: str, ReceiptHandle: str) -> None:
        self.deleted.append(ReceiptHandle)

    def end_polls(self) -> None:
        """Every long poll held open returns now (and every later one at once)."""
        self.polls_end.set()


class Pool:
    """Functions that run a batch once the test lets them (``finish``, however long that takes), and note which
    they ran."""

    def __init__(self, *, held: bool = False):
        self.ran, self.started = threading.Event(), threading.Event()
        self.finish = threading.Event()
        if not held:
            self.finish.set()

    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any]:
        self.started.set()
        self.finish.wait()
        self.ran.set()
        return {}


def message(n: int) -> dict[str, Any]:
    return {"MessageId": f"m{n}", "ReceiptHandle": f"r{n}", "Body": "{}"}


def poller(queue: Queue, pool: Pool) -> QueuePoller:
    """The template's event sources, on the fake queue and functions."""
    return QueuePoller(stack(), pool, queue)  # type: ignore[arg-type]


def closed_in_a_thread(running: QueuePoller, queue: Queue, pool: Pool) -> tuple[threading.Event, list[bool]]:
    """``running.close()`` called on a thread of its own: an event set once it has returned, and what it left
    behind at that moment (whether the batch under way had run and its messages were deleted)."""
    closed, left = threading.Event(), list[bool]()

    def close() -> None:
        running.close()
        left.append(pool.ran.is_set() and queue.deleted == ["r1"])
        closed.set()

    threading.Thread(target=close, name="close", daemon=True).start()
    return closed, left


def pollers_ended(running: QueuePoller) -> bool:
    """Every polling thread has returned (they all end once closed and their poll is over)."""
    for thread in running._threads:
        thread.join(HANG_SECONDS)
    return not any(thread.is_alive() for thread in running._threads)


@contextmanager
def polling(queue: Queue, pool: Pool) -> Iterator[QueuePoller]:
    """The poller, started; at the end every poll and delivery the test still holds is let go."""
    running = poller(queue, pool).start()
    try:
        yield running
    finally:
        queue.end_polls()
        pool.finish.set()


def test_close_waits_for_a_delivery_under_way_and_its_deletes() -> None:
    queue, pool = Queue([message(1)]), Pool(held=True)
    with polling(queue, pool) as running:
        assert pool.started.wait(HANG_SECONDS)
        closed, left = closed_in_a_thread(running, queue, pool)
        # The delivery is held until the test lets it end, so a correct close cannot have returned yet (whatever the
        # machine's load); one that does not wait is caught here.
        assert not closed.wait(0.2), "close returned while a delivery was under way"
        pool.finish.set()
        assert closed.wait(HANG_SECONDS)
        assert left == [True]  # when close returned, the batch had run and its messages were deleted
        queue.end_polls()
        assert pollers_ended(running)


def test_close_does_not_wait_for_a_long_poll() -> None:
    queue, pool = Queue(), Pool()
    with polling(queue, pool) as running:
        assert queue.polling.wait(HANG_SECONDS)
        closed, _ = closed_in_a_thread(running, queue, pool)
        # Every poll is held open until the test ends it, which it has not: close returning is close not waiting.
        assert closed.wait(HANG_SECONDS), "close waited for the long poll"
        queue.end_polls()
        assert pollers_ended(running)


def test_a_batch_received_while_closing_is_not_delivered() -> None:
    queue, pool = Queue(), Pool()
    with polling(queue, pool) as running:
        assert queue.polling.wait(HANG_SECONDS)
        queue.batches.append([message(2)])  # arrives during the long poll that close does not wait for
        running.close()
        queue.end_polls()  # that poll ends, returning the batch
        assert pollers_ended(running)  # and its poller has done all it will do with it
        assert not queue.batches  # received
        assert not pool.ran.is_set() and queue.deleted == []
