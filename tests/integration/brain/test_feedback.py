"""POST /v1/agent/{agentId}/turns/{turnId}/feedback (authoring.md, "Feedback, unanswered questions and the owner's
answers"): a visitor rates a reply, re-rates it, withdraws it; one 404 for every turn they may not rate; the body's
rules; the visitor's limit; a rating that loses a race to another; never billed.

The receipts are seeded in the documented layout (tests/support/feedback.py); the HTTP test
(tests/e2e/test_feedback_http.py) rates turns the chat made.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.insights import feedback as feedback_module
from core.insights.feedback_store import FeedbackStore
from core.insights.records import FEEDBACK_DAYS
from core.platform import providers as platform_providers
from core.platform.retention import expires_at
from core.platform.settings import get_settings
from core.workspaces.store import WorkspaceStore
from tests.integration.conftest import Clock, Tenant
from tests.support.brain import JSON
from tests.support.chat import CLIENT, OTHER_CLIENT
from tests.support.feedback import (
    TURN_NOT_FOUND,
    as_the_test,
    assert_rating_stored,
    day_counters,
    feedback_rows,
    put_receipt,
    rate,
    receipt_of,
)
from tests.support.ledger_checks import entries
from tests.support.seed import Seeder

pytestmark = pytest.mark.usefixtures("clock")  # the visitor limit's clock, frozen: no test depends on the minute


@pytest.fixture
def frozen_now(monkeypatch: pytest.MonkeyPatch) -> list[datetime]:
    """The feedback's clock, moved by the test (``frozen_now[0] = ...``)."""
    at = [datetime(2026, 3, 10, 12, 0, tzinfo=UTC)]
    monkeypatch.setattr(feedback_module, "now", lambda: at[0])
    return at


def ok(result: Any) -> None:
    assert (result.status, result.json()) == (200, {}), result.body
    assert result.header("Content-Type") == JSON


def test_a_visitor_rates_re_rates_and_withdraws(tenant: Tenant, aws) -> None:
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "up"}, key=tenant.key))
    assert_rating_stored(aws.dynamodb, receipt, "up")
    first = receipt_of(aws.dynamodb, tenant.agent.id, receipt.turn_id)
    assert first is not None and "comment" not in first

    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "down", "comment": " Too vague.\n"},
            key=tenant.key))  # fmt: skip
    assert_rating_stored(aws.dynamodb, receipt, "down")
    second = receipt_of(aws.dynamodb, tenant.agent.id, receipt.turn_id)
    assert second is not None and second["comment"] == "Too vague." and second["ratedAt"] > first["ratedAt"]
    listed = [row for row in feedback_rows(aws.dynamodb, tenant.agent.id) if not row["sk"].startswith("VISITOR#")]
    assert {row["comment"] for row in listed} == {"Too vague."}
    assert all(row["sources"] == receipt.sources and row["threadKey"] == receipt.thread_key for row in listed)
    assert all("prompt" not in row and "reply" not in row and "expiresAt" not in row for row in listed)

    # Re-rating down again without a comment: the comment goes, the counters stay (one down, not two).
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "down"}, key=tenant.key))
    assert_rating_stored(aws.dynamodb, receipt, "down")
    assert "comment" not in (receipt_of(aws.dynamodb, tenant.agent.id, receipt.turn_id) or {})

    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": None}, key=tenant.key))
    assert_rating_stored(aws.dynamodb, receipt, None)
    # Withdrawing what is not there is no write, and the same answer.
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": None}, key=tenant.key))
    assert_rating_stored(aws.dynamodb, receipt, None)


