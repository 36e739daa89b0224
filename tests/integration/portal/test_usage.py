"""Usage per key and per agent (authoring.md, "Usage", issue 28 item 4): the read plane's requests and 429s, counted
by the key's rate limiter in the write it makes anyway, and the chat turns and their credits, counted by each turn's
settlement (the turn's own or the sweeper's), read back per UTC day, oldest first, zeros included."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from core.credits.billing import Billing
from core.platform import providers as platform_providers
from core.platform.usage_counters import DAY_SECONDS
from tests.integration.conftest import WINDOW_START, Clock
from tests.support.authoring import Studio
from tests.support.brain import call
from tests.support.chat import CHAT, OTHER_CLIENT, chat, chat_event, grant, refused
from tests.support.lambdas import LambdaContext, handler_module
from tests.support.ledger_checks import assert_consistent, entries, holds, ledger_repository
from tests.support.portal import Portal, assert_error

KEY_USAGE, AGENT_USAGE = "PortalKeyUsageFunction", "PortalAgentUsageFunction"
WHOAMI, AGENT = "BrainWhoAmIFunction", "BrainAgentFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def date(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")


def day(at: float, requests: int = 0, rate_limited: int = 0, turns: int = 0, credits: int = 0) -> dict[str, Any]:
    return {"date": date(at), "requests": requests, "chatTurns": turns, "credits": credits, "rateLimited": rate_limited}


def mint(studio: Studio, **fields: Any) -> dict[str, Any]:
    return studio.portal.mint_key(studio.who, studio.workspace_id, **fields)


def test_requests_are_counted_per_key_and_per_agent_day_by_day(studio: Studio, clock: Clock) -> None:
    one, two = studio.agent("One")["id"], studio.agent("Two")["id"]
    first, second = mint(studio), mint(studio, name="other")
    yesterday, today = WINDOW_START - DAY_SECONDS, WINDOW_START
    clock.now = yesterday
    call(AGENT, key=first["key"], agent_id=one)
    clock.now = today
    for _ in range(2):
        call(AGENT, key=first["key"], agent_id=one)
    call(AGENT, key=second["key"], agent_id=one)
    call(AGENT, key=second["key"], agent_id=two)
    call(WHOAMI, key=first["key"])  # no agent: the key's only
    assert studio.ok(KEY_USAGE, query={"days": "3"}, key_id=first["id"]) == {
        "days": [day(today - 2 * DAY_SECONDS), day(yesterday, 1), day(today, 3)]  # oldest first, zeros included
    }
    assert studio.ok(KEY_USAGE, query={"days": "1"}, key_id=second["id"]) == {"days": [day(today, 2)]}
    assert studio.ok(AGENT_USAGE, query={"days": "2"}, agent_id=one) == {
        "days": [day(yesterday, 1), day(today, 3)]  # over every key
    }
    assert studio.ok(AGENT_USAGE, query={"days": "2"}, agent_id=two)["days"] == [day(yesterday), day(today, 1)]
    thirty = studio.ok(KEY_USAGE, key_id=first["id"])["days"]  # the default: 30 days ending today
    assert len(thirty) == 30 and thirty[0]["date"] == date(today - 29 * DAY_SECONDS) and thirty[-1] == day(today, 3)


def test_429s_are_counted_for_the_key_and_its_agent(studio: Studio, clock: Clock) -> None:
    agent = studio.agent()["id"]
    key = mint(studio, rateLimit=2)
    clock.now = WINDOW_START + 10
    statuses = [call(AGENT, key=key["key"], agent_id=agent).status for _ in range(3)] + [
        call(WHOAMI, key=key["key"]).status
    ]
    assert statuses[2:] == [429, 429]
    assert studio.ok(KEY_USAGE, query={"days": "1"}, key_id=key["id"])["days"] == [day(clock.now, 2, 2)]
    assert studio.ok(AGENT_USAGE, query={"days": "1"}, agent_id=agent)["days"] == [day(clock.now, 2, 1)]


def test_counters_older_than_ninety_days_are_dropped_by_the_next_write(studio: Studio, clock: Clock) -> None:
    key = mint(studio)
    clock.now = WINDOW_START
    call(WHOAMI, key=key["key"])
    clock.now = WINDOW_START + 90 * DAY_SECONDS
    call(WHOAMI, key=key["key"])
    days = studio.ok(KEY_USAGE, query={"days": "90"}, key_id=key["id"])["days"]
    assert len(days) == 90 and sum(d["requests"] for d in days) == 1 and days[-1] == day(clock.now, 1)


@pytest.mark.parametrize("days", ["0", "91", "-1", "x", "1.5", ""])
def test_days_out_of_range_is_400(studio: Studio, days: str) -> None:
    key = mint(studio)
    assert_error(studio.call(KEY_USAGE, query={"days": days}, key_id=key["id"]), 400, "VALIDATION_ERROR")
    agent = studio.agent()["id"]
    assert_error(studio.call(AGENT_USAGE, query={"days": days}, agent_id=agent), 400, "VALIDATION_ERROR")


def test_owners_and_admins_read_it_a_member_is_refused_a_stranger_finds_nothing(studio: Studio) -> None:
    key, agent = mint(studio), studio.agent()["id"]
    admin, member, stranger = studio.member("admin@example.com", "admin"), studio.member(), studio.stranger()
    for function, ids in ((KEY_USAGE, {"key_id": key["id"]}), (AGENT_USAGE, {"agent_id": agent})):
        assert len(admin.ok(function, **ids)["days"]) == 30
        assert_error(member.call(function, **ids), 403, "FORBIDDEN")
        assert_error(stranger.call(function, **ids), 404, "NOT_FOUND")


def test_another_workspaces_key_or_agent_is_404(studio: Studio, portal: Portal) -> None:
    rival = Studio.open(portal, "rival@example.com", name="Rival")
    theirs, their_agent = mint(rival), rival.agent()["id"]
    assert_error(studio.call(KEY_USAGE, key_id=theirs["id"]), 404, "NOT_FOUND")
    assert_error(studio.call(AGENT_USAGE, agent_id=their_agent), 404, "NOT_FOUND")
    assert_error(studio.call(KEY_USAGE, key_id="key_unknown"), 404, "NOT_FOUND")


# --- chat turns and credits (counted by the turn's settlement, in its transaction)

PRICE = 3


@pytest.fixture
def chatting(studio: Studio, chat_environment: None, monkeypatch: pytest.MonkeyPatch) -> Studio:
    """The studio's owner funded, the chat priced at ``PRICE`` credits a turn (not 1: credits are not turns)."""
    monkeypatch.setenv("CHAT_CREDITS_PER_TURN", str(PRICE))
    platform_providers.reset()
    grant(studio.portal.aws, studio.who.user_id, 100)
    return studio


