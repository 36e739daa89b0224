"""The ledger's item layout and the transaction items that change it (pure: no I/O). See docs/ledger.md."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime
from typing import Any

from core.credits import shards
from core.credits.records import HoldRecord, HoldUsage, LedgerEntryRecord
from core.platform import usage_counters
from core.platform.dynamo import to_item

# Expiring holds are indexed across 32 partitions, so no index key runs hot: a turn writes its hold's index entry
# three times (reserve, delivered, settled), and 8 keys capped the service at ~2,700 turns a second, every account's
# together (bench/ledger_shards.py). Holds indexed under fewer keys before are still found (0..7 are among them).
HOLD_SHARDS = 32
NEW = "attribute_not_exists(pk)"
# A usage item's TTL attribute (epoch seconds). Not ``expiresAt``: that is the holds' index key, a string.
USAGE_TTL = "ttl"
# On the balance: ``{workspaceId, agentId, at}`` of the first chat refused for lack of credits since the last grant
# (``credits.exhausted`` streams from its appearance); every grant removes it.
EXHAUSTED = "exhausted"


def key(account_id: str, sk: str, book: int = shards.MAIN) -> dict[str, Any]:
    return to_item({"pk": shards.partition(account_id, book), "sk": sk})


def balance_sk() -> str:
    return "BALANCE"


def hold_sk(ref_id: str) -> str:
    return f"HOLD#{ref_id}"


def marker_sk(ref_type: str, ref_id: str) -> str:
    """A reference's marker: written by the grant, settlement or release that used it, so each happens once."""
    return f"REF#{ref_type}#{ref_id}"


def entry_sk(entry: LedgerEntryRecord) -> str:
    return f"ENTRY#{entry.created_at}#{entry.id}"  # time first: a descending Query is newest first


def usage_key(workspace_id: str, day: str, book: int = shards.MAIN) -> dict[str, Any]:
    """A workspace's chat usage of one UTC day (YYYY-MM-DD), beside the accounts' partitions (a sharded account's
    settlements in shard k count on ``<day>#S<k>``: ``shards.usage_sk``)."""
    return to_item({"pk": usage_counters.usage_partition(workspace_id), "sk": shards.usage_sk(day, book)})


def usage_expiry(day: str) -> int:
    """The epoch second a day's usage item is removed by TTL: ``TTL_DAYS`` after that day began."""
    start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
    return int(start) + usage_counters.TTL_DAYS * usage_counters.DAY_SECONDS


def hold_shard(ref_id: str) -> str:
    return f"HOLDS#{zlib.crc32(ref_id.encode()) % HOLD_SHARDS}"


