"""The audit log read back (authoring.md, "Audit", issue 28): ``GET /api/workspaces/{id}/audit`` gives owners and
admins every entry the writes appended, newest first, a page at a time; a member is refused (403), anyone else finds
no workspace (404); no entry holds a secret or a body."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.integration.portal.authoring.test_idempotency_and_audit import WRITES, prepared, remember, request_of
from tests.support.authoring import Studio
from tests.support.portal import Portal, assert_error

READ = "PortalAuditListFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def every_page(studio: Studio, limit: int) -> tuple[list[dict[str, Any]], int]:
    """Every entry, following ``nextCursor`` from the first page; and how many pages that took."""
    entries, cursor, pages = [], None, 0
    while True:
        query = {"limit": str(limit)} | ({"cursor": cursor} if cursor else {})
        page = studio.ok(READ, query=query)
        entries += page["entries"]
        pages += 1
        cursor = page["nextCursor"]
        if cursor is None:
            return entries, pages
        assert len(page["entries"]) == limit


def test_every_write_is_read_back_newest_first_page_by_page(studio: Studio) -> None:
    state = prepared(studio)
    for write in WRITES:
        answer = studio.call(write.function, **request_of(write, state))
        assert answer.status in (200, 201, 202), (write.function, answer.body)  # 202: a webhook's test and retry
        remember(state, write, answer.json())
    stored = studio.audit(500)  # straight from the table, newest first
    assert len(stored) == len(WRITES) + 1  # and the first agent's creation
    wire = [{"id": e.id, "action": e.action, "actorId": e.actor_id, "target": e.target, "requestId": e.request_id,
             "createdAt": e.created_at, "count": e.count} for e in stored]  # fmt: skip
    first = studio.ok(READ)
    assert first == {"entries": wire, "nextCursor": None}  # the default page (50) holds them all
    assert [e["action"] for e in wire][:2] == [WRITES[-1].action, WRITES[-2].action]
    for limit in (1, 3, len(wire)):
        assert every_page(studio, limit) == (wire, -(-len(wire) // limit)), limit


def test_an_admin_reads_it_a_member_is_refused_and_a_stranger_finds_nothing(studio: Studio) -> None:
    studio.agent("Written")
    admin, member, stranger = studio.member("admin@example.com", "admin"), studio.member(), studio.stranger()
    assert [e["action"] for e in admin.ok(READ)["entries"]] == ["agent.create"]
    assert_error(member.call(READ), 403, "FORBIDDEN")
    assert_error(stranger.call(READ), 404, "NOT_FOUND")
    assert_error(member.call(READ, query={"limit": "0"}), 403, "FORBIDDEN")  # who before what: no 400 first
    assert_error(stranger.call(READ, query={"cursor": "!"}), 404, "NOT_FOUND")
    assert_error(studio.call(READ, workspace_id="ws_01NOSUCHWORKSPACE000000000"), 404, "NOT_FOUND")


@pytest.mark.parametrize("query", [
    {"limit": "0"}, {"limit": "201"}, {"limit": "ten"}, {"cursor": "!!"}, {"cursor": "eA"},
    {"cursor": base64.urlsafe_b64encode(b"2026-01-01T00:00:00.000Z#post_1").decode().rstrip("=")},
    {"cursor": base64.urlsafe_b64encode(b"2026-01-01T00:00:00.000Z#aud_12").decode()},  # padded: not ours
])  # fmt: skip
def test_a_bad_query_is_a_400_naming_it(studio: Studio, query: dict[str, str]) -> None:
    refused = studio.call(READ, query=query)
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].split(":")[0] == next(iter(query))


def test_no_entry_holds_a_secret_or_a_body(studio: Studio) -> None:
    agent = studio.agent("Private")
    studio.ok("PortalAgentUpdateFunction", agent_id=agent["id"], body={"name": "Secret plans"})
    text = studio.call(READ).body
    assert "Secret plans" not in text and "Private" not in text and studio.who.token not in text
    assert [e["action"] for e in json.loads(text)["entries"]] == ["agent.update", "agent.create"]


def test_a_key_mint_and_its_revocation_are_in_the_log_never_the_key(studio: Studio) -> None:
    """Keys are minted and revoked outside the writer, with their entries in the key's own transaction."""
    admin = studio.member("admin@example.com", "admin")
    minted = admin.call("PortalKeysMintFunction", body={"name": "server"}, key="mint-1")
    assert minted.status == 201, minted.body
    key = minted.json()["key"]
    assert key["createdBy"] == admin.who.user_id
    replayed = admin.call("PortalKeysMintFunction", body={"name": "server"}, key="mint-1")
    assert replayed.json()["key"]["id"] == key["id"]  # a replay mints nothing, and writes no entry
    refused = studio.member("member@example.com").call("PortalKeysMintFunction", body={"name": "x"})
    assert_error(refused, 403, "FORBIDDEN")
    for _ in range(2):  # a second revocation changes nothing and is in the log all the same
        assert studio.ok("PortalKeyRevokeFunction", key_id=key["id"]) == {}
    entries = studio.ok(READ)["entries"]
    assert [(e["action"], e["target"], e["actorId"]) for e in entries] == [
        ("key.revoke", f"key:{key['id']}", studio.who.user_id),
        ("key.revoke", f"key:{key['id']}", studio.who.user_id),
        ("key.mint", f"key:{key['id']}", admin.who.user_id),
    ]
    assert entries[2]["requestId"] == admin.request_ids[0]
    assert key["key"] not in studio.call(READ).body and key["prefix"] not in studio.call(READ).body
    listed = studio.ok("PortalKeysListFunction")["keys"]
    assert [(k["id"], k["createdBy"]) for k in listed] == [(key["id"], admin.who.user_id)]
