"""Ratings attacked over HTTP (authoring.md, "Feedback, unanswered questions and the owner's answers"; decisions.md,
"Feedback on a turn (issue 40)"):

- A flood of ratings from one visitor: the visitor limit (the chat's, 20 a minute) is taken, the 21st and on are
  429 RATE_LIMITED with Retry-After and change nothing; another visitor of the same agent is still served; the turn's
  receipt, rows and day counters agree on the last rating taken, counted once.
- Huge comments and comments with control characters: 400 VALIDATION_ERROR (or 413 past the body limit), nothing
  stored.
- Turn ids guessed across agents and workspaces (and malformed ones): the one 404 "Turn not found", byte for byte,
  and the turn's rating untouched.

The receipts are put in the runner's table in the documented layout (tests/support/feedback.py): no chat turn is
made, so the demo owner's credits, which other attack tests read, are not spent.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.insights.records import ReceiptRecord
from stack.template import Stack, load
from tests.support.attack import demo
from tests.support.feedback import TURN_NOT_FOUND, assert_rating_stored, put_receipt
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

VISITOR_LIMIT = 20  # CHAT_VISITOR_TURNS_PER_MINUTE's default: the feedback's limit too


def table() -> str:
    return Stack(load()).physical_name("MainTable")


def receipt(service: LocalService, workspace: dict[str, Any], client: str, days_ago: int) -> ReceiptRecord:
    """A turn of the workspace's first agent, made ``days_ago`` days ago: each test's turns on a day of their own, so
    the day's up/down counters are that test's alone (the suite's runner is shared)."""
    made = datetime.now(UTC) - timedelta(days=days_ago)
    return put_receipt(service.aws("dynamodb"), workspace["id"], workspace["agents"][0]["id"], client,
                       created_at=made, table=table())  # fmt: skip


def rate(service: LocalService, key: str, agent_id: str, turn_id: str, body: dict[str, Any] | bytes) -> Reply:
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    return service.request("POST", f"{service.brain}/v1/agent/{agent_id}/turns/{turn_id}/feedback", body=payload,
                           headers={"Authorization": f"Bearer {key}"})  # fmt: skip


def test_a_flood_of_ratings_is_held_to_the_visitor_limit(service: LocalService) -> None:
    first, _ = demo(service)
    flooder, bystander = "attack_feedback_flooder_01", "attack_feedback_bystander1"
    turn, theirs = receipt(service, first, flooder, 1), receipt(service, first, bystander, 2)
    statuses = [rate(service, first["key"], turn.agent_id, turn.turn_id,
                     {"client": flooder, "rating": ("up", "down", None)[n % 3]}).status
                for n in range(VISITOR_LIMIT)]  # fmt: skip
    assert statuses == [200] * VISITOR_LIMIT
    for rating in ("up", "down", None):  # the 21st and on, whatever they ask
        refused = rate(service, first["key"], turn.agent_id, turn.turn_id, {"client": flooder, "rating": rating})
        assert (refused.status, refused.json()["code"]) == (429, "RATE_LIMITED"), refused.body
        assert int(refused.required_header("Retry-After")) >= 1
    # The last rating taken stands (up, down, withdrawn, ... : the 20th was down), counted once; the refused ones
    # changed nothing.
    assert_rating_stored(service.aws("dynamodb"), turn, "down", table())
    # The limit is the flooder's, not the agent's: another visitor rates at once.
    answer = rate(service, first["key"], theirs.agent_id, theirs.turn_id, {"client": bystander, "rating": "up"})
    assert (answer.status, answer.json()) == (200, {}), answer.body


@pytest.mark.parametrize(
    ("comment", "status"),
    [
        ("x" * 1001, 400),
        ("x" * 200_000, 400),  # under the body limit (256 KiB): the field's own limit refuses it
        ("x" * 300_000, 413),  # over it: refused before it is parsed
        ("line\r\nbreak", 400),
        ("\x1b[2J\x1b[Hcleared", 400),
        ("nul\x00byte", 400),
        ("next line\x85", 400),
        ("del\x7f", 400),
        ("lone \ud800 surrogate", 400),
    ],
    ids=["1001", "200k", "300k", "crlf", "escape", "nul", "c1", "del", "surrogate"],
)
def test_huge_and_control_character_comments_are_refused(service: LocalService, comment: str, status: int) -> None:
    first, _ = demo(service)
    turn = receipt(service, first, "attack_feedback_commenter1", 3)
    body = json.dumps({"client": turn.client, "rating": "down", "comment": comment}).encode()  # JSON-escaped
    reply = rate(service, first["key"], turn.agent_id, turn.turn_id, body)
    assert reply.status == status, reply.body
    expected = "VALIDATION_ERROR" if status == 400 else "PAYLOAD_TOO_LARGE"
    assert reply.json()["code"] == expected, reply.body
    if status == 400:
        assert reply.json()["error"].startswith("comment:"), reply.body
    assert_rating_stored(service.aws("dynamodb"), turn, None, table())


def test_turn_ids_guessed_across_agents_and_workspaces_are_one_404(service: LocalService) -> None:
    first, second = demo(service)
    turn = receipt(service, first, "attack_feedback_victim_001", 4)
    sibling = first["agents"][1]["id"]  # the same workspace's other agent
    body = {"client": turn.client, "rating": "down", "comment": "planted"}
    guesses = {
        "A's turn on A's other agent": rate(service, first["key"], sibling, turn.turn_id, body),
        "A's turn with B's key": rate(service, second["key"], turn.agent_id, turn.turn_id, body),
        "A's turn on B's agent": rate(service, second["key"], second["agents"][0]["id"], turn.turn_id, body),
        "a neighbouring id": rate(service, first["key"], turn.agent_id, turn.turn_id[:-1] + "Z", body),
        "a long id": rate(service, first["key"], turn.agent_id, "turn_" + "A" * 600, body),
        "an id with a hash": rate(service, first["key"], turn.agent_id, "turn_%23TURN%23x", body),
        "a path dot": rate(service, first["key"], turn.agent_id, "..", body),
        "unicode": rate(service, first["key"], turn.agent_id, "turn_%C3%A9t%C3%A9", body),
    }
    assert {case: (reply.status, reply.json()) for case, reply in guesses.items()} == dict.fromkeys(
        guesses, (404, TURN_NOT_FOUND)
    ), {case: reply.body for case, reply in guesses.items()}
    assert len({reply.body for reply in guesses.values()}) == 1
    assert_rating_stored(service.aws("dynamodb"), turn, None, table())
