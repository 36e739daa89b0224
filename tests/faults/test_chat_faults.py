"""(c) A billed chat turn (key check, visitor limit, hold, delivery mark, settle or release, transcript),
failed at every AWS call it makes.

Afterwards: the visitor got a framed JSON error before the stream, or an NDJSON stream that
starts with ``start`` and ends with ``done`` or a final ``error``. Then the hold sweeper runs past
every hold's expiry, and the owner's ledger must agree with itself (balance = Σ entries, held =
Σ open holds, nothing negative), with no hold left open, and the turn charged exactly once if
any text reached the visitor, else not at all; and the usage (``GET …/usage``: the key's and the agent's chat turns
and credits, counted by the settlement's own transaction) says exactly what the ledger charged: one turn and its
credits, or nothing — never counted twice by a retried or swept settlement, never lost.

(d) The sweeper settling an abandoned turn's hold (delivered, never settled), failed at every AWS call it makes,
then run again cleanly: the same ledger and usage checks.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

from core.credits import providers as credits_providers
from core.credits.billing import Billing
from core.credits.ledger_items import usage_key
from core.credits.records import HoldUsage
from core.credits.store import LedgerStore
from core.platform import aws, rate_limit
from core.platform import providers as platform_providers
from core.platform.dynamo import from_item
from core.platform.ids import new_id
from core.platform.settings import get_settings
from core.workspaces.store import WorkspaceStore
from tests.support.fault_harness import World, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import (
    LambdaContext,
    StreamedResult,
    handler_module,
    invoke_streamed,
    sample_event,
    stack,
    with_request,
)
from tests.support.ledger_checks import assert_consistent, entries, holds, ledger_repository
from tests.support.seed import Seeder

CHAT = "BrainChatFunction"
CLIENT = "v1_3f9a2c7e5b1d4e8fa6c0b2d4"
CREDITS = 5
FROZEN = 1_800_000_000.0 + 7.5


DAY = time.strftime("%Y-%m-%d", time.gmtime(FROZEN))  # the usage's day: the read plane's (frozen) clock


@dataclass(frozen=True)
class Turn:
    key: str
    agent_id: str
    owner_id: str
    workspace_id: str = ""
    key_id: str = ""


def assert_usage_is_the_ledgers(world: World, state: Turn) -> None:
    """The key's and the agent's chat turns and credits on the turn's day are what the ledger charged: one turn and
    its credits if it charged, else nothing."""
    charged = -sum(e["amountCredits"] for e in entries(world.aws.dynamodb, state.owner_id, "llm"))
    found = world.aws.dynamodb.get_item(TableName=get_settings().ledger_table, Key=usage_key(state.workspace_id, DAY))
    usage = from_item(found["Item"]) if "Item" in found else {}
    for subject in (f"key#{state.key_id}", f"agent#{state.agent_id}"):
        counted = (int(usage.get(f"turns:{subject}", 0)), int(usage.get(f"credits:{subject}", 0)))
        assert counted == (1 if charged else 0, charged), f"{subject}: usage {counted}, the ledger charged {charged}"


def sweep_past_expiry(world: World) -> None:
    """The scheduled sweeper, run as if every hold taken so far had expired."""
    later = Billing(ledger_repository(world.aws.dynamodb), hold_seconds=get_settings().hold_seconds,
                    clock=lambda: time.time() + get_settings().hold_seconds + 1)  # fmt: skip
    world.monkeypatch.setattr(credits_providers, "billing", cache(lambda: later))  # the sweeper's
    context = LambdaContext(function_name="CreditHoldSweeperFunction")
    handler_module("CreditHoldSweeperFunction").lambda_handler({"source": "aws.scheduler"}, context)


@dataclass(frozen=True)
class ChatScenario:
    name: str

    def prepare(self, world: World) -> None:
        for name, value in stack().functions()[CHAT].environment.items():
            if name != "AWS_LAMBDA_EXEC_WRAPPER":
                world.monkeypatch.setenv(name, value)
        world.monkeypatch.setenv("CHAT_MODEL", "offline")
        world.monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
        world.monkeypatch.setattr(rate_limit, "now", lambda: FROZEN)
        platform_providers.reset()

    def arrange(self, world: World) -> Turn:
        seed = Seeder(world.aws.dynamodb)
        workspace = seed.workspace(seed.user(f"{new_id('o').lower()}@example.com", plan="pro"), "Shop")
        stored = workspace.model_copy(update={"store_conversations": True})  # the transcript is a transaction more
        WorkspaceStore(world.aws.dynamodb, get_settings().main_table).put_workspace(stored)
        agent = seed.agent(workspace, slug="helper")
        seed.items(agent.id, [{"name": "Waxed rain jacket", "kind": "document", "folder": "catalogue"}])
        ledger_repository(world.aws.dynamodb).grant(workspace.owner_id, CREDITS, "topup", new_id("top"), "Top-up")
        key_id = new_id("key")
        return Turn(seed.api_key(workspace.id, key_id=key_id), agent.id, workspace.owner_id, workspace.id, key_id)

    def act(self, world: World, state: Turn) -> StreamedResult:
        body = json.dumps({"prompt": "Do you have a rain jacket?", "client": CLIENT})
        event = with_request(sample_event(CHAT), path_parameters={"agentId": state.agent_id},
                             headers={"Authorization": f"Bearer {state.key}"}, body=body)  # fmt: skip
        return invoke_streamed(CHAT, event)

    def verify(self, world: World, state: Turn, result: StreamedResult, fault: Fault | None) -> None:
        delivered = False
        if result.status != 200:
            assert fault is not None
            framed_error(result)
        else:
            lines = result.lines()
            assert lines[0]["type"] == "start", lines[0]
            assert lines[-1]["type"] in ("done", "error"), f"the stream ended without done or error: {lines[-1]}"
            assert fault is not None or lines[-1]["type"] == "done"
            delivered = any(line["type"] == "delta" for line in lines)
        sweep_past_expiry(world)
        account = state.owner_id
        assert holds(world.aws.dynamodb, account) == [], "a hold is still open after the sweeper"
        assert_consistent(world.aws.dynamodb, account)
        charged = -sum(e["amountCredits"] for e in entries(world.aws.dynamodb, account, "llm"))
        price = get_settings().chat_credits_per_turn
        assert charged == (price if delivered else 0), f"charged {charged} for a turn that delivered={delivered}"
        assert ledger_repository(world.aws.dynamodb).balance(account).available == CREDITS - charged
        assert_usage_is_the_ledgers(world, state)

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


@dataclass(frozen=True)
class SweepScenario:
    """An abandoned turn: held with its usage, marked delivered, never settled; the scheduled sweeper settles it."""

    name: str

    def arrange(self, world: World) -> Turn:
        seed = Seeder(world.aws.dynamodb)
        workspace = seed.workspace(seed.user(f"{new_id('o').lower()}@example.com", plan="pro"), "Shop")
        ledger = ledger_repository(world.aws.dynamodb)
        ledger.grant(workspace.owner_id, CREDITS, "topup", new_id("top"), "Top-up")
        state = Turn("", new_id("agt"), workspace.owner_id, workspace.id, new_id("key"))
        billing = Billing(ledger, hold_seconds=get_settings().hold_seconds)
        usage = HoldUsage(workspace_id=workspace.id, key_id=state.key_id, agent_id=state.agent_id, day=DAY)
        hold = billing.hold(workspace.owner_id, "llm", new_id("turn"), 2, "Chat with Helper", usage=usage)
        assert billing.mark_delivered(hold)
        return state

    def act(self, world: World, state: Turn) -> None:
        # The sweeper as deployed, on core's client (the one the injector fails), its clock past every hold's expiry.
        settings = get_settings()
        later = Billing(LedgerStore(aws.dynamodb(), settings.ledger_table), hold_seconds=settings.hold_seconds,
                        clock=lambda: time.time() + settings.hold_seconds + 1)  # fmt: skip
        world.monkeypatch.setattr(credits_providers, "billing", cache(lambda: later))
        context = LambdaContext(function_name="CreditHoldSweeperFunction")
        with contextlib.suppress(Exception):  # the run failed with the fault; the next scheduled run is verify's
            handler_module("CreditHoldSweeperFunction").lambda_handler({"source": "aws.scheduler"}, context)

    def verify(self, world: World, state: Turn, result: None, fault: Fault | None) -> None:
        sweep_past_expiry(world)  # the next scheduled run
        assert holds(world.aws.dynamodb, state.owner_id) == [], "a hold is still open after the sweeper"
        assert_consistent(world.aws.dynamodb, state.owner_id)
        assert -sum(e["amountCredits"] for e in entries(world.aws.dynamodb, state.owner_id, "llm")) == 2
        assert_usage_is_the_ledgers(world, state)

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [ChatScenario("chat"), SweepScenario("sweep")]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