def test_counters_go_on_the_turns_day_and_sum_over_turns(tenant: Tenant, aws, frozen_now: list[datetime]) -> None:
    """Two turns of one day rated, a third of the day before: each day counts its own turns' ratings, whenever
    they were rated."""
    day = frozen_now[0]
    turns = [put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT, created_at=at)
             for at in (day - timedelta(hours=1), day - timedelta(hours=2), day - timedelta(days=1))]  # fmt: skip
    for turn, rating in zip(turns, ("up", "down", "up"), strict=True):
        ok(rate(tenant.agent.id, turn.turn_id, {"client": CLIENT, "rating": rating}, key=tenant.key))
    today, yesterday = turns[0].day, turns[2].day
    assert (day_counters(aws.dynamodb, tenant.agent.id, today)["up"],
            day_counters(aws.dynamodb, tenant.agent.id, today)["down"]) == (1, 1)  # fmt: skip
    assert day_counters(aws.dynamodb, tenant.agent.id, yesterday)["up"] == 1
    frozen_now[0] = day + timedelta(days=2)  # rated again two days on: still the turn's day that moves
    ok(rate(tenant.agent.id, turns[2].turn_id, {"client": CLIENT, "rating": "down"}, key=tenant.key))
    counted = day_counters(aws.dynamodb, tenant.agent.id, yesterday)
    assert (counted["up"], counted["down"]) == (0, 1)
    assert len(feedback_rows(aws.dynamodb, tenant.agent.id)) == 9  # three rows per rated turn, none left behind


def test_stored_conversations_keep_the_prompt_and_reply_beside_the_rating_for_the_retention(
    tenant: Tenant, aws
) -> None:
    WorkspaceStore(aws.dynamodb, get_settings().main_table).put_workspace(
        tenant.ws.model_copy(update={"store_conversations": True, "conversation_retention_days": 30})
    )
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT, stored=True)
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "down", "comment": "Wrong size"},
            key=tenant.key))  # fmt: skip
    rows = {row["sk"].split("#", 1)[0]: row for row in feedback_rows(aws.dynamodb, tenant.agent.id)}
    rated_at = rows["ALL"]["createdAt"]
    assert set(rows) == {"ALL", "DOWN", "VISITOR"}
    for kind in ("ALL", "DOWN"):
        assert (rows[kind]["prompt"], rows[kind]["reply"]) == (receipt.prompt, receipt.reply)
        assert rows[kind]["comment"] == "Wrong size"
    assert all(row["expiresAt"] == expires_at(rated_at, 30) for row in rows.values())
    assert set(rows["VISITOR"]) == {"pk", "sk", "turnId", "client", "rating", "createdAt", "expiresAt"}


def test_every_turn_the_caller_may_not_rate_is_the_same_404(
    tenant: Tenant, rival: Tenant, seed: Seeder, aws, frozen_now: list[datetime]
) -> None:
    sibling = seed.agent(tenant.ws, slug="sibling")  # another agent of the same workspace
    mine = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT, created_at=frozen_now[0])
    theirs = put_receipt(aws.dynamodb, rival.ws.id, rival.agent.id, CLIENT, created_at=frozen_now[0])
    old = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT,
                      created_at=frozen_now[0] - timedelta(days=FEEDBACK_DAYS, milliseconds=1))  # fmt: skip
    edge = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT,
                       created_at=frozen_now[0] - timedelta(days=FEEDBACK_DAYS))  # fmt: skip
    up = {"client": CLIENT, "rating": "up"}
    refused = {
        "unknown turn": rate(tenant.agent.id, "turn_01JD0UNKNOWN0000000000000000", up, key=tenant.key),
        "another agent's path": rate(sibling.id, mine.turn_id, up, key=tenant.key),
        "another workspace's key": rate(tenant.agent.id, mine.turn_id, up, key=rival.key),
        "another workspace's turn": rate(rival.agent.id, theirs.turn_id, up, key=tenant.key),
        "another visitor": rate(
            tenant.agent.id, mine.turn_id, {"client": OTHER_CLIENT, "rating": "up"}, key=tenant.key
        ),
        "older than 7 days": rate(tenant.agent.id, old.turn_id, up, key=tenant.key),
        "not a turn id": rate(tenant.agent.id, "x" * 129, up, key=tenant.key),
        "an unknown agent": rate("prj_01JD0UNKNOWN00000000000000", mine.turn_id, up, key=tenant.key),
    }
    for case, result in refused.items():
        assert (result.status, result.json()) == (404, TURN_NOT_FOUND), case
    for receipt in (mine, theirs, old):
        assert_rating_stored(aws.dynamodb, receipt, None)
    assert feedback_rows(aws.dynamodb, sibling.id) == []
    ok(rate(tenant.agent.id, edge.turn_id, up, key=tenant.key))  # exactly 7 days old: still rated
    ok(rate(tenant.agent.id, mine.turn_id, up, key=tenant.key))  # and the turn itself, by its own visitor


