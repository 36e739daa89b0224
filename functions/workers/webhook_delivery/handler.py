"""SQS worker: deliver webhooks (core.webhooks.delivery), one attempt per message.

The messages of a batch (up to 10) are delivered at once, each in its own thread: a receiver that hangs holds its
own thread for at most the attempt's 15 seconds and never delays another message's POST. A message whose handling
failed (storage, the queue) is reported in ``batchItemFailures``, so SQS delivers it again; a receiver's failure
is no failure of the message (the attempt is recorded and retried on the delivery's schedule).
"""

import contextvars
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.platform import observability
from core.webhooks import providers as webhooks
from core.webhooks.delivery import Message

logger = logging.getLogger("webhook_delivery")


def deliver_one(record: dict[str, Any]) -> bool:
    """One message; False when SQS must deliver it again."""
    try:
        message = Message.of(json.loads(record["body"]))
    except (ValueError, KeyError, TypeError):
        logger.error("webhook message unreadable: dropped", extra={"messageId": record.get("messageId")})
        return True  # a message no attempt can read never will be: retrying it would only fill the dead-letter queue
    try:
        outcome = webhooks.delivery_worker().handle(message, request_id=str(record.get("messageId", "")))
    except Exception:
        logger.exception("webhook delivery failed", extra={"messageId": record.get("messageId"),
                                                           "deliveryId": message.delivery_id})  # fmt: skip
        return False
    logger.info("webhook delivery", extra={"deliveryId": message.delivery_id, "outcome": outcome})
    return True


@observability.observed("workers", routed=("webhook_delivery",))
def lambda_handler(event, context):
    records = event.get("Records") or []
    if not records:
        return {"batchItemFailures": []}
    webhooks.delivery_worker()  # built here, once, before the threads share it
    with ThreadPoolExecutor(max_workers=len(records), thread_name_prefix="delivery") as pool:
        # Each thread runs in a copy of this one's context (the logger's and the tracer's state).
        done = [pool.submit(contextvars.copy_context().run, deliver_one, record) for record in records]
        results = [future.result() for future in done]
    failed = [record["messageId"] for record, ok in zip(records, results, strict=True) if not ok]
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
