"""The management plane across tenants and roles: a workspace you are not in is 404 exactly like one that does
not exist (nothing confirms it exists); inside one, the role decides (403): members read, owners and admins
mint and revoke, only the owner deletes (services/workspaces.py, services/key_admin.py)."""

from __future__ import annotations

import pytest

from tests.support.attack import Cast, add_member, demo, portal, sign_in
from tests.support.runner import LocalService

pytestmark = pytest.mark.attack

UNKNOWN_WORKSPACE = "ws_01AAAAAAAAAAAAAAAAAAAAAAAA"
WORKSPACE_ROUTES = [
    ("GET", "", None),
    ("GET", "/members", None),
    ("GET", "/brands", None),
    ("GET", "/keys", None),
    ("POST", "/keys", {"name": "stolen", "rateLimit": 100000}),
    ("DELETE", "/keys/{key}", None),
    ("DELETE", "", None),
]


@pytest.fixture(scope="module")
def b_key_id(service: LocalService, cast: Cast) -> str:
    """B's demo key id, as B's owner sees it (an attacker may learn ids from logs or screenshots)."""
    keys = portal(service, "GET", f"/api/workspaces/{demo(service)[1]['id']}/keys", cast.owner_b.jwt).json()["keys"]
    return keys[0]["id"]


@pytest.mark.parametrize("route", WORKSPACE_ROUTES, ids=[f"{m}{s or '/'}" for m, s, _ in WORKSPACE_ROUTES])
def test_another_tenants_workspace_is_not_found(
    service: LocalService, cast: Cast, b_key_id: str, route: tuple[str, str, dict | None]
) -> None:
    method, suffix, body = route
    second = demo(service)[1]
    path = suffix.format(key=b_key_id)
    foreign = portal(service, method, f"/api/workspaces/{second['id']}{path}", cast.owner_a.jwt, body)
    unknown = portal(service, method, f"/api/workspaces/{UNKNOWN_WORKSPACE}{path}", cast.owner_a.jwt, body)
    assert (foreign.status, foreign.json()["code"]) == (404, "NOT_FOUND"), foreign.body
    assert foreign.body == unknown.body
    # Nothing happened to B: its workspace and its key are intact.
    assert service.brain_get("/v1/agent/_whoami", second["key"]).status == 200
    assert portal(service, "GET", f"/api/workspaces/{second['id']}", cast.owner_b.jwt).status == 200


def test_b_key_cannot_be_revoked_through_as_workspace(service: LocalService, cast: Cast, b_key_id: str) -> None:
    first, second = demo(service)
    reply = portal(service, "DELETE", f"/api/workspaces/{first['id']}/keys/{b_key_id}", cast.owner_a.jwt)
    assert (reply.status, reply.json()["code"]) == (404, "NOT_FOUND")
    assert service.brain_get("/v1/agent/_whoami", second["key"]).status == 200


def test_lists_show_only_the_callers_workspaces(service: LocalService, cast: Cast) -> None:
    first, second = demo(service)
    listed = {w["id"] for w in portal(service, "GET", "/api/workspaces", cast.owner_a.jwt).json()}
    assert first["id"] in listed and second["id"] not in listed
    stranger = sign_in(service, "attack.stranger@example.org")
    assert portal(service, "GET", "/api/workspaces", stranger.jwt).json() == []
    for method, suffix, body in WORKSPACE_ROUTES[:5]:
        reply = portal(service, method, f"/api/workspaces/{first['id']}{suffix}", stranger.jwt, body)
        assert (reply.status, reply.json()["code"]) == (404, "NOT_FOUND"), (method, suffix)


def test_credit_endpoints_ignore_attempts_to_name_another_account(service: LocalService, cast: Cast) -> None:
    """Balance and history are always the caller's own: an account id in the query changes nothing."""
    own = portal(service, "GET", "/api/credits/balance", cast.owner_b.jwt).json()
    other = portal(service, "GET", f"/api/credits/balance?accountId={cast.owner_a.user_id}", cast.owner_b.jwt)
    assert other.status == 200 and other.json() == own
    history = portal(service, "GET", f"/api/credits/history?accountId={cast.owner_a.user_id}", cast.owner_b.jwt)
    assert history.status == 200
    assert history.json() == portal(service, "GET", "/api/credits/history", cast.owner_b.jwt).json()


def test_a_member_reads_but_may_not_mint_revoke_or_delete(service: LocalService, cast: Cast) -> None:
    first = demo(service)[0]
    ws = f"/api/workspaces/{first['id']}"
    member = cast.member_a.jwt
    for suffix in ("", "/members", "/brands", "/keys"):
        assert portal(service, "GET", ws + suffix, member).status == 200, suffix
    key_id = portal(service, "GET", f"{ws}/keys", member).json()["keys"][0]["id"]
    for method, suffix, body in [("POST", "/keys", {"name": "mine"}), ("DELETE", f"/keys/{key_id}", None),
                                 ("DELETE", "", None)]:  # fmt: skip
        reply = portal(service, method, ws + suffix, member, body)
        assert (reply.status, reply.json()["code"]) == (403, "FORBIDDEN"), (method, suffix)
    assert service.brain_get("/v1/agent/_whoami", first["key"]).status == 200  # the key survived
    assert portal(service, "GET", ws, cast.owner_a.jwt).status == 200  # and so did the workspace


def test_an_admin_mints_and_revokes_but_may_not_delete(service: LocalService, cast: Cast) -> None:
    first = demo(service)[0]
    ws = f"/api/workspaces/{first['id']}"
    admin = sign_in(service, "attack.admin@example.org")
    assert portal(service, "GET", ws, admin.jwt).status == 404  # not yet a member
    add_member(service, first["id"], admin.user_id, "admin")
    minted = portal(service, "POST", f"{ws}/keys", admin.jwt, {"name": "admin's"})
    assert minted.status == 201, minted.body
    key = minted.json()["key"]
    assert service.brain_get("/v1/agent/_whoami", key["key"]).json()["workspaceId"] == first["id"]
    assert portal(service, "DELETE", f"{ws}/keys/{key['id']}", admin.jwt).status == 200
    assert service.brain_get("/v1/agent/_whoami", key["key"]).status == 401
    refused = portal(service, "DELETE", ws, admin.jwt)
    assert (refused.status, refused.json()["code"]) == (403, "FORBIDDEN")
    assert portal(service, "GET", ws, cast.owner_a.jwt).status == 200


def test_an_admin_of_a_deleted_workspace_loses_it(service: LocalService, cast: Cast) -> None:
    """Only the owner deletes; afterwards the workspace is 404 for every member, the owner included."""
    owner = cast.owner_a
    created = portal(service, "POST", "/api/workspaces", owner.jwt, {"name": "Attack roles"})
    assert created.status == 201, created.body
    ws_id = created.json()["workspace"]["id"]
    admin = sign_in(service, "attack.admin2@example.org")
    add_member(service, ws_id, admin.user_id, "admin")
    assert portal(service, "DELETE", f"/api/workspaces/{ws_id}", admin.jwt).status == 403
    assert portal(service, "DELETE", f"/api/workspaces/{ws_id}", owner.jwt).json() == {"deleted": True}
    for person in (owner, admin):
        reply = portal(service, "GET", f"/api/workspaces/{ws_id}/keys", person.jwt)
        assert (reply.status, reply.json()["code"]) == (404, "NOT_FOUND")
        minted = portal(service, "POST", f"/api/workspaces/{ws_id}/keys", person.jwt, {"name": "late"})
        assert minted.status == 404
