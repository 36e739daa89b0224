"""``python -m ops number-history [--account ID] [--after CURSOR]``: number every account's credit history.

The history numberer (``core.credits.history_store``) runs on the LedgerTable's stream for every new entry; a
ledger written before it (entries with no ``n``), or an account no entry has reached since, is numbered here: a
Scan for the accounts' ``BALANCE`` items, page by page, and the same numberer on each account until it is caught
up. Each account done prints a line with ``after``, the cursor to resume from (``--after``) if the command is
stopped. Idempotent: the numberer's conditions number nothing twice, so a re-run (or a run beside the stream's
numberer) only numbers what is left. Until an account is numbered its history reads as before (the books, newest
first): nothing is wrong meanwhile, only slower for a long ledger.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from core.credits import history
from core.credits.history_store import HistoryStore
from core.platform.dynamo import from_item, to_item, translate_errors


@dataclass
class Report:
    accounts: int = 0
    numbered: int = 0


def balances(dynamodb: Any, table: str, after: str | None) -> Iterator[str]:
    """Each account's id, in Scan order, from after the account whose main book is ``after`` (``ACCT#<id>``)."""
    request: dict[str, Any] = {
        "TableName": table,
        "FilterExpression": "sk = :balance",
        "ProjectionExpression": "pk",
        "ExpressionAttributeValues": to_item({":balance": "BALANCE"}),
    }
    if after:
        request["ExclusiveStartKey"] = to_item({"pk": after, "sk": "BALANCE"})
    while True:
        with translate_errors("Scan"):
            page = dynamodb.scan(**request)
        for item in page.get("Items", []):
            located = history.book_of(str(from_item(item)["pk"]))
            if located is not None and located[1] == history.MAIN_BOOK:  # a shard's balance: its account's book
                yield located[0]
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def number_account(numberer: HistoryStore, account_id: str) -> int:
    """Number the account's history until it is caught up; the entries numbered."""
    total = 0
    while True:
        done = numberer.number(account_id)
        total += done.numbered
        if done.caught_up:
            return total


def run(
    numberer: HistoryStore, dynamodb: Any, table: str, *, account: str | None = None, after: str | None = None,
    say: Callable[[str], None] = print,
) -> Report:  # fmt: skip
    report = Report()
    for account_id in [account] if account else balances(dynamodb, table, after):
        numbered = number_account(numberer, account_id)
        report.accounts += 1
        report.numbered += numbered
        say(json.dumps({"accountId": account_id, "numbered": numbered, "after": history.account_pk(account_id)}))
    say(json.dumps({"accounts": report.accounts, "numbered": report.numbered, "done": True}))
    return report
