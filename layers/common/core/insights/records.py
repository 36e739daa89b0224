"""The insights' storage records (docs/data-model.md), in the API's camelCase, and the day counters' names.

The chat writes a receipt per delivered turn and a shard of its day's counters (``core.insights.turn_log``); when
the workspace stores conversations, also the day's question item and, for an unanswered turn, its unanswered row.
A rating (``core.insights.feedback``) sets ``rating``/``comment``/``ratedAt`` on the receipt and moves the
``up``/``down`` counters of the turn's day.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from core.platform.records import Record

FEEDBACK_DAYS = 7

# The day counters' numbers (ADD) on ``main_table.insights_day`` items; a reader sums the shards of a day.
COUNTERS = ("turns", "threads", "visitors", "up", "down", "unanswered")
SOURCE_COUNT = "src:"  # + source key: how many turns used that source that day
SOURCE_NAME = "name:"  # + source key: its latest name (SET)


class ReceiptRecord(Record):
    """A delivered turn (``main_table.turn_receipt``), stored conversations or not."""

    workspace_id: str
    agent_id: str
    turn_id: str
    thread_key: str
    client: str
    key_id: str | None = None
    created_at: str
    day: str  # YYYY-MM-DD of createdAt (UTC): the day whose counters the turn (and its rating) moved
    unanswered: bool = False
    credits: int | None = None  # what the turn was charged (its hold, settled); None on receipts before issue 42
    sources: list[dict[str, Any]] = Field(default_factory=list)  # the ``sources`` event's list
    prompt: str | None = None  # prompt and reply only when the workspace stores conversations
    reply: str | None = None
    expires_at: int | None = None  # TTL: createdAt + 8 days, or the retention's expiry when sooner
    rating: str | None = None  # up | down, set by a rating
    comment: str | None = None
    rated_at: str | None = None


class QuestionRecord(Record):
    """How often a question was asked on a day (``main_table.question``; its count is ``gsi2sk``, a key attribute
    the reader takes from the item), with the latest asking's text and asker. Only when conversations are stored."""

    question: str | None = None  # question/client/turnId: removed when that asker is erased; the count stays
    client: str | None = None
    turn_id: str | None = None
    last_at: str
    answered: bool = False
    expires_at: int | None = None


class UnansweredRecord(Record):
    """An unanswered turn's row (``main_table.unanswered``), only when conversations are stored."""

    turn_id: str
    thread_key: str
    client: str
    prompt: str
    created_at: str
    expires_at: int | None = None


def source_key(source: dict[str, Any]) -> str:
    """A ``sources`` entry's key in the day counters: ``item:<id>``, ``post:<id>``, ``answer:<id>`` or
    ``site:<name>`` (the agent's own site text has no id of its own)."""
    for field, kind in (("answerId", "answer"), ("itemId", "item"), ("postId", "post")):
        if source.get(field):
            return f"{kind}:{source[field]}"
    return f"site:{source.get('name') or ''}"


def parse_source_key(key: str) -> dict[str, str | None]:
    """A source key as the insights' ``topSources`` names it: ``{itemId, postId, answerId}`` (one set, or none for
    the site)."""
    kind, _, value = key.partition(":")
    return {
        "itemId": value if kind == "item" else None,
        "postId": value if kind == "post" else None,
        "answerId": value if kind == "answer" else None,
    }
