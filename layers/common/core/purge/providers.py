"""The purge's providers: a workspace's deletion (gone at once, its keys revoked, its purge queued) and the worker
(its jobs are queued through ``core.platform.jobs``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.purge.worker import PurgeWorker
    from core.workspaces.workspace import WorkspaceDeletion


@per_container
def worker() -> PurgeWorker:
    from core.keys.store import ApiKeyStore
    from core.objects import providers as objects
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
        sizes=objects.storage(),
        settle_seconds=settings.purge_settle_seconds,
    )


@per_container
def deletion() -> WorkspaceDeletion:
    """``DELETE /api/workspaces/{id}``: wired here, where workspaces and keys are both below (keys check access
    through workspaces, so workspaces cannot import keys); its keys are revoked in the request, as before."""
    from core.keys import providers as keys
    from core.platform import jobs
    from core.workspaces import providers as workspaces
    from core.workspaces.workspace import WorkspaceDeletion

    return WorkspaceDeletion(workspaces.service(), workspaces.store(), keys.store(), enqueue_purge=jobs.purge)
