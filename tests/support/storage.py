"""S3's notifications of a workspace's objects, as EventBridge delivers them to the purge queue's worker (issue 43:
the storage counter). The tests' moto routes no events to that queue (and gives every event one sequencer), so a
test says when a change's notification arrives: ``landed``/``deleted`` build it from what the bucket holds, with a
sequencer later than any before, and hand it to the worker's code; ``event`` builds any one (duplicates, old ones).
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from core.objects import providers as objects
from core.platform.settings import get_settings

_sequence = itertools.count(0x10_0000_0000_0000)


def sequencer() -> str:
    """A sequencer later than every one handed out before (hex, as S3 writes it)."""
    return f"{next(_sequence):X}"


def event(workspace_id: str, path: str, size: int | None, seq: str, *, version: str = "v",
          deleted: str | None = None, at: datetime | None = None) -> dict[str, Any]:  # fmt: skip
    """An EventBridge "Object Created" (``size``) or "Object Deleted" (``deleted``: its deletion-type) message."""
    found: dict[str, Any] = {"key": f"workspaces/{workspace_id}/{path}", "version-id": version, "sequencer": seq}
    if deleted is None:
        found |= {"size": size, "eTag": "e"}
    detail: dict[str, Any] = {"bucket": {"name": get_settings().content_bucket}, "object": found}
    if deleted is not None:
        detail["deletion-type"] = deleted
    when = (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    kind = "Object Deleted" if deleted is not None else "Object Created"
    return {"version": "0", "source": "aws.s3", "detail-type": kind, "time": when, "detail": detail}


def deliver(message: dict[str, Any]) -> bool:
    return objects.notifications().apply(message)


def landed(s3: Any, workspace_id: str, path: str) -> dict[str, Any]:
    """The notification of the object now at ``path`` (its size and version), delivered; returned for redelivery."""
    head = s3.head_object(Bucket=get_settings().content_bucket, Key=f"workspaces/{workspace_id}/{path}")
    message = event(workspace_id, path, head["ContentLength"], sequencer(), version=head.get("VersionId", "v"),
                    at=head["LastModified"])  # fmt: skip
    deliver(message)
    return message


def counted(workspace_id: str) -> int:
    """The bytes the workspace's counter holds."""
    return objects.storage().counted(workspace_id)[0]
