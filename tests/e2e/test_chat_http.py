"""Chat over real HTTP: local API Gateway → the chat function's container → moto, with the offline model.

These tests spend the demo owner's credits, which other e2e tests assert untouched, so
this module runs its own local runner (``service`` below), started as the session's one is, with one setting
more: the offline model's gate (``OFFLINE_MODEL_GATE``), a file a turn marked ``[[offline-gate]]`` waits for after
its first delta. The test opens it once that delta is on the client: streaming shown by order, not by timing.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from stack.template import ROOT, Stack, load
from tests.support.runner import LocalService, portal, sign_in, started_service

pytestmark = pytest.mark.e2e

JSON = "application/json; charset=utf-8"
NDJSON = "application/x-ndjson"
PROMPT = "Which events are coming up, and what did you launch recently?"
POLL_SECONDS = 60  # how long a test waits for the runner's background work: only a hang reaches it


@pytest.fixture(scope="module")
def model_gate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The file the offline model waits for in a turn marked ``[[offline-gate]]`` (not there until a test makes it)."""
    return tmp_path_factory.mktemp("chat-gate") / "open"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, model_gate: Path) -> Iterator[LocalService]:
    """A runner of this module's own (see the module docstring), with the demo data."""
    yield from started_service(
        tmp_path_factory.mktemp("chat-state"), function_env={"OFFLINE_MODEL_GATE": str(model_gate)}
    )


@pytest.fixture(scope="module")
def first(service: LocalService) -> dict[str, Any]:
    return service.demo["workspaces"][0]


@pytest.fixture(scope="module")
def owner(service: LocalService, first: dict[str, Any]) -> dict[str, str]:
    """The first workspace's owner, signed in: their portal JWT and user id."""
    _, jwt = sign_in(service, first["ownerEmail"])
    account = portal(service, "GET", "/api/user/account", jwt).json()
    return {"jwt": jwt, "id": account["id"]}


def address(service: LocalService) -> tuple[str, int]:
    url = urlsplit(service.brain)
    assert url.hostname and url.port
    return url.hostname, url.port


