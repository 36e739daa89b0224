"""Issue 28's upkeep over HTTP through the runner: invitation mail throttled with a 429 that says so; a retention
change re-stamps the stored turns (the runner's purge worker takes the settings write's message); a deleted
workspace's usage goes with its purge. The runner's invitation limits are the deployed ones; the re-stamp is not
delayed (deployed: 180 s, for the chat turns in flight)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from stack.template import Stack, load
from tests.support.runner import LocalService, portal, sign_in, started_service

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    deployed = {"INVITATIONS_PER_WORKSPACE": "50", "INVITATIONS_PER_ADDRESS": "5", "RESTAMP_DELAY_SECONDS": "0"}
    yield from started_service(tmp_path_factory.mktemp("upkeep-state"), function_env=deployed)


def ok(reply: Any, status: int = 200) -> Any:
    assert reply.status == status, reply.body[:500]
    return reply.json()


def eventually(check: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not done in time by the runner's worker"
        time.sleep(0.25)


def query(service: LocalService, table: str, pk: str) -> list[dict[str, Any]]:
    name = Stack(load()).physical_name(table)
    found = service.aws("dynamodb").query(TableName=name, KeyConditionExpression="pk = :pk",
                                          ExpressionAttributeValues={":pk": {"S": pk}})  # fmt: skip
    return list(found["Items"])


def test_invitation_mail_to_one_address_is_throttled_over_http(service: LocalService) -> None:
    demo = service.demo["workspaces"][0]
    _, owner = sign_in(service, demo["ownerEmail"])
    path, body = f"/api/workspaces/{demo['id']}/invitations", {"email": "often@example.org", "role": "member"}
    for _ in range(5):
        ok(portal(service, "POST", path, owner, body), 201)
    refused = portal(service, "POST", path, owner, body)
    assert refused.status == 429 and refused.json()["code"] == "RATE_LIMITED", refused.body[:300]
    assert 0 < int(refused.header("Retry-After") or 0) <= 3660


def test_a_retention_change_restamps_stored_turns_then_a_deleted_workspaces_usage_is_purged(
    service: LocalService,
) -> None:
    demo = service.demo["workspaces"][0]  # stores conversations, has credits and a key
    workspace, agent, key = demo["id"], demo["agents"][0]["id"], demo["key"]
    _, owner = sign_in(service, demo["ownerEmail"])
    asked = json.dumps({"prompt": "Hello?", "client": "e2e_upkeep_visitor"}).encode()
    reply = service.request("POST", f"{service.brain}/v1/agent/{agent}/chat", body=asked,
                            headers={"Authorization": f"Bearer {key}"})  # fmt: skip
    assert reply.status == 200 and b'"done"' in reply.body, reply.body[:300]
    turns = f"AGENT#{agent}#CONVERSATIONS"
    assert query(service, "MainTable", turns) and all("expiresAt" not in i for i in query(service, "MainTable", turns))

    ok(portal(service, "PATCH", f"/api/workspaces/{workspace}", owner, {"conversationRetentionDays": 30}))
    eventually(lambda: all("expiresAt" in i for i in query(service, "MainTable", turns)))  # turn and thread

    eventually(lambda: bool(query(service, "LedgerTable", f"USAGE#{workspace}")))  # the chat's day, counted
    ok(portal(service, "DELETE", f"/api/workspaces/{workspace}", owner))
    eventually(lambda: not query(service, "LedgerTable", f"USAGE#{workspace}"))


def test_the_operator_moves_turns_an_older_version_stored_in_s3(
    service: LocalService, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make ops ARGS="import-turns"`` against the runner (``python -m ops``, as the Makefile runs it): a turn stored
    as an object by an older version is then listed by the management plane, and its object is gone."""
    from ops.__main__ import main

    demo = service.demo["workspaces"][1]
    workspace, agent = demo["id"], demo["agents"][0]["id"]
    _, owner = sign_in(service, demo["ownerEmail"])
    turn = {"turnId": "turn_01M8G29TWYA9YR2H78XECPQ1Z7", "threadKey": "thr_legacy", "agentId": agent,
            "client": "e2e_legacy_visitor", "prompt": "Old question", "reply": "Old answer", "complete": True,
            "createdAt": "2026-11-01T10:00:00.000Z"}  # fmt: skip
    key = f"workspaces/{workspace}/conversations/{agent}/e2e_legacy_visitor/thr_legacy/{turn['turnId']}.json"
    bucket = Stack(load()).physical_name("ContentBucket")
    service.aws("s3").put_object(Bucket=bucket, Key=key, Body=json.dumps(turn).encode())
    assert main(["--state-dir", str(service.state_dir), "import-turns", "--workspace", workspace]) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == 1
    listed = ok(portal(service, "GET", f"/api/workspaces/{workspace}/agents/{agent}/conversations", owner))
    assert "thr_legacy" in [thread["threadKey"] for thread in listed["threads"]]
    assert "Contents" not in service.aws("s3").list_objects_v2(Bucket=bucket, Prefix=key)
