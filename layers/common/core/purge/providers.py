"""The purge's providers: the queue of deleted workspaces and agents, and the worker's service."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.purge.queue import PurgeQueue
    from core.purge.worker import PurgeWorker


@per_container
def queue() -> PurgeQueue:
    from core.purge.queue import PurgeQueue

    return PurgeQueue(aws.client("sqs"), get_settings().purge_queue_url)


def enqueue(workspace_id: str, agent_id: str | None = None, *, delay_seconds: int = 0) -> None:
    """Queue the purge of a deleted workspace, or of one deleted agent of it (``delay_seconds``: not before)."""
    queue().send(workspace_id, agent_id, delay_seconds=delay_seconds)


def enqueue_restamp(workspace_id: str, *, delay_seconds: int | None = None) -> None:
    """Queue the re-stamping of a workspace's stored turns (its retention changed: ``core.chat.restamp``), by
    default once the chat turns in flight have landed (``settings.restamp_delay_seconds``)."""
    delay = get_settings().restamp_delay_seconds if delay_seconds is None else delay_seconds
    queue().send_restamp(workspace_id, delay_seconds=delay)


@per_container
def worker() -> PurgeWorker:
    from core.keys.store import ApiKeyStore
    from core.purge.store import ObjectVersionStore, PurgeStore
    from core.purge.worker import PurgeWorker
    from core.usage.store import UsageStore
    from core.workspaces.store import WorkspaceStore

    settings = get_settings()
    return PurgeWorker(
        WorkspaceStore(aws.dynamodb(), settings.main_table),
        PurgeStore(aws.dynamodb(), settings.main_table),
        ApiKeyStore(aws.dynamodb(), settings.api_keys_table),
        ObjectVersionStore(aws.s3(), settings.content_bucket),
        UsageStore(aws.dynamodb(), settings.rate_limits_table, settings.ledger_table),
        settle_seconds=settings.purge_settle_seconds,
    )
