"""Background purge of a deleted workspace (every object version under its prefix and every record) or of one
deleted agent (its posts, copies and items, every object version of its folder and its stored conversations).

An upload signed before the deletion may still land for as long as its presigned POST lives (15 minutes), so a
tombstone goes only once everything is gone *and* the deletion is older than ``settle_seconds``: until then a pass
that found nothing left asks to run again after the rest of that window (``PurgeResult.again_in``).

Driven by SQS (one message per workspace or agent). Each pass lists what is left and deletes
it, so a pass may stop anywhere (timeout, crash) and the next one resumes; running
it twice is harmless. When the time budget runs low it asks to be re-queued.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from core.keys.ports import ApiKeys
from core.platform import observability
from core.purge.ports import ObjectVersions, StorageRecords, UsageRecords
from core.workspaces.ports import WorkspaceRecords, Workspaces

logger = logging.getLogger(__name__)
SAFETY_MS = 30_000  # stop this long before the function's timeout


@dataclass(frozen=True)
class PurgeResult:
    workspace_id: str
    objects_deleted: int
    records_deleted: int
    finished: bool
    agent_id: str | None = None
    again_in: int = 0  # seconds: unfinished only for the settle window, run again (SQS delay) after it


def _settles_in(deleted_at: str, settle_seconds: int, now: float) -> int:
    """Whole seconds until the deletion is ``settle_seconds`` old (0: settled)."""
    deleted = datetime.fromisoformat(deleted_at).timestamp()
    return max(0, math.ceil(deleted + settle_seconds - now))


class PurgeWorker:
    def __init__(
        self,
        workspaces: Workspaces,
        records: WorkspaceRecords,
        keys: ApiKeys,
        objects: ObjectVersions,
        usage: UsageRecords,
        *,
        sizes: StorageRecords,
        settle_seconds: int = 0,
        clock: Callable[[], float] = time.time,
    ):
        self._settle = settle_seconds  # an upload URL's lifetime and a margin (settings.purge_settle_seconds)
        self._clock = clock
        self._workspaces = workspaces
        self._records = records
        self._keys = keys
        # The bucket is versioned: deleting current objects would keep every old version and leave
        # delete markers, so the purge works on versions.
        self._objects = objects
        self._usage = usage
        self._sizes = sizes

    def purge(self, workspace_id: str, remaining_ms: Callable[[], int]) -> PurgeResult:
        tombstone = self._workspaces.tombstone(workspace_id)
        if tombstone is None:  # never deleted, or already purged: nothing to do, ever
            return PurgeResult(workspace_id, 0, 0, finished=True)

        def time_left() -> bool:
            return remaining_ms() > SAFETY_MS

        objects = self._objects.delete_prefix(f"workspaces/{workspace_id}/", keep_going=time_left)
        observability.count("PurgeObjectsDeleted", objects)
        if not time_left():
            return PurgeResult(workspace_id, objects, 0, finished=False)
        records = self._sizes.drain(workspace_id, keep_going=time_left)  # the storage counter's key records
        records += self._records.delete_workspace_records(workspace_id, keep_going=time_left)
        keys = self._keys.list_for_workspace(workspace_id)
        # Usage before the keys: their window items are found by the keys' ids, which go with the keys.
        records += self._usage.delete_workspace_usage(workspace_id, [k.id for k in keys])
        self._keys.delete_many([k.key_hash for k in keys])
        if not time_left() or self._objects.any_under(f"workspaces/{workspace_id}/"):
            return PurgeResult(workspace_id, objects, records + len(keys), finished=False)
        if wait := _settles_in(tombstone.deleted_at, self._settle, self._clock()):
            return PurgeResult(workspace_id, objects, records + len(keys), finished=False, again_in=wait)
        self._workspaces.remove_tombstone(workspace_id)
        logger.info("workspace purged", extra={"workspaceId": workspace_id, "objects": objects})
        return PurgeResult(workspace_id, objects, records + len(keys), finished=True)

    def purge_agent(self, workspace_id: str, agent_id: str, remaining_ms: Callable[[], int]) -> PurgeResult:
        """A deleted agent's content, resumable as ``purge``; its tombstone goes last."""
        tombstone = self._records.agent_tombstone(workspace_id, agent_id)
        if tombstone is None:  # never deleted, or already purged
            return PurgeResult(workspace_id, 0, 0, finished=True, agent_id=agent_id)

        def time_left() -> bool:
            return remaining_ms() > SAFETY_MS

        # The agent's folder (posts' media, items) and the chat turns stored for it (docs/data-model.md).
        folders = ("projects", "conversations", "knowledge")
        prefixes = [f"workspaces/{workspace_id}/{folder}/{agent_id}/" for folder in folders]
        objects = sum(self._objects.delete_prefix(prefix, keep_going=time_left) for prefix in prefixes)
        observability.count("PurgeObjectsDeleted", objects)
        records = self._records.delete_agent_records(agent_id, keep_going=time_left) if time_left() else 0
        if not time_left() or any(self._objects.any_under(prefix) for prefix in prefixes):
            return PurgeResult(workspace_id, objects, records, finished=False, agent_id=agent_id)
        # S3 holds nothing there now: the storage counter lets go of those keys at once, a page per transaction
        # (their notifications, arriving later, then move nothing: each record keeps its last sequencer).
        for prefix in prefixes:
            self._sizes.clear_prefix(workspace_id, prefix.removeprefix(f"workspaces/{workspace_id}/"), time_left)
        if not time_left():
            return PurgeResult(workspace_id, objects, records, finished=False, agent_id=agent_id)
        if wait := _settles_in(tombstone.deleted_at, self._settle, self._clock()):
            return PurgeResult(workspace_id, objects, records, finished=False, agent_id=agent_id, again_in=wait)
        self._records.remove_agent_tombstone(workspace_id, agent_id)
        logger.info("agent purged", extra={"workspaceId": workspace_id, "agentId": agent_id, "objects": objects})
        return PurgeResult(workspace_id, objects, records, finished=True, agent_id=agent_id)
