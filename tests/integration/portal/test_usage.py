"""Usage per key and per agent (authoring.md, "Usage", issue 28 item 4): the read plane's requests and 429s, counted
by the key's rate limiter in the write it makes anyway, read back per UTC day, oldest first, zeros included."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from core.platform.usage_counters import DAY_SECONDS
from tests.integration.conftest import WINDOW_START, Clock
from tests.support.authoring import Studio
from tests.support.brain import call
from tests.support.portal import Portal, assert_error

KEY_USAGE, AGENT_USAGE = "PortalKeyUsageFunction", "PortalAgentUsageFunction"
WHOAMI, AGENT = "BrainWhoAmIFunction", "BrainAgentFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def date(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")


def day(at: float, requests: int = 0, rate_limited: int = 0) -> dict[str, Any]:
    return {"date": date(at), "requests": requests, "chatTurns": 0, "credits": 0, "rateLimited": rate_limited}


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
