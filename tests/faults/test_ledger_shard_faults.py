"""Leases and gathers of a sharded account (docs/ledger.md, "Shards"), failed at every DynamoDB call of a hold that
needs both: the call fails before it reaches the table, or after it committed (its answer lost).

The hold goes to shard 2; the account's credit sits in shard 1, so the reserve is refused by the main book (which
names the shards), by shard 2, cannot lease from an empty main balance, reads every book, gathers shard 1's credit
back to main, leases it to shard 2 and holds there. Whatever call fails, afterwards: every book's balance is at or
above zero, the account's balance is the sum of its entries, each book's ``held`` is its holds; a retry of the same
turn holds it exactly once, and its settlement charges it once.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from core.credits.reader import CreditReader
from core.credits.records import HoldRecord, Outcome
from core.credits.store import LedgerStore
from core.platform.dynamo import StorageUnavailable
from core.platform.settings import get_settings
from tests.integration.shared.test_ledger_shards import refs_in_books
from tests.support.ledger_calls import CountingLedgerClient
from tests.support.ledger_checks import assert_consistent, entries, holds

ACCOUNT = "usr_01JDSHARDFAULTS000000000000"
CALLS = 10  # the hold's calls in a clean run (asserted below): every position is failed


def store(client: Any) -> LedgerStore:
    return LedgerStore(client, get_settings().ledger_table, sleep=lambda _: None)


def arrange(dynamodb: Any) -> tuple[str, str]:
    """10 credits, all of them leased to shard 1; the turn under test maps to shard 2."""
    refs = refs_in_books(4, 1)
    ledger = store(dynamodb)
    ledger.grant(ACCOUNT, 10, "topup", "t1", "Top-up")
    ledger.set_shards(ACCOUNT, 4)
    credits = CreditReader(ledger, usd_cents_per_credit=1, hold_seconds=900)
    credits.release(credits.hold(ACCOUNT, "llm", refs[1][0], 10, "Chat turn"))
    return refs[1][0], refs[2][0]


def hold_of(ref: str) -> HoldRecord:
    return HoldRecord(account_id=ACCOUNT, ref_id=ref, ref_type="llm", amount=4, description="Chat turn",
                      created_at="2027-01-15T00:00:00.000Z", expires_at="2027-01-15T00:15:00.000Z")  # fmt: skip


def test_the_clean_run_makes_every_call_the_faults_fail(aws: Any) -> None:
    _, ref = arrange(aws.dynamodb)
    client = CountingLedgerClient(aws.dynamodb)
    hold = hold_of(ref)
    assert store(client).reserve(hold) is Outcome.APPLIED and hold.book == 2
    assert sum(client.calls.values()) == CALLS, client.calls
    assert client.calls["TransactGetItems"] == 1  # the one read of every book that a 402 would be answered from


@pytest.mark.parametrize("after", [False, True], ids=["before", "after"])
@pytest.mark.parametrize("nth", range(1, CALLS + 1))
def test_a_failed_call_of_a_lease_or_gather_loses_and_doubles_nothing(aws: Any, nth: int, after: bool) -> None:
    _, ref = arrange(aws.dynamodb)
    client = CountingLedgerClient(aws.dynamodb)
    client.fail(nth, after=after)
    with contextlib.suppress(StorageUnavailable):  # the turn answers 503; its credit is where the commits left it
        store(client).reserve(hold_of(ref))
    assert_consistent(aws.dynamodb, ACCOUNT)
    retry = hold_of(ref)  # the same turn again, in another container
    assert store(aws.dynamodb).reserve(retry) in (Outcome.APPLIED, Outcome.ALREADY_DONE)
    assert [h["refId"] for h in holds(aws.dynamodb, ACCOUNT)] == [ref]
    assert store(aws.dynamodb).settle(retry) is Outcome.APPLIED
    assert [e["amountCredits"] for e in entries(aws.dynamodb, ACCOUNT, "llm")] == [-4]
    balance = store(aws.dynamodb).balance(ACCOUNT)
    assert (balance.available, balance.held) == (6, 0)
    assert_consistent(aws.dynamodb, ACCOUNT)
