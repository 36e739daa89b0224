"""DynamoDB capacity as on-demand bills it, and a meter that counts what the handlers' boto3 clients ask of AWS.

Item sizes follow AWS's rules (numbers approximated): reads 4 KB units (x0.5 eventually consistent,
x2 in a transaction), a Query by the summed size of the items it evaluated (filters apply after),
writes 1 KB units of the larger of the item before and after (x2 in a transaction, ConditionCheck
billed as a write, a failed condition still billed). Used by bench/cost_inputs.py and bench/aws_calls.py.
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from bench.timeline import Timeline

READ_UNIT, WRITE_UNIT = 4096, 1024

# ------------------------------------------------------------------ DynamoDB item sizes and units


def attribute_size(value: dict[str, Any]) -> int:
    """Bytes DynamoDB counts for one attribute value (numbers: about one byte per two digits, plus one)."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "N":
        digits = Decimal(inner).normalize().as_tuple().digits
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(inner)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind in ("SS", "NS", "BS"):
        return sum(attribute_size({kind[0]: v}) for v in inner)
    if kind == "L":
        return 3 + sum(1 + attribute_size(v) for v in inner)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + attribute_size(v) for k, v in inner.items())
    raise ValueError(kind)


def item_size(item: dict[str, Any] | None) -> int:
    return sum(len(name.encode()) + attribute_size(v) for name, v in (item or {}).items())


def read_units(size: int, *, consistent: bool, transactional: bool = False) -> float:
    units = max(1, math.ceil(size / READ_UNIT))
    return units * (2 if transactional else 1) * (1 if consistent or transactional else 0.5)


def write_units(size: int, *, transactional: bool = False) -> int:
    return max(1, math.ceil(size / WRITE_UNIT)) * (2 if transactional else 1)


# ------------------------------------------------------------------ the meter


@dataclass
class Usage:
    calls: collections.Counter = field(default_factory=collections.Counter)
    rru: float = 0.0  # read request units
    wru: float = 0.0  # write request units
    items_read: int = 0
    call_ms: float = 0.0  # wall time with an AWS call in flight (moto here; DynamoDB/S3 latency on AWS)
    meter_ms: float = 0.0  # the meter's own probes: taken out of every duration
    bytes_from_s3: int = 0
    # units per call kind: fractional (an eventually consistent read is half a unit), so not a Counter of ints
    by_call: collections.defaultdict[str, float] = field(default_factory=lambda: collections.defaultdict(float))


