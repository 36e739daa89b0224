"""``test_ledger_concurrency.py``, unchanged, against a sharded account (docs/ledger.md, "Shards").

The threads race for one account's credit across its shard books: leases from the main balance, gathers back to
it, and holds in each reference's book. The one test left out reads the usage's single day item by its key; a
sharded account's settlements count on one item per shard and day, which
``test_ledger_shards.py::test_racing_settlements_on_a_sharded_account_count_each_turn_once`` checks instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.credits.store import LedgerStore
from core.platform.settings import get_settings
from tests.integration.shared.test_ledger import ACCOUNT
from tests.integration.shared.test_ledger_concurrency import (  # noqa: F401 - collected here, against the sharded account
    credits,
    test_a_busy_account_stays_exact,
    test_a_settlement_racing_a_release_finishes_the_hold_one_way,
    test_fifty_holds_of_one_credit_against_twenty_take_exactly_twenty,
    test_retried_grants_of_one_reference_credit_once,
    test_retried_settlements_of_one_hold_charge_once,
)

SHARDS = 4
LEFT_OUT = {"test_racing_and_retried_settlements_count_each_turn_once_in_its_usage"}  # reads one day item by key


@pytest.fixture
def ledger(aws: Any) -> LedgerStore:
    LedgerStore(aws.dynamodb, get_settings().ledger_table).set_shards(ACCOUNT, SHARDS)
    return LedgerStore(aws.dynamodb, get_settings().ledger_table)


def test_every_test_of_the_suite_runs_here_too() -> None:
    from tests.integration.shared import test_ledger_concurrency

    assert {n for n in vars(test_ledger_concurrency) if n.startswith("test_")} - LEFT_OUT < set(globals())
