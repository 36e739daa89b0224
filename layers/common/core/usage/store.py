"""Reads the usage counters: the read plane's requests and 429s on each key's window items (one per shard, written
by the rate limiter), and the chat turns and credits on the workspace's usage items in the ledger table (one per
UTC day, written by each turn's settlement: ``core.credits``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.platform import together, usage_counters
from core.platform.dynamo import batch_delete, from_av, query_all, to_item, translate_errors
from core.platform.rate_shards import shard_count, shard_subject

BATCH = 100  # BatchGetItem's most keys
# The most shards a key's limit can take: the mint caps ``rateLimit`` at 100,000 a minute (docs/decisions.md,
# "A hot key at scale"); a key seeded above it would count in shards this reader does not read.
MAX_SHARDS = shard_count(100_000, 60)


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

    def counters(self, key_ids: Iterable[str]) -> dict[str, int]:
        """Every usage counter of these keys' window items, summed over keys and shards (BatchGetItems of at most
        100 items, issued together: one round trip for up to 25 keys a batch)."""
        subjects = [shard_subject(f"key#{key_id}", index) for key_id in key_ids for index in range(MAX_SHARDS)]
        batches = [subjects[i : i + BATCH] for i in range(0, len(subjects), BATCH)]
        found = together.run(*(lambda batch=batch: self._batch(batch) for batch in batches)) if batches else []
        totals: dict[str, int] = {}
        for future in found:
            for item in future.result():
                for name, av in item.items():
                    if usage_counters.parse(name):
                        totals[name] = totals.get(name, 0) + int(from_av(av))
        return totals

    def delete_workspace_usage(self, workspace_id: str, key_ids: Iterable[str]) -> int:
        """A deleted workspace's usage, for its purge: its days in the ledger table (one Query, keys only) and its
        keys' window items, every shard a key can have (deleting an absent item is no error, so a pass that stopped
        short is finished by the next). How many usage days it deleted."""
        days = query_all(self._db, {
            "TableName": self._ledger_table, "KeyConditionExpression": "pk = :pk", "ProjectionExpression": "pk, sk",
            "ExpressionAttributeValues": to_item({":pk": usage_counters.usage_partition(workspace_id)}),
        })  # fmt: skip
        windows = [{"pk": shard_subject(f"key#{key_id}", index)} for key_id in key_ids for index in range(MAX_SHARDS)]
        batch_delete(self._db, self._table, windows)
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
