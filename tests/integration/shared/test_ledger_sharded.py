"""``test_ledger.py``, unchanged, against a sharded account (docs/ledger.md, "Shards").

Every test of that suite is collected here too, with its ``ledger`` fixture giving the suite's account
``SHARDS`` shard books first (an operator's ``python -m ops shard-ledger``). The store under test has not seen
the account: it learns the shards from its first reserve's cancelled condition, as a chat container does.
``assert_consistent`` sums every book (``tests/support/ledger_checks.py``), and checks each book's own balance.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.credits.store import LedgerStore
from core.platform.settings import get_settings
from tests.integration.shared.test_ledger import (  # noqa: F401 - collected here, against the sharded account
    ACCOUNT,
    credits,
    ten_credits,
    test_a_charge_must_fit_the_hold,
    test_a_grant_applies_once_per_reference,
    test_a_grant_must_add_credits,
    test_a_hold_delivered_after_it_was_read_is_never_released,
    test_a_hold_finished_while_the_sweeper_looks_is_left_alone,
    test_a_hold_that_cannot_be_covered_changes_nothing,
    test_a_new_account_has_nothing,
    test_a_partial_charge_returns_the_rest,
    test_finishing_an_unknown_hold_is_nothing_held,
    test_hold_then_settle_charges_one_entry,
    test_holding_a_reference_twice_reserves_once,
    test_holds_are_indexed_by_shard_and_expiry,
    test_settle_and_release_apply_once,
    test_the_scheduled_sweeper_function_finishes_expired_holds,
    test_the_sweeper_finishes_only_expired_holds,
    test_the_sweeper_works_through_many_expired_holds,
)

SHARDS = 4


@pytest.fixture
def ledger(aws: Any) -> LedgerStore:
    LedgerStore(aws.dynamodb, get_settings().ledger_table).set_shards(ACCOUNT, SHARDS)
    return LedgerStore(aws.dynamodb, get_settings().ledger_table)


def test_every_test_of_the_suite_runs_here_too() -> None:
    """A test added to ``test_ledger.py`` is added here (or the gap is seen)."""
    from tests.integration.shared import test_ledger

    assert {n for n in vars(test_ledger) if n.startswith("test_")} < set(globals())
