"""Concurrent chat turns against a small balance: exactly the affordable turns stream and are billed.

The second demo workspace's owner starts with no credits. An operator grant (``ops grant``)
gives them exactly ``AFFORDABLE`` credits; ``TURNS`` visitors then ask at the same moment.
Each turn holds its price before streaming, so exactly ``AFFORDABLE`` turns may stream and
the rest must be refused with 402 before any byte of a stream — and the ledger must end at
zero, never below, with one ``llm`` entry per streamed turn.
"""

from __future__ import annotations

import json
import time
from functools import partial
from typing import Any

import pytest

from tests.support.ledger_checks import assert_consistent, entries, holds
from tests.support.load import (
    Owner,
    Shot,
    admitted,
    bearer,
    burst,
    mint_key,
    ops,
    owner_on_plan,
    received,
    shoot,
)
from tests.support.runner import LocalService, portal

pytestmark = pytest.mark.load

AFFORDABLE = 5  # credits granted; ChatCreditsPerTurn is 1
TURNS = 12  # concurrent turns, each from its own visitor so the per-visitor limit never decides


def chat(service: LocalService, key: str, agent_id: str, visitor: str) -> Shot:
    """One visitor's turn; a turn the runner sheds (no container free in time) is sent again, as clients do."""
    body = json.dumps({"prompt": "Hi! What's on this week?", "client": visitor}).encode()
    headers = bearer(key) | {"Content-Type": "application/json"}
    path = f"/v1/agent/{agent_id}/chat"
    return admitted(lambda: shoot(service.brain, "POST", path, headers=headers, body=body, timeout=60))


def lines(shot: Shot) -> list[dict[str, Any]]:
    return [json.loads(line) for line in shot.body.splitlines() if line.strip()]


def balance(service: LocalService, owner: Owner) -> dict[str, int]:
    reply = portal(service, "GET", "/api/credits/balance", owner.jwt)
    assert reply.status == 200, reply.body
    return reply.json()["balance"]


def turns(service: LocalService, key: str, agent_id: str, tag: str) -> list[Shot]:
    calls = [partial(chat, service, key, agent_id, f"load_visitor_{tag}_{n:02d}") for n in range(TURNS)]
    return burst(calls, workers=TURNS, deadline_seconds=90)  # the first burst starts every container cold


def test_exactly_the_affordable_turns_stream_and_are_billed(service: LocalService) -> None:
    workspace = service.demo["workspaces"][1]
    agent_id = workspace["agents"][0]["id"]
    owner = owner_on_plan(service, workspace["ownerEmail"])  # a plan with keys, to mint one with a high limit
    key = mint_key(service, owner, workspace["id"], rate_limit=10_000)["key"]
    dynamodb = service.aws("dynamodb")
    assert balance(service, owner) == {"available": 0, "held": 0, "total": 0}

    # With nothing to spend every turn is refused; this also starts the containers the real burst reuses.
    started = time.monotonic()
    broke = turns(service, key, agent_id, "broke")
    assert {(s.status, s.code()) for s in received(broke)} == {(402, "INSUFFICIENT_CREDITS")}, [s.body for s in broke]
    cold = time.monotonic() - started

    granted = ops(service, "grant", "--email", owner.email, "--credits", str(AFFORDABLE), "--ref-id", "load-chat-1")
    assert granted["applied"] is True
    assert balance(service, owner) == {"available": AFFORDABLE, "held": 0, "total": AFFORDABLE}

    started = time.monotonic()
    shots = turns(service, key, agent_id, "paying")
    paid = time.monotonic() - started
    print(f"\nchat: {TURNS} concurrent turns, {AFFORDABLE} credits: cold refusals {cold:.2f}s, paid burst {paid:.2f}s")

    answered = received(shots)  # a turn whose connection was refused reached no function: it changed nothing
    streamed = [s for s in answered if s.status == 200]
    refused = [s for s in answered if s.status != 200]
    # Exactly the affordable turns stream: fewer only if fewer than that were answered at all.
    assert len(streamed) == min(AFFORDABLE, len(answered)), [(s.status, s.body[:80]) for s in shots]
    for shot in streamed:
        events = lines(shot)
        assert shot.headers["content-type"] == "application/x-ndjson"
        assert events[0]["type"] == "start" and events[-1]["type"] == "done", events
        assert events[-1]["usage"]["credits"] == 1
    for shot in refused:  # refused before the stream: a plain JSON error, not NDJSON
        assert shot.headers["content-type"].startswith("application/json")
        assert (shot.status, set(shot.json()), shot.code()) == (402, {"error", "code"}, "INSUFFICIENT_CREDITS")

    left = AFFORDABLE - len(streamed)
    assert balance(service, owner) == {"available": left, "held": 0, "total": left}
    turn_ids = {lines(s)[0]["turnId"] for s in streamed}
    billed = entries(dynamodb, owner.user_id, "llm")
    assert turn_ids == {e["refId"] for e in billed}  # every turn that streamed was billed, and no other...
    assert [e["amountCredits"] for e in billed] == [-1] * len(streamed)  # ...once each
    assert holds(dynamodb, owner.user_id) == []
    assert_consistent(dynamodb, owner.user_id)
