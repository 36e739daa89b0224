"""How long stored turns are kept (the workspace's ``conversationRetentionDays``), by whole UTC days; what the
turns and ratings leave beside them (core.insights) follows the same days.

A turn stored on day D is kept through day D + days and is gone from day D + days + 1 on, 00:00 UTC: at most a
day after it passed its age, as authoring.md allows. Readers hide it from that instant (``first_kept_day``);
DynamoDB's TTL (``expires_at``, on the turn and on its thread, which follows its last turn) deletes it some time
after, and ``null`` days keep turns until they are erased or their agent or workspace is deleted.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

# What visitors leave beside their stored turns (core.insights) is kept by the same clock: a turn's receipt 8 days (a
# rating is taken within 7 days of the turn), its day counters and question items 100 (the insights read 90).
RECEIPT_DAYS = 8
INSIGHTS_DAYS = 100

# Thread items count their turns per day (``d:<day>``) and note each day's first turn (``f:<day>``), so a reader
# counts only the turns still kept without reading them.
DAY_COUNT = "d:"
DAY_FIRST = "f:"


def day_of(timestamp: str) -> str:
    """``2026-11-22`` of ``2026-11-22T05:23:35.123Z`` (timestamps are fixed-width UTC)."""
    return timestamp[:10]


def expires_at(created_at: str, days: int | None) -> int | None:
    """The TTL (epoch seconds) of a turn stored at ``created_at``: the start of the day it is no longer kept."""
    if days is None:
        return None
    end = date.fromisoformat(day_of(created_at)) + timedelta(days=days + 1)
    return int(datetime(end.year, end.month, end.day, tzinfo=UTC).timestamp())


def receipt_expires_at(created_at: str, days: int | None) -> int:
    """A turn's receipt's TTL: ``RECEIPT_DAYS`` after the turn, or when the retention removes the stored turn, if
    sooner (the receipt then holds its prompt and reply)."""
    moment = datetime.fromisoformat(created_at).astimezone(UTC) + timedelta(days=RECEIPT_DAYS)
    kept = int(moment.timestamp())
    retained = expires_at(created_at, days)
    return kept if retained is None else min(kept, retained)


def day_counted_until(day: str) -> int:
    """The TTL of what counts a UTC day (its counters, its question items): ``INSIGHTS_DAYS`` after it began."""
    end = date.fromisoformat(day) + timedelta(days=INSIGHTS_DAYS)
    return int(datetime(end.year, end.month, end.day, tzinfo=UTC).timestamp())


def question_expires_at(day: str, last_at: str, days: int | None) -> int:
    """A day's question item's TTL: when its day stops being counted, or when the retention removes its latest
    asking (whose text it holds), if sooner."""
    retained = expires_at(last_at, days)
    counted = day_counted_until(day)
    return counted if retained is None else min(counted, retained)


def first_kept_day(days: int | None, now: datetime | None = None) -> str:
    """The oldest day whose turns are still shown today ("" keeps every day: it sorts before any)."""
    if days is None:
        return ""
    today = (now or datetime.now(UTC)).astimezone(UTC).date()
    return (today - timedelta(days=days)).isoformat()
