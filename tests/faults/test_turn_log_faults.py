"""The turn's one write after ``done`` (its receipt, counts and stored transcript, ``core.insights.turn_log``),
failed with every fault DynamoDB can answer: the failure is logged, the visitor's stream still ends with ``done``,
the turn is billed exactly once, and nothing of the log is half written (the transaction is all or none).
The chat's every other call is failed by test_chat_faults.py (whose scenario stores conversations too)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from core.platform import main_table as keys
from core.platform.dynamo import query_all, to_item
from core.platform.settings import get_settings
from tests.faults.test_chat_faults import CREDITS, ChatScenario
from tests.support.fault_harness import World, arranged, bounded
from tests.support.fault_injection import Call, Plan, faults_for
from tests.support.ledger_checks import assert_consistent, entries, holds

SCENARIO = ChatScenario("turn-log")


def logged_items(world: World, agent_id: str) -> list[dict[str, Any]]:
    """The agent's receipts, counters, questions and stored turns (the unanswered rows: none, the turn is answered)."""
    found = []
    for pk in (keys.turns_partition(agent_id), keys.insights_partition(agent_id), keys.questions_partition(agent_id),
               keys.conversations_partition(agent_id)):  # fmt: skip
        found += query_all(world.aws.dynamodb, {
            "TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": pk}),
        })  # fmt: skip
    return found


def after_done(world: World, state: Any) -> int:
    """The position of the turn's last call, probed cleanly: the log's TransactWriteItems."""
    with world.injector.armed() as calls:
        SCENARIO.act(world, state)
    assert calls[-1] == Call("dynamodb", "TransactWriteItems"), calls
    return len(calls) - 1


@pytest.mark.parametrize("kind", range(4), ids=["throttled", "5xx", "connect-timeout", "read-timeout"])
def test_a_failed_log_is_logged_and_leaves_the_visitor_and_the_bill_alone(
    world: World, kind: int, caplog: pytest.LogCaptureFixture
) -> None:
    state = arranged(world, SCENARIO)  # type: ignore[arg-type]  # a frozen scenario, as the harness's own
    after_done(world, state)  # two turns written cleanly: the second's calls are every later turn's
    position = after_done(world, state)
    before = len(logged_items(world, state.agent_id))
    fault = faults_for(Call("dynamodb", "TransactWriteItems"), position)[kind]
    with caplog.at_level(logging.ERROR), world.injector.armed(Plan(position, fault)) as calls:
        result = bounded(lambda: SCENARIO.act(world, state))
    assert world.injector.fired and calls[position] == Call("dynamodb", "TransactWriteItems")
    lines = result.lines()
    assert [lines[0]["type"], *(line["type"] for line in lines[-2:])] == ["start", "sources", "done"]
    assert lines[-1]["usage"]["credits"] == get_settings().chat_credits_per_turn
    assert any(r.getMessage() == "logging a chat turn failed" for r in caplog.records), "the failure is logged"
    account = state.owner_id
    assert holds(world.aws.dynamodb, account) == []
    assert_consistent(world.aws.dynamodb, account)
    charged = -sum(e["amountCredits"] for e in entries(world.aws.dynamodb, account, "llm"))
    assert charged == 3 * get_settings().chat_credits_per_turn <= CREDITS  # every turn, each once
    turn_id = lines[0]["turnId"]
    written = [i["sk"] for i in logged_items(world, state.agent_id) if turn_id in i["sk"]]  # receipt, stored turn
    # A read timeout lost the answer of a write that was applied: then all of it is there, else none of it.
    applied = fault.name == "read-timeout-applied"
    assert len(written) == (2 if applied else 0), written
    assert len(logged_items(world, state.agent_id)) >= before
