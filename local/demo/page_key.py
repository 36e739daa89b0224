"""The demo page's key: a key of the first demo workspace restricted to the page's own origin.

A page holds its key in plain sight, so the one it embeds is made as a brand should make theirs
(``clients/web/README.md``): allowed origins set to the page, a rate limit of its own. The key is
kept beside the state (raw, owner-only file) per origin, so a restart on the same port embeds the
same key; a new port (or a key gone from a fresh state) gets a new one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.keys.admin import key_record
from core.keys.key_format import generate, hash_key
from core.keys.store import ApiKeyStore
from core.platform.ids import now_iso

# One page view asks for the wrap, the feed, a batch of signed media URLs and every media range it plays.
PAGE_RATE_LIMIT = 600


def _origins(origin: str) -> list[str]:
    """The page's origin, and its loopback twin: ``localhost`` and ``127.0.0.1`` are two origins to a browser."""
    twins = {"http://127.0.0.1:": "http://localhost:", "http://localhost:": "http://127.0.0.1:"}
    for prefix, twin in twins.items():
        if origin.startswith(prefix):
            return [origin, twin + origin.removeprefix(prefix)]
    return [origin]


def page_key(dynamodb: Any, api_keys_table: str, kept: Path, workspace_id: str, origin: str) -> str:
    """The raw key the page at ``origin`` embeds: the kept one while its record exists, else a new one."""
    keys = ApiKeyStore(dynamodb, api_keys_table)
    known: dict[str, str] = json.loads(kept.read_text()) if kept.exists() else {}
    raw = known.get(origin)
    if raw and keys.get_by_hash(hash_key(raw)):
        return raw
    raw = generate()
    keys.put(
        key_record(
            raw, workspace_id, f"Demo page ({origin})", rate_limit=PAGE_RATE_LIMIT, allowed_origins=_origins(origin),
            created_at=now_iso(),
        )
    )  # fmt: skip
    kept.write_text(json.dumps(known | {origin: raw}, indent=2) + "\n")
    kept.chmod(0o600)
    return raw
