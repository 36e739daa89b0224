"""A workspace's members (authoring.md, "Members and invitations"): the owner makes and unmakes admins, the owner
and admins remove members (an admin never an admin or the owner), anyone but the owner leaves, and ownership moves
by transfer to an admin whose plan allows one more workspace. Every write is audited; a removed member's portal JWT
loses the workspace on its next request (the access check reads the membership on every request)."""

from __future__ import annotations

from typing import Any

import pytest

from core.platform import providers as platform_providers
from tests.integration.portal.authoring.test_refused_write_frees_its_key import RefuseAfterClaim
from tests.support.authoring import Studio
from tests.support.fault_injection import attach_to_core_clients
from tests.support.members import (
    INVITE,
    MEMBERS,
    REMOVE,
    REVOKE,
    ROLE,
    TRANSFER,
    accept,
    invite,
    joined,
    link_token,
    member_ids,
)
from tests.support.portal import Portal, assert_error


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def owned(portal: Portal, user_id: str) -> int:
    user = portal.users.get(user_id)
    assert user is not None
    return user.owned_workspaces


def count(studio: Studio) -> int:
    members: int = studio.portal.workspace_record(studio.workspace_id).member_count
    return members


def test_the_owner_makes_and_unmakes_an_admin(studio: Studio) -> None:
    member = joined(studio, "m@example.com")
    uid = member.who.user_id
    made = studio.ok(ROLE, user_id=uid, body={"role": "admin"})["member"]
    assert (made["userId"], made["role"], made["email"], made["workspaceId"]) == (
        uid, "admin", "m@example.com", studio.workspace_id)  # fmt: skip
    assert made == next(m for m in studio.ok(MEMBERS) if m["userId"] == uid)
    assert studio.ok(ROLE, user_id=uid, body={"role": "admin"})["member"]["role"] == "admin"  # unchanged: 200
    assert studio.ok(ROLE, user_id=uid, body={"role": "member"})["member"]["role"] == "member"
    assert [(e.action, e.target) for e in studio.audit(3)] == [("member.role", f"user:{uid}")] * 3


def test_only_the_owner_changes_roles(studio: Studio) -> None:
    admin, member = joined(studio, "a@example.com", "admin"), joined(studio, "m@example.com")
    for caller in (admin, member):
        for target in (member, admin, studio):
            assert_error(caller.call(ROLE, user_id=target.who.user_id, body={"role": "admin"}), 403, "FORBIDDEN")
        assert_error(caller.call(ROLE, user_id=member.who.user_id, body={"role": "x"}), 403, "FORBIDDEN")
    assert member_ids(studio)[member.who.user_id] == "member"
    stranger = studio.stranger()
    assert_error(stranger.call(ROLE, user_id=member.who.user_id, body={"role": "admin"}), 404, "NOT_FOUND")
    assert_error(stranger.call(ROLE, user_id=member.who.user_id, body={"x": 1}), 404, "NOT_FOUND")


@pytest.mark.parametrize("body", [{"role": "owner"}, {}, {"role": "admin", "x": 1}, {"role": 1}, []])
def test_a_bad_role_is_a_400(studio: Studio, body: Any) -> None:
    member = joined(studio, "m@example.com")
    assert_error(studio.call(ROLE, user_id=member.who.user_id, body=body), 400, "VALIDATION_ERROR")


def test_the_owners_own_role_and_unknown_members(studio: Studio) -> None:
    assert_error(studio.call(ROLE, user_id=studio.who.user_id, body={"role": "member"}), 409, "CONFLICT")
    assert_error(studio.call(ROLE, user_id="usr_01AAAAAAAAAAAAAAAAAAAAAAAA", body={"role": "admin"}), 404, "NOT_FOUND")
    outsider = studio.stranger()
    assert_error(studio.call(ROLE, user_id=outsider.who.user_id, body={"role": "admin"}), 404, "NOT_FOUND")
    assert_error(studio.call(REMOVE, user_id=outsider.who.user_id), 404, "NOT_FOUND")


def test_the_owner_removes_members_and_admins(studio: Studio) -> None:
    admin, member = joined(studio, "a@example.com", "admin"), joined(studio, "m@example.com")
    assert count(studio) == 3
    assert studio.ok(REMOVE, user_id=member.who.user_id) == {}
    assert studio.ok(REMOVE, user_id=admin.who.user_id) == {}
    assert member_ids(studio) == {studio.who.user_id: "owner"} and count(studio) == 1
    assert [(e.action, e.target) for e in studio.audit(2)] == [
        ("member.remove", f"user:{admin.who.user_id}"), ("member.remove", f"user:{member.who.user_id}")]  # fmt: skip
    assert_error(studio.call(REMOVE, user_id=member.who.user_id), 404, "NOT_FOUND")


