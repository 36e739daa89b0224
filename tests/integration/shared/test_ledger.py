"""The credit ledger against moto: grants, holds, settlements, releases, the sweeper, and their invariants.

Every test ends with ``assert_consistent``: the balance item, the outstanding holds and
the immutable entries agree to the credit, and nothing is negative.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from core.credits.reader import CreditReader
from core.credits.records import HoldRecord, Outcome
from core.credits.store import LedgerStore
from core.platform.errors import InsufficientCredits
from core.platform.settings import get_settings
from tests.integration.conftest import Clock
from tests.support.ledger_checks import assert_consistent, ledger_items

ACCOUNT = "usr_01JDLEDGERTEST000000000000"


@pytest.fixture
def ten_credits(ledger: LedgerStore) -> None:
    """The account topped up with 10 credits (reference t1): where most tests start."""
    ledger.grant(ACCOUNT, 10, "topup", "t1", "Top-up")


@pytest.fixture
def credits(ledger: LedgerStore, clock: Clock) -> CreditReader:
    return CreditReader(ledger, usd_cents_per_credit=1, hold_seconds=900, clock=clock)


def test_a_new_account_has_nothing(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    wire = credits.balance(ACCOUNT).wire()
    assert wire == {
        "balance": {"available": 0, "held": 0, "total": 0},
        "unit": "credits",
        "usdCents": {"available": 0, "held": 0, "total": 0},
    }
    assert ledger.entries(ACCOUNT, ref_type=None, skip=0, take=50) == []
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_a_grant_applies_once_per_reference(ledger: LedgerStore, aws: Any) -> None:
    assert ledger.grant(ACCOUNT, 100, "topup", "invoice-1", "Top-up") is Outcome.APPLIED
    assert ledger.grant(ACCOUNT, 100, "topup", "invoice-1", "Top-up") is Outcome.ALREADY_DONE
    assert ledger.grant(ACCOUNT, 5, "refund", "invoice-1", "Same id, another type") is Outcome.APPLIED
    balance = ledger.balance(ACCOUNT)
    assert (balance.available, balance.held, balance.entries) == (105, 0, 2)
    (refund, topup) = ledger.entries(ACCOUNT, ref_type=None, skip=0, take=10)
    assert (topup.amount_credits, topup.ref_type, topup.ref_id) == (100, "topup", "invoice-1")
    assert (refund.amount_credits, refund.ref_type) == (5, "refund")
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.parametrize("amount", [0, -5])
def test_a_grant_must_add_credits(ledger: LedgerStore, amount: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        ledger.grant(ACCOUNT, amount, "topup", "x", "")


@pytest.mark.usefixtures("ten_credits")
def test_hold_then_settle_charges_one_entry(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    hold = credits.hold(ACCOUNT, "llm", "turn_1", 3, "Chat turn")
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 7, "held": 3, "total": 10}
    assert_consistent(aws.dynamodb, ACCOUNT)
    assert credits.settle(hold) is Outcome.APPLIED
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 7, "held": 0, "total": 7}
    newest = ledger.entries(ACCOUNT, ref_type=None, skip=0, take=1)[0].attributes()
    assert newest == {
        "id": newest["id"], "accountId": ACCOUNT, "amountCredits": -3, "refType": "llm", "refId": "turn_1",
        "description": "Chat turn", "createdAt": newest["createdAt"],
    }  # fmt: skip
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_a_partial_charge_returns_the_rest(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    hold = credits.hold(ACCOUNT, "render", "job_1", 5, "Render")
    assert credits.settle(hold, charge=2) is Outcome.APPLIED
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 8, "held": 0, "total": 8}
    assert ledger.entries(ACCOUNT, ref_type="render", skip=0, take=5)[0].amount_credits == -2
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
@pytest.mark.parametrize("charge", [0, 6, -1])
def test_a_charge_must_fit_the_hold(credits: CreditReader, ledger: LedgerStore, charge: int) -> None:
    hold = credits.hold(ACCOUNT, "render", "job_1", 5, "Render")
    with pytest.raises(ValueError, match="between 1 and the held amount"):
        credits.settle(hold, charge=charge)
    assert ledger.get_hold(ACCOUNT, "job_1") is not None


def test_a_hold_that_cannot_be_covered_changes_nothing(credits: CreditReader, ledger: LedgerStore, aws: Any):
    ledger.grant(ACCOUNT, 2, "topup", "t1", "Top-up")
    with pytest.raises(InsufficientCredits) as caught:
        credits.hold(ACCOUNT, "llm", "turn_1", 3, "Chat turn")
    assert (caught.value.status, caught.value.code) == (402, "INSUFFICIENT_CREDITS")
    assert ledger.get_hold(ACCOUNT, "turn_1") is None
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 2, "held": 0, "total": 2}
    with pytest.raises(InsufficientCredits):
        credits.hold("usr_never_granted", "llm", "turn_2", 1, "Chat turn")
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_settle_and_release_apply_once(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    settled = credits.hold(ACCOUNT, "llm", "turn_1", 1, "Chat turn")
    released = credits.hold(ACCOUNT, "llm", "turn_2", 1, "Chat turn")
    assert [credits.settle(settled) for _ in range(3)] == [Outcome.APPLIED] + [Outcome.ALREADY_DONE] * 2
    assert [credits.release(released) for _ in range(3)] == [Outcome.APPLIED] + [Outcome.ALREADY_DONE] * 2
    # Once finished either way, a reference can neither be finished the other way nor held again.
    assert credits.release(settled) is Outcome.ALREADY_DONE
    assert credits.settle(released) is Outcome.ALREADY_DONE
    assert ledger.reserve(settled) is Outcome.ALREADY_DONE
    assert ledger.reserve(released) is Outcome.ALREADY_DONE
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 9, "held": 0, "total": 9}
    assert ledger.balance(ACCOUNT).entry_count("llm") == 1
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_holding_a_reference_twice_reserves_once(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    hold = credits.hold(ACCOUNT, "llm", "turn_1", 4, "Chat turn")
    assert ledger.reserve(hold) is Outcome.ALREADY_DONE
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 6, "held": 4, "total": 10}
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_finishing_an_unknown_hold_is_nothing_held(ledger: LedgerStore, aws: Any) -> None:
    never_taken = HoldRecord(
        account_id=ACCOUNT, ref_id="turn_unknown", ref_type="llm", amount=1, description="Chat turn",
        created_at="2026-11-22T00:00:00.000Z", expires_at="2026-11-22T00:15:00.000Z",
    )  # fmt: skip
    assert ledger.settle(never_taken) is Outcome.NOTHING_HELD
    assert ledger.release(never_taken) is Outcome.NOTHING_HELD
    assert ledger.mark_streamed(ACCOUNT, "turn_unknown") is False
    assert ledger.balance(ACCOUNT).model_dump(include={"available", "held"}) == {"available": 10, "held": 0}
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_the_sweeper_finishes_only_expired_holds(
    credits: CreditReader, ledger: LedgerStore, clock: Clock, aws: Any
) -> None:
    abandoned = credits.hold(ACCOUNT, "llm", "turn_crashed_before_text", 1, "Chat turn")
    delivered = credits.hold(ACCOUNT, "llm", "turn_crashed_after_text", 1, "Chat turn")
    credits.mark_delivered(delivered)
    clock.now += 600
    fresh = credits.hold(ACCOUNT, "llm", "turn_still_running", 1, "Chat turn")
    assert credits.sweep().settled == 0  # nothing has expired yet
    clock.now += 301  # the first two are past their 900 s; the third is not
    report = credits.sweep()
    assert (report.settled, report.released, report.more) == (1, 1, False)
    assert ledger.get_hold(ACCOUNT, fresh.ref_id) is not None
    assert ledger.get_hold(ACCOUNT, abandoned.ref_id) is None
    assert [e.ref_id for e in ledger.entries(ACCOUNT, ref_type="llm", skip=0, take=10)] == [delivered.ref_id]
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 8, "held": 1, "total": 9}
    assert (credits.sweep().settled, credits.sweep().released) == (0, 0)  # a second run changes nothing
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_a_hold_finished_while_the_sweeper_looks_is_left_alone(
    credits: CreditReader, ledger: LedgerStore, clock: Clock, aws: Any
) -> None:
    hold = credits.hold(ACCOUNT, "llm", "turn_1", 1, "Chat turn")
    clock.now += 1000
    credits.settle(hold)  # the turn finished just in time
    assert (credits.sweep().settled, credits.sweep().released) == (0, 0)
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 9, "held": 0, "total": 9}
    assert_consistent(aws.dynamodb, ACCOUNT)


def test_the_sweeper_works_through_many_expired_holds(
    credits: CreditReader, ledger: LedgerStore, clock: Clock, aws: Any
) -> None:
    ledger.grant(ACCOUNT, 30, "topup", "t1", "Top-up")
    for n in range(25):
        credits.hold(ACCOUNT, "llm", f"turn_{n:03d}", 1, "Chat turn")
    clock.now += 901
    reports = [credits.sweep(batch=10) for _ in range(4)]
    assert [(r.released, r.more) for r in reports] == [(10, True), (10, True), (5, False), (0, False)]
    assert credits.balance(ACCOUNT).balance.model_dump() == {"available": 30, "held": 0, "total": 30}
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_holds_are_indexed_by_shard_and_expiry(credits: CreditReader, ledger: LedgerStore, aws: Any) -> None:
    credits.hold(ACCOUNT, "llm", "turn_1", 1, "Chat turn")
    (hold,) = [i for i in ledger_items(aws.dynamodb, ACCOUNT) if i["sk"].startswith("HOLD#")]
    assert hold["holdShard"].startswith("HOLDS#") and hold["expiresAt"].endswith("Z")
    table = aws.dynamodb.describe_table(TableName=get_settings().ledger_table)["Table"]
    assert [i["IndexName"] for i in table["GlobalSecondaryIndexes"]] == ["expiringHolds"]


def test_the_scheduled_sweeper_function_finishes_expired_holds(
    ledger: LedgerStore, aws: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deployed handler, run as EventBridge Scheduler would, with holds taken 20 minutes ago."""
    from core.platform import providers as platform_providers
    from tests.support.lambdas import handler_module

    past = Clock(time.time() - 1200)
    taken = CreditReader(ledger, usd_cents_per_credit=1, hold_seconds=900, clock=past)
    ledger.grant(ACCOUNT, 5, "topup", "t1", "Top-up")
    taken.mark_delivered(taken.hold(ACCOUNT, "llm", "turn_delivered", 2, "Chat turn"))
    taken.hold(ACCOUNT, "llm", "turn_failed", 2, "Chat turn")
    platform_providers.reset()
    context = type("Context", (), {"get_remaining_time_in_millis": lambda self: 300_000})()
    result = handler_module("CreditHoldSweeperFunction").lambda_handler({"source": "aws.scheduler"}, context)
    assert result == {"settled": 1, "released": 1}
    assert ledger.balance(ACCOUNT).model_dump(include={"available", "held"}) == {"available": 3, "held": 0}
    assert_consistent(aws.dynamodb, ACCOUNT)


@pytest.mark.usefixtures("ten_credits")
def test_a_hold_delivered_after_it_was_read_is_never_released(
    credits: CreditReader, ledger: LedgerStore, clock: Clock, aws: Any
) -> None:
    """The sweeper read the hold undelivered; the turn's first text came just before its release."""
    hold = credits.hold(ACCOUNT, "llm", "turn_1", 1, "Chat turn")
    stale = ledger.get_hold(ACCOUNT, "turn_1")
    assert stale is not None and not stale.streamed
    assert credits.mark_delivered(hold) is True
    assert ledger.release(stale) is Outcome.NOTHING_HELD  # the condition saw the delivery
    assert ledger.get_hold(ACCOUNT, "turn_1") is not None
    clock.now += 901
    assert (credits.sweep().settled, credits.balance(ACCOUNT).balance.total) == (1, 9)
    assert credits.mark_delivered(hold) is False  # gone: a turn still running must stop
    assert_consistent(aws.dynamodb, ACCOUNT)
