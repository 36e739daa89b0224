"""``POST /v1/agent/{agentId}/turns/{turnId}/feedback``: a visitor rates a reply (up, down) or withdraws the rating.

Two round trips: the turn's receipt with the agent/workspace check (one BatchGetItem) and the visitor's count,
issued together; then one transaction (``FeedbackStore.write``). The answers are decided in this order whatever
order the reads end in: the turn (404), then the visitor's limit (429), as the chat decides its own.

One 404 body ("Turn not found") for every turn the caller may not rate: unknown, another agent's (the receipt's
key is the agent's), another workspace's (the agent is looked for under the key's workspace), answered to another
visitor (``client``), or made more than ``FEEDBACK_DAYS`` ago, read by the clock (DynamoDB's TTL removes receipts
only some time after they expire). Never billed.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from core.insights.feedback_store import RatingChange
from core.insights.records import FEEDBACK_DAYS
from core.platform import together
from core.platform.errors import Conflict, NotFound
from core.platform.ids import iso

if TYPE_CHECKING:
    from core.insights.feedback_models import FeedbackRequest
    from core.insights.feedback_store import FeedbackStore, RatingTarget
    from core.insights.records import ReceiptRecord
    from core.platform.rate_limit import SlidingWindowLimiter

ATTEMPTS = 3  # a rating that loses a race to another rating of the same turn is decided again on what won
TURN_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")  # what a turn id can be (``turn_<ulid>``), bounded: never a read
TURN_NOT_FOUND = "Turn not found"
RACED = "The turn's rating changed meanwhile; try again"
_MS = timedelta(milliseconds=1)


def now() -> datetime:
    """The feedback's clock (one place for tests to move it): the age of a turn, the time of a rating."""
    return datetime.now(UTC)


class FeedbackService:
    def __init__(self, *, store: FeedbackStore, limiter: SlidingWindowLimiter, visitor_limit: int):
        self._store = store
        self._limiter = limiter
        self._visitor_limit = visitor_limit

    def rate(self, workspace_id: str, agent_id: str, turn_id: str, request: FeedbackRequest) -> None:
        """Set (or withdraw) the visitor's rating of the turn: the last one standing."""
        if not TURN_ID.fullmatch(turn_id):
            raise NotFound(TURN_NOT_FOUND)
        found, counted = together.run(
            lambda: self._store.target(workspace_id, agent_id, turn_id),
            # Scoped by workspace and agent, as the chat's visitor count: a rating never spends another's.
            lambda: self._limiter.take(f"feedback#{workspace_id}#{agent_id}#{request.client}", self._visitor_limit),
        )
        target: RatingTarget = found.result()
        receipt = self._rateable(target.receipt, workspace_id, agent_id, request.client)
        if not target.agent_found or target.workspace is None:  # the agent is not this workspace's
            raise NotFound(TURN_NOT_FOUND)
        counted.result()  # 429
        workspace = target.workspace
        for _ in range(ATTEMPTS):
            if request.rating is None and receipt.rating is None:
                return  # nothing to withdraw: nothing written
            change = RatingChange(
                receipt=receipt, rating=request.rating, comment=request.comment,
                rated_at=rated_at(receipt.rated_at) if request.rating is not None else None,
                store_conversations=workspace.store_conversations,
                retention_days=workspace.conversation_retention_days,
            )  # fmt: skip
            if self._store.write(change):
                return
            # Another rating of the turn came first (or the receipt expired meanwhile): decide again on what is there.
            receipt = self._rateable(self._store.receipt(agent_id, turn_id), workspace_id, agent_id, request.client)
        raise Conflict(RACED)

    @staticmethod
    def _rateable(receipt: ReceiptRecord | None, workspace_id: str, agent_id: str, client: str) -> ReceiptRecord:
        """The receipt, if this visitor may rate its turn now; else the one 404."""
        if (
            receipt is None
            or receipt.workspace_id != workspace_id
            or receipt.agent_id != agent_id
            or receipt.client != client
            or now() - parse_time(receipt.created_at) > timedelta(days=FEEDBACK_DAYS)
        ):
            raise NotFound(TURN_NOT_FOUND)
        return receipt


def rated_at(previous: str | None) -> str:
    """Now, as a timestamp after the previous rating's: the new rating's rows never share the old ones' keys (which
    this transaction deletes), and the listings keep the latest first even when containers' clocks differ."""
    at = now()
    if previous is not None:
        at = max(at, parse_time(previous) + _MS)
    return iso(at)


def parse_time(timestamp: str) -> datetime:
    """``2026-11-22T05:23:35.123Z`` as an aware datetime."""
    return datetime.fromisoformat(timestamp)