def test_an_admin_removes_members_only(studio: Studio) -> None:
    admin, other = joined(studio, "a@example.com", "admin"), joined(studio, "b@example.com", "admin")
    member = joined(studio, "m@example.com")
    assert_error(admin.call(REMOVE, user_id=other.who.user_id), 403, "FORBIDDEN")
    assert_error(admin.call(REMOVE, user_id=studio.who.user_id), 409, "CONFLICT")  # the owner stays, whoever asks
    assert admin.ok(REMOVE, user_id=member.who.user_id) == {}
    assert set(member_ids(studio)) == {studio.who.user_id, admin.who.user_id, other.who.user_id}


def test_a_member_removes_no_one_but_leaves(studio: Studio) -> None:
    member, other = joined(studio, "m@example.com"), joined(studio, "n@example.com")
    assert_error(member.call(REMOVE, user_id=other.who.user_id), 403, "FORBIDDEN")
    assert_error(member.call(REMOVE, user_id="usr_01AAAAAAAAAAAAAAAAAAAAAAAA"), 403, "FORBIDDEN")
    assert member.ok(REMOVE, user_id=member.who.user_id) == {}
    assert studio.audit(1)[0].action == "member.leave" and studio.audit(1)[0].actor_id == member.who.user_id
    assert member.who.user_id not in member_ids(studio) and count(studio) == 2


def test_the_owner_cannot_leave(studio: Studio) -> None:
    assert_error(studio.call(REMOVE, user_id=studio.who.user_id), 409, "CONFLICT")
    assert member_ids(studio) == {studio.who.user_id: "owner"}


def test_a_removed_members_jwt_loses_the_workspace_on_its_next_request(studio: Studio) -> None:
    member = joined(studio, "m@example.com")
    assert member.ok("PortalWorkspaceGetFunction")["workspace"]["id"] == studio.workspace_id
    studio.ok(REMOVE, user_id=member.who.user_id)
    # The same JWT, the very next request: the membership is read on every request.
    for function in ("PortalWorkspaceGetFunction", MEMBERS, "PortalAgentsListFunction", "PortalBrandsListFunction"):
        assert_error(member.call(function), 404, "NOT_FOUND")
    listed = studio.portal.call("PortalWorkspacesListFunction", token=member.who.token).json()
    assert studio.workspace_id not in {w["id"] for w in listed}


def test_a_stranger_finds_no_workspace(studio: Studio) -> None:
    member = joined(studio, "m@example.com")
    stranger = studio.stranger()
    assert_error(stranger.call(REMOVE, user_id=member.who.user_id), 404, "NOT_FOUND")
    assert_error(stranger.call(REMOVE, user_id=stranger.who.user_id), 404, "NOT_FOUND")
    assert_error(stranger.call(TRANSFER, body={"userId": stranger.who.user_id}), 404, "NOT_FOUND")
    assert member.who.user_id in member_ids(studio)


def test_the_owner_transfers_to_an_admin(studio: Studio) -> None:
    admin = joined(studio, "a@example.com", "admin")
    studio.portal.users.set_plan(admin.who.user_id, "pro")
    before = (owned(studio.portal, studio.who.user_id), owned(studio.portal, admin.who.user_id))
    workspace = studio.ok(TRANSFER, body={"userId": admin.who.user_id})["workspace"]
    assert (workspace["id"], workspace["ownerId"]) == (studio.workspace_id, admin.who.user_id)
    assert workspace == admin.ok("PortalWorkspaceGetFunction")["workspace"]
    assert member_ids(studio) == {studio.who.user_id: "admin", admin.who.user_id: "owner"}
    after = (owned(studio.portal, studio.who.user_id), owned(studio.portal, admin.who.user_id))
    assert after == (before[0] - 1, before[1] + 1)
    assert (studio.audit(1)[0].action, studio.audit(1)[0].target) == ("workspace.transfer", f"user:{admin.who.user_id}")
    # The old owner is an admin now: no more owner's rights; the new owner has them, and cannot leave.
    assert_error(studio.call(TRANSFER, body={"userId": studio.who.user_id}), 403, "FORBIDDEN")
    assert_error(studio.call(ROLE, user_id=admin.who.user_id, body={"role": "member"}), 403, "FORBIDDEN")
    assert_error(admin.call(REMOVE, user_id=admin.who.user_id), 409, "CONFLICT")
    assert studio.ok(REMOVE, user_id=studio.who.user_id) == {}  # the old owner may leave now
    assert member_ids(admin) == {admin.who.user_id: "owner"}


