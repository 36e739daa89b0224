"""The knowledge queue's messages, read: "read this agent again", sent by the writers through
``core.platform.jobs.reread_agent``; S3's notifications of new objects arrive on it too (template.yaml,
``ContentBucket``'s ``NotificationConfiguration``). ``agents_named`` reads both kinds."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote_plus


def agents_named(body: str) -> set[tuple[str, str]]:
    """The (workspace, agent) pairs a message asks to read again: a writer's message names one; an S3 notification
    names the objects created, and only those of an agent's folder (``workspaces/<ws>/projects/<agent>/…``) count
    (uploads elsewhere, stored conversations and the worker's own objects are ignored). Anything else: none."""
    try:
        message = json.loads(body)
    except ValueError:
        return set()
    if not isinstance(message, dict):
        return set()
    if isinstance(message.get("workspaceId"), str) and isinstance(message.get("agentId"), str):
        return {(message["workspaceId"], message["agentId"])}
    detail = message.get("detail")
    if isinstance(detail, dict):  # EventBridge's "Object Created" (the template's route): the key as it is
        return set(_agent_of(_get(detail, "object", "key")))
    records = message.get("Records")  # a bucket's own notification: keys URL-encoded, spaces as "+"
    if not isinstance(records, list):
        return set()
    return {found for record in records for found in _agent_of(_get(record, "s3", "object", "key"), encoded=True)}


def _get(value: Any, *path: str) -> Any:
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    return value


def _agent_of(key: Any, *, encoded: bool = False) -> Iterable[tuple[str, str]]:
    if not isinstance(key, str):
        return
    parts = (unquote_plus(key) if encoded else key).split("/")
    if len(parts) > 4 and parts[0] == "workspaces" and parts[2] == "projects" and parts[1] and parts[3]:
        yield parts[1], parts[3]
