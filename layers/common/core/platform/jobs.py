"""Jobs a write leaves for a worker, sent on the worker's SQS queue (docs/decisions.md, "Jobs: the platform sends
them, the workers consume").

The writers' packages send through here, never through the worker's package: the knowledge worker reads agents,
items, posts and answers, the purge worker reads workspaces and keys, so a writer importing either back made a
circle. Each message's shape is written here once; its worker reads it (``core.knowledge.queue.agents_named``,
``functions/workers/purge``).

- The knowledge queue (template ``KnowledgeQueue``): ``{"workspaceId", "agentId"}``, "read this agent again" (S3's
  notifications of new objects arrive on it too).
- The workspace jobs queue (template ``PurgeQueue``, the name it has had since it carried only purges): a purge of
  a deleted workspace, ``{"workspaceId"}``, or of one deleted agent, ``{"workspaceId", "agentId"}``; and the
  re-stamping of a workspace's stored turns after its retention changed, ``{"workspaceId", "job": "restamp"}``
  (``core.chat.restamp``). One worker, ``WorkspacePurgeFunction``, runs both kinds.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from core.platform import aws
from core.platform.dynamo import translate_errors
from core.platform.providers import per_container
from core.platform.settings import get_settings

logger = logging.getLogger(__name__)

MAX_DELAY = 900  # SQS's longest message delay
RESTAMP = "restamp"  # a workspace job's ``job``: re-stamp its stored turns (no ``job``: a purge)


class JobQueue:
    """One SQS queue's sends (the only AWS call of this module)."""

    def __init__(self, client: Any, queue_url: str):
        self._sqs = client
        self._url = queue_url

    def send(self, message: dict[str, Any], *, delay_seconds: int = 0) -> None:
        """``delay_seconds`` (SQS allows 900 at most): the message is delivered no sooner."""
        with translate_errors("SendMessage"):
            self._sqs.send_message(QueueUrl=self._url, MessageBody=json.dumps(message),
                                   DelaySeconds=min(max(delay_seconds, 0), MAX_DELAY))  # fmt: skip


@per_container
def knowledge_queue() -> JobQueue:
    return JobQueue(aws.client("sqs"), get_settings().knowledge_queue_url)


@per_container
def workspace_jobs() -> JobQueue:
    return JobQueue(aws.client("sqs"), get_settings().purge_queue_url)


def reread_agent(workspace_id: str, agent_id: str) -> None:
    """Queue the agent for the knowledge worker after a write that changes what it knows. The write is done: a lost
    message is logged, not raised, and the items it left ``pending`` are shown ``failed`` once that is stale
    (``core.items.writer``), so the author saves again."""
    try:
        knowledge_queue().send({"workspaceId": workspace_id, "agentId": agent_id})
    except Exception:
        logger.exception(
            "queueing a knowledge rebuild failed", extra={"workspaceId": workspace_id, "agentId": agent_id}
        )


def purge(workspace_id: str, agent_id: str | None = None, *, delay_seconds: int = 0) -> None:
    """Queue the purge of a deleted workspace, or of one deleted agent of it (``delay_seconds``: not before)."""
    message = {"workspaceId": workspace_id} | ({"agentId": agent_id} if agent_id else {})
    workspace_jobs().send(message, delay_seconds=delay_seconds)


def restamp(workspace_id: str, *, delay_seconds: int | None = None) -> None:
    """Queue the re-stamping of a workspace's stored turns with the retention it has when the pass runs, by default
    once the chat turns in flight have landed (``settings.restamp_delay_seconds``)."""
    delay = get_settings().restamp_delay_seconds if delay_seconds is None else delay_seconds
    workspace_jobs().send({"workspaceId": workspace_id, "job": RESTAMP}, delay_seconds=delay)
