"""Reads of what visitors said back, each bounded by the days or the page asked for, never by the turns behind it.

- A day's counters are ``INSIGHTS_SHARDS`` items (``main_table.insights_day``): a range of days is one
  BatchGetItem of their keys (at most 100 keys a call, so 25 days a call).
- A day's most asked questions are one descending Query of ``gsi2`` (sorted by their count) of ``Limit`` 20.
- Ratings (``ALL#``, ``UP#`` or ``DOWN#`` rows) and unanswered rows are sorted by their time: a page is one
  descending Query of ``Limit`` the page and one more, bounded below by the retention's first kept day.
"""

from __future__ import annotations

from typing import Any

from core.platform import main_table as keys
from core.platform.dynamo import batch_get, query_all, to_item

GET_KEYS = 100  # BatchGetItem's most keys
DAYS_PER_GET = GET_KEYS // keys.INSIGHTS_SHARDS
AFTER_EVERY = "~"  # sorts after every timestamp (digits): the top of a range with no upper bound


class InsightsReadStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def day_counters(self, agent_id: str, days: list[str]) -> list[dict[str, Any]]:
        """Every shard item of these days (at most ``DAYS_PER_GET``): one BatchGetItem. Absent shards are absent."""
        wanted = [keys.insights_day(agent_id, day, shard) for day in days for shard in range(keys.INSIGHTS_SHARDS)]
        return batch_get(self._db, self._table, wanted)

    def top_questions(self, agent_id: str, day: str, limit: int) -> list[dict[str, Any]]:
        """The day's ``limit`` most asked questions, most asked first: one Query of ``gsi2`` (its projection: the
        keys, ``question``, ``lastAt``, ``answered``; ``gsi2sk`` is the count)."""
        return query_all(self._db, {
            "TableName": self._table, "IndexName": "gsi2", "ScanIndexForward": False, "Limit": limit,
            "KeyConditionExpression": "gsi2pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": keys.questions_index(agent_id, day)}),
        }, limit)  # fmt: skip

    def feedback(self, agent_id: str, prefix: str, first: str, upper: str | None, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` rating rows whose sort key is ``prefix`` then a time from ``first`` (a day, "" for any)
        up to ``upper`` (a position ``<ratedAt>#<turnId>``, included; None for no bound), newest first."""
        return self._newest(keys.feedback_partition(agent_id), prefix + first, prefix + (upper or AFTER_EVERY), limit)

    def unanswered(self, agent_id: str, first: str, upper: str | None, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` unanswered rows from ``first`` (a day, "" for any) up to ``upper`` (a position
        ``<createdAt>#<turnId>``, included), newest first."""
        return self._newest(keys.unanswered_partition(agent_id), first or "0", upper or AFTER_EVERY, limit)

    def _newest(self, partition: str, lower: str, upper: str, limit: int) -> list[dict[str, Any]]:
        if upper < lower:  # a cursor older than the first kept day: nothing left (and BETWEEN would be refused)
            return []
        return query_all(self._db, {
            "TableName": self._table, "ScanIndexForward": False, "Limit": limit,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lower AND :upper",
            "ExpressionAttributeValues": to_item({":pk": partition, ":lower": lower, ":upper": upper}),
        }, limit)  # fmt: skip
