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
        return Added(counted=True, item=_parse(result.get("Attributes")))

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