def test_a_receipt_gone_meanwhile_is_the_404(tenant: Tenant, aws, monkeypatch: pytest.MonkeyPatch) -> None:
    """The TTL took the receipt between the read and the write: the write's condition fails, the re-read finds
    nothing, nothing is written."""
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    original = FeedbackStore.write

    def expire_first(self: FeedbackStore, change: Any) -> bool:
        with as_the_test():
            aws.dynamodb.delete_item(TableName=get_settings().main_table,
                                     Key={"pk": {"S": f"AGENT#{tenant.agent.id}#TURNS"},
                                          "sk": {"S": f"TURN#{receipt.turn_id}"}})  # fmt: skip
        return original(self, change)

    monkeypatch.setattr(FeedbackStore, "write", expire_first)
    result = rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "up"}, key=tenant.key)
    assert (result.status, result.json()) == (404, TURN_NOT_FOUND)
    assert feedback_rows(aws.dynamodb, tenant.agent.id) == []
    assert day_counters(aws.dynamodb, tenant.agent.id, receipt.day)["up"] == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"client": CLIENT}, "rating"),  # the key is required: null withdraws, absent is a mistake
        ({"client": CLIENT, "rating": "meh"}, "rating"),
        ({"client": CLIENT, "rating": 1}, "rating"),
        ({"client": CLIENT, "rating": "up", "stars": 5}, "stars"),
        ({"rating": "up"}, "client"),
        ({"client": "short", "rating": "up"}, "client"),
        ({"client": "203.0.113.7", "rating": "up"}, "client"),
        ({"client": "2001:db8::1:2:3:4:5", "rating": "up"}, "client"),
        ({"client": f"{CLIENT} ", "rating": "up"}, "client"),  # taken exactly as sent, as the chat takes it
        ({"client": CLIENT, "rating": "up", "comment": "x" * 1001}, "comment"),
        ({"client": CLIENT, "rating": "up", "comment": "ok\r\nnot ok"}, "comment"),
        ({"client": CLIENT, "rating": "up", "comment": "bell\x07"}, "comment"),
        ({"client": CLIENT, "rating": "up", "comment": "\x1b[31mred"}, "comment"),
        ({"client": CLIENT, "rating": "up", "comment": "c1\x85"}, "comment"),
        ({"client": CLIENT, "rating": "up", "comment": "nul\x00"}, "comment"),
        ({"client": CLIENT, "rating": "up", "comment": 5}, "comment"),
        ({"client": CLIENT, "rating": None, "comment": "why"}, "comment"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field_and_stores_nothing(
    tenant: Tenant, aws, body: dict[str, Any], field: str
) -> None:
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    result = rate(tenant.agent.id, receipt.turn_id, body, key=tenant.key)
    assert result.status == 400, result.body
    assert result.json()["code"] == "VALIDATION_ERROR" and result.json()["error"].startswith(f"{field}:"), result.json()
    assert_rating_stored(aws.dynamodb, receipt, None)


def test_comments_keep_line_feeds_tabs_and_any_script_up_to_1000_characters(tenant: Tenant, aws) -> None:
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    comment = ("Zu teuer,\tdoch gut.\nとても良い 👍 " * 40)[:1000]
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "up", "comment": comment},
            key=tenant.key))  # fmt: skip
    assert (receipt_of(aws.dynamodb, tenant.agent.id, receipt.turn_id) or {})["comment"] == comment.strip()


