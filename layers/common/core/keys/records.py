"""The keys' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record


class ApiKeyRecord(Record):
    id: str
    key_hash: str
    workspace_id: str
    name: str
    prefix: str
    rate_limit: int | None = None
    # Serialized origins a browser may use the key from; None (absent): any (core/platform/origins.py).
    allowed_origins: list[str] | None = None
    created_at: str
    created_by: str | None = None  # the user who minted it (None: minted before keys kept it, or by the demo)
    last_used_at: str | None = None
    revoked_at: str | None = None
