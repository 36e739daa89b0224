"""Ratings over real HTTP: a visitor chats (the turn's receipt is written by the chat itself), then rates the reply,
re-rates it and withdraws the rating, through the local API Gateway and the feedback function's own container;
every turn they may not rate answers the same 404 bytes.

The chat spends the demo owner's credits, which other e2e tests assert untouched: this module runs its own runner.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.insights.records import ReceiptRecord
from core.platform import main_table
from core.platform.ids import iso
from stack.template import Stack, load
from tests.support.feedback import assert_rating_stored, receipt_of
from tests.support.runner import LocalService, Reply, started_service

pytestmark = pytest.mark.e2e

VISITOR = "e2e_feedback_visitor_0001"
OTHER_VISITOR = "e2e_feedback_visitor_0002"
TURN_NOT_FOUND = {"error": "Turn not found", "code": "NOT_FOUND"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("feedback-state"))


@pytest.fixture(scope="module")
def table() -> str:
    return Stack(load()).physical_name("MainTable")


def chat(service: LocalService, key: str, agent_id: str, client: str) -> str:
    """One turn, read to its end (``done``): its turn id."""
    body = json.dumps({"prompt": "What do you serve with oat milk?", "client": client}).encode()
    reply = service.request("POST", f"{service.brain}/v1/agent/{agent_id}/chat", body=body,
                            headers={"Authorization": f"Bearer {key}"})  # fmt: skip
    lines = [json.loads(line) for line in reply.body.splitlines()]
    assert reply.status == 200 and lines[-1]["type"] == "done", reply.body
    return str(lines[0]["turnId"])


def rate(service: LocalService, key: str, agent_id: str, turn_id: str, body: dict[str, Any]) -> Reply:
    return service.request(
        "POST", f"{service.brain}/v1/agent/{agent_id}/turns/{turn_id}/feedback", body=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Origin": "https://brand.example"},
    )  # fmt: skip


def ok(reply: Reply) -> None:
    assert (reply.status, reply.json()) == (200, {}), reply.body
    assert reply.header("Access-Control-Allow-Origin") == "*"


def test_a_visitor_rates_re_rates_and_withdraws_a_reply_the_chat_gave(service: LocalService, table: str) -> None:
    first = service.demo["workspaces"][0]
    key, agent = first["key"], first["agents"][0]["id"]
    turn = chat(service, key, agent, VISITOR)
    db = service.aws("dynamodb")
    stored = receipt_of(db, agent, turn, table)
    assert stored is not None and stored["client"] == VISITOR  # the chat's own receipt
    receipt = ReceiptRecord.model_validate(stored)
    ok(rate(service, key, agent, turn, {"client": VISITOR, "rating": "up"}))
    assert_rating_stored(db, receipt, "up", table)
    ok(rate(service, key, agent, turn, {"client": VISITOR, "rating": "down", "comment": "Not what I asked.\n"}))
    assert_rating_stored(db, receipt, "down", table)
    assert (receipt_of(db, agent, turn, table) or {})["comment"] == "Not what I asked."
    ok(rate(service, key, agent, turn, {"client": VISITOR, "rating": None}))
    assert_rating_stored(db, receipt, None, table)


def test_every_turn_a_caller_may_not_rate_is_the_same_404(service: LocalService, table: str) -> None:
    first, second = service.demo["workspaces"][0], service.demo["workspaces"][1]
    key, agent, sibling = first["key"], first["agents"][0]["id"], first["agents"][1]["id"]
    turn, old = chat(service, key, agent, OTHER_VISITOR), chat(service, key, agent, OTHER_VISITOR)
    # The old turn made eight days ago: its receipt's time moved back in the runner's table (its TTL is a day later
    # still; a rating reads the time, not the TTL). Eight days are not waited for.
    db, past = service.aws("dynamodb"), datetime.now(UTC) - timedelta(days=8)
    db.update_item(
        TableName=table, Key={k: {"S": v} for k, v in main_table.turn_receipt(agent, old).items()},
        UpdateExpression="SET createdAt = :at, #day = :day", ExpressionAttributeNames={"#day": "day"},
        ExpressionAttributeValues={":at": {"S": iso(past)}, ":day": {"S": iso(past)[:10]}},
        ConditionExpression="attribute_exists(pk)",
    )  # fmt: skip
    up = {"client": OTHER_VISITOR, "rating": "up"}
    refused = {
        "another visitor": rate(service, key, agent, turn, {"client": VISITOR, "rating": "up"}),
        "another agent's path": rate(service, key, sibling, turn, up),
        "another workspace's key": rate(service, second["key"], agent, turn, up),
        "older than 7 days": rate(service, key, agent, old, up),
        "an unknown turn": rate(service, key, agent, "turn_01JD0UNKNOWN0000000000000000", up),
    }
    assert {case: (reply.status, reply.json()) for case, reply in refused.items()} == dict.fromkeys(
        refused, (404, TURN_NOT_FOUND)
    )
    assert len({reply.body for reply in refused.values()}) == 1  # byte for byte
    stored = receipt_of(db, agent, turn, table)
    assert stored is not None and "rating" not in stored  # none of them rated it
    ok(rate(service, key, agent, turn, up))  # its own visitor, through the same key, still can
