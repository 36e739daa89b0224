"""What the tables' changes become: ``Event`` (one workspace's), ``AccountChange`` (a ledger change of an account,
routed to the workspaces it owns by ``core.events.owners``), and the payload body an event is delivered as.

Pure: no AWS, no clock. An event's id is derived from the stream record that carried it, so a record handed over
again (a retried batch) yields the same ids, and the same ``webhook-id`` reaches the receiver.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any

from core.platform.ids import crockford

MAX_BODY = 20_000  # bytes of the delivered JSON (authoring.md: "at most 20 kB")
# Free text an event may carry, trimmed (longest first) when the body would pass MAX_BODY.
TRIMMABLE = ("prompt", "reply", "comment", "description")


def event_id(source: str, event_type: str, workspace_id: str) -> str:
    """``evt_`` + 26 characters of the SHA-256 of the stream record's identity (table and ``eventID``, stable across
    retries of the record), the type and the workspace: one record may yield several events (one per workspace the
    account owns; an exhaustion and a crossing in one balance change), each with an id of its own."""
    digest = hashlib.sha256(f"{source}|{event_type}|{workspace_id}".encode()).digest()
    return "evt_" + crockford(int.from_bytes(digest, "big") >> (256 - 130), 26)  # its first 130 bits


@dataclass(frozen=True)
class Event:
    id: str
    type: str
    workspace_id: str
    timestamp: str  # RFC 3339: when the change was committed (the stream record's creation time)
    data: dict[str, Any] = field(default_factory=dict)

    def body(self, limit: int = MAX_BODY) -> str:
        """The JSON delivered: ``{type, timestamp, data}`` with ``data.workspaceId``, at most ``limit`` bytes. Free
        text (a turn's prompt and reply first) is cut to fit, and ``data.truncated`` says so."""
        data = {**self.data, "workspaceId": self.workspace_id}
        text = _dumps(self.type, self.timestamp, data)
        while len(text.encode()) > limit:
            texts = sorted(
                (k for k in TRIMMABLE if isinstance(data.get(k), str) and data[k]), key=lambda k: -len(data[k])
            )
            if not texts:  # nothing left to cut: an event of this size is a bug of its mapping
                raise ValueError(f"event {self.id} ({self.type}) is over {limit} bytes without free text")
            data["truncated"] = True
            excess = max(1, len(_dumps(self.type, self.timestamp, data).encode()) - limit)
            # The longest texts are cut first, down to the next one's length at most: what is left is shared. A cut
            # is sized by the bytes a character of the text takes in the body (é: 2, an escaped quote: 2), so the
            # body ends just under the limit; each pass cuts at least one character, so the loop ends.
            longest = len(data[texts[0]])
            tied = [k for k in texts if len(data[k]) == longest]
            following = max((len(data[k]) for k in texts if len(data[k]) < longest), default=0)
            width = max(len(json.dumps(data[k], ensure_ascii=False).encode()) / len(data[k]) for k in tied)
            keep = max(following, longest - max(1, math.ceil(excess / (width * len(tied)))))
            for key in tied:
                data[key] = data[key][:keep]
            text = _dumps(self.type, self.timestamp, data)
        return text


def _dumps(event_type: str, timestamp: str, data: dict[str, Any]) -> str:
    return json.dumps({"type": event_type, "timestamp": timestamp, "data": data}, ensure_ascii=False,
                      separators=(",", ":"))  # fmt: skip


@dataclass(frozen=True)
class AccountChange:
    """A change of an account's ledger: its workspaces are not in the record, so ``core.events.owners`` routes it
    to each workspace the account owns (``credits.low``: those whose threshold the total crossed)."""

    source: str  # the stream record's identity (table and eventID): the events' ids derive from it
    type: str  # credits.low or credits.granted
    account_id: str
    timestamp: str
    data: dict[str, Any] = field(default_factory=dict)
    old_total: int = 0  # available + held before and after (credits.low)
    new_total: int = 0