def post_chat(
    service: LocalService, key: str, agent_id: str, body: dict[str, Any] | str
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    connection = http.client.HTTPConnection(*address(service), timeout=30)
    payload = body if isinstance(body, str) else json.dumps(body)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json", "Origin": "https://brand.example"}
    connection.request("POST", f"/v1/agent/{agent_id}/chat", body=payload.encode(), headers=headers)
    return connection, connection.getresponse()


def balance(service: LocalService, owner: dict[str, str]) -> dict[str, int]:
    reply = portal(service, "GET", "/api/credits/balance", owner["jwt"])
    assert reply.status == 200
    return reply.json()["balance"]


def llm_entries(service: LocalService, owner: dict[str, str]) -> list[dict[str, Any]]:
    """The owner's ``llm`` ledger entries, read from the runner's moto."""
    table = Stack(load()).physical_name("LedgerTable")
    found = service.aws("dynamodb").query(
        TableName=table,
        KeyConditionExpression="pk = :pk AND begins_with(sk, :entry)",
        ExpressionAttributeValues={":pk": {"S": f"ACCT#{owner['id']}"}, ":entry": {"S": "ENTRY#"}},
        ConsistentRead=True,
    )["Items"]
    return [
        {"amountCredits": int(i["amountCredits"]["N"]), "refId": i["refId"]["S"]}
        for i in found
        if i["refType"]["S"] == "llm"
    ]


def charges_of(service: LocalService, owner: dict[str, str], turn_id: str) -> list[int]:
    return [e["amountCredits"] for e in llm_entries(service, owner) if e["refId"] == turn_id]


def test_a_turn_streams_ndjson_line_by_line_and_costs_one_credit(
    service: LocalService, first: dict[str, Any], owner: dict[str, str], model_gate: Path
) -> None:
    agent = first["agents"][0]["id"]
    warm_up = {"prompt": "Hello!", "client": "e2e_visitor_warming_up"}
    connection, response = post_chat(service, first["key"], agent, warm_up)  # a cold container is no measure
    assert (response.status, response.read().splitlines()[-1].startswith(b'{"type":"done"')) == (200, True)
    connection.close()
    before = balance(service, owner)
    assert not model_gate.exists()
    connection, response = post_chat(
        service, first["key"], agent, {"prompt": f"{PROMPT} [[offline-gate]]", "client": "e2e_visitor_streaming_1"}
    )
    assert response.status == 200
    assert response.getheader("Content-Type") == NDJSON
    assert response.getheader("Transfer-Encoding") == "chunked"
    assert response.getheader("Content-Length") is None
    assert response.getheader("Cache-Control") == "no-store"
    assert response.getheader("Access-Control-Allow-Origin") == "*"
    lines: list[dict[str, Any]] = []
    try:
        # The model makes nothing after its first delta until the gate opens, and the gate opens only once that
        # delta is here: buffered, it could never arrive (the turn would end on its deadline, with an error line).
        while not any(line["type"] == "delta" for line in lines):
            raw = response.readline()
            assert raw.endswith(b"\n"), (raw, lines)
            lines.append(json.loads(raw))
        model_gate.touch()
        while raw := response.readline():
            assert raw.endswith(b"\n"), raw
            lines.append(json.loads(raw))
    finally:
        model_gate.unlink(missing_ok=True)
        connection.close()
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "start" and kinds[-2:] == ["sources", "done"] and set(kinds[1:-2]) <= {"delta", "keepalive"}
    assert kinds.count("delta") >= 10, kinds
    reply = "".join(line.get("text", "") for line in lines)
    assert reply.startswith("Hi, I'm Northwind Barista, Northwind Coffee's assistant.")
    assert lines[-1]["usage"]["credits"] == 1
    # The owner paid exactly one credit, as one llm entry for this turn.
    after = balance(service, owner)
    assert after == {"available": before["available"] - 1, "held": 0, "total": before["total"] - 1}
    assert charges_of(service, owner, lines[0]["turnId"]) == [-1]


def test_each_turn_costs_the_owner_exactly_one_credit(
    service: LocalService, first: dict[str, Any], owner: dict[str, str]
) -> None:
    agent = first["agents"][0]["id"]
    before = balance(service, owner)["available"]
    turn_ids = []
    for n in range(3):
        connection, response = post_chat(
            service, first["key"], agent, {"prompt": "Hi!", "client": f"e2e_visitor_each_{n}"}
        )
        lines = [json.loads(line) for line in response.read().splitlines()]
        connection.close()
        assert (response.status, lines[-1]["type"]) == (200, "done")
        turn_ids.append(lines[0]["turnId"])
        assert balance(service, owner)["available"] == before - 1 - n
    assert len(set(turn_ids)) == 3
    assert all(charges_of(service, owner, t) == [-1] for t in turn_ids)


def test_refusals_are_plain_json_and_free(service: LocalService, first: dict[str, Any], owner: dict[str, str]) -> None:
    agent = first["agents"][0]["id"]
    before = balance(service, owner)
    # (agent, body, status, code, message prefix); a str body is sent as is (the malformed JSON case)
    cases: list[tuple[str, dict[str, Any] | str, int, str, str]] = [
        (agent, {"prompt": "   ", "client": "e2e_visitor_refused_1"}, 400, "VALIDATION_ERROR", "prompt: "),
        (agent, {"prompt": "Hi", "client": "203.0.113.7"}, 400, "VALIDATION_ERROR", "client: "),
        (agent, '{"prompt": ', 400, "VALIDATION_ERROR", "body: "),
        ("prj_01JDNOSUCHAGENT0000000000", {"prompt": "Hi", "client": "e2e_visitor_refused_1"}, 404, "NOT_FOUND", ""),
    ]
    for agent_id, body, status, code, prefix in cases:
        connection, response = post_chat(service, first["key"], agent_id, body)
        payload = response.read()
        connection.close()
        assert (response.status, response.getheader("Content-Type")) == (status, JSON), payload
        answer = json.loads(payload)
        assert set(answer) == {"error", "code"} and answer["code"] == code
        assert answer["error"].startswith(prefix)
        assert response.getheader("Access-Control-Allow-Origin") == "*"
    second = service.demo["workspaces"][1]
    connection, response = post_chat(service, second["key"], agent, {"prompt": "Hi", "client": "e2e_visitor_refused_1"})
    assert (response.status, json.loads(response.read())) == (404, {"error": "Agent not found", "code": "NOT_FOUND"})
    connection.close()
    assert balance(service, owner) == before


def test_a_visitor_leaving_mid_stream_is_charged_exactly_once(
    service: LocalService, first: dict[str, Any], owner: dict[str, str], model_gate: Path
) -> None:
    """The visitor leaves after the first delta; the model, held at its gate until then, cannot have finished."""
    agent = first["agents"][0]["id"]
    before = balance(service, owner)["available"]
    assert not model_gate.exists()
    body = json.dumps({"prompt": f"{PROMPT} [[offline-gate]]", "client": "e2e_visitor_leaving_1"}).encode()
    host, port = address(service)
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(
            f"POST /v1/agent/{agent}/chat HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Authorization: Bearer {first['key']}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        received = b""
        while b'"type":"delta"' not in received:
            data = sock.recv(4096)
            assert data, received
            received += data
    assert received.startswith(b"HTTP/1.1 200 ")
    assert b'"type":"done"' not in received  # it really went away mid-stream
    found = re.search(rb'"turnId":"([^"]+)"', received)
    assert found, received
    turn_id = found.group(1).decode()
    try:
        model_gate.touch()  # the model goes on, and the runner finds the visitor gone when it writes its next line
        deadline = time.monotonic() + POLL_SECONDS
        while charges_of(service, owner, turn_id) == [] and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        model_gate.unlink(missing_ok=True)
    assert charges_of(service, owner, turn_id) == [-1]
    current = balance(service, owner)
    assert (current["available"], current["held"]) == (before - 1, 0)


def test_the_demo_barista_answers_from_its_own_documents_and_names_them(
    service: LocalService, first: dict[str, Any], owner: dict[str, str]
) -> None:
    """make serve's demo: the opening-hours note and the price list are read (in the background after the demo is
    loaded), so the barista quotes them and the stream's ``sources`` names them."""
    agent = first["agents"][0]["id"]
    items_of = f"/api/workspaces/{first['id']}/agents/{agent}/items"
    deadline = time.monotonic() + 60
    while any(
        i["index"]["status"] == "pending" for i in portal(service, "GET", items_of, owner["jwt"]).json()["items"]
    ):
        assert time.monotonic() < deadline, "the demo's documents were not indexed within a minute"
        time.sleep(0.5)
    for prompt, fact, source in (
        ("What are your opening hours on Sunday?", "Sat-Sun 8:00-16:00", "Opening hours"),
        ("How much is a small coffee?", "3.20", "Price list"),
    ):
        connection, response = post_chat(
            service, first["key"], agent, {"prompt": prompt, "client": "e2e_demo_visitor_asking"}
        )
        assert response.status == 200, response.read()
        lines = [json.loads(line) for line in response.read().splitlines()]
        connection.close()
        reply = "".join(line.get("text", "") for line in lines if line["type"] == "delta")
        sources = next(line["sources"] for line in lines if line["type"] == "sources")
        assert fact in reply, reply
        assert source in [s["name"] for s in sources], sources


def turn(service: LocalService, key: str, agent: str, prompt: str, client: str) -> tuple[list[dict[str, Any]], str]:
    """A whole turn's lines and its reply."""
    connection, response = post_chat(service, key, agent, {"prompt": prompt, "client": client})
    assert response.status == 200, response.read()
    lines = [json.loads(line) for line in response.read().splitlines()]
    connection.close()
    assert lines[-1]["type"] == "done", lines
    return lines, "".join(line.get("text", "") for line in lines if line["type"] == "delta")


def described(service: LocalService, owner: dict[str, str], turn_id: str) -> list[tuple[int, str]]:
    """The turn's llm ledger entries: amount and description."""
    table = Stack(load()).physical_name("LedgerTable")
    found = service.aws("dynamodb").query(
        TableName=table,
        KeyConditionExpression="pk = :pk AND begins_with(sk, :entry)",
        ExpressionAttributeValues={":pk": {"S": f"ACCT#{owner['id']}"}, ":entry": {"S": "ENTRY#"}},
        ConsistentRead=True,
    )["Items"]
    return [(int(i["amountCredits"]["N"]), i["description"]["S"]) for i in found if i["refId"]["S"] == turn_id]


def test_an_agents_fallback_is_answered_word_for_word(
    service: LocalService, first: dict[str, Any], owner: dict[str, str]
) -> None:
    """An agent made with a fallback and nothing published answers a content question with the fallback, exactly."""
    fallback = "Our roasters know more than I do: ask them at the counter, Tuesday to Sunday."
    made = portal(service, "POST", f"/api/workspaces/{first['id']}/agents", owner["jwt"],
                  {"name": "Counter Help", "slug": "counter-help", "behaviour": {"fallback": fallback}})  # fmt: skip
    assert made.status == 201, made.body
    lines, reply = turn(
        service, first["key"], made.json()["agent"]["id"], "Do you rent snowboards?", "e2e_visitor_fallback"
    )
    assert reply == fallback
    assert lines[-1]["usage"]["outputTokens"] <= 512 and lines[-1]["usage"]["credits"] == 1


def test_max_reply_tokens_bounds_the_reply_and_null_restores_it(
    service: LocalService, first: dict[str, Any], owner: dict[str, str]
) -> None:
    agent = first["agents"][0]["id"]
    path = f"/api/workspaces/{first['id']}/agents/{agent}"
    prompt = "How much is a small coffee, and what are your opening hours?"
    lines, unbounded = turn(service, first["key"], agent, prompt, "e2e_visitor_bounded")
    assert lines[-1]["usage"]["outputTokens"] > 64  # the bound below bites
    try:
        assert portal(service, "PATCH", path, owner["jwt"], {"behaviour": {"maxReplyTokens": 64}}).status == 200
        lines, reply = turn(service, first["key"], agent, prompt, "e2e_visitor_bounded")
        assert lines[-1]["usage"]["outputTokens"] <= 64 and len(reply) <= 64 * 4
        assert len(reply) < len(unbounded)
    finally:
        restored = portal(service, "PATCH", path, owner["jwt"], {"behaviour": {"maxReplyTokens": None}})
    assert restored.status == 200 and restored.json()["agent"]["behaviour"]["maxReplyTokens"] == 512
    lines, _ = turn(service, first["key"], agent, prompt, "e2e_visitor_bounded")
    assert lines[-1]["usage"]["outputTokens"] > 64


def test_two_agents_on_two_models_are_billed_two_prices(
    service: LocalService, first: dict[str, Any], owner: dict[str, str]
) -> None:
    """The runner's ``offline`` (1 credit, the default) and ``offline-plus`` (3): each turn held and settled at its
    agent's model's price, exactly, and its ledger entry names the model."""
    made = portal(service, "POST", f"/api/workspaces/{first['id']}/agents", owner["jwt"],
                  {"name": "Plus Barista", "slug": "plus-barista", "behaviour": {"model": "offline-plus"}})  # fmt: skip
    assert made.status == 201, made.body
    plus = made.json()["agent"]["id"]
    before = balance(service, owner)
    cheap, _ = turn(service, first["key"], first["agents"][0]["id"], "Hi!", "e2e_visitor_two_models")
    dear, _ = turn(service, first["key"], plus, "Hi!", "e2e_visitor_two_models")
    assert (cheap[-1]["usage"]["credits"], dear[-1]["usage"]["credits"]) == (1, 3)
    assert described(service, owner, cheap[0]["turnId"]) == [(-1, "Chat with Northwind Barista · offline")]
    assert described(service, owner, dear[0]["turnId"]) == [(-3, "Chat with Plus Barista · offline-plus")]
    after = balance(service, owner)
    assert after == {"available": before["available"] - 4, "held": 0, "total": before["total"] - 4}


def test_the_demo_shows_a_voice_a_fallback_and_two_prices(
    service: LocalService, first: dict[str, Any], owner: dict[str, str]
) -> None:
    """make serve's demo (examples/*/agent.json, published with their behaviour): the barista answers what its
    material lacks with its owner's fallback, word for word, at 1 credit; the events helper is on offline-plus at 3."""
    barista, events = (agent["id"] for agent in first["agents"])
    fallback = json.loads((ROOT / "examples/northwind-barista/agent.json").read_text())["behaviour"]["fallback"]
    lines, reply = turn(service, first["key"], barista, "Do you rent snowboards?", "e2e_demo_visitor_fallback")
    assert reply == fallback and lines[-1]["usage"]["credits"] == 1
    lines, _ = turn(service, first["key"], events, "Hi!", "e2e_demo_visitor_events")
    assert lines[-1]["usage"]["credits"] == 3
    assert described(service, owner, lines[0]["turnId"]) == [(-3, "Chat with Events Helper · offline-plus")]
