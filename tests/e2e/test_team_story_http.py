"""A workspace run by a team, over HTTP through the runner (issue 28's story): the owner invites an admin, who
accepts, mints a key and invites a member; visitors chat with the key; the owner reads the conversations and the
key's usage, erases one visitor, transfers the workspace to the admin and leaves; the audit log tells all of it, in
order.

It moves ownership and spends the demo owner's credits, so it runs a runner of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.attack import invitation_token
from tests.support.runner import LocalService, portal, sign_in, started_service

pytestmark = pytest.mark.e2e

VISITORS = ("e2e_team_visitor_one", "e2e_team_visitor_two")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("team-state"))


def ok(reply: Any, status: int = 200) -> Any:
    assert reply.status == status, reply.body[:500]
    return reply.json()


def join(service: LocalService, workspace: str, email: str) -> str:
    """``email`` signs in and accepts the invitation mailed to it; their portal JWT."""
    _, jwt = sign_in(service, email)
    accepted = portal(service, "POST", "/api/invitations/accept", jwt, {"token": invitation_token(service, email)})
    assert ok(accepted)["workspace"]["id"] == workspace
    return jwt


def chat(service: LocalService, key: str, agent: str, client: str) -> list[dict[str, Any]]:
    reply = service.request(
        "POST", f"{service.brain}/v1/agent/{agent}/chat", headers={"Authorization": f"Bearer {key}"},
        body=json.dumps({"prompt": "What are your opening hours on Sunday?", "client": client}).encode(),
    )  # fmt: skip
    assert reply.status == 200, reply.body[:500]
    return [json.loads(line) for line in reply.body.decode().splitlines() if line.strip()]


def test_a_team_runs_a_workspace_and_the_audit_log_tells_it(service: LocalService) -> None:
    demo = service.demo["workspaces"][0]  # stores conversations, has credits
    workspace, agent = demo["id"], demo["agents"][0]["id"]
    base = f"/api/workspaces/{workspace}"
    _, owner = sign_in(service, demo["ownerEmail"])
    owner_id = ok(portal(service, "GET", "/api/user/account", owner))["id"]

    invited = {"email": "admin.team@example.org", "role": "admin"}
    ok(portal(service, "POST", f"{base}/invitations", owner, invited), 201)
    admin = join(service, workspace, "admin.team@example.org")
    admin_id = ok(portal(service, "GET", "/api/user/account", admin))["id"]
    minted = ok(portal(service, "POST", f"{base}/keys", admin, {"name": "team key"}), 201)["key"]
    assert minted["createdBy"] == admin_id
    ok(
        portal(service, "POST", f"{base}/invitations", admin, {"email": "member.team@example.org", "role": "member"}),
        201,
    )
    member = join(service, workspace, "member.team@example.org")
    member_id = ok(portal(service, "GET", "/api/user/account", member))["id"]
    roles = {m["userId"]: m["role"] for m in ok(portal(service, "GET", f"{base}/members", member))}
    assert (roles[owner_id], roles[admin_id], roles[member_id]) == ("owner", "admin", "member")

    for visitor in VISITORS:
        assert chat(service, minted["key"], agent, visitor)[-1]["type"] == "done"

    # The owner reads what each visitor said and what the key cost; a member may not.
    conversations = f"{base}/agents/{agent}/conversations"
    turns = {}
    for visitor in VISITORS:
        (thread,) = ok(portal(service, "GET", f"{conversations}?client={visitor}", owner))["threads"]
        read = f"{conversations}/{thread['threadKey']}?client={visitor}"
        turns[visitor] = ok(portal(service, "GET", read, owner))["turns"]
        assert [t["prompt"] for t in turns[visitor]] == ["What are your opening hours on Sunday?"]
    assert portal(service, "GET", conversations, member).status == 403
    # Today and yesterday: a story that crosses midnight UTC counts its turns on two days (the key is this test's).
    days = ok(portal(service, "GET", f"{base}/keys/{minted['id']}/usage?days=2", owner))["days"]
    counted = tuple(sum(day[field] for day in days) for field in ("requests", "chatTurns", "credits", "rateLimited"))
    charged = sum(t["credits"] for visitor in VISITORS for t in turns[visitor])
    assert counted == (2, 2, charged, 0), days
    assert charged > 0

    # One visitor asks to be forgotten; the owner hands the workspace to the admin and leaves.
    assert ok(portal(service, "DELETE", f"{conversations}?client={VISITORS[0]}", owner)) == {"deleted": 1}
    assert ok(portal(service, "GET", f"{conversations}?client={VISITORS[0]}", owner))["threads"] == []
    transferred = ok(portal(service, "POST", f"{base}/transfer", owner, {"userId": admin_id}))["workspace"]
    assert transferred["ownerId"] == admin_id
    ok(portal(service, "DELETE", f"{base}/members/{owner_id}", owner))
    assert portal(service, "GET", base, owner).status == 404  # no longer a member

    # The new owner reads the story back, newest first.
    entries = ok(portal(service, "GET", f"{base}/audit?limit=50", admin))["entries"]
    told = {"member.invite", "member.join", "key.mint", "conversation.erase", "workspace.transfer", "member.leave"}
    story = [(e["action"], e["actorId"]) for e in reversed(entries) if e["action"] in told]
    assert story[-8:] == [
        ("member.invite", owner_id), ("member.join", admin_id), ("key.mint", admin_id),
        ("member.invite", admin_id), ("member.join", member_id), ("conversation.erase", owner_id),
        ("workspace.transfer", owner_id), ("member.leave", owner_id),
    ]  # fmt: skip
    assert all(minted["key"] not in json.dumps(e) for e in entries)  # never the key
