"""The objects' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record


class UploadRecord(Record):
    """A signed upload not yet known to have landed: its size counts against the workspace's storage meanwhile."""

    signing: str = ""  # upl_<ulid>: the record's own key (records written before it was kept were keyed by path)
    path: str  # workspace-relative
    size: int
    signed_at: str
    expires_at: int  # epoch seconds: the URL's expiry, and the table's TTL
