"""A billed account with balance shards (docs/ledger.md, "Shards"): its turns write its shard books, not its main
balance; a container learns the shards from its first reserve; credit moves by leases and gathers, a 402 only when
every book together cannot cover the hold; racing turns stay exact, each charged and counted once.

Writes are counted item by item (``tests/support/ledger_calls.py``), never timed.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from core.credits import shards
from core.credits.reader import CreditReader
from core.credits.records import HoldUsage, Outcome
from core.credits.store import LedgerStore
from core.platform.errors import InsufficientCredits
from core.platform.settings import get_settings
from core.usage.store import UsageStore
from tests.support.ledger_calls import CountingLedgerClient
from tests.support.ledger_checks import assert_consistent, entries, holds

ACCOUNT = "usr_01JDSHARDEDACCOUNT00000000"
MAIN_BALANCE = (f"ACCT#{ACCOUNT}", "BALANCE")


def store(client: Any) -> LedgerStore:
    return LedgerStore(client, get_settings().ledger_table)


def billing(ledger: LedgerStore) -> CreditReader:
    return CreditReader(ledger, usd_cents_per_credit=1, hold_seconds=900)


def refs_in_books(count: int, wanted: int) -> dict[int, list[str]]:
    """``wanted`` turn ids per book of an account with ``count`` shards."""
    found: dict[int, list[str]] = {k: [] for k in range(1, count + 1)}
    n = 0
    while any(len(ids) < wanted for ids in found.values()):
        ref = f"turn_{n:05d}"
        book = shards.book_of(ref, count)
        if len(found[book]) < wanted:
            found[book].append(ref)
        n += 1
    return found


def turns(credits: CreditReader, count: int, prefix: str = "turn") -> None:
    for n in range(count):
        credits.settle(credits.hold(ACCOUNT, "llm", f"{prefix}_{n}", 1, "Chat turn"))


def test_an_unsharded_account_writes_its_balance_twice_a_turn(aws: Any) -> None:
    """Today's cost, the reason for shards: every turn's hold and settlement write the one balance item."""
    client = CountingLedgerClient(aws.dynamodb)
    store(aws.dynamodb).grant(ACCOUNT, 1000, "topup", "t1", "Top-up")
    turns(billing(store(client)), 40)
    assert client.writes[MAIN_BALANCE] == 80
    assert client.calls["GetItem"] == 0  # the chat path reads nothing first
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_a_sharded_accounts_turns_write_its_shards_and_lease_from_its_main_balance(aws: Any) -> None:
    """16 shards, 400 turns: the main balance is written once a lease (a lease is 20 turns' worth), each shard's
    balance twice a turn of its own (and once a lease): no item takes every turn."""
    count, taken = 16, 400
    store(aws.dynamodb).grant(ACCOUNT, 10_000, "topup", "t1", "Top-up")
    store(aws.dynamodb).set_shards(ACCOUNT, count)
    client = CountingLedgerClient(aws.dynamodb)
    turns(billing(store(client)), taken)
    per_book = {k: sum(shards.book_of(f"turn_{n}", count) == k for n in range(taken)) for k in range(1, count + 1)}
    leases = {k: client.writes[(f"ACCT#{ACCOUNT}#S{k}", "BALANCE")] - 2 * per_book[k] for k in per_book}
    assert all(0 < lent <= per_book[k] // shards.LEASE_TURNS + 1 for k, lent in leases.items()), (leases, per_book)
    # the first reserve tried the main book and learned the shards (a cancelled transaction writes nothing)
    assert client.writes[MAIN_BALANCE] == sum(leases.values()) < taken / 10
    assert max(client.writes.values()) <= 2 * max(per_book.values()) + max(leases.values())
    balance = store(aws.dynamodb).balance(ACCOUNT)
    assert (balance.available, balance.held, balance.entries, balance.shards) == (10_000 - taken, 0, taken + 1, count)
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_a_container_learns_the_shards_from_its_first_reserve_and_then_goes_straight_to_the_shard(aws: Any) -> None:
    store(aws.dynamodb).grant(ACCOUNT, 100, "topup", "t1", "Top-up")
    store(aws.dynamodb).set_shards(ACCOUNT, 4)
    client = CountingLedgerClient(aws.dynamodb)
    credits = billing(store(client))
    first = credits.hold(ACCOUNT, "llm", "turn_a", 1, "Chat turn")
    assert first.book == shards.book_of("turn_a", 4) and client.calls["GetItem"] == 0
    made = client.calls["TransactWriteItems"]  # main (refused, it names the shards), shard, lease, shard
    assert made == 4
    second = credits.hold(ACCOUNT, "llm", "turn_b", 1, "Chat turn")
    assert second.book == shards.book_of("turn_b", 4)
    assert client.calls["TransactWriteItems"] - made <= 3  # never the main book's reserve again
    assert (client.calls["GetItem"], credits.settle(first), credits.release(second)) == (
        0,
        Outcome.APPLIED,
        Outcome.APPLIED,
    )
    assert client.calls["GetItem"] == 0  # settle and release go to the hold's book without a read
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_credit_in_another_shard_is_gathered_and_a_402_only_when_every_book_cannot_cover(aws: Any) -> None:
    ledger = store(aws.dynamodb)
    ledger.grant(ACCOUNT, 10, "topup", "t1", "Top-up")
    ledger.set_shards(ACCOUNT, 4)
    refs = refs_in_books(4, 2)
    credits = billing(store(aws.dynamodb))
    credits.release(credits.hold(ACCOUNT, "llm", refs[1][0], 10, "Chat turn"))  # all 10 leased to shard 1
    assert [int(b.get("available") or 0) for b in ledger._balances(ACCOUNT, None)] == [0, 10, 0, 0, 0]
    held = credits.hold(ACCOUNT, "llm", refs[2][0], 4, "Chat turn")  # shard 2: main is empty, shard 1 gathered
    assert held.book == 2
    with pytest.raises(InsufficientCredits):
        credits.hold(ACCOUNT, "llm", refs[3][0], 7, "Chat turn")  # 6 left, wherever they are
    assert credits.hold(ACCOUNT, "llm", refs[3][1], 6, "Chat turn").book == 3
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 0, "held": 10, "total": 10}
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_shards_only_grow(aws: Any) -> None:
    ledger = store(aws.dynamodb)
    assert ledger.set_shards(ACCOUNT, 4) == 0
    assert ledger.set_shards(ACCOUNT, 4) == 4  # a re-run changes nothing
    for fewer in (3, 0):
        with pytest.raises(ValueError, match="shards"):
            ledger.set_shards(ACCOUNT, fewer)
    with pytest.raises(ValueError, match="1 to 32"):
        ledger.set_shards(ACCOUNT, shards.MAX_SHARDS + 1)
    assert ledger.set_shards(ACCOUNT, 8) == 4
    assert ledger.balance(ACCOUNT).shards == 8


def test_a_hold_taken_before_sharding_finishes_in_the_main_book(aws: Any) -> None:
    ledger = store(aws.dynamodb)
    ledger.grant(ACCOUNT, 5, "topup", "t1", "Top-up")
    credits = billing(ledger)
    before = credits.hold(ACCOUNT, "llm", "turn_before", 2, "Chat turn")
    ledger.set_shards(ACCOUNT, 4)
    assert before.book == shards.MAIN and credits.mark_delivered(before)
    assert credits.settle(before) is Outcome.APPLIED and credits.settle(before) is Outcome.ALREADY_DONE
    assert credits.hold(ACCOUNT, "llm", "turn_after", 3, "Chat turn").book != shards.MAIN
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_racing_turns_on_a_sharded_account_stay_exact_and_count_each_turn_once(aws: Any) -> None:
    """60 turns of two keys and two agents on 8 shards with credit for 40 (hold 1..2), each settled by two threads
    at once and once more after: never negative, each turn charged once, no hold left, the workspace's usage (summed
    over its shard items) says what the ledger charged."""
    ledger = store(aws.dynamodb)
    ledger.grant(ACCOUNT, 60, "topup", "t1", "Top-up")
    ledger.set_shards(ACCOUNT, 8)
    credits = billing(store(aws.dynamodb))
    day = "2027-01-15"
    usages = [HoldUsage(workspace_id="ws_shards", key_id=f"key_{n % 2}", agent_id=f"agt_{n % 3 // 2}", day=day)
              for n in range(60)]  # fmt: skip

    def turn(n: int) -> Any:
        try:
            return credits.hold(ACCOUNT, "llm", f"turn_{n}", 1 + n % 2, "Chat turn", usage=usages[n])
        except InsufficientCredits as refused:
            return refused

    with ThreadPoolExecutor(30) as pool:
        taken = list(pool.map(turn, range(60)))
        held = [h for h in taken if not isinstance(h, InsufficientCredits)]
        assert 60 - 2 < sum(h.amount for h in held) <= 60  # a 402 only once less than a hold's 2 credits was left
        list(pool.map(lambda n: credits.settle(held[n // 2]), range(2 * len(held))))
    for hold in held:
        assert credits.settle(hold) is Outcome.ALREADY_DONE
    assert holds(aws.dynamodb, ACCOUNT) == []
    charged = {e["refId"]: -e["amountCredits"] for e in entries(aws.dynamodb, ACCOUNT, "llm")}
    assert sorted(charged) == sorted(h.ref_id for h in held)
    assert credits.balance(ACCOUNT).balance.available == 60 - sum(charged.values())
    usage = UsageStore(aws.dynamodb, get_settings().rate_limits_table, get_settings().ledger_table)
    by_ref = {f"turn_{n}": u for n, u in enumerate(usages)}
    for subject, of in (("key", lambda u: u.key_id), ("agent", lambda u: u.agent_id)):
        for name in {of(u) for u in usages}:
            mine = [ref for ref in charged if of(by_ref[ref]) == name]
            assert usage.chat("ws_shards", subject, name, day, day) == {day: (len(mine), sum(charged[r] for r in mine))}
    assert_consistent(aws.dynamodb, ACCOUNT)
