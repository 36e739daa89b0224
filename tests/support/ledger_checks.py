"""Reading an account's ledger straight from the table, and the invariants every ledger test checks (docs/ledger.md)."""

from __future__ import annotations

from typing import Any

from core.credits.shards import MAIN, partition
from core.credits.store import LedgerStore
from core.platform.dynamo import query_all
from core.platform.settings import get_settings


def ledger_repository(dynamodb: Any) -> LedgerStore:
    return LedgerStore(dynamodb, get_settings().ledger_table)


def ledger_items(dynamodb: Any, account: str) -> list[dict[str, Any]]:
    """Every item of the account's books (its main partition and, if sharded, each shard's): balances, entries,
    holds and reference markers."""
    found: list[dict[str, Any]] = []
    book = count = 0
    while book <= count:
        request = {
            "TableName": get_settings().ledger_table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": partition(account, book)}},
        }
        items = query_all(dynamodb, request)
        if book == MAIN:
            count = next((int(i.get("shards") or 0) for i in items if i["sk"] == "BALANCE"), 0)
        found += items
        book += 1
    return found


def entries(dynamodb: Any, account: str, ref_type: str | None = None) -> list[dict[str, Any]]:
    """The account's immutable entries (of one ``refType``, if given), oldest first."""
    found = [i for i in ledger_items(dynamodb, account) if i["sk"].startswith("ENTRY#")]
    return [e for e in found if ref_type is None or e["refType"] == ref_type]


def holds(dynamodb: Any, account: str) -> list[dict[str, Any]]:
    return [i for i in ledger_items(dynamodb, account) if i["sk"].startswith("HOLD#")]


def assert_consistent(dynamodb: Any, account: str) -> None:
    """Balance item, outstanding holds and entries agree to the credit, and nothing is negative."""
    stored = ledger_items(dynamodb, account)
    found_entries = [i for i in stored if i["sk"].startswith("ENTRY#")]
    found_holds = [i for i in stored if i["sk"].startswith("HOLD#")]
    balance = ledger_repository(dynamodb).balance(account)
    assert balance.available >= 0 and balance.held >= 0, balance
    for book in (i for i in stored if i["sk"] == "BALANCE"):  # every book's own balance too (a sharded account's)
        assert int(book.get("available") or 0) >= 0 and int(book.get("held") or 0) >= 0, book
        in_book = [h for h in found_holds if h["pk"] == book["pk"]]
        assert int(book.get("held") or 0) == sum(h["amount"] for h in in_book), (book, in_book)
    assert balance.held == sum(h["amount"] for h in found_holds), (balance, found_holds)
    assert balance.available + balance.held == sum(e["amountCredits"] for e in found_entries), (balance, found_entries)
    assert balance.entries == len(found_entries)
    for ref_type in {e["refType"] for e in found_entries}:
        assert balance.entry_count(ref_type) == sum(e["refType"] == ref_type for e in found_entries)
