"""An SQS batch answered in ``batchItemFailures``: each record handled on its own, those that raised reported.

The purge and knowledge workers' event sources have ``FunctionResponseTypes: [ReportBatchItemFailures]``: SQS
deletes the messages not reported and delivers the reported ones again (after ``maxReceiveCount`` failures, to the
dead-letter queue). Written here rather than Powertools' ``BatchProcessor``, which did the same for these standard
queues but imports asyncio, Powertools' parser models and event classes: about a quarter of the floor on the worker's
cold start (docs/decisions.md, "Secrets through the Lambda extension; the cold path restated (issue 43)").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Record = Mapping[str, Any]  # one of the event's ``Records`` as SQS sends it (``messageId``, ``body``, ...)


def partial_response(records: Sequence[Record], handle: Callable[[Record], None]) -> dict[str, list[dict[str, str]]]:
    """``handle`` each record in order; every record whose handling raised is reported by its ``messageId`` (the
    handler logs its own failure), the others succeed. A batch whose every record failed is reported like any
    other (each message retried on its own), not raised."""
    failed: list[str] = []
    for record in records:
        try:
            handle(record)
        except Exception:  # any failure of one message is that message's, reported for a retry
            failed.append(str(record["messageId"]))
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
