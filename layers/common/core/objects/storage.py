"""A workspace's storage as a kept counter (docs/decisions.md, "Storage is a kept counter"): the pure part.

S3 tells of every object created or deleted under ``workspaces/`` (its EventBridge notifications, routed to the
purge queue's worker). A notification is delivered at least once and in no set order, so each key keeps a record
(``storage_store``): its current size and the ``sequencer`` of the last change applied. A notification moves the
counter by (its size - the record's) only when its sequencer is later than the record's: a duplicate or an older
one that arrives late moves nothing. S3 compares sequencers of one key as hexadecimal numbers of any length (the
shorter left-padded with zeros), which is comparing them as integers.

Where a notification cannot say the size the key now has (a version deleted for good: the key's current object
may be an older version again), the worker looks (``HeadObject``, what S3 holds now) and records that, keeping the
sequencer: S3's state now is at or after the event, so the last event applied always leaves the record exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

CREATED, DELETED = "Object Created", "Object Deleted"
MARKER = "Delete Marker Created"  # a delete over a versioned key: the key holds nothing now, known without looking


@dataclass(frozen=True)
class ObjectEvent:
    """One S3 notification of a workspace's key: the size the key holds after it (None: look, S3 did not say)."""

    workspace_id: str
    path: str  # workspace-relative
    size: int | None
    sequencer: str
    version: str
    at: str  # the event's time (ISO 8601, UTC), which the signings' "landed since" compare with


@dataclass(frozen=True)
class Tracked:
    """A key's record: the size counted for it and the change it came from."""

    size: int
    sequencer: str
    version: str
    at: str
    moves: int  # how many times the record changed: the condition the next change is written on


def object_event(message: Any) -> ObjectEvent | None:
    """The workspace change an EventBridge S3 message tells, or None when it tells none this counts (another
    bucket's prefix, another kind of event)."""
    if not isinstance(message, dict) or message.get("source") != "aws.s3":
        return None
    kind, detail = message.get("detail-type"), message.get("detail")
    if kind not in (CREATED, DELETED) or not isinstance(detail, dict) or not isinstance(detail.get("object"), dict):
        return None
    found = detail["object"]
    key, sequencer = found.get("key"), found.get("sequencer")
    if not isinstance(key, str) or not isinstance(sequencer, str) or not _hex(sequencer):
        return None
    parts = key.split("/", 2)
    if len(parts) < 3 or parts[0] != "workspaces" or not parts[1] or not parts[2]:
        return None
    if kind == CREATED:
        size = found.get("size")
        if not isinstance(size, int) or size < 0:
            return None
    else:
        size = 0 if detail.get("deletion-type") == MARKER else None
    at = message["time"] if isinstance(message.get("time"), str) else ""
    return ObjectEvent(parts[1], parts[2], size, sequencer, str(found.get("version-id") or ""), at)


def _hex(value: str) -> bool:
    try:
        int(value, 16)
    except ValueError:
        return False
    return bool(value)


def later(event: ObjectEvent, record: Tracked | None) -> bool:
    """Whether ``event`` is a change the record has not applied yet: a later sequencer. An equal sequencer with
    another version is a change too (moto gives every event one sequencer; S3 never repeats one for a key)."""
    if record is None or not record.sequencer:
        return True
    mine, theirs = int(event.sequencer, 16), int(record.sequencer, 16)
    return mine > theirs or (mine == theirs and event.version != record.version and bool(event.version))


def landed(record: Tracked | None, size: int, signed_at: str) -> bool:
    """Whether an object of ``size`` was recorded at the path since the upload was signed (S3's times are whole
    seconds, so the signing's time is too)."""
    if record is None or record.size != size or not record.at:
        return False
    signed = datetime.fromisoformat(signed_at).replace(microsecond=0)
    return datetime.fromisoformat(record.at.replace("Z", "+00:00")) >= signed
