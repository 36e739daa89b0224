"""The purge queue: one message per deleted workspace or agent, for ``WorkspacePurgeFunction``."""

from __future__ import annotations

import json
from typing import Any

from core.platform.dynamo import translate_errors

MAX_DELAY = 900  # SQS's longest message delay


class PurgeQueue:
    def __init__(self, client: Any, queue_url: str):
        self._sqs = client
        self._url = queue_url

    def send(self, workspace_id: str, agent_id: str | None = None, *, delay_seconds: int = 0) -> None:
        """Queue the purge of a deleted workspace, or (``agent_id``) of one deleted agent of it; ``delay_seconds``
        (SQS allows 900 at most): the message is delivered no sooner."""
        message = {"workspaceId": workspace_id} | ({"agentId": agent_id} if agent_id else {})
        with translate_errors("SendMessage"):
            self._sqs.send_message(QueueUrl=self._url, MessageBody=json.dumps(message),
                                   DelaySeconds=min(max(delay_seconds, 0), MAX_DELAY))  # fmt: skip
