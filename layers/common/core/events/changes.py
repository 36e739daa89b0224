"""A table's stream record -> the events it means (docs/decisions.md, "Webhooks: one home for events").

``events_of(table, record)`` is PURE: it reads only the record (Lambda's DynamoDB stream shape: ``eventID``,
``eventName``, ``dynamodb.{Keys, NewImage, OldImage, ApproximateCreationDateTime}``) and never the tables. A record
that means nothing yields ``[]``: most do (a thread's counters, a hold, a MODIFY that leaves an item's index state
as it was). The event source mappings' FilterCriteria (template.yaml, ``EventsFunction``) already drop most of the
rest before the function runs; this function is the rule, the filters only its cheaper first pass.

| record | event |
|---|---|
| MAIN INSERT ``AGENT#<a>#TURNS`` / ``TURN#…`` | ``conversation.turn.completed`` |
| MAIN INSERT ``AGENT#<a>#FEEDBACK`` / ``ALL#…`` | ``feedback.created`` |
| MAIN MODIFY ``AGENT#<a>#ITEMS``, ``index.status`` became indexed / failed | ``knowledge.item.indexed`` / ``failed`` |
| MAIN INSERT / REMOVE ``WS#<w>`` / ``MEMBER#<u>`` | ``member.joined`` / ``member.removed`` |
| MAIN REMOVE ``WS#<w>`` / ``AGENT#<a>`` | ``agent.deleted`` |
| MAIN INSERT ``AUDIT#<w>`` with action ``conversation.erase`` | ``conversation.erased`` |
| MAIN MODIFY ``WS#<w>`` / ``WS``, ``retentionAppliedAt`` changed | ``conversations.retention.applied`` |
| LEDGER INSERT / MODIFY ``ACCT#<u>`` / ``BALANCE``, ``exhausted`` appeared | ``credits.exhausted`` (its workspace) |
| LEDGER MODIFY ``ACCT#<u>`` / ``BALANCE``, available + held fell | ``credits.low`` (routed: ``owners``) |
| LEDGER INSERT ``ACCT#<u>`` / ``ENTRY#…`` of a grant | ``credits.granted`` (routed: ``owners``) |
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from core.events import catalogue as types
from core.events.records import AccountChange, Event, event_id
from core.platform.dynamo import from_item
from core.platform.ids import iso

TableKind = Literal["main", "ledger"]
MAIN: TableKind = "main"
LEDGER: TableKind = "ledger"

GRANTS = frozenset({"topup", "refund", "adjustment"})  # the ledger's grant reference types (docs/ledger.md)
ERASE_ACTION = "conversation.erase"

Change = Event | AccountChange


def events_of(table: TableKind, record: Mapping[str, Any]) -> list[Change]:
    """The events the record means; ``AccountChange``s still to be routed to the account's workspaces."""
    stream = record.get("dynamodb") or {}
    keys = from_item(stream.get("Keys") or {})
    pk, sk = str(keys.get("pk", "")), str(keys.get("sk", ""))
    seen = _Seen(
        source=f"{table}:{record.get('eventID', '')}",
        name=str(record.get("eventName", "")),
        pk=pk,
        sk=sk,
        new=from_item(stream.get("NewImage") or {}),
        old=from_item(stream.get("OldImage") or {}),
        timestamp=_timestamp(stream.get("ApproximateCreationDateTime")),
    )
    return _ledger(seen) if table == LEDGER else _main(seen)


class _Seen:
    """One record, its images as plain values."""

    def __init__(self, *, source: str, name: str, pk: str, sk: str, new: dict[str, Any], old: dict[str, Any],
                 timestamp: str):  # fmt: skip
        self.source, self.name, self.pk, self.sk = source, name, pk, sk
        self.new, self.old, self.timestamp = new, old, timestamp

    def event(self, event_type: str, workspace_id: Any, data: dict[str, Any]) -> list[Change]:
        """One event for ``workspace_id``; none when the item names no workspace (rows written before their writer
        stamped it: nothing to route them by)."""
        if not isinstance(workspace_id, str) or not workspace_id:
            return []
        return [Event(event_id(self.source, event_type, workspace_id), event_type, workspace_id, self.timestamp,
                      data)]  # fmt: skip


def _timestamp(created: Any) -> str:
    """The record's creation time (Lambda gives epoch seconds) in RFC 3339; the epoch when absent (never on AWS)."""
    seconds = float(created) if isinstance(created, int | float | str) and str(created) else 0.0
    return iso(datetime.fromtimestamp(seconds, UTC))


def _agent_of(pk: str, suffix: str) -> str | None:
    """``AGENT#<a>#<suffix>`` -> ``a``."""
    head, tail = "AGENT#", f"#{suffix}"
    return pk[len(head) : -len(tail)] if pk.startswith(head) and pk.endswith(tail) else None


def _main(seen: _Seen) -> list[Change]:
    if seen.pk.startswith("AGENT#"):
        return _agent_partitions(seen)
    if seen.pk.startswith("WS#"):
        return _workspace_partition(seen, seen.pk[len("WS#") :])
    if seen.pk.startswith("AUDIT#") and seen.name == "INSERT" and seen.new.get("action") == ERASE_ACTION:
        # target: "conversations:<agentId>/<client>" (core.chat.erasure)
        target = str(seen.new.get("target", ""))
        agent_id, _, client = target.removeprefix("conversations:").partition("/")
        data = {"agentId": agent_id, "client": client, "turns": seen.new.get("count") or 0}
        return seen.event(types.CONVERSATION_ERASED, seen.pk[len("AUDIT#") :], data)
    return []


