"""``python -m ops number-history``: ledgers written the old way (entries with no ``n``) numbered, idempotently and
resumably: killed midway (a fault at the N-th transaction), run again (from the start, or from the printed cursor),
every entry is numbered exactly once and every page is the one the old reader answered."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.credits.history_store import HistoryStore
from core.credits.models import CreditHistoryQuery
from core.credits.reader import CreditReader
from core.credits.store import LedgerStore
from core.platform.settings import get_settings
from ops import number_history
from tests.support.ledger_history import assert_numbered_once, every_entry, old_page, write_old_ledger

ACCOUNTS = [f"usr_01JDMIGRATION{n:013d}" for n in range(3)]
SIZES = (120, 7, 45)


class Killed(Exception):
    """The command's process dying at a transaction (before it reached DynamoDB)."""


class Dying:
    """A DynamoDB client whose ``after``-th TransactWriteItems kills the run; every other call goes through."""

    def __init__(self, client: Any, after: int):
        self._client, self._left = client, after
        self.exceptions = client.exceptions

    def transact_write_items(self, **kwargs: Any) -> Any:
        self._left -= 1
        if self._left < 0:
            raise Killed()
        return self._client.transact_write_items(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@pytest.fixture
def old_ledgers(aws: Any) -> None:
    for account, size in zip(ACCOUNTS, SIZES, strict=True):
        write_old_ledger(aws.dynamodb, account, size)


def pages_as_before(aws: Any, account: str) -> None:
    reader = CreditReader(LedgerStore(aws.dynamodb, get_settings().ledger_table), usd_cents_per_credit=1,
                          hold_seconds=900)  # fmt: skip
    entries = every_entry(aws.dynamodb, account)
    for ref_type, offset, limit in ((None, 0, 50), (None, 40, 200), ("llm", 3, 9), ("refund", 0, 200)):
        query = CreditHistoryQuery.model_validate({"limit": limit, "offset": offset, "refType": ref_type})
        assert [e.id for e in reader.history(account, query).entries] == old_page(entries, ref_type, offset, limit)


@pytest.mark.usefixtures("old_ledgers")
@pytest.mark.parametrize("resume", ["from-the-start", "from-the-cursor"])
def test_a_run_killed_midway_and_run_again_numbers_each_entry_once(aws: Any, resume: str) -> None:
    table = get_settings().ledger_table
    said: list[str] = []
    dying = Dying(aws.dynamodb, after=4)  # 120 + 7 + 45 entries are 7 transactions: killed after the first account
    with pytest.raises(Killed):
        number_history.run(HistoryStore(dying, table), dying, table, say=said.append)
    cursor = json.loads(said[-1])["after"] if said else None
    assert said and cursor is not None  # one account was done and said so
    after = cursor if resume == "from-the-cursor" else None
    committed = sum(HistoryStore(aws.dynamodb, table).head(a).numbered for a in ACCOUNTS)
    assert 0 < committed < sum(SIZES)
    again: list[str] = []
    report = number_history.run(HistoryStore(aws.dynamodb, table), aws.dynamodb, table, after=after, say=again.append)
    assert json.loads(again[-1])["done"] is True
    assert report.numbered == sum(SIZES) - committed  # what the killed run committed is not numbered again
    for account in ACCOUNTS:
        assert_numbered_once(aws.dynamodb, account)
        pages_as_before(aws, account)
    # a third run finds nothing to do
    assert number_history.run(HistoryStore(aws.dynamodb, table), aws.dynamodb, table, say=lambda _: None).numbered == 0


@pytest.mark.usefixtures("old_ledgers")
def test_one_account_only(aws: Any) -> None:
    table = get_settings().ledger_table
    report = number_history.run(HistoryStore(aws.dynamodb, table), aws.dynamodb, table, account=ACCOUNTS[1],
                                say=lambda _: None)  # fmt: skip
    assert (report.accounts, report.numbered) == (1, SIZES[1])
    assert_numbered_once(aws.dynamodb, ACCOUNTS[1])
    assert HistoryStore(aws.dynamodb, table).head(ACCOUNTS[0]).numbered == 0
