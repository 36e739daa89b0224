"""The webhook delivery queue: one message per delivery to attempt, for the delivery worker
(``functions/workers/webhook_delivery``). The message names the delivery; the worker reads its state (so a message
sent twice attempts once: the attempt is conditioned on the attempts it read)."""

from __future__ import annotations

import json
from typing import Any

from core.platform.dynamo import translate_errors

MAX_DELAY = 900  # SQS's longest message delay: a longer wait is made of several (core.webhooks.delivery)


class WebhookQueue:
    def __init__(self, client: Any, queue_url: str):
        self._sqs = client
        self._url = queue_url

    def send(
        self, delivery_id: str, webhook_id: str, workspace_id: str, delay: int = 0, *, attempts: int | None = None
    ) -> None:
        """Queue an attempt of the delivery, ``delay`` seconds from now at the soonest (SQS allows 900). The worker's
        own messages name the ``attempts`` the delivery had when they were sent, so an older copy is told apart and
        dropped; the fan-out's and the portal's name none (any state is current for them)."""
        message: dict[str, str | int] = {
            "deliveryId": delivery_id,
            "webhookId": webhook_id,
            "workspaceId": workspace_id,
        }
        if attempts is not None:
            message["attempts"] = attempts
        body = json.dumps(message)
        with translate_errors("SendMessage"):
            self._sqs.send_message(QueueUrl=self._url, MessageBody=body, DelaySeconds=min(max(delay, 0), MAX_DELAY))