def test_the_visitor_limit_is_the_chats_per_visitor_and_agent(
    tenant: Tenant, aws, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAT_VISITOR_TURNS_PER_MINUTE", "3")
    platform_providers.reset()
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    other = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, OTHER_CLIENT)
    for rating in ("up", "down", "up"):
        ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": rating}, key=tenant.key))
    refused = rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "down"}, key=tenant.key)
    assert (refused.status, refused.json()["code"]) == (429, "RATE_LIMITED")
    assert int(refused.header("Retry-After") or 0) >= 1
    assert_rating_stored(aws.dynamodb, receipt, "up")  # the refused rating changed nothing
    ok(rate(tenant.agent.id, other.turn_id, {"client": OTHER_CLIENT, "rating": "up"}, key=tenant.key))  # theirs
    clock.now += 61
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "down"}, key=tenant.key))


def test_a_rating_that_loses_a_race_is_decided_again_on_what_won(
    tenant: Tenant, aws, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another rating of the turn lands between this one's read and its write: the write's condition fails, the
    receipt is read again, and the counters count the last rating once."""
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    original, raced = FeedbackStore.write, list[bool]()

    def meanwhile(self: FeedbackStore, change: Any) -> bool:
        if not raced:
            raced.append(True)
            ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "down", "comment": "first"},
                    key=tenant.key))  # fmt: skip
        return original(self, change)

    monkeypatch.setattr(FeedbackStore, "write", meanwhile)
    writes = counting(monkeypatch)
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "up"}, key=tenant.key))
    assert writes == [True, False, True]  # the racer's (written inside this one's first try), this one's lost, again
    assert_rating_stored(aws.dynamodb, receipt, "up")
    assert "comment" not in (receipt_of(aws.dynamodb, tenant.agent.id, receipt.turn_id) or {})


def test_three_lost_races_are_a_409_and_count_nothing_twice(
    tenant: Tenant, aws, monkeypatch: pytest.MonkeyPatch
) -> None:
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "up"}, key=tenant.key))
    original, ratings, racing = FeedbackStore.write, iter(["down", "up", "down"]), list[bool]()

    def always_beaten(self: FeedbackStore, change: Any) -> bool:
        rating = None if racing else next(ratings, None)
        if rating is not None:  # another rating lands first, each of this one's three tries
            racing.append(True)
            ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": rating}, key=tenant.key))
            racing.pop()
        return original(self, change)

    monkeypatch.setattr(FeedbackStore, "write", always_beaten)
    result = rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": None}, key=tenant.key)
    assert (result.status, result.json()["code"]) == (409, "CONFLICT"), result.body
    assert_rating_stored(aws.dynamodb, receipt, "down")  # the last racer's, counted once


def counting(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The outcome of each ``FeedbackStore.write`` from now on, in order (wrapping whatever it is now)."""
    outcomes: list[bool] = []
    inner = FeedbackStore.write

    def write(self: FeedbackStore, change: Any) -> bool:
        written = inner(self, change)
        outcomes.append(written)
        return written

    monkeypatch.setattr(FeedbackStore, "write", write)
    return outcomes


def test_a_rating_is_never_billed(tenant: Tenant, aws) -> None:
    receipt = put_receipt(aws.dynamodb, tenant.ws.id, tenant.agent.id, CLIENT)
    before = entries(aws.dynamodb, tenant.ws.owner_id)
    ok(rate(tenant.agent.id, receipt.turn_id, {"client": CLIENT, "rating": "up"}, key=tenant.key))
    assert entries(aws.dynamodb, tenant.ws.owner_id) == before
