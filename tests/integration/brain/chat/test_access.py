"""Chat refusals for the credential and the agent (401, 404), and the visitor's and the key's rate limits (429)."""

from __future__ import annotations

import pytest

from core.keys.key_format import generate
from local.gateway.events import SAMPLE_KEY
from tests.integration.conftest import WINDOW_START, Clock
from tests.support.brain import AGENT_NOT_FOUND, UNAUTHORIZED, call
from tests.support.chat import (
    JWT_LOOKALIKE,
    OTHER_CLIENT,
    PROMPT,
    assert_untouched,
    balance,
    chat,
    grant,
    llm_charges,
    refused,
    streamed,
)
from tests.support.ledger_checks import assert_consistent
from tests.support.seed import Seeder


@pytest.fixture
def clock(clock: Clock) -> Clock:
    """Every rate limit's clock (tests/integration/conftest.py), 12.4 s into a window."""
    clock.now = WINDOW_START + 12.4
    return clock


def test_an_unknown_agent_is_404(funded, aws) -> None:
    result = chat(agent_id="prj_01JDNOSUCHAGENT0000000000")
    refused(result, 404, "NOT_FOUND")
    assert result.json() == AGENT_NOT_FOUND
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_another_workspaces_agent_is_404_and_nobody_pays(funded, rival, aws) -> None:
    grant(aws, rival.ws.owner_id, 10)
    result = chat(agent_id=rival.agent.id)  # with the tenant's key
    refused(result, 404, "NOT_FOUND")
    assert result.json() == AGENT_NOT_FOUND
    assert_untouched(aws, funded.ws.owner_id, 10)
    assert_untouched(aws, rival.ws.owner_id, 10)
    # The rival's own key does reach it, and the rival's owner pays.
    streamed(chat(agent_id=rival.agent.id, key=rival.key))
    assert balance(aws, rival.ws.owner_id) == (9, 0)


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", f"Bearer {generate()}", f"Bearer {JWT_LOOKALIKE}", f"Basic {SAMPLE_KEY}", SAMPLE_KEY],
    ids=["missing", "empty", "no-credential", "unknown-key", "portal-jwt", "basic-scheme", "no-scheme"],
)
def test_a_missing_or_wrong_credential_is_401(funded, aws, authorization: str | None) -> None:
    result = chat(headers={"Authorization": authorization})
    refused(result, 401, "UNAUTHORIZED")
    assert result.json() == UNAUTHORIZED
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_a_revoked_key_is_401(funded, seed, aws) -> None:
    revoked = seed.api_key(funded.ws.id, revoked=True)
    assert chat(key=revoked).json() == UNAUTHORIZED
    assert_untouched(aws, funded.ws.owner_id, 10)


def test_the_21st_turn_of_a_visitor_within_a_minute_is_429(funded, seed: Seeder, aws, clock: Clock) -> None:
    grant(aws, funded.ws.owner_id, 90)  # 100 in all
    served = [streamed(chat())[0][0]["turnId"] for _ in range(20)]
    result = chat()
    refused(result, 429, "RATE_LIMITED")
    retry_after = result.header("Retry-After")
    assert retry_after is not None and retry_after.isdigit() and int(retry_after) >= 1
    # Whole seconds until the turns of second W+12 leave every rolling minute (at W+73): 60.6, rounded up.
    assert retry_after == "61"
    assert result.header("RateLimit-Limit") == "20"
    assert result.header("RateLimit-Remaining") == "0"
    assert result.header("RateLimit-Reset") == "61"
    # Another visitor of the same agent, and the same visitor on another agent, are still served.
    streamed(chat({"prompt": PROMPT, "client": OTHER_CLIENT}))
    other_agent = seed.agent(funded.ws, slug="second")
    streamed(chat(agent_id=other_agent.id))
    charges = llm_charges(aws, funded.ws.owner_id)
    assert len(charges) == 22 and {ref for _, ref in charges} >= set(served)
    assert balance(aws, funded.ws.owner_id) == (78, 0)
    assert_consistent(aws.dynamodb, funded.ws.owner_id)


def test_the_visitor_is_served_again_once_the_turns_leave_the_rolling_minute(funded, aws, clock: Clock) -> None:
    grant(aws, funded.ws.owner_id, 90)
    for _ in range(20):
        streamed(chat())
    refused(chat(), 429, "RATE_LIMITED")
    clock.now = WINDOW_START + 72.9  # a second short of Retry-After: still within a minute of a turn
    refused(chat(), 429, "RATE_LIMITED")
    clock.now = WINDOW_START + 73
    streamed(chat())
    assert len(llm_charges(aws, funded.ws.owner_id)) == 21


def test_the_keys_own_rate_limit_applies_to_chat(funded, seed, aws, clock: Clock) -> None:
    key = seed.api_key(funded.ws.id, rate_limit=3)
    first = chat(key=key)
    streamed(first)
    assert (first.header("RateLimit-Limit"), first.header("RateLimit-Remaining")) == ("3", "2")
    assert call("BrainWhoAmIFunction", key=key).status == 200
    streamed(chat(key=key, client=OTHER_CLIENT))
    result = chat(key=key, client="v1_a_third_visitor_0000")
    refused(result, 429, "RATE_LIMITED")
    assert (result.header("RateLimit-Limit"), result.header("RateLimit-Remaining")) == ("3", "0")
    assert result.header("Retry-After") == "61"
    assert len(llm_charges(aws, funded.ws.owner_id)) == 2
    assert balance(aws, funded.ws.owner_id) == (8, 0)
    # The sample key, with the default limit, is not affected.
    streamed(chat())
    assert_consistent(aws.dynamodb, funded.ws.owner_id)
