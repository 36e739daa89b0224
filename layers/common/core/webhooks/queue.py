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

    def send(self, delivery_id: str, webhook_id: str, workspace_id: str, delay: int = 0) -> None:
        body = json.dumps({"deliveryId": delivery_id, "webhookId": webhook_id, "workspaceId": workspace_id})
        with translate_errors("SendMessage"):
            self._sqs.send_message(QueueUrl=self._url, MessageBody=body, DelaySeconds=min(max(delay, 0), MAX_DELAY))