class Meter:
    """Counts what the handlers' boto3 clients ask of AWS; sizes are read with a separate, unhooked client."""

    def __init__(self, probe: Any):
        self.usage = Usage()
        self._probe = probe  # a DynamoDB client on another session: its calls are not counted
        self._keys: dict[str, list[str]] = {}
        self._timeline = Timeline()

    def attach(self, session: Any) -> None:
        session.events.register("before-parameter-build", self._before)
        session.events.register("before-call", self._sending)
        session.events.register("after-call", self._after)

    def _sending(self, context: dict[str, Any], **_: Any) -> None:
        self._timeline.enter("call")
        context["cost_sent"] = True

    def reset(self) -> Usage:
        done, self.usage = self.usage, Usage()
        spent = self._timeline.take()
        done.call_ms, done.meter_ms = spent["call"], spent["probe"]
        return done

    # The item as it is now (the key schema looked up once per table).
    def _current(self, table: str, key_or_item: dict[str, Any]) -> dict[str, Any] | None:
        if table not in self._keys:
            schema = self._probe.describe_table(TableName=table)["Table"]["KeySchema"]
            self._keys[table] = [k["AttributeName"] for k in schema]
        key = {name: key_or_item[name] for name in self._keys[table]}
        return self._probe.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")

    def _write_targets(self, name: str, params: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
        if name in ("PutItem", "UpdateItem", "DeleteItem"):
            return [(params["TableName"], params.get("Key") or params["Item"], False)]
        if name == "TransactWriteItems":
            targets = []
            for action in params["TransactItems"]:
                ((_, spec),) = action.items()
                targets.append((spec["TableName"], spec.get("Key") or spec["Item"], True))
            return targets
        if name == "BatchWriteItem":
            return [
                (table, (r.get("PutRequest") or {}).get("Item") or r["DeleteRequest"]["Key"], False)
                for table, requests in params["RequestItems"].items()
                for r in requests
            ]
        return []

    def _before(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if model.service_model.service_name != "dynamodb":
            return
        self._timeline.enter("probe")
        targets = self._write_targets(model.name, params)
        context["cost_params"] = params
        context["cost_before"] = [(t, k, tx, item_size(self._current(t, k))) for t, k, tx in targets]
        self._timeline.leave("probe")

    def _after(self, http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        service, name = model.service_model.service_name, model.name
        self.usage.calls[f"{service}:{name}"] += 1
        if context.pop("cost_sent", False):
            self._timeline.leave("call")
        self._timeline.enter("probe")
        try:
            self._account(service, name, http_response, parsed, context)
        finally:
            self._timeline.leave("probe")

    def _account(self, service: str, name: str, response: Any, parsed: dict[str, Any], context: dict[str, Any]) -> None:
        if service == "s3":
            if name == "GetObject" and response.status_code < 300:
                self.usage.bytes_from_s3 += int(parsed.get("ContentLength") or 0)
            return
        if service != "dynamodb":
            return
        params = context.get("cost_params", {})
        rru = wru = 0.0
        if name == "GetItem":
            found = self._current(params["TableName"], params["Key"])
            rru = read_units(item_size(found), consistent=bool(params.get("ConsistentRead")))
            self.usage.items_read += found is not None
        elif name == "Query":
            evaluated = self._evaluated(params, parsed)
            rru = read_units(sum(map(item_size, evaluated)), consistent=bool(params.get("ConsistentRead")))
            self.usage.items_read += len(evaluated)
        elif name in ("BatchGetItem", "TransactGetItems"):
            gets = (
                [(t, k, True) for t, spec in params["RequestItems"].items() for k in spec["Keys"]]
                if name == "BatchGetItem"
                else [(g["Get"]["TableName"], g["Get"]["Key"], False) for g in params["TransactItems"]]
            )
            for table, key, consistent_flag in gets:
                found = self._current(table, key)
                consistent = consistent_flag and bool(params["RequestItems"][table].get("ConsistentRead"))
                rru += read_units(item_size(found), consistent=consistent, transactional=name == "TransactGetItems")
                self.usage.items_read += found is not None
        if name == "TransactWriteItems":
            self.usage.by_call["TransactWriteItems items"] += len(params["TransactItems"])
        for table, key, transactional, before in context.get("cost_before", []):
            after = item_size(self._current(table, key))
            wru += write_units(max(before, after), transactional=transactional)
        self.usage.rru += rru
        self.usage.wru += wru
        self.usage.by_call[f"{name} RRU"] += rru
        self.usage.by_call[f"{name} WRU"] += wru

    def _evaluated(self, params: dict[str, Any], parsed: dict[str, Any]) -> list[dict[str, Any]]:
        """The items the Query read before its filter: the same page again, with a filter that keeps everything."""
        probe = {k: v for k, v in params.items() if k not in ("ProjectionExpression", "Select")}
        if "ProjectionExpression" in params and "ExpressionAttributeNames" in probe:  # DynamoDB refuses unused names
            used = " ".join(str(probe.get(k, "")) for k in ("KeyConditionExpression", "FilterExpression"))
            kept = {name: value for name, value in probe["ExpressionAttributeNames"].items() if name in used}
            probe = {k: v for k, v in probe.items() if k != "ExpressionAttributeNames"}
            probe |= {"ExpressionAttributeNames": kept} if kept else {}
        if "FilterExpression" in probe:
            probe["FilterExpression"] = f"({probe['FilterExpression']}) OR attribute_not_exists(#cost_probe)"
            probe["ExpressionAttributeNames"] = probe.get("ExpressionAttributeNames", {}) | {"#cost_probe": "_cost"}
        if parsed.get("ScannedCount") is not None:
            probe["Limit"] = max(1, parsed["ScannedCount"])
        return self._probe.query(**probe).get("Items", []) if parsed.get("ScannedCount", 1) else []