class LedgerItems:
    def __init__(self, table: str):
        self._table = table

    def put_marker(
        self, account_id: str, ref_type: str, ref_id: str, *, outcome: str, at: str, book: int = shards.MAIN
    ) -> dict[str, Any]:
        marker = {"refId": ref_id, "refType": ref_type, "outcome": outcome, "at": at}
        item = key(account_id, marker_sk(ref_type, ref_id), book) | to_item(marker)
        return {"Put": {"TableName": self._table, "Item": item, "ConditionExpression": NEW}}

    def unused_reference(self, account_id: str, ref_type: str, ref_id: str, book: int = shards.MAIN) -> dict[str, Any]:
        return {
            "ConditionCheck": {
                "TableName": self._table,
                "Key": key(account_id, marker_sk(ref_type, ref_id), book),
                "ConditionExpression": NEW,
            }
        }

    def put_entry(self, entry: LedgerEntryRecord, book: int = shards.MAIN) -> dict[str, Any]:
        item = key(entry.account_id, entry_sk(entry), book) | to_item(entry.attributes())
        return {"Put": {"TableName": self._table, "Item": item, "ConditionExpression": NEW}}

    def put_hold(self, hold: HoldRecord, book: int = shards.MAIN) -> dict[str, Any]:
        # ``book`` on the item too: the sweeper, reading the index, finishes the hold in its book.
        attributes = hold.attributes() | {"holdShard": hold_shard(hold.ref_id)} | ({"book": book} if book else {})
        item = key(hold.account_id, hold_sk(hold.ref_id), book) | to_item(attributes)
        return {"Put": {"TableName": self._table, "Item": item, "ConditionExpression": NEW}}

    def count_usage(self, usage: HoldUsage, charge: int, book: int = shards.MAIN) -> dict[str, Any] | None:
        """ADD one turn and its ``charge`` to the key's and the agent's counters of the workspace's day (creating
        the day's item on first use; a shard book's settlement: the day's item of that shard); None when the hold
        names neither."""
        subjects = [(s, i) for s, i in (("key", usage.key_id), ("agent", usage.agent_id)) if i]
        if not subjects:
            return None
        names: dict[str, str] = {"#ttl": USAGE_TTL}
        adds: list[str] = []
        for n, (subject, subject_id) in enumerate(subjects):
            names[f"#t{n}"] = usage_counters.chat_name(usage_counters.TURNS, subject, subject_id)
            names[f"#c{n}"] = usage_counters.chat_name(usage_counters.CREDITS, subject, subject_id)
            adds += [f"#t{n} :one", f"#c{n} :charge"]
        return {
            "Update": {
                "TableName": self._table,
                "Key": usage_key(usage.workspace_id, usage.day, book),
                "UpdateExpression": f"ADD {', '.join(adds)} SET #ttl = :ttl",
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": to_item({":one": 1, ":charge": charge, ":ttl": usage_expiry(usage.day)}),
            }
        }

    def delete_hold(self, hold: HoldRecord, *, undelivered: bool = False, book: int = shards.MAIN) -> dict[str, Any]:
        """Delete the hold as it was read; ``undelivered``: only if its work has delivered nothing since."""
        condition = "attribute_exists(pk) AND amount = :amount"
        values: dict[str, Any] = {":amount": hold.amount}
        if undelivered:  # a release must never undo a hold whose work reached the customer meanwhile
            condition += " AND (attribute_not_exists(streamed) OR streamed = :no)"
            values[":no"] = False
        return {
            "Delete": {
                "TableName": self._table,
                "Key": key(hold.account_id, hold_sk(hold.ref_id), book),
                "ConditionExpression": condition,
                "ExpressionAttributeValues": to_item(values),
            }
        }

    def update_balance(
        self, account_id: str, at: str, *, available: int = 0, held: int = 0, entry_type: str | None = None,
        cover: int | None = None, rearm: bool = False, book: int = shards.MAIN, unsharded: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        """ADD the deltas (creating the balance on first use), counting one entry of ``entry_type`` if given.

        ``cover``: the update only applies while ``available`` is at least that much. ``rearm`` (a grant): REMOVE
        the exhaustion marker, so the next refusal for lack of credits is a new exhaustion (``exhausted``).
        ``unsharded`` (a reserve on the main book): only while the account has no shards; a failed condition
        returns the balance as it is, so the caller learns the account's ``shards`` without a read first.
        """
        adds = ["available :available", "held :held"] + (["entries :one", "#typed :one"] if entry_type else [])
        values: dict[str, Any] = {":available": available, ":held": held, ":at": at}
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": key(account_id, balance_sk(), book),
            "UpdateExpression": f"ADD {', '.join(adds)} SET updatedAt = :at"
            + (f" REMOVE {EXHAUSTED}" if rearm else ""),
        }
        if entry_type:
            values[":one"] = 1
            update["ExpressionAttributeNames"] = {"#typed": f"entries:{entry_type}"}
        if cover is not None:
            values[":cover"] = cover
            only = " AND attribute_not_exists(shards)" if unsharded else ""
            update["ConditionExpression"] = "available >= :cover" + only
            update["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        update["ExpressionAttributeValues"] = to_item(values)
        return {"Update": update}

    def lease(self, account_id: str, book: int, amount: int, at: str) -> list[dict[str, Any]]:
        """Lend ``amount`` of the main balance's available to shard ``book``: main ``available`` never below zero,
        and only while the account is sharded. A failed condition returns the main balance as it is."""
        taken: dict[str, Any] = {
            "TableName": self._table,
            "Key": key(account_id, balance_sk()),
            "UpdateExpression": "ADD available :minus SET updatedAt = :at",
            "ConditionExpression": "available >= :amount AND attribute_exists(shards)",
            "ExpressionAttributeValues": to_item({":minus": -amount, ":amount": amount, ":at": at}),
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        given = self.update_balance(account_id, at, available=amount, book=book)
        return [{"Update": taken}, given]

    def gather(self, account_id: str, book: int, amount: int, at: str) -> list[dict[str, Any]]:
        """Return ``amount`` of shard ``book``'s available to the main balance (the shard's never below zero)."""
        taken: dict[str, Any] = {
            "TableName": self._table,
            "Key": key(account_id, balance_sk(), book),
            "UpdateExpression": "ADD available :minus SET updatedAt = :at",
            "ConditionExpression": "available >= :amount",
            "ExpressionAttributeValues": to_item({":minus": -amount, ":amount": amount, ":at": at}),
        }
        return [{"Update": taken}, self.update_balance(account_id, at, available=amount)]

    def mark_exhausted(self, account_id: str, workspace_id: str, agent_id: str, at: str) -> dict[str, Any]:
        """UpdateItem arguments: SET the exhaustion marker unless one is set (one per exhaustion, whatever the
        number of refusals). An account that never had a balance item gets one holding only the marker."""
        marker = {"workspaceId": workspace_id, "agentId": agent_id, "at": at}
        return {
            "TableName": self._table,
            "Key": key(account_id, balance_sk()),
            "UpdateExpression": f"SET {EXHAUSTED} = :marker",
            "ConditionExpression": f"attribute_not_exists({EXHAUSTED})",
            "ExpressionAttributeValues": to_item({":marker": marker}),
        }
