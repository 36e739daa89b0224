"""Sliding-window request counters: one item per subject, shared by every Lambda container through DynamoDB.

An item holds hit counts in numbered time buckets (``b<index>``) and ``newest``, the
highest bucket ever written. Writes only ever go to ``newest`` or a later bucket, so
every bucket older than ``newest`` is frozen: that is what lets one conditional
UpdateItem check a limit against a sum it cannot compute itself (DynamoDB conditions
have no arithmetic). The policy (which buckets count, what the cap is) is the
limiter's (``core.platform.rate_limit``); this module only reads and writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.platform import usage_counters
from core.platform.dynamo import from_av, to_av, translate_errors

NEWEST = "newest"


@dataclass(frozen=True)
class Buckets:
    """What one subject's item held: ``newest`` (None: no item) and the count of every bucket present."""

    newest: int | None = None
    counts: Mapping[int, int] = field(default_factory=dict)
    usage: Mapping[str, int] = field(default_factory=dict)  # usage counters (``usage_counters``) by name


def _bucket(index: int) -> str:
    return f"b{index}"


def _parse(item: Mapping[str, Any] | None) -> Buckets:
    usage = {name: int(from_av(av)) for name, av in (item or {}).items() if usage_counters.parse(name)}
    if not item or NEWEST not in item:
        return Buckets(usage=usage)
    counts = {int(name[1:]): from_av(av) for name, av in item.items() if name[:1] == "b" and name[1:].isdigit()}
    return Buckets(newest=from_av(item[NEWEST]), counts=counts, usage=usage)


@dataclass(frozen=True)
class Added:
    counted: bool
    item: Buckets  # after the write if counted, else the item that made the condition fail


class RateLimitStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def read(self, subject: str) -> Buckets:
        """One strongly consistent GetItem (a stale count could let a request through over the limit)."""
        with translate_errors("GetItem"):
            item = self._db.get_item(TableName=self._table, Key={"pk": {"S": subject}}, ConsistentRead=True).get("Item")
        return _parse(item)

    def add(
        self,
        subject: str,
        bucket: int,
        *,
        cap: int,
        seen: Buckets,
        drop: Iterable[int],
        expires_at: int,
        usage: Iterable[str] = (),
        drop_usage: Iterable[str] = (),
    ) -> Added:
        """Count one hit in ``bucket`` if the item is still as ``seen`` wherever the caller's decision read it.

        ``bucket`` is ``seen.newest`` or later. Into ``newest`` itself: the hit is counted while
        that bucket holds fewer than ``cap`` (concurrent hits of one bucket never retry). Into a
        later bucket: only if ``newest`` and its count are unchanged (every older bucket is
        frozen, so the caller's sum still holds). ``drop``: buckets that left the window,
        removed in the same write. ``usage``: counters (``usage_counters``) one more each, ``drop_usage``
        counters removed, in the same write (so counting usage costs no call). One UpdateItem; on a failed
        condition the item as it is now comes back with the failure (no second read).
        """
        names = {"#n": NEWEST, "#b": _bucket(bucket)}
        values: dict[str, Any] = {":one": to_av(1), ":bucket": to_av(bucket), ":exp": to_av(expires_at)}
        if seen.newest is None:
            condition = "attribute_not_exists(#n)"
        elif seen.newest == bucket:
            condition = "#n = :bucket AND (attribute_not_exists(#b) OR #b < :cap)"
            values[":cap"] = to_av(cap)
        else:
            names["#last"] = _bucket(seen.newest)
            condition = "#n = :newest AND #last = :lastCount"
            values |= {":newest": to_av(seen.newest), ":lastCount": to_av(seen.counts.get(seen.newest, 0))}
        added = {f"#u{i}": counter for i, counter in enumerate(usage)}
        names |= added
        update = "ADD " + ", ".join(["#b :one", *(f"{n} :one" for n in added)]) + " SET #n = :bucket, expiresAt = :exp"
        dropped = {f"#d{i}": _bucket(index) for i, index in enumerate(sorted(set(drop)))}
        dropped |= {f"#r{i}": counter for i, counter in enumerate(sorted(set(drop_usage)))}
        if dropped:
            names |= dropped
            update += " REMOVE " + ", ".join(dropped)
        with translate_errors("UpdateItem"):
            try:
                result = self._db.update_item(
                    TableName=self._table,
                    Key={"pk": {"S": subject}},
                    UpdateExpression=update,
                    ConditionExpression=condition,
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values,
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except self._db.exceptions.ConditionalCheckFailedException as exc:
                return Added(counted=False, item=_parse(exc.response.get("Item")))
            except self._db.exceptions.TransactionConflictException:
                # The item is in a hand-on's transaction (``hand_on``) this instant: nothing was written, so the
                # limiter decides again as after any contention (never an error for the request).
                return Added(counted=False, item=seen)
        return Added(counted=True, item=_parse(result.get("Attributes")))

    def hand_on(self, subject: str, closed: Mapping[int, Mapping[str, int]], to: usage_counters.HandOn) -> bool:
        """Move ``closed`` (``{day: {counter: count}}``, as the window item was read) to ``to``'s day items, once.

        One TransactWriteItems: the window item's Update removes the counters, conditioned on each still being the
        count read (a 429 counted since, or another container's hand-on, fails it: nothing moves, and the next
        write hands on what is there then); each day item's Update adds them. A counter is thus always on exactly
        one of the two items, whatever fails or races. False when the transaction was cancelled (nothing written).
        """
        counters = [(name, count) for day in sorted(closed) for name, count in sorted(closed[day].items())]
        if not counters:
            return False
        names = {f"#c{i}": name for i, (name, _) in enumerate(counters)}
        values = {f":c{i}": to_av(count) for i, (_, count) in enumerate(counters)}
        window = {
            "TableName": self._table, "Key": {"pk": {"S": subject}},
            "UpdateExpression": "REMOVE " + ", ".join(names),
            "ConditionExpression": " AND ".join(f"#c{i} = :c{i}" for i in range(len(counters))),
            "ExpressionAttributeNames": names, "ExpressionAttributeValues": values,
        }  # fmt: skip
        items: list[dict[str, Any]] = [{"Update": window}]
        for day in sorted(closed):
            added = {f"#a{i}": usage_counters.handed(name, to.key_id) for i, name in enumerate(sorted(closed[day]))}
            adds = {f":a{i}": to_av(closed[day][name]) for i, name in enumerate(sorted(closed[day]))}
            expires = (day + usage_counters.TTL_DAYS) * usage_counters.DAY_SECONDS
            items.append({"Update": {
                "TableName": self._table, "Key": {"pk": {"S": usage_counters.day_item(to.workspace_id, day)}},
                "UpdateExpression": "ADD " + ", ".join(f"{n} {v}" for n, v in zip(added, adds, strict=True))
                + " SET expiresAt = :exp",
                "ExpressionAttributeNames": added, "ExpressionAttributeValues": adds | {":exp": to_av(expires)},
            }})  # fmt: skip
        with translate_errors("TransactWriteItems"):
            try:
                self._db.transact_write_items(TransactItems=items)
            except self._db.exceptions.TransactionCanceledException:
                return False
        return True

    def tally(self, subject: str, usage: Iterable[str], *, expires_at: int) -> None:
        """Count a refused request: one more in each ``usage`` counter, unconditionally (one UpdateItem, made
        only on the refused path: a counted request's counters ride on its ``add``)."""
        added = {f"#u{i}": counter for i, counter in enumerate(usage)}
        if not added:
            return
        with translate_errors("UpdateItem"):
            self._db.update_item(
                TableName=self._table,
                Key={"pk": {"S": subject}},
                UpdateExpression="ADD " + ", ".join(f"{n} :one" for n in added) + " SET expiresAt = :exp",
                ExpressionAttributeNames=added,
                ExpressionAttributeValues={":one": to_av(1), ":exp": to_av(expires_at)},
            )
