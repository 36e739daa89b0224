"""What visitors said back, read by the agent's owners and admins (authoring.md, "Feedback, unanswered questions and
the owner's answers"): insights per UTC day, ratings and unanswered questions, newest first.

Every read is bounded by the days or the page asked for, never by the turns behind it (docs/decisions.md, "Insights
read in constant cost"). Insights are the access check, one BatchGetItem per 25 days of the days' counter shards and
one ``gsi2`` Query of 20 per day, all issued together: a 30-day read is 4 + 30 + 1 calls and at most 120 + 600
items whether the agent had ten turns or ten million. ``topQuestions`` merges each day's top 20 by question key;
over several days that is an approximation (a question that is 21st every day is never counted), which is the
price of reading no partition whole.

The access check goes out beside the reads and must pass before anything read is used: a stranger (404), a member
(403), another workspace's agent (404) learn nothing. The insights package knows nothing of roles or workspaces:
the provider hands it the check, which answers what the reads need of the workspace (``Reach``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.insights.models import (
    TOP,
    Feedback,
    FeedbackPage,
    FeedbackQuery,
    FeedbackSource,
    InsightsDay,
    InsightsPage,
    InsightsQuery,
    TopQuestion,
    TopSource,
    UnansweredPage,
    UnansweredQuery,
    UnansweredQuestion,
)
from core.insights.reader_store import DAYS_PER_GET, InsightsReadStore
from core.insights.records import COUNTERS, SOURCE_COUNT, SOURCE_NAME, parse_source_key
from core.platform import cursors, together
from core.platform.errors import ValidationFailed
from core.platform.main_table import FEEDBACK_ALL

# A listing's position: ``<time>#<turnId>`` (the row's sort key without its prefix).
POSITION = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[A-Za-z0-9_-]{1,64}$")
_SOURCE_FIELDS = ("itemId", "postId", "answerId", "name", "r2Key", "where")


@dataclass(frozen=True)
class Reach:
    """What the reads need of the agent's workspace, once its access check has passed."""

    stores_conversations: bool  # questions and unanswered rows exist only then
    retention_days: int | None  # the workspace's ``conversationRetentionDays``


Access = Callable[[str, str, str], Reach]  # (user, workspace, agent): an owner's or admin's, or 404 / 403
# (retention days, now) -> the oldest day still shown ("" for every day): ``core.platform.retention.first_kept_day``
FirstKeptDay = Callable[[int | None, datetime], str]


def now() -> datetime:
    """The readers' clock (tests move it): which days are "the last ``days``", which are past retention."""
    return datetime.now(UTC)


def decode(cursor: str | None) -> str | None:
    if cursor is None:
        return None
    position = cursors.decode(cursor)
    if not POSITION.match(position):
        raise ValidationFailed(cursors.BAD_CURSOR)
    return position


class InsightsReader:
    def __init__(self, store: InsightsReadStore, access: Access, first_kept_day: FirstKeptDay):
        self._store = store
        self._access = access
        self._first_kept_day = first_kept_day

    def _first_day(self, reach: Reach, at: datetime) -> str:
        return self._first_kept_day(reach.retention_days, at)

    def insights(self, user_id: str, workspace_id: str, agent_id: str, query: InsightsQuery) -> InsightsPage:
        at = now()
        today = at.astimezone(UTC).date()
        days = [(today - timedelta(days=back)).isoformat() for back in range(query.days - 1, -1, -1)]
        chunks = [days[i : i + DAYS_PER_GET] for i in range(0, len(days), DAYS_PER_GET)]
        # Every read at once; the questions are read before the check says whether they are kept (one round
        # trip, not two), and dropped unread when they are not.
        checked, *found = together.run(
            lambda: self._access(user_id, workspace_id, agent_id),
            *(lambda chunk=chunk: self._store.day_counters(agent_id, chunk) for chunk in chunks),
            *(lambda day=day: self._store.top_questions(agent_id, day, TOP) for day in days),
        )
        reach: Reach = checked.result()  # the check decides first: nothing read is used for a stranger
        counters = [item for future in found[: len(chunks)] for item in future.result()]
        asked = dict(zip(days, (future.result() for future in found[len(chunks) :]), strict=True))
        first_day = self._first_day(reach, at)
        kept = {day: rows for day, rows in asked.items() if day >= first_day}
        return InsightsPage(
            days=_days(days, counters),
            top_questions=_top_questions(kept) if reach.stores_conversations else [],
            top_sources=_top_sources(counters),
        )

    def feedback(self, user_id: str, workspace_id: str, agent_id: str, query: FeedbackQuery) -> FeedbackPage:
        """Newest first: the check and the page issued together (one round trip); rows past the retention are the
        oldest, so dropping them after the read only ends the listing early."""
        prefix = f"{query.rating.upper()}#" if query.rating else FEEDBACK_ALL

        def read() -> list[dict[str, Any]]:  # a bad cursor is refused after the check: a stranger learns nothing
            return _page(lambda upper, limit: self._store.feedback(agent_id, prefix, "", upper, limit),
                         query.cursor, query.limit, prefix)  # fmt: skip

        reach, rows = together.checked_then_read(lambda: self._access(user_id, workspace_id, agent_id), read)
        first_day = self._first_day(reach, now())
        kept = [row for row in rows() if row["createdAt"][:10] >= first_day]
        shown = kept[: query.limit]
        return FeedbackPage(
            feedback=[_feedback(row) for row in shown],
            next_cursor=_next(shown[-1]["sk"].removeprefix(prefix)) if len(kept) > query.limit else None,
        )

    def unanswered(self, user_id: str, workspace_id: str, agent_id: str, query: UnansweredQuery) -> UnansweredPage:
        """Newest first; the check goes first: where conversations are not stored nothing is read (``[]``), and
        where they are, the Query starts at the retention's first kept day."""
        reach = self._access(user_id, workspace_id, agent_id)
        rows: list[dict[str, Any]] = []
        if reach.stores_conversations:
            first_day = self._first_day(reach, now())
            rows = _page(lambda upper, limit: self._store.unanswered(agent_id, first_day, upper, limit),
                         query.cursor, query.limit, "")  # fmt: skip
        elif query.cursor is not None:
            decode(query.cursor)  # the same 400 for a bad cursor, stored or not
        shown = rows[: query.limit]
        return UnansweredPage(
            questions=[_unanswered(row) for row in shown],
            next_cursor=_next(shown[-1]["sk"]) if len(rows) > query.limit else None,
        )