def turn(key: str, agent_id: str, **fields: Any) -> str:
    """One complete chat turn; its id."""
    result = chat(key=key, agent_id=agent_id, **fields)
    assert result.status == 200, result.body
    lines = result.lines()
    assert lines[-1]["type"] == "done", lines[-1]
    return str(lines[0]["turnId"])


def charged(studio: Studio, turn_ids: list[str]) -> int:
    """What the ledger charged for these turns (its own entries, by reference)."""
    found = entries(studio.portal.aws.dynamodb, studio.who.user_id, "llm")
    assert {e["refId"] for e in found} >= set(turn_ids)
    return -sum(e["amountCredits"] for e in found if e["refId"] in turn_ids)


def test_chat_turns_and_their_credits_are_counted_per_key_and_per_agent_on_their_day(
    chatting: Studio, clock: Clock
) -> None:
    studio = chatting
    one, two = studio.agent("One")["id"], studio.agent("Two")["id"]
    first, second = mint(studio), mint(studio, name="other")
    yesterday, today = WINDOW_START - DAY_SECONDS + 30, WINDOW_START + 30
    clock.now = yesterday
    before = [turn(first["key"], one)]
    clock.now = today
    a_one = [turn(first["key"], one), turn(first["key"], one, client=OTHER_CLIENT)]
    b_one, a_two = [turn(second["key"], one)], [turn(first["key"], two)]
    assert charged(studio, before) == PRICE and charged(studio, a_one + a_two) == 3 * PRICE
    assert studio.ok(KEY_USAGE, query={"days": "3"}, key_id=first["id"])["days"] == [
        day(today - 2 * DAY_SECONDS), day(yesterday, 1, turns=1, credits=charged(studio, before)),
        day(today, 3, turns=3, credits=charged(studio, a_one + a_two)),
    ]  # fmt: skip
    assert studio.ok(KEY_USAGE, query={"days": "1"}, key_id=second["id"])["days"] == [
        day(today, 1, turns=1, credits=charged(studio, b_one))
    ]
    assert studio.ok(AGENT_USAGE, query={"days": "2"}, agent_id=one)["days"] == [
        day(yesterday, 1, turns=1, credits=charged(studio, before)),
        day(today, 3, turns=3, credits=charged(studio, a_one + b_one)),  # over every key
    ]
    assert studio.ok(AGENT_USAGE, query={"days": "1"}, agent_id=two)["days"] == [
        day(today, 1, turns=1, credits=charged(studio, a_two))
    ]
    assert_consistent(studio.portal.aws.dynamodb, studio.who.user_id)


