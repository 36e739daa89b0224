"""Workspace A's key against workspace B's data on every read endpoint: the same 404 as an agent that does
not exist, so a key holder cannot even learn that B's agent id is real (docs/decisions.md, "Read-plane 404")."""

from __future__ import annotations

import json

import pytest

from tests.support.attack import demo
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

NOT_FOUND = {"error": "Agent not found", "code": "NOT_FOUND"}
UNKNOWN_AGENT = "prj_01AAAAAAAAAAAAAAAAAAAAAAAA"
READS = ["", "/feed", "/items", "/wrap", "/site", "/suggestions", "/feed?channel=instagram&category=events"]
CHAT = {"prompt": "What do you have with oat milk?", "client": "visitor_3f9a2c7e5b1d4e8f"}


def chat(service: LocalService, key: str, agent: str) -> Reply:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    return service.request("POST", f"{service.brain}/v1/agent/{agent}/chat", headers=headers,
                           body=json.dumps(CHAT).encode())  # fmt: skip


@pytest.mark.parametrize("suffix", READS)
@pytest.mark.parametrize("direction", ["a-reads-b", "b-reads-a"])
def test_another_workspaces_agent_is_an_unknown_agent(service: LocalService, suffix: str, direction: str) -> None:
    first, second = demo(service)
    caller, owner = (first, second) if direction == "a-reads-b" else (second, first)
    own = service.brain_get(f"/v1/agent/{caller['agents'][0]['id']}{suffix}", caller["key"])
    assert own.status == 200  # the endpoint works for the key's own agent...
    for agent in owner["agents"]:  # ...and every agent of the other workspace is simply not there
        foreign = service.brain_get(f"/v1/agent/{agent['id']}{suffix}", caller["key"])
        unknown = service.brain_get(f"/v1/agent/{UNKNOWN_AGENT}{suffix}", caller["key"])
        assert (foreign.status, foreign.json()) == (404, NOT_FOUND)
        assert (foreign.status, foreign.body) == (unknown.status, unknown.body)
        assert foreign.header("content-type") == unknown.header("content-type")


@pytest.mark.parametrize("direction", ["a-chats-with-b", "b-chats-with-a"])
def test_chat_with_another_workspaces_agent_is_an_unknown_agent(service: LocalService, direction: str) -> None:
    """Refused before any stream or credit hold: A (1000 credits) would pay for B's caller otherwise."""
    first, second = demo(service)
    caller, owner = (first, second) if direction == "a-chats-with-b" else (second, first)
    foreign = chat(service, caller["key"], owner["agents"][0]["id"])
    unknown = chat(service, caller["key"], UNKNOWN_AGENT)
    assert (foreign.status, foreign.json()) == (404, NOT_FOUND)
    assert foreign.body == unknown.body


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({"query": "?workspaceId={b}"}, id="query-workspace"),
        pytest.param({"header": ("X-Workspace-Id", "{b}")}, id="workspace-header"),
        pytest.param({"header": ("X-Forwarded-For", "{b}")}, id="forwarded-header"),
    ],
)
def test_whoami_answers_only_for_the_keys_own_workspace(service: LocalService, extra: dict) -> None:
    first, second = demo(service)
    query = extra.get("query", "").format(b=second["id"])
    headers = {}
    if "header" in extra:
        name, value = extra["header"]
        headers[name] = value.format(b=second["id"])
    reply = service.brain_get(f"/v1/agent/_whoami{query}", first["key"], **headers)
    assert reply.status == 200 and reply.json()["workspaceId"] == first["id"]


def test_an_agent_id_in_another_shape_is_not_found(service: LocalService) -> None:
    """Ids that are not ours (other prefixes, traversal, a workspace id) are unknown agents, not errors."""
    first, second = demo(service)
    for agent in [second["id"], "..%2F" + second["agents"][0]["id"], second["agents"][0]["id"].lower(),
                  second["agents"][0]["id"] + "%00", "%2A", "prj_%25"]:  # fmt: skip
        reply = service.brain_get(f"/v1/agent/{agent}", first["key"])
        assert (reply.status, reply.json()["code"]) == (404, "NOT_FOUND"), agent
