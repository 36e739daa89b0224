"""S3's notifications of a workspace's objects, applied to its storage counter (``core.objects.storage``).

EventBridge routes every "Object Created" and "Object Deleted" under ``workspaces/`` to the purge queue, whose
worker hands each here (one S3 call at most: a look at the key when the notification cannot say its size)."""

from __future__ import annotations

from typing import Any

from core.objects.ports import BucketObjects, StoredSizes
from core.objects.storage import object_event


class StorageNotifications:
    def __init__(self, sizes: StoredSizes, objects: BucketObjects):
        self._sizes = sizes
        self._objects = objects

    def apply(self, message: Any) -> bool:
        """Apply one notification; False when it changes nothing (not a workspace's, a duplicate, older than what
        is recorded, or of a deleted workspace)."""
        event = object_event(message)
        if event is None:
            return False

        def look() -> int:  # what the key holds now: at or after the event, so the last one applied is exact
            head = self._objects.head(f"workspaces/{event.workspace_id}/{event.path}")
            return head.size if head else 0

        return self._sizes.apply(event, look)
