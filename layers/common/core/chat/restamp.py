"""Stored turns re-stamped after a workspace's retention changed (``conversationRetentionDays``).

A turn's TTL is set when it is stored, from the retention of that moment (``core.chat.retention``). Readers hide
what is past the current retention at once, but DynamoDB deletes by the stamped TTL: without a new stamp, turns
stored while retention was unset would be kept for good, a shortened retention would keep them as long as the old
one, and a lengthened one would delete them sooner than it says. So a change of the setting queues this pass
(``WorkspaceSettingsService``, through the workspace worker's queue, after the turns in flight have landed): it
reads the retention now set, walks every agent's stored turns and threads, and sets each TTL the setting gives
(removes it for ``null``), writing only those that differ. A turn's TTL follows its ``createdAt``, a thread's its
``lastAt``; a thread a new turn moved meanwhile is left to that turn's write. Idempotent: a pass that ran out of time
asks to run again, and the next one skips what is already right.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from core.chat.retention import expires_at

logger = logging.getLogger(__name__)
SAFETY_MS = 30_000  # stop this long before the worker's timeout (as its purge does)


class Stamps(Protocol):
    """The stored turns' and threads' TTLs (``ThreadStore``)."""

    def stamps(self, agent_id: str) -> list[dict[str, Any]]: ...
    def stamp(self, key: dict[str, Any], expires_at: int | None, *, last_at: str | None) -> bool: ...


@dataclass(frozen=True)
class Restamped:
    workspace_id: str
    checked: int
    stamped: int
    finished: bool


class RetentionStamper:
    def __init__(
        self, retention_of: Callable[[str], tuple[bool, int | None]], agents_of: Callable[[str], list[str]],
        stamps: Stamps,
    ):  # fmt: skip
        self._retention_of = retention_of  # (the workspace exists, its retention in days or None)
        self._agents_of = agents_of
        self._stamps = stamps

    def restamp(self, workspace_id: str, remaining_ms: Callable[[], int]) -> Restamped:
        exists, days = self._retention_of(workspace_id)
        if not exists:  # deleted meanwhile: its purge removes the turns
            return Restamped(workspace_id, 0, 0, finished=True)
        checked = stamped = 0
        for agent_id in self._agents_of(workspace_id):
            for item in self._stamps.stamps(agent_id):
                if remaining_ms() <= SAFETY_MS:  # the next pass reads again and skips what is already right
                    return Restamped(workspace_id, checked, stamped, finished=False)
                checked += 1
                thread = "lastAt" in item
                wanted = expires_at(item["lastAt"] if thread else item["createdAt"], days)
                if item.get("expiresAt") != wanted:
                    stamped += self._stamps.stamp(item, wanted, last_at=item["lastAt"] if thread else None)
        logger.info("turns re-stamped", extra={"workspaceId": workspace_id, "checked": checked, "stamped": stamped})
        return Restamped(workspace_id, checked, stamped, finished=True)
