"""SQS event sources from the template, emulated: poll each queue, invoke its function, honour batch failures.

Lambda's event source mapping polls the queue, invokes the function with a batch and
deletes the messages it processed (all, or all but ``batchItemFailures`` with
``ReportBatchItemFailures``); failed messages reappear after the visibility timeout.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from local.containers.pool import ContainerPool
from stack.template import Stack

logger = logging.getLogger("local.queues")
LOCAL_VISIBILITY_SECONDS = 5  # AWS uses the queue's own (minutes); locally a failed message retries soon
# Batches of one queue in flight at once: the event's ScalingConfig.MaximumConcurrency (AWS's cap on the concurrent
# invocations of an SQS event source), at most this many locally; one when the template sets none (AWS would scale
# out; locally the other workers' batches stay one at a time, as their tests expect).
LOCAL_MAX_POLLERS = 4


def _sqs_event(messages: list[dict[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m.get("Attributes", {}),
                "messageAttributes": {},
                "md5OfBody": m.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
            for m in messages
        ]
    }


class QueuePoller:
    def __init__(self, stack: Stack, pool: ContainerPool, sqs: Any):
        self._sources = []
        self._pollers: list[int] = []
        for name, res in stack.of_type("AWS::Serverless::Function").items():
            for event in res["Properties"].get("Events", {}).values():
                if event["Type"] == "SQS":
                    props = event["Properties"]
                    queue = props["Queue"]["Fn::GetAtt"][0]
                    window = float(props.get("MaximumBatchingWindowInSeconds", 0))
                    self._sources.append((name, stack.resolve({"Ref": queue}), int(props.get("BatchSize", 10)), window))
                    concurrency = int(props.get("ScalingConfig", {}).get("MaximumConcurrency", 1))
                    self._pollers.append(max(1, min(concurrency, LOCAL_MAX_POLLERS)))
        self._pool = pool
        self._sqs = sqs
        self._region = stack.region
        self._stop = threading.Event()
        # One per poller, held while a batch is delivered: closing waits for a delivery under way, not for a long poll.
        self._delivering: list[threading.Lock] = []
        self._threads = []
        for source, pollers in zip(self._sources, self._pollers, strict=True):
            for n in range(pollers):
                self._delivering.append(delivering := threading.Lock())
                name = f"sqs-{source[0]}" + (f"-{n}" if n else "")
                self._threads.append(threading.Thread(
                    target=self._poll, args=(*source, delivering), name=name, daemon=True
                ))  # fmt: skip

    def start(self) -> QueuePoller:
        for thread in self._threads:
            thread.start()
        return self

    def _poll(self, function: str, queue_url: str, batch_size: int, window: float, delivering: threading.Lock) -> None:
        while not self._stop.is_set():
            try:
                messages = self._receive(queue_url, batch_size, wait=1)
                # MaximumBatchingWindowInSeconds: gather more until the batch is full or the window has passed.
                closes = time.monotonic() + window
                while messages and len(messages) < batch_size and (left := closes - time.monotonic()) > 0:
                    messages += self._receive(queue_url, batch_size - len(messages), wait=min(1, int(left) or 1))
                if messages:
                    with delivering:
                        if self._stop.is_set():  # received while closing: left to reappear, as on a restart
                            return
                        self._deliver(function, queue_url, messages)
            except Exception:
                if not self._stop.is_set():
                    logger.exception("polling %s failed", queue_url)
                    self._stop.wait(1)

    def _receive(self, queue_url: str, count: int, *, wait: int) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self._sqs.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=min(count, 10), WaitTimeSeconds=wait,
            VisibilityTimeout=LOCAL_VISIBILITY_SECONDS,
        ).get("Messages", [])  # fmt: skip
        return messages

    def _deliver(self, function: str, queue_url: str, messages: list[dict[str, Any]]) -> None:
        try:
            result = self._pool.invoke(function, _sqs_event(messages, queue_url, self._region)) or {}
        except Exception as exc:  # the whole batch failed: every message comes back
            logger.error("%s failed on a batch of %d: %s", function, len(messages), exc)
            return
        failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
        done = [m for m in messages if m["MessageId"] not in failed]
        for message in done:
            self._sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])

    def settled(self, seconds: float) -> bool:
        """Whether every queue is empty (twice in a row, nothing in flight) within ``seconds``."""
        names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
        deadline, quiet = time.monotonic() + seconds, 0
        while quiet < 2:  # twice: a poller may hold a batch it received between two looks
            if time.monotonic() > deadline or self._stop.is_set():
                return False
            busy = False
            for _, queue_url, _, _ in self._sources:
                counts = self._sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=names)["Attributes"]
                busy = busy or any(int(counts[name]) for name in names)
            quiet = 0 if busy else quiet + 1
            time.sleep(0.25)
        return True

    def close(self) -> None:
        """Stop polling: a delivery under way finishes (its messages deleted), a batch received from now on is not
        delivered (it reappears after its visibility timeout, as SQS would give it again). A poller waiting in its
        long poll (up to a second) is not waited for: it ends when that poll returns, or with the process."""
        self._stop.set()
        for delivering in self._delivering:
            with delivering:
                pass