def test_a_refused_or_released_turn_counts_no_turn_and_no_credit(
    chatting: Studio, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    studio = chatting
    agent, key = studio.agent()["id"], mint(studio)
    clock.now = WINDOW_START + 30
    counted = [turn(key["key"], agent)]
    # A model failing before any text: the hold is released, nothing charged.
    failed = chat(key=key["key"], agent_id=agent, prompt="[[offline-error-before]] Hello?").lines()
    assert failed[-1]["type"] == "error"
    # 429: the visitor's limit (one turn a minute here).
    monkeypatch.setenv("CHAT_VISITOR_TURNS_PER_MINUTE", "1")
    platform_providers.reset()
    counted.append(turn(key["key"], agent, client=OTHER_CLIENT))
    refused(chat(key=key["key"], agent_id=agent, client=OTHER_CLIENT), 429, "RATE_LIMITED")
    monkeypatch.setenv("CHAT_VISITOR_TURNS_PER_MINUTE", "20")
    platform_providers.reset()
    # 402: the owner's credits spent to below a turn's price.
    ledger = ledger_repository(studio.portal.aws.dynamodb)
    billing = Billing(ledger, hold_seconds=900)
    billing.settle(billing.hold(studio.who.user_id, "llm", "turn_drain", ledger.balance(studio.who.user_id).available,
                                "Spent elsewhere"))  # fmt: skip
    refused(chat(key=key["key"], agent_id=agent, prompt="One more?"), 402, "INSUFFICIENT_CREDITS")
    expected = day(clock.now, 5, turns=2, credits=charged(studio, counted))
    assert expected["credits"] == 2 * PRICE
    assert studio.ok(KEY_USAGE, query={"days": "1"}, key_id=key["id"])["days"] == [expected]
    assert studio.ok(AGENT_USAGE, query={"days": "1"}, agent_id=agent)["days"] == [expected]


def test_a_turn_abandoned_mid_stream_is_counted_once_by_the_sweepers_settlement(chatting: Studio, clock: Clock) -> None:
    studio = chatting
    agent, key = studio.agent()["id"], mint(studio)
    clock.now = WINDOW_START + 30
    event = chat_event(key=key["key"], agent_id=agent)
    raw = handler_module(CHAT).lambda_handler(event, LambdaContext(function_name=CHAT))
    chunks = iter(raw["body"])
    start = json.loads(next(chunks))
    assert json.loads(next(chunks))["type"] == "delta"
    # The container freezes here, longer than a hold lives: the sweeper settles the hold, marked delivered.
    (hold,) = holds(studio.portal.aws.dynamodb, studio.who.user_id)
    assert hold["usage"] == {"workspaceId": studio.workspace_id, "keyId": key["id"], "agentId": agent,
                             "day": date(clock.now)}  # fmt: skip
    later = Billing(ledger_repository(studio.portal.aws.dynamodb), hold_seconds=900, clock=lambda: time.time() + 901)
    assert later.sweep().settled == 1
    raw["body"].close()  # it thaws: its own settlement finds the turn billed, and counts nothing more
    expected = day(clock.now, 1, turns=1, credits=charged(studio, [start["turnId"]]))
    assert expected["credits"] == PRICE
    assert studio.ok(KEY_USAGE, query={"days": "1"}, key_id=key["id"])["days"] == [expected]
    assert studio.ok(AGENT_USAGE, query={"days": "1"}, agent_id=agent)["days"] == [expected]
    assert_consistent(studio.portal.aws.dynamodb, studio.who.user_id)