def _agent_partitions(seen: _Seen) -> list[Change]:
    new = seen.new
    if seen.name == "INSERT" and (agent := _agent_of(seen.pk, "TURNS")) and seen.sk.startswith("TURN#"):
        data = {"agentId": agent, "threadKey": new.get("threadKey"), "turnId": new.get("turnId"),
                "client": new.get("client"), "credits": new.get("credits"),
                "unanswered": bool(new.get("unanswered", False)), "createdAt": new.get("createdAt")}  # fmt: skip
        for text in ("prompt", "reply"):  # only on the receipts of workspaces that store conversations
            if new.get(text) is not None:
                data[text] = new[text]
        return seen.event(types.TURN_COMPLETED, new.get("workspaceId"), data)
    if seen.name == "INSERT" and (agent := _agent_of(seen.pk, "FEEDBACK")) and seen.sk.startswith("ALL#"):
        data = {"agentId": agent, "turnId": new.get("turnId"), "threadKey": new.get("threadKey"),
                "client": new.get("client"), "rating": new.get("rating"), "comment": new.get("comment"),
                "createdAt": new.get("createdAt")}  # fmt: skip
        return seen.event(types.FEEDBACK_CREATED, new.get("workspaceId"), data)
    if seen.name == "MODIFY" and (agent := _agent_of(seen.pk, "ITEMS")):
        status, before = _index_status(new), _index_status(seen.old)
        if status == before or status not in ("indexed", "failed"):
            return []  # the worker re-read an unchanged document, or an author's write set it pending
        data = {"itemId": new.get("id"), "agentId": agent}
        if status == "indexed":
            return seen.event(types.ITEM_INDEXED, new.get("workspaceId"), data | {"passages": _index(new).get(
                "passages", 0)})  # fmt: skip
        return seen.event(types.ITEM_FAILED, new.get("workspaceId"), data | {"error": _index(new).get("error")})
    return []


def _index(image: Mapping[str, Any]) -> dict[str, Any]:
    index = image.get("index")
    return index if isinstance(index, dict) else {}


def _index_status(image: Mapping[str, Any]) -> str | None:
    status = _index(image).get("status")
    return status if isinstance(status, str) else None


def _workspace_partition(seen: _Seen, workspace_id: str) -> list[Change]:
    if seen.sk.startswith("MEMBER#"):
        user_id = seen.sk[len("MEMBER#") :]
        if seen.name == "INSERT":
            data = {"userId": user_id, "role": seen.new.get("role")}
            if seen.new.get("email"):
                data["email"] = seen.new["email"]
            return seen.event(types.MEMBER_JOINED, workspace_id, data)
        if seen.name == "REMOVE":
            return seen.event(types.MEMBER_REMOVED, workspace_id, {"userId": user_id, "role": seen.old.get("role")})
        return []  # a role changed: no event of the contract
    if seen.sk.startswith("AGENT#") and seen.name == "REMOVE":
        old = seen.old
        data = {"agentId": seen.sk[len("AGENT#") :], "name": old.get("name"), "slug": old.get("slug")}
        return seen.event(types.AGENT_DELETED, workspace_id, data)
    if seen.sk == "WS" and seen.name == "MODIFY":
        at = seen.new.get("retentionAppliedAt")
        if at and at != seen.old.get("retentionAppliedAt"):
            # what the pass applied (absent: kept for good), not the setting, which may have moved since
            data = {"retentionDays": seen.new.get("retentionAppliedDays"), "at": at}
            return seen.event(types.RETENTION_APPLIED, workspace_id, data)
    return []


def _total(image: Mapping[str, Any]) -> int:
    return int(image.get("available") or 0) + int(image.get("held") or 0)


def _ledger(seen: _Seen) -> list[Change]:
    if not seen.pk.startswith("ACCT#"):
        return []
    account = seen.pk[len("ACCT#") :]
    if "#" in account:  # a sharded account's shard book (``ACCT#<id>#S<k>``): part of an account, no account of its own
        return []
    found: list[Change] = []
    if seen.sk == "BALANCE" and seen.name in ("INSERT", "MODIFY"):
        marker = seen.new.get("exhausted")
        if isinstance(marker, dict) and "exhausted" not in seen.old:
            data = {"agentId": marker.get("agentId"), "balance": int(seen.new.get("available") or 0)}
            found += seen.event(types.CREDITS_EXHAUSTED, marker.get("workspaceId"), data)
        # available + held moves only on grants and settlements: a hold or a release moves credits between the
        # two and never crosses a threshold twice (docs/decisions.md)
        # A sharded account's main balance falls when it lends a shard credit, which spends nothing; its total is
        # the sum of every book, which no one record holds, so it has no credits.low (docs/ledger.md, "Shards").
        sharded = "shards" in seen.new
        if seen.name == "MODIFY" and not sharded and _total(seen.new) < _total(seen.old):
            found.append(AccountChange(seen.source, types.CREDITS_LOW, account, seen.timestamp,
                                       {"balance": int(seen.new.get("available") or 0)},
                                       old_total=_total(seen.old), new_total=_total(seen.new)))  # fmt: skip
    elif seen.sk.startswith("ENTRY#") and seen.name == "INSERT" and seen.new.get("refType") in GRANTS:
        new = seen.new
        data = {"amount": new.get("amountCredits"), "refType": new.get("refType"), "refId": new.get("refId"),
                "description": new.get("description")}  # fmt: skip
        found.append(AccountChange(seen.source, types.CREDITS_GRANTED, account, seen.timestamp, data))
    return found
