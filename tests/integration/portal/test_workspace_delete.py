"""DELETE /api/workspaces/{id}: owner only, gone at once everywhere, keys dead, active workspace replaced."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.portal import JSON, Portal, Session, assert_error, take_purge_messages

AFTER_DELETE = ["PortalWorkspaceGetFunction", "PortalMembersListFunction", "PortalBrandsListFunction",
                "PortalKeysListFunction", "PortalKeysMintFunction"]  # fmt: skip


def delete(portal: Portal, who: Session, workspace_id: str):
    return portal.call("PortalWorkspaceDeleteFunction", token=who.token, params={"workspaceId": workspace_id})


def ids(portal: Portal, who: Session) -> list[str]:
    return [w["id"] for w in portal.call("PortalWorkspacesListFunction", token=who.token).json()]


def active(portal: Portal, who: Session) -> str | None:
    return portal.call("PortalAccountFunction", token=who.token).json()["workspaceId"]


@pytest.fixture
def team(portal: Portal) -> dict[str, Any]:
    owner = portal.sign_in("owner@example.com", plan="pro")
    kept, doomed = portal.create_workspace(owner, "Kept"), portal.create_workspace(owner, "Doomed")
    people: dict[str, Any] = {"owner": owner, "kept": kept, "doomed": doomed}
    for role in ("admin", "member"):
        people[role] = portal.sign_in(f"{role}@example.com")
        portal.add_member(doomed["id"], people[role].user_id, role)
        portal.users.set_active_workspace(people[role].user_id, doomed["id"])
    portal.add_member(kept["id"], people["member"].user_id, "member")
    people["keys"] = [portal.mint_key(owner, doomed["id"], f"k{n}")["key"] for n in range(2)]
    people["kept_key"] = portal.mint_key(owner, kept["id"])["key"]
    return people


def test_owner_deletes_and_the_workspace_is_gone_at_once(portal: Portal, team: dict[str, Any]) -> None:
    owner, doomed, kept = team["owner"], team["doomed"], team["kept"]
    assert active(portal, owner) == doomed["id"]
    result = delete(portal, owner, doomed["id"])
    assert (result.status, result.header("Content-Type"), result.json()) == (200, JSON, {"deleted": True})
    for function in AFTER_DELETE:
        for who in (owner, team["admin"], team["member"]):
            gone = portal.call(function, token=who.token, params={"workspaceId": doomed["id"]}, body={"name": "x"})
            assert_error(gone, 404, "NOT_FOUND")
    for key in team["keys"]:
        assert_error(portal.whoami(key), 401, "UNAUTHORIZED")
    assert portal.whoami(team["kept_key"]).status == 200
    assert ids(portal, owner) == [kept["id"]]
    assert ids(portal, team["member"]) == [kept["id"]] and ids(portal, team["admin"]) == []
    assert (active(portal, owner), active(portal, team["member"]), active(portal, team["admin"])) == (
        kept["id"], kept["id"], None)  # fmt: skip
    (message,) = take_purge_messages(portal.aws.sqs)
    assert json.loads(message["Body"]) == {"workspaceId": doomed["id"]}


def test_revoking_a_key_of_a_deleted_workspace_is_404(portal: Portal, team: dict[str, Any]) -> None:
    delete(portal, team["owner"], team["doomed"]["id"])
    params = {"workspaceId": team["doomed"]["id"], "keyId": "key_x"}
    assert_error(portal.call("PortalKeyRevokeFunction", token=team["owner"].token, params=params), 404, "NOT_FOUND")


@pytest.mark.parametrize("role", ["admin", "member"])
def test_only_the_owner_may_delete(portal: Portal, team: dict[str, Any], role: str) -> None:
    assert_error(delete(portal, team[role], team["doomed"]["id"]), 403, "FORBIDDEN")
    assert team["doomed"]["id"] in ids(portal, team["owner"])
    assert portal.whoami(team["keys"][0]).status == 200
    assert take_purge_messages(portal.aws.sqs) == []


def test_a_stranger_gets_404(portal: Portal, team: dict[str, Any]) -> None:
    stranger = portal.sign_in("stranger@example.com")
    assert_error(delete(portal, stranger, team["doomed"]["id"]), 404, "NOT_FOUND")
    assert_error(delete(portal, stranger, "ws_01JDOESNOTEXIST0000000000"), 404, "NOT_FOUND")
    assert portal.whoami(team["keys"][0]).status == 200


def test_owner_retry_while_the_purge_is_pending_answers_deleted_again(portal: Portal, team: dict[str, Any]) -> None:
    doomed = team["doomed"]["id"]
    assert delete(portal, team["owner"], doomed).json() == {"deleted": True}
    again = delete(portal, team["owner"], doomed)
    assert (again.status, again.json()) == (200, {"deleted": True})
    assert_error(delete(portal, team["admin"], doomed), 404, "NOT_FOUND")
    assert len(take_purge_messages(portal.aws.sqs)) == 2


def test_deleting_frees_a_slot_of_the_plan(portal: Portal) -> None:
    owner = portal.sign_in("free@example.com")
    first = portal.create_workspace(owner, "Only")
    delete(portal, owner, first["id"])
    second = portal.create_workspace(owner, "Only")
    assert second["slug"] == "only" and ids(portal, owner) == [second["id"]]
    assert active(portal, owner) == second["id"]
