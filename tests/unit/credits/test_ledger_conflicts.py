"""How the ledger treats DynamoDB's transaction cancellations (a fake client: no AWS)."""

from __future__ import annotations

from typing import Any

import pytest

from core.credits.records import HoldRecord, Outcome
from core.credits.store import CONFLICT_ATTEMPTS, LedgerStore
from core.platform.dynamo import StorageUnavailable
from core.platform.errors import InsufficientCredits


class Cancelled(Exception):
    """What botocore raises for a cancelled transaction, as far as the ledger looks at it."""

    __module__ = "botocore.errorfactory"

    def __init__(self, *codes: str):
        super().__init__("cancelled")
        self.response = {"CancellationReasons": [{"Code": code} for code in codes]}


class FakeDynamo:
    """Answers ``transact_write_items`` from a script of outcomes (None: commit)."""

    class exceptions:
        TransactionCanceledException = Cancelled

    def __init__(self, *script: Cancelled | None):
        self.script = list(script)
        self.calls: list[list[dict[str, Any]]] = []

    def transact_write_items(self, TransactItems: list[dict[str, Any]]) -> None:
        self.calls.append(TransactItems)
        outcome = self.script.pop(0)
        if outcome is not None:
            raise outcome


HOLD = HoldRecord(
    account_id="usr_1", ref_id="turn_1", ref_type="llm", amount=1, description="Chat turn",
    created_at="2026-11-22T00:00:00.000Z", expires_at="2026-11-22T00:15:00.000Z",
)  # fmt: skip


def repo(client: FakeDynamo) -> tuple[LedgerStore, list[float]]:
    slept: list[float] = []
    return LedgerStore(client, "ledger", sleep=slept.append), slept


def test_a_conflict_is_retried_until_the_transaction_commits() -> None:
    client = FakeDynamo(Cancelled("None", "TransactionConflict", "None"), Cancelled("TransactionConflict"), None)
    ledger, slept = repo(client)
    assert ledger.reserve(HOLD) is Outcome.APPLIED
    assert len(client.calls) == 3 and len(slept) == 2
    assert client.calls[0] == client.calls[2]  # the very same transaction, retried


def test_endless_conflicts_give_up_with_a_storage_error() -> None:
    client = FakeDynamo(*[Cancelled("TransactionConflict")] * CONFLICT_ATTEMPTS)
    ledger, _ = repo(client)
    with pytest.raises(StorageUnavailable):
        ledger.grant("usr_1", 5, "topup", "t1", "Top-up")
    assert len(client.calls) == CONFLICT_ATTEMPTS


def test_a_failed_condition_is_an_answer_not_a_retry() -> None:
    client = FakeDynamo(Cancelled("None", "None", "ConditionalCheckFailed"))
    ledger, slept = repo(client)
    with pytest.raises(InsufficientCredits):
        ledger.reserve(HOLD)
    assert (len(client.calls), slept) == (1, [])


@pytest.mark.parametrize(
    "codes", [("ConditionalCheckFailed", "None", "None"), ("None", "ConditionalCheckFailed", "None")]
)
def test_a_reference_in_use_is_already_done_even_without_credits(codes: tuple[str, ...]) -> None:
    ledger, _ = repo(FakeDynamo(Cancelled(*codes[:2], "ConditionalCheckFailed")))
    assert ledger.reserve(HOLD) is Outcome.ALREADY_DONE


def test_a_hold_reserves_atomically_with_its_conditions() -> None:
    client = FakeDynamo(None)
    repo(client)[0].reserve(HOLD)
    (put_hold, unused, balance) = client.calls[0]
    assert put_hold["Put"]["ConditionExpression"] == "attribute_not_exists(pk)"
    assert put_hold["Put"]["Item"]["sk"] == {"S": "HOLD#turn_1"}
    assert unused["ConditionCheck"]["Key"]["sk"] == {"S": "REF#llm#turn_1"}
    # the main book takes a hold only while the account has no shards (docs/ledger.md, "Shards")
    assert balance["Update"]["ConditionExpression"] == "available >= :cover AND attribute_not_exists(shards)"
    assert balance["Update"]["ExpressionAttributeValues"][":cover"] == {"N": "1"}
