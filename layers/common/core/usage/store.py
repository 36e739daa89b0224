"""Reads the usage counters: the read plane's requests and 429s on each key's window items (one per shard, written
by the rate limiter: the open day, and a closed day until a later write hands it on) and on the workspace's day
items in the rate-limits table (the closed days handed on: ``usage_counters.day_item``), and the chat turns and
credits on the workspace's usage items in the ledger table (one per UTC day, written by each turn's settlement:
``core.credits``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.platform import rate_limit, together, usage_counters
from core.platform.dynamo import batch_delete, from_av, query_all, to_item, translate_errors
from core.platform.rate_shards import shard_count, shard_subject

BATCH = 100  # BatchGetItem's most keys
# The most shards a key's limit can take: the mint caps ``rateLimit`` at 100,000 a minute (docs/decisions.md,
# "A hot key at scale"); a key seeded above it would count in shards this reader does not read.
MAX_SHARDS = shard_count(100_000, 60)


@dataclass(frozen=True)
class Counted:
    """What ``UsageStore.read`` found: each key's window counters (summed over its shards, ``usage_counters``
    names) and the workspace's day items' counters by day (``usage_counters.handed`` names). A counter is on
    exactly one of the two (a hand-on moves it in one transaction), so a day's count is their sum."""

    windows: dict[str, dict[str, int]] = field(default_factory=dict)  # keyId -> counter -> count
    days: dict[int, dict[str, int]] = field(default_factory=dict)  # day -> counter -> count


class UsageStore:
    def __init__(self, client: Any, table: str, ledger_table: str):
        self._db = client
        self._table = table
        self._ledger_table = ledger_table

    def chat(
        self, workspace_id: str, subject: str, subject_id: str, first: str, last: str
    ) -> dict[str, tuple[int, int]]:
        """``{day: (turns, credits)}`` of one key or agent (``subject`` ``key`` or ``agent``) from day ``first`` to
        ``last`` (YYYY-MM-DD): one Query of the workspace's usage partition, only this subject's counters, summed
        over each day's items (a sharded account's settlements count on ``<day>#S<k>``: docs/ledger.md, "Shards")."""
        turns = usage_counters.chat_name(usage_counters.TURNS, subject, subject_id)
        spent = usage_counters.chat_name(usage_counters.CREDITS, subject, subject_id)
        # "~" sorts after "#": ``<last>~`` bounds every shard item of the last day
        values = {":pk": usage_counters.usage_partition(workspace_id), ":first": first, ":last": f"{last}~"}
        found = query_all(self._db, {
            "TableName": self._ledger_table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :first AND :last",
            "ProjectionExpression": "sk, #turns, #credits",
            "ExpressionAttributeNames": {"#turns": turns, "#credits": spent},
            "ExpressionAttributeValues": to_item(values),
        })  # fmt: skip
        days: dict[str, tuple[int, int]] = {}
        for item in found:
            day = item["sk"].split("#", 1)[0]
            before = days.get(day, (0, 0))
            days[day] = (before[0] + int(item.get(turns, 0)), before[1] + int(item.get(spent, 0)))
        return days

    def read(self, workspace_id: str, key_ids: Iterable[str], days: Iterable[int]) -> Counted:
        """These keys' window items (every shard a key can have) and the workspace's day items of ``days``, in
        BatchGetItems of at most 100 items issued together: one round trip (4 shards + 90 days fit one batch)."""
        owner = {shard_subject(f"key#{key_id}", index): key_id for key_id in key_ids for index in range(MAX_SHARDS)}
        day_of = {usage_counters.day_item(workspace_id, day): day for day in days}
        subjects = [*owner, *day_of]
        batches = [subjects[i : i + BATCH] for i in range(0, len(subjects), BATCH)]
        if len(batches) == 1:  # the usual case: one call, made here (a pool of one is no round trip saved)
            found = [self._batch(batches[0])]
        else:
            found = [f.result() for f in together.run(*(lambda batch=batch: self._batch(batch) for batch in batches))]
        counted = Counted()
        for items in found:
            for item in items:
                pk = item["pk"]["S"]
                if pk in day_of:
                    counted.days[day_of[pk]] = {
                        name: int(from_av(av)) for name, av in item.items() if name not in ("pk", "expiresAt")
                    }
                    continue
                totals = counted.windows.setdefault(owner[pk], {})
                for name, av in item.items():
                    if usage_counters.parse(name):
                        totals[name] = totals.get(name, 0) + int(from_av(av))
        return counted

    def delete_workspace_usage(self, workspace_id: str, key_ids: Iterable[str], today: int | None = None) -> int:
        """A deleted workspace's usage, for its purge: its days in the ledger table (one Query, keys only), its
        keys' window items, every shard a key can have, and its day items in the rate-limits table, every day one
        can still exist (``TTL_DAYS`` back from ``today``, by the limiter's clock, and tomorrow for a clock ahead):
        deleting an absent item is no error, so a pass that stopped short is finished by the next. How many usage
        days it deleted from the ledger table."""
        days = query_all(self._db, {
            "TableName": self._ledger_table, "KeyConditionExpression": "pk = :pk", "ProjectionExpression": "pk, sk",
            "ExpressionAttributeValues": to_item({":pk": usage_counters.usage_partition(workspace_id)}),
        })  # fmt: skip
        windows = [{"pk": shard_subject(f"key#{key_id}", index)} for key_id in key_ids for index in range(MAX_SHARDS)]
        batch_delete(self._db, self._table, windows)
        today = usage_counters.day_of(rate_limit.now()) if today is None else today
        handed = range(today - usage_counters.TTL_DAYS - 1, today + 2)
        batch_delete(self._db, self._table, [{"pk": usage_counters.day_item(workspace_id, day)} for day in handed])
        batch_delete(self._db, self._ledger_table, [{"pk": day["pk"], "sk": day["sk"]} for day in days])
        return len(days)

    def _batch(self, subjects: list[str]) -> list[dict[str, Any]]:
        request: dict[str, Any] = {self._table: {"Keys": [{"pk": {"S": s}} for s in subjects]}}
        items: list[dict[str, Any]] = []
        while request:
            with translate_errors("BatchGetItem"):
                answer = self._db.batch_get_item(RequestItems=request)
            items += answer.get("Responses", {}).get(self._table, [])
            request = answer.get("UnprocessedKeys") or {}
        return items
