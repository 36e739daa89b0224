"""Stored turns re-stamped after a workspace's retention changed (``conversationRetentionDays``).

A turn's TTL is set when it is stored, from the retention of that moment (``core.platform.retention``). Readers hide
what is past the current retention at once, but DynamoDB deletes by the stamped TTL: without a new stamp, turns
stored while retention was unset would be kept for good, a shortened retention would keep them as long as the old
one, and a lengthened one would delete them sooner than it says. So a change of the setting queues this pass
(``WorkspaceSettingsService``, through the workspace worker's queue, after the turns in flight have landed): it
reads the retention now set, walks every agent's stored turns and threads, and sets each TTL the setting gives
(removes it for ``null``), writing only those that differ. A turn's TTL follows its ``createdAt``, a thread's its
``lastAt``; a thread a new turn moved meanwhile is left to that turn's write. Idempotent: a pass that ran out of time
asks to run again, and the next one skips what is already right. A pass that finished notes the retention it applied
on the workspace item (``retentionAppliedAt``, ``retentionAppliedDays``: ``conversations.retention.applied``).

What the turns left besides (issue 40) is walked too, each stamped as its writer stamps it (``core.insights``):

- a receipt: 8 days after its turn, or the retention's expiry if sooner when it holds the turn's prompt and reply;
- an unanswered row: the retention's expiry of its turn (it exists only where conversations are stored);
- a question item: its day's 100 days, or the retention's expiry of its latest asking if sooner (conditioned on that
  asking, as a thread on its last turn: a new one sets the TTL itself);
- a rating's three rows: the retention's expiry of the rating where the workspace stores conversations, and wherever
  the rating's rows hold the turn's text (a rating made while it did); otherwise none.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain
from typing import Any, Protocol

from core.platform import main_table as keys
from core.platform.ids import now_iso
from core.platform.retention import expires_at, question_expires_at, receipt_expires_at

logger = logging.getLogger(__name__)
SAFETY_MS = 30_000  # stop this long before the worker's timeout (as its purge does)


class Stamps(Protocol):
    """The stored turns' and threads' TTLs, and those of what the turns left besides (``ThreadStore``)."""

    def stamps(self, agent_id: str) -> Iterable[dict[str, Any]]: ...
    def trail_stamps(self, agent_id: str) -> Iterable[dict[str, Any]]: ...
    def stamp(self, key: dict[str, Any], expires_at: int | None, *, last_at: str | None) -> bool: ...


@dataclass(frozen=True)
class Retention:
    """A workspace's settings the TTLs follow (``None``: the workspace is gone)."""

    days: int | None
    stores_conversations: bool


@dataclass(frozen=True)
class Restamped:
    workspace_id: str
    checked: int
    stamped: int
    finished: bool


class RetentionStamper:
    def __init__(
        self, retention_of: Callable[[str], Retention | None], agents_of: Callable[[str], list[str]], stamps: Stamps,
        applied: Callable[[str, int | None, str], bool],
    ):  # fmt: skip
        self._retention_of = retention_of
        self._agents_of = agents_of
        self._stamps = stamps
        # (workspace, days, at): a pass's last write, on the workspace (``WorkspaceStore.mark_retention_applied``)
        self._applied = applied

    def restamp(self, workspace_id: str, remaining_ms: Callable[[], int]) -> Restamped:
        retention = self._retention_of(workspace_id)
        if retention is None:  # deleted meanwhile: its purge removes the turns
            return Restamped(workspace_id, 0, 0, finished=True)
        checked = stamped = 0
        for agent_id in self._agents_of(workspace_id):
            wanted = Wanted(retention, agent_id)
            for item in chain(self._stamps.stamps(agent_id), self._stamps.trail_stamps(agent_id)):
                if remaining_ms() <= SAFETY_MS:  # the next pass reads again and skips what is already right
                    return Restamped(workspace_id, checked, stamped, finished=False)
                checked += 1
                expiry, last_at = wanted(item)
                if item.get("expiresAt") != expiry:
                    stamped += self._stamps.stamp(item, expiry, last_at=last_at)
        # Last, once every TTL is right: ``conversations.retention.applied`` streams from this write. If it fails, the
        # message is retried and the next pass (which finds the TTLs right) writes it; it writes nothing when the
        # setting moved since (that change's pass will) or this retention was already the one applied.
        applied = self._applied(workspace_id, retention.days, now_iso())
        logger.info("turns re-stamped", extra={"workspaceId": workspace_id, "checked": checked, "stamped": stamped,
                                               "applied": applied})  # fmt: skip
        return Restamped(workspace_id, checked, stamped, finished=True)


class Wanted:
    """The TTL the retention gives an item of one agent, and the ``lastAt`` its write is conditioned on (an item a
    new turn moves: a thread, a question item). Items come partition by partition in key order, so a rating's
    listing row (``ALL#``) is seen before its other two rows, which follow it."""

    def __init__(self, retention: Retention, agent_id: str):
        self._days = retention.days
        self._stores = retention.stores_conversations
        self._receipts, self._unanswered = keys.turns_partition(agent_id), keys.unanswered_partition(agent_id)
        self._questions, self._feedback = keys.questions_partition(agent_id), keys.feedback_partition(agent_id)
        self._texts: set[str] = set()  # ratings (``<ratedAt>#<turnId>``) whose rows hold the turn's text

    def __call__(self, item: dict[str, Any]) -> tuple[int | None, str | None]:
        partition, sk, days = item["pk"], item["sk"], self._days
        if partition == self._receipts:  # its prompt and reply kept only where conversations were stored
            return receipt_expires_at(item["createdAt"], days if "prompt" in item else None), None
        if partition == self._unanswered:
            return expires_at(item["createdAt"], days), None
        if partition == self._questions:  # <day>#<questionKey>
            return question_expires_at(sk[:10], item["lastAt"], days), item["lastAt"]
        if partition == self._feedback:
            if sk.startswith(keys.FEEDBACK_ALL) and "prompt" in item:
                self._texts.add(sk.removeprefix(keys.FEEDBACK_ALL))
            return self._rating(sk), None
        if "lastAt" in item:  # a thread: follows its last turn
            return expires_at(item["lastAt"], days), item["lastAt"]
        return expires_at(item["createdAt"], days), None

    def _rating(self, sk: str) -> int | None:
        """``ALL#<ratedAt>#<turnId>``, ``UP#…``, ``DOWN#…`` or ``VISITOR#<client>#<ratedAt>#<turnId>``."""
        parts = sk.split("#")
        rated_at, turn_id = parts[-2], parts[-1]
        tail = f"{rated_at}#{turn_id}"
        if self._stores or tail in self._texts:
            return expires_at(rated_at, self._days)
        return None
