"""The purge queue: one message per deleted workspace or agent, for ``WorkspacePurgeFunction``; and, on the same
worker, a workspace's stored turns to re-stamp after its retention changed (``core.chat.restamp``)."""

from __future__ import annotations

import json
from typing import Any

from core.platform.dynamo import translate_errors

MAX_DELAY = 900  # SQS's longest message delay
RESTAMP = "restamp"  # a message's ``job``: re-stamp the workspace's stored turns (no ``job``: a purge)


class PurgeQueue:
    def __init__(self, client: Any, queue_url: str):
        self._sqs = client
        self._url = queue_url

    def send(self, workspace_id: str, agent_id: str | None = None, *, delay_seconds: int = 0) -> None:
        """Queue the purge of a deleted workspace, or (``agent_id``) of one deleted agent of it; ``delay_seconds``
        (SQS allows 900 at most): the message is delivered no sooner."""
        self._send({"workspaceId": workspace_id} | ({"agentId": agent_id} if agent_id else {}), delay_seconds)

    def send_restamp(self, workspace_id: str, *, delay_seconds: int = 0) -> None:
        """Queue the re-stamping of the workspace's stored turns with the retention it has when the pass runs."""
        self._send({"workspaceId": workspace_id, "job": RESTAMP}, delay_seconds)

    def _send(self, message: dict[str, Any], delay_seconds: int) -> None:
        with translate_errors("SendMessage"):
            self._sqs.send_message(QueueUrl=self._url, MessageBody=json.dumps(message),
                                   DelaySeconds=min(max(delay_seconds, 0), MAX_DELAY))  # fmt: skip
