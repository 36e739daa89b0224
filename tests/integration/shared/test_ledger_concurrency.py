"""The ledger's guarantees under concurrency (moto with DynamoDB's per-request atomicity; see local/aws/emulator.py).

Threads race at the client, as concurrent Lambda containers do; conditions and
transactions decide the winners. No lost, doubled or negative credits.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from core.credits.ledger_items import usage_key
from core.credits.reader import CreditReader
from core.credits.records import HoldRecord, HoldUsage, Outcome
from core.credits.store import LedgerStore
from core.platform.dynamo import from_item
from core.platform.errors import InsufficientCredits
from core.platform.settings import get_settings
from tests.integration.shared.test_ledger import ACCOUNT
from tests.support.ledger_checks import assert_consistent

THREADS = 50


@pytest.fixture
def credits(ledger: LedgerStore) -> CreditReader:
    return CreditReader(ledger, usd_cents_per_credit=1, hold_seconds=900)


def race(work: Any, count: int = THREADS) -> list[Any]:
    """Run ``work(n)`` for n in range(count) on ``count`` threads at once; results or raised exceptions."""

    def attempt(n: int) -> Any:
        try:
            return work(n)
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(attempt, range(count)))


def five_credits_held(credits: CreditReader, ledger: LedgerStore, amount: int) -> HoldRecord:
    """The account topped up with 5 credits, then ``amount`` of them held for chat turn ``turn_1``."""
    ledger.grant(ACCOUNT, 5, "topup", "t1", "Top-up")
    return credits.hold(ACCOUNT, "llm", "turn_1", amount, "Chat turn")


def test_fifty_holds_of_one_credit_against_twenty_take_exactly_twenty(
    credits: CreditReader, ledger: LedgerStore, aws: Any
) -> None:
    ledger.grant(ACCOUNT, 20, "topup", "t1", "Top-up")
    results = race(lambda n: credits.hold(ACCOUNT, "llm", f"turn_{n}", 1, "Chat turn"))
    holds = [r for r in results if not isinstance(r, Exception)]
    assert len(holds) == 20
    assert all(isinstance(r, InsufficientCredits) for r in results if isinstance(r, Exception))
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 0, "held": 20, "total": 20}
    assert_consistent(aws.dynamodb, ACCOUNT)
    assert race(lambda n: credits.settle(holds[n]), count=20) == [Outcome.APPLIED] * 20
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 0, "held": 0, "total": 0}
    assert ledger.balance(ACCOUNT).entry_count("llm") == 20
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_retried_settlements_of_one_hold_charge_once(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    hold = five_credits_held(credits, ledger, 2)
    outcomes = race(lambda _: credits.settle(hold), count=20)
    assert outcomes.count(Outcome.APPLIED) == 1 and outcomes.count(Outcome.ALREADY_DONE) == 19
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 3, "held": 0, "total": 3}
    assert [e.ref_id for e in ledger.entries(ACCOUNT, ref_type="llm", skip=0, take=10)] == ["turn_1"]
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_a_settlement_racing_a_release_finishes_the_hold_one_way(
    credits: CreditReader, ledger: LedgerStore, aws: Any
) -> None:
    hold = five_credits_held(credits, ledger, 1)
    outcomes = race(lambda n: credits.settle(hold) if n % 2 else credits.release(hold), count=20)
    assert outcomes.count(Outcome.APPLIED) == 1
    charged = ledger.balance(ACCOUNT).entry_count("llm")
    assert credits.balance(ACCOUNT).balance.total == 5 - charged
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_retried_grants_of_one_reference_credit_once(ledger: LedgerStore, aws: Any) -> None:
    outcomes = race(lambda _: ledger.grant(ACCOUNT, 100, "topup", "invoice-7", "Top-up"), count=20)
    assert outcomes.count(Outcome.APPLIED) == 1
    assert ledger.balance(ACCOUNT).available == 100
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_a_busy_account_stays_exact(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    """Holds, settlements, releases, partial charges and grants interleaved across threads."""
    ledger.grant(ACCOUNT, 30, "topup", "t0", "Top-up")
    rng = random.Random(7)  # noqa: S311 - a reproducible mix, not a secret
    plans = [rng.choice(["settle", "release", "partial", "grant"]) for _ in range(THREADS)]

    def work(n: int) -> str:
        if plans[n] == "grant":
            ledger.grant(ACCOUNT, 2, "adjustment", f"adj_{n}", "Adjustment")
            return "granted"
        hold = credits.hold(ACCOUNT, "llm", f"turn_{n}", 2, "Chat turn")
        if plans[n] == "release":
            credits.release(hold)
        else:
            credits.settle(hold, charge=1 if plans[n] == "partial" else None)
        return plans[n]

    results = race(work)
    done = [r for r in results if isinstance(r, str)]
    assert all(isinstance(r, InsufficientCredits) for r in results if not isinstance(r, str))
    expected = 30 + 2 * done.count("granted") - 2 * done.count("settle") - done.count("partial")
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": expected, "held": 0, "total": expected}
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_racing_and_retried_settlements_count_each_turn_once_in_its_usage(
    credits: CreditReader, ledger: LedgerStore, aws: Any
) -> None:
    """Twenty turns of two keys and two agents, each settled by two threads at once, then once more (a sweeper):
    the workspace's usage says per key and per agent exactly what the ledger charged, turn by turn."""
    ledger.grant(ACCOUNT, 100, "topup", "t1", "Top-up")
    usages = [HoldUsage(workspace_id="ws_race", key_id=f"key_{n % 2}", agent_id=f"agt_{n % 3 // 2}", day="2027-01-15")
              for n in range(20)]  # fmt: skip
    holds = [credits.hold(ACCOUNT, "llm", f"turn_{n}", 1 + n % 4, "Chat turn", usage=u) for n, u in enumerate(usages)]
    race(lambda n: credits.settle(holds[n // 2]), count=40)
    for hold in holds:  # the next sweep: a settlement that gave up on conflicts is finished here, the rest are done
        credits.settle(hold)
    charged = {e.ref_id: -e.amount_credits for e in ledger.entries(ACCOUNT, ref_type="llm", skip=0, take=100)}
    assert len(charged) == 20
    found = aws.dynamodb.get_item(TableName=get_settings().ledger_table, Key=usage_key("ws_race", "2027-01-15"))
    usage = from_item(found["Item"])
    for subject, of in (("key", lambda u: u.key_id), ("agent", lambda u: u.agent_id)):
        for name in {of(u) for u in usages}:
            turns = [f"turn_{n}" for n, u in enumerate(usages) if of(u) == name]
            assert usage[f"turns:{subject}#{name}"] == len(turns)
            assert usage[f"credits:{subject}#{name}"] == sum(charged[t] for t in turns)
    assert_consistent(aws.dynamodb, ACCOUNT)