def test_transfer_goes_to_an_admin_only(studio: Studio) -> None:
    member = joined(studio, "m@example.com")
    admin = joined(studio, "a@example.com", "admin")
    assert_error(studio.call(TRANSFER, body={"userId": member.who.user_id}), 409, "CONFLICT")
    assert_error(studio.call(TRANSFER, body={"userId": studio.who.user_id}), 409, "CONFLICT")
    outsider = studio.stranger()
    assert_error(studio.call(TRANSFER, body={"userId": outsider.who.user_id}), 404, "NOT_FOUND")
    for body in ({}, {"userId": ""}, {"userId": 1}, {"userId": "u", "x": 1}, {"userId": "a b"}):
        assert_error(studio.call(TRANSFER, body=body), 400, "VALIDATION_ERROR")
    for caller in (admin, member):  # the owner only, before any word on the body
        assert_error(caller.call(TRANSFER, body={"userId": admin.who.user_id}), 403, "FORBIDDEN")
        assert_error(caller.call(TRANSFER, body={"x": 1}), 403, "FORBIDDEN")
    assert studio.portal.workspace_record(studio.workspace_id).owner_id == studio.who.user_id


def test_the_new_owners_plan_must_allow_one_more_workspace(studio: Studio) -> None:
    admin = joined(studio, "a@example.com", "admin")  # free: one workspace
    studio.portal.create_workspace(admin.who, "Theirs")
    refused = studio.call(TRANSFER, body={"userId": admin.who.user_id})
    assert_error(refused, 402, "PLAN_LIMIT_REACHED")
    assert "free" in refused.json()["error"]
    assert studio.portal.workspace_record(studio.workspace_id).owner_id == studio.who.user_id
    assert member_ids(studio)[admin.who.user_id] == "admin" and owned(studio.portal, admin.who.user_id) == 1
    assert studio.audit(1)[0].action == "member.join"


def test_member_writes_honour_idempotency_keys(studio: Studio) -> None:
    member = joined(studio, "m@example.com")
    uid = member.who.user_id
    first = studio.call(ROLE, user_id=uid, body={"role": "admin"}, key="r-1")
    studio.ok(ROLE, user_id=uid, body={"role": "member"})
    replay = studio.call(ROLE, user_id=uid, body={"role": "admin"}, key="r-1")
    assert (first.status, replay.status) == (200, 200) and replay.json() == first.json()
    assert member_ids(studio)[uid] == "member"  # the replay changed nothing
    assert studio.ok(REMOVE, user_id=uid, key="d-1") == {} and studio.ok(REMOVE, user_id=uid, key="d-1") == {}
    assert [e.action for e in studio.audit(3)] == ["member.remove", "member.role", "member.role"]


def test_a_members_write_refused_by_storage_after_its_claim_runs_when_retried_with_the_same_key(
    studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As every writer's (``authoring/test_refused_write_frees_its_key.py``): the claim is dropped (``DeleteItem``),
    so the same key writes at once."""
    admin = joined(studio, "a@example.com", "admin")
    studio.portal.users.set_plan(admin.who.user_id, "pro")
    member = joined(studio, "m@example.com")
    invitation = invite(studio, "x@example.com")
    injector = RefuseAfterClaim()
    attach_to_core_clients(injector, monkeypatch)
    platform_providers.reset()  # the stores built so far hold clients without the injector
    invitee = studio.portal.sign_in("y@example.com")
    writes: list[tuple[Studio, str, dict[str, Any]]] = [
        (studio, INVITE, {"body": {"email": "y@example.com", "role": "member"}}),
        (studio, REVOKE, {"invitation_id": invitation["id"]}),
        (studio, ROLE, {"user_id": member.who.user_id, "body": {"role": "admin"}}),
        (studio, REMOVE, {"user_id": member.who.user_id}),
        (studio, TRANSFER, {"body": {"userId": admin.who.user_id}}),
    ]
    for n, (caller, function, request) in enumerate(writes):
        with injector.armed() as calls:
            refused = caller.call(function, key=f"k-{n}", **request)
        assert refused.status == 500, (function, [c.label for c in calls], refused.body)
        assert injector.fired, function
        assert caller.call(function, key=f"k-{n}", **request).status in (200, 201), function
    token = link_token(studio.portal, "y@example.com")
    with injector.armed():
        assert_error(accept(studio.portal, invitee, token, **{"Idempotency-Key": "acc"}), 500, "INTERNAL_ERROR")
    assert accept(studio.portal, invitee, token, **{"Idempotency-Key": "acc"}).status == 200
