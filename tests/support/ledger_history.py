"""Ledgers written the old way (entries with no ``n``) straight into moto, the history numberer run to the end, and
the old reader's answer to compare pages with (docs/ledger.md, "The numbered history")."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from core.credits import history
from core.credits.history_store import HistoryStore
from core.platform.dynamo import batch_put, from_item, query_all, to_item
from core.platform.ids import iso
from core.platform.settings import get_settings
from ops.number_history import number_account

START = datetime(2026, 1, 1, tzinfo=UTC)
TYPES = ("topup", "llm", "llm", "refund", "llm", "adjustment", "llm", "render")  # refunds are an eighth
AMOUNTS = {"topup": 10, "llm": -1, "refund": 2, "adjustment": 1, "render": -1}


def write_old_ledger(
    dynamodb: Any, account: str, count: int, *, book: str = history.MAIN_BOOK, first: int = 0, shards: int = 0,
    spacing: timedelta = timedelta(seconds=1),
) -> list[dict[str, Any]]:  # fmt: skip
    """``count`` entries in ``book`` (the i-th at ``START + (first + i) · spacing``) and the book's balance with
    their sum and counters, as the ledger's writes leave them: no ``n``. ``shards``: set on the main balance."""
    entries = []
    for i in range(first, first + count):
        ref_type = TYPES[i % len(TYPES)]
        created = iso(START + i * spacing)
        entry_id = f"led_{book or 'M'}{i:08d}"
        entries.append({
            "pk": history.book_pk(account, book), "sk": f"ENTRY#{created}#{entry_id}", "id": entry_id,
            "accountId": account, "amountCredits": AMOUNTS[ref_type], "refType": ref_type, "refId": f"ref-{book}{i}",
            "description": f"entry {i}", "createdAt": created,
        })  # fmt: skip
    table = get_settings().ledger_table
    batch_put(dynamodb, table, entries)
    by_type = Counter(e["refType"] for e in entries)
    names = {f"#t{n}": f"entries:{t}" for n, t in enumerate(by_type)}
    adds = ["available :sum", "entries :count"] + [f"#t{n} :c{n}" for n in range(len(by_type))]
    values: dict[str, Any] = {":sum": sum(e["amountCredits"] for e in entries), ":count": len(entries)}
    values |= {f":c{n}": c for n, c in enumerate(by_type.values())}
    update = "ADD " + ", ".join(adds)
    if shards:
        update += " SET shards = :shards"
        values[":shards"] = shards
    dynamodb.update_item(
        TableName=table, Key=to_item({"pk": history.book_pk(account, book), "sk": "BALANCE"}),
        UpdateExpression=update, ExpressionAttributeNames=names, ExpressionAttributeValues=to_item(values),
    )  # fmt: skip
    return entries


def number_all(numberer: HistoryStore, account: str) -> int:
    """Number the account's history until caught up, as the operator's command does (its own loop)."""
    return number_account(numberer, account)


def every_entry(dynamodb: Any, account: str, shards: int = 0) -> list[dict[str, Any]]:
    """Every entry of every book of the account, straight from the table."""
    found: list[dict[str, Any]] = []
    for book in history.books(shards):
        found += query_all(dynamodb, {
            "TableName": get_settings().ledger_table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :entry)",
            "ExpressionAttributeValues": to_item({":pk": history.book_pk(account, book), ":entry": "ENTRY#"}),
        })  # fmt: skip
    return found


def old_page(entries: list[dict[str, Any]], ref_type: str | None, offset: int, limit: int) -> list[str]:
    """What the reader answered before the numbered history: entries newest first by key, filtered, sliced (ids)."""
    chosen = [e for e in entries if ref_type is None or e["refType"] == ref_type]
    chosen.sort(key=lambda e: e["sk"], reverse=True)
    return [e["id"] for e in chosen[offset : offset + limit]]


def history_rows(dynamodb: Any, account: str) -> list[dict[str, Any]]:
    """Every history row of the account (the untyped ones), from all 16 partitions."""
    found: list[dict[str, Any]] = []
    for spread in range(history.SPREAD):
        found += query_all(dynamodb, {
            "TableName": get_settings().ledger_table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": f"{history.account_pk(account)}#H{spread}"}),
        })  # fmt: skip
    return found


def assert_numbered_once(dynamodb: Any, account: str, shards: int = 0) -> None:
    """Every entry carries a distinct ``n``, 1..N densely; one row per number, the entry's copy; ``HISTORY`` says N."""
    entries = every_entry(dynamodb, account, shards)
    numbers = sorted(e["n"] for e in entries)
    assert numbers == list(range(1, len(entries) + 1)), numbers[:20]
    rows = {r["n"]: r for r in history_rows(dynamodb, account)}
    assert sorted(rows) == numbers
    for entry in entries:
        assert rows[entry["n"]]["id"] == entry["id"]
    head = HistoryStore(dynamodb, get_settings().ledger_table).head(account)
    assert (head.numbered, head.total) == (len(entries), len(entries))
    for ref_type, count in Counter(e["refType"] for e in entries).items():
        assert head.numbered_by_type[ref_type] == count


def seed_numbered(dynamodb: Any, account: str, entries: list[dict[str, Any]]) -> None:
    """``entries`` (of ``write_old_ledger``, one book) as the numberer leaves them, written in batches: each
    entry's ``n``, its rows and the ``HISTORY`` item (the numberer's own item builders; moto takes about a second
    a transaction, so a ledger of thousands is seeded this way; ``test_the_seed_is_what_the_numberer_writes``)."""
    from core.credits.history_store import HistoryStore

    table = get_settings().ledger_table
    builder = HistoryStore(dynamodb, table)
    numbered = history.assign(history.Head(), entries)
    rows = []
    for done in numbered:
        rows += [from_item(builder._row(account, done, None)["Put"]["Item"]),
                 from_item(builder._row(account, done, str(done.entry["refType"]))["Put"]["Item"])]  # fmt: skip
    batch_put(dynamodb, table, rows + [dict(done.entry) | {"n": done.n} for done in numbered])
    head = history.advanced(history.Head(), numbered)
    item = {"pk": history.account_pk(account), "sk": history.HISTORY_SK, "numbered": head.numbered,
            "backfilled": True} | {f"numbered:{t}": c for t, c in head.numbered_by_type.items()} | {
            f"mark:{b}": m for b, m in head.marks.items()}  # fmt: skip
    batch_put(dynamodb, table, [item])


def table_state(dynamodb: Any, account: str) -> list[dict[str, Any]]:
    """Every item of the account's book, rows and typed rows (``updatedAt`` left out), sorted: to compare states."""
    table = get_settings().ledger_table
    partitions = [history.account_pk(account)] + [f"{history.account_pk(account)}#H{s}" for s in range(history.SPREAD)]
    partitions += [f"{history.account_pk(account)}#T#{t}#{s}" for t in set(TYPES) for s in range(history.SPREAD)]
    found: list[dict[str, Any]] = []
    for pk in partitions:
        found += query_all(dynamodb, {"TableName": table, "ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
                                      "ExpressionAttributeValues": to_item({":pk": pk})})  # fmt: skip
    return sorted(({k: v for k, v in i.items() if k != "updatedAt"} for i in found), key=lambda i: (i["pk"], i["sk"]))
