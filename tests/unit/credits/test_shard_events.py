"""A sharded account's books on the LedgerTable's stream (docs/ledger.md, "Shards"): a shard book is no account,
and a lease from the main balance spends nothing, so neither is ``credits.low``; the main book's events stay."""

from __future__ import annotations

from core.events import catalogue as types
from core.events.changes import LEDGER, events_of
from core.events.records import AccountChange
from tests.unit.events.test_changes import USER, balance, ledger, record


def test_a_shard_books_balance_falling_is_no_accounts_event() -> None:
    settled = record("MODIFY", f"ACCT#{USER}#S3", "BALANCE", balance(5), balance(120), event_id="e1")
    assert events_of(LEDGER, settled) == []


def test_a_lease_from_a_sharded_accounts_main_balance_is_no_credits_low() -> None:
    assert ledger("MODIFY", balance(80, shards=4), balance(120, shards=4)) == []


def test_a_sharded_accounts_main_book_still_says_exhausted_and_granted() -> None:
    marker = {"workspaceId": "ws_a", "agentId": "agt_1", "at": "2027-01-15T00:00:00.000Z"}
    found = ledger("MODIFY", balance(0, shards=4, exhausted=marker), balance(0, shards=4))
    assert [c.type for c in found] == [types.CREDITS_EXHAUSTED]
    unsharded = ledger("MODIFY", balance(80), balance(120))
    assert [c.type for c in unsharded if isinstance(c, AccountChange)] == [types.CREDITS_LOW]