def _page(
    query: Callable[[str | None, int], list[dict[str, Any]]], cursor: str | None, limit: int, prefix: str
) -> list[dict[str, Any]]:
    """A page and one more (so ``nextCursor`` is null exactly on the last page); after a cursor, its own row is
    within the bound (BETWEEN includes it) and dropped."""
    after = decode(cursor)
    rows = query(after, limit + (2 if after is not None else 1))
    return [row for row in rows if after is None or row["sk"].removeprefix(prefix) < after][: limit + 1]


def _next(position: str) -> str:
    return cursors.encode(position)


def _days(days: list[str], counters: list[dict[str, Any]]) -> list[InsightsDay]:
    """One entry a day, oldest first, zeros included: the day's shards added up."""
    totals = {day: dict.fromkeys(COUNTERS, 0) for day in days}
    for item in counters:
        day = _day_of(item)
        for name in COUNTERS:
            totals[day][name] += int(item.get(name) or 0)
    return [InsightsDay(date=day, **totals[day]) for day in days]


def _day_of(item: dict[str, Any]) -> str:
    return str(item["sk"]).split("#")[1]  # DAY#<day>#<shard>


def _top_sources(counters: list[dict[str, Any]]) -> list[TopSource]:
    """Every source's uses over the days, most used first; its name the latest day's."""
    counts: dict[str, int] = {}
    names: dict[str, tuple[str, str]] = {}  # source key: (day, name)
    for item in counters:
        day = _day_of(item)
        for attribute, value in item.items():
            if attribute.startswith(SOURCE_COUNT):
                key = attribute.removeprefix(SOURCE_COUNT)
                counts[key] = counts.get(key, 0) + int(value)
            elif attribute.startswith(SOURCE_NAME):
                key = attribute.removeprefix(SOURCE_NAME)
                if key not in names or names[key][0] < day:
                    names[key] = (day, str(value))
    ranked = sorted(counts, key=lambda key: (-counts[key], key))[:TOP]
    return [
        TopSource(**parse_source_key(key), name=names.get(key, ("", _fallback_name(key)))[1], count=counts[key])
        for key in ranked
    ]


def _fallback_name(key: str) -> str:
    """A source whose name was never written: the site's is in its key; an id's is its id."""
    return key.partition(":")[2]


def _top_questions(asked: dict[str, list[dict[str, Any]]]) -> list[TopQuestion]:
    """Each day's most asked, merged by question key: counts added up, the words, ``answered`` and ``lastAt`` of the
    latest asking whose words are still kept (an erased asker's are not: a question with none left is left out)."""
    counts: dict[str, int] = {}
    latest: dict[str, dict[str, Any]] = {}
    for rows in asked.values():
        for row in rows:
            key = str(row["sk"]).split("#", 1)[1]  # <day>#<questionKey>
            counts[key] = counts.get(key, 0) + int(row["gsi2sk"])
            if row.get("question") and (key not in latest or latest[key]["lastAt"] < row["lastAt"]):
                latest[key] = row
    ranked = sorted(latest, key=lambda key: (-counts[key], key))[:TOP]
    return [_top_question(latest[key], counts[key]) for key in ranked]


def _top_question(row: dict[str, Any], count: int) -> TopQuestion:
    return TopQuestion(question=row["question"], count=count, answered=bool(row.get("answered")),
                       last_at=row["lastAt"])  # fmt: skip


def _feedback(row: dict[str, Any]) -> Feedback:
    sources = [
        FeedbackSource.model_validate({k: v for k, v in source.items() if k in _SOURCE_FIELDS and v is not None})
        for source in row.get("sources") or []
    ]
    return Feedback(turn_id=row["turnId"], thread_key=row["threadKey"], client=row["client"], rating=row["rating"],
                    comment=row.get("comment"), prompt=row.get("prompt"), reply=row.get("reply"), sources=sources,
                    created_at=row["createdAt"])  # fmt: skip


def _unanswered(row: dict[str, Any]) -> UnansweredQuestion:
    return UnansweredQuestion(turn_id=row["turnId"], thread_key=row["threadKey"], client=row["client"],
                              prompt=row["prompt"], created_at=row["createdAt"])  # fmt: skip
