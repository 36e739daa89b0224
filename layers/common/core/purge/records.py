"""The purge's storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record


class PurgeRecord(Record):
    """Tombstone of a deleted workspace, until its background purge has finished."""

    workspace_id: str
    owner_id: str
    deleted_at: str
