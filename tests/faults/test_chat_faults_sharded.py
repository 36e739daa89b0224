"""``test_chat_faults.py``'s scenarios, unchanged, for an owner whose balance has shards (docs/ledger.md, "Shards").

The same billed chat turn and the same sweeper settlement, failed at every AWS call they make, with the owner's
account given 4 shard books right after its top-up: the turn's first reserve is refused by the main book (which
names the shards), then holds in the turn's shard after leasing it credit. ``verify`` is the suite's own, with one
difference: a sharded account's settlements count the workspace's usage on ``<day>#S<k>``, so the suite's usage
check reads the day as the usage endpoint does (``UsageStore.chat``, every item of the day) instead of one item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from core.platform.settings import get_settings
from core.usage.store import UsageStore
from tests.faults import test_chat_faults as suite
from tests.support.fault_harness import World, run_case, run_clean
from tests.support.ledger_checks import entries, ledger_repository

SHARDS = 4


def usage_is_the_ledgers(world: World, state: suite.Turn) -> None:
    """The suite's check, over every usage item of the day (the main book's and each shard's)."""
    settings = get_settings()
    charged = -sum(e["amountCredits"] for e in entries(world.aws.dynamodb, state.owner_id, "llm"))
    usage = UsageStore(world.aws.dynamodb, settings.rate_limits_table, settings.ledger_table)
    for subject, name in (("key", state.key_id), ("agent", state.agent_id)):
        counted = usage.chat(state.workspace_id, subject, name, suite.DAY, suite.DAY).get(suite.DAY, (0, 0))
        assert counted == (1 if charged else 0, charged), f"{subject}: usage {counted}, the ledger charged {charged}"


def sharded(state: suite.Turn, world: World) -> suite.Turn:
    ledger_repository(world.aws.dynamodb).set_shards(state.owner_id, SHARDS)
    return state


@dataclass(frozen=True)
class ShardedChat(suite.ChatScenario):
    def arrange(self, world: World) -> suite.Turn:
        return sharded(super().arrange(world), world)


@dataclass(frozen=True)
class ShardedSweep(suite.SweepScenario):
    """The abandoned turn is held after the sharding: its hold is in a shard book."""

    def arrange(self, world: World) -> suite.Turn:
        from core.credits.billing import Billing
        from core.credits.records import HoldUsage
        from core.platform.ids import new_id
        from tests.support.seed import Seeder

        seed = Seeder(world.aws.dynamodb)
        workspace = seed.workspace(seed.user(f"{new_id('o').lower()}@example.com", plan="pro"), "Shop")
        ledger = ledger_repository(world.aws.dynamodb)
        ledger.grant(workspace.owner_id, suite.CREDITS, "topup", new_id("top"), "Top-up")
        state = sharded(suite.Turn("", new_id("agt"), workspace.owner_id, workspace.id, new_id("key")), world)
        billing = Billing(ledger, hold_seconds=get_settings().hold_seconds)
        usage = HoldUsage(workspace_id=workspace.id, key_id=state.key_id, agent_id=state.agent_id, day=suite.DAY)
        hold = billing.hold(workspace.owner_id, "llm", new_id("turn"), 2, "Chat with Helper", usage=usage)
        assert hold.book and billing.mark_delivered(hold)
        return state


SCENARIOS = [ShardedChat("chat_sharded"), ShardedSweep("sweep_sharded")]


@pytest.fixture(autouse=True)
def _usage_over_every_item_of_the_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suite, "assert_usage_is_the_ledgers", usage_is_the_ledgers)


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
