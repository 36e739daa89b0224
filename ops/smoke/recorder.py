"""Remembering the run's keyed writes, so the cleanup can delete the idempotency records they left.

Every write the client sends carries an ``Idempotency-Key`` (the publish derives its own). The service keeps one
record per key in the main table for a day, under ``sha256(scope|key)``, where the scope names the caller, the
action and its target (``core/audit/writes.py``, ``workspaces.py``, ``key_admin.py``). The records
are found by computing those hashes from what was sent: no table scan. ``scope_of`` mirrors the service's scopes
for the writes the smoke makes; tests/e2e/test_smoke.py fails if one is missed (a record left behind).
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from core.platform.ids import sha256_hex

from .operator import Footprint

_WS = r"/api/workspaces/(?P<ws>[^/]+)"
_AGENT = _WS + r"/agents/(?P<agent>[^/]+)"
# (method, path pattern, action, which part names the target) of the service's keyed authoring writes
_WRITES = [
    ("POST", _WS + "/agents", "agent.create", "ws"),
    ("PATCH", _AGENT, "agent.update", "agent"),
    ("PUT", _AGENT + "/wrap", "agent.wrap.put", "agent"),
    ("PUT", _AGENT + "/site", "agent.site.put", "agent"),
    ("POST", _AGENT + "/posts", "post.create", "agent"),
    ("PATCH", _AGENT + r"/posts/(?P<post>[^/]+)", "post.update", "post"),
    ("POST", _AGENT + r"/posts/(?P<post>[^/]+)/publish", "post.publish", "post"),
    ("POST", _AGENT + r"/posts/(?P<post>[^/]+)/unpublish", "post.unpublish", "post"),
    ("POST", _AGENT + "/items", "item.create", "agent"),
    ("PATCH", _AGENT + r"/items/(?P<item>[^/]+)", "item.update", "item"),
    ("POST", _WS + "/workflows", "workflow.create", "ws"),
    ("PATCH", _WS + r"/workflows/(?P<workflow>[^/]+)", "workflow.update", "workflow"),
    ("POST", _WS + "/uploads", "object.upload", "path"),
]


def scope_of(user_id: str, method: str, path: str, body: Any) -> str | None:
    """The service's idempotency scope of one keyed write (None: a write the smoke does not know)."""
    if (method, path) == ("POST", "/api/workspaces"):
        return f"{user_id}|create-workspace"
    if method == "POST" and (minted := re.fullmatch(_WS + "/keys", path)):
        return f"{user_id}|mint-key|{minted['ws']}"
    for verb, pattern, action, target in _WRITES:
        if verb == method and (found := re.fullmatch(pattern, path)):
            on = body.get("path") if target == "path" and isinstance(body, dict) else found.groupdict().get(target)
            return f"{user_id}|{action}|{found['ws']}|{on}"
    return None


def idempotency_hashes(footprint: Footprint) -> tuple[list[str], list[tuple[str, str]]]:
    """The records' key hashes, and the keyed writes whose scope is unknown (their records outlive the run)."""
    assert footprint.user_id is not None
    hashes, unknown = [], []
    for method, path, key, body in footprint.keyed_writes:
        scope = scope_of(footprint.user_id, method, path, body)
        if scope is None:
            unknown.append((method, path))
        else:
            hashes.append(sha256_hex(f"{scope}|{key}"))
    return hashes, unknown


class RecordingTransport(httpx.HTTPTransport):
    """An httpx transport that notes each request's Idempotency-Key in the footprint before sending it."""

    def __init__(self, footprint: Footprint, prefix: str, **options: Any):
        super().__init__(**options)
        self._footprint = footprint
        self._prefix = prefix  # the portal URL's path (a deployed stage: /live), cut off the recorded paths

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        note(self._footprint, self._prefix, request)
        return super().handle_request(request)


def note(footprint: Footprint, prefix: str, request: httpx.Request) -> None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return
    try:
        body = json.loads(request.content) if request.content else None
    except ValueError:
        body = None
    path = request.url.path.removeprefix(prefix)
    footprint.keyed_writes.append((request.method, path, key, body))
