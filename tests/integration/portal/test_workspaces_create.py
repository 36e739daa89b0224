"""POST /api/workspaces: 201 {workspace}, validation, slugs, the plan limit (exact under races), Idempotency-Key."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.support.portal import JSON, Portal, Session, assert_error, event_for, invoke_isolated

RFC3339_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def create(portal: Portal, who: Session, body: Any, **headers: str):
    return portal.call("PortalWorkspacesCreateFunction", token=who.token, body=body, headers=headers)


def listed(portal: Portal, who: Session) -> list[dict[str, Any]]:
    result = portal.call("PortalWorkspacesListFunction", token=who.token)
    assert (result.status, result.header("Content-Type")) == (200, JSON)
    return result.json()


def test_create_answers_201_with_the_whole_workspace(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com")
    result = create(portal, owner, {"name": "  Acme Shop  "})
    assert (result.status, result.header("Content-Type")) == (201, JSON), result.body
    ws = result.json()["workspace"]
    assert set(result.json()) == {"workspace"}
    assert ws == {
        "id": ws["id"], "name": "Acme Shop", "slug": "acme-shop", "type": "team", "origin": "portal",
        "ownerId": owner.user_id, "createdAt": ws["createdAt"],
        "storageConfig": {"type": "s3", "bucket": "local-contentbucket", "prefix": f"workspaces/{ws['id']}/"},
        "wrapConfig": {}, "defaultWorkflowId": None, "defaultBrandId": ws["defaultBrandId"], "listed": False,
        "storeConversations": False, "conversationRetentionDays": None, "lowCreditsThreshold": None,
        "plan": {"name": "free", "maxObjectBytes": 25 * 1024 * 1024, "maxStorageBytes": 500 * 1024 * 1024},
        "updatedAt": ws["createdAt"],
    }  # fmt: skip
    assert ws["id"].startswith("ws_") and ws["defaultBrandId"].startswith("brd_")
    assert RFC3339_MS.match(ws["createdAt"])
    fetched = portal.call("PortalWorkspaceGetFunction", token=owner.token, params={"workspaceId": ws["id"]})
    assert (fetched.status, fetched.json()) == (200, {"workspace": ws})
    account = portal.call("PortalAccountFunction", token=owner.token).json()
    assert account["workspaceId"] == ws["id"]


def test_list_shows_the_callers_role_and_the_member_count(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com", plan="pro")
    first, second = portal.create_workspace(owner, "First"), portal.create_workspace(owner, "Second")
    assert listed(portal, owner) == [
        {"id": ws["id"], "name": ws["name"], "slug": ws["slug"], "type": "team", "origin": "portal", "role": "owner",
         "ownerId": owner.user_id, "memberCount": 1, "createdAt": ws["createdAt"], "logoKey": ""}
        for ws in (first, second)
    ]  # fmt: skip
    assert portal.call("PortalAccountFunction", token=owner.token).json()["workspaceId"] == second["id"]
    assert listed(portal, portal.sign_in("stranger@example.com")) == []


@pytest.mark.parametrize(
    "body",
    [{"name": ""}, {"name": "   "}, {"name": "x" * 81}, {"name": 5}, {"name": None}, {"name": ["a"]}, {},
     {"name": "ok", "plan": "business"}, "{not json", "[]", '"name"', ""],
)  # fmt: skip
def test_invalid_bodies_are_400_and_create_nothing(portal: Portal, body: Any) -> None:
    owner = portal.sign_in("owner@example.com")
    assert_error(create(portal, owner, body), 400, "VALIDATION_ERROR")
    assert listed(portal, owner) == []


def test_a_name_is_limited_as_sent_then_trimmed(portal: Portal) -> None:
    """The document's ``maxLength`` counts the characters sent; whitespace around the name is then trimmed."""
    owner = portal.sign_in("owner@example.com")
    result = create(portal, owner, {"name": "  " + "n" * 76 + "  "})
    assert result.status == 201 and result.json()["workspace"]["name"] == "n" * 76
    assert create(portal, owner, {"name": "  " + "n" * 80 + "  "}).status == 400


def test_the_validation_message_names_the_field(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com")
    assert "name" in create(portal, owner, {"name": "x" * 81}).json()["error"]


def test_slugs_are_unique_across_users_with_a_numeric_suffix(portal: Portal) -> None:
    users = [portal.sign_in(f"user{n}@example.com") for n in range(3)]
    slugs = [portal.create_workspace(u, "Café Crème!").get("slug") for u in users]
    assert slugs == ["cafe-creme", "cafe-creme-2", "cafe-creme-3"]  # NFKC, accents dropped
    assert portal.create_workspace(portal.sign_in("symbols@example.com"), "!!!")["slug"] == "workspace"


def test_free_plan_allows_one_workspace(portal: Portal) -> None:
    owner = portal.sign_in("free@example.com")
    portal.create_workspace(owner, "One")
    assert_error(create(portal, owner, {"name": "Two"}), 402, "PLAN_LIMIT_REACHED")
    assert [w["name"] for w in listed(portal, owner)] == ["One"]


def test_pro_plan_allows_five(portal: Portal) -> None:
    owner = portal.sign_in("pro@example.com", plan="pro")
    for n in range(5):
        portal.create_workspace(owner, f"Shop {n}")
    refused = create(portal, owner, {"name": "Sixth"})
    assert_error(refused, 402, "PLAN_LIMIT_REACHED")
    said = refused.json()["error"]  # the plan, its limit, the plans with more, and how an operator raises it
    assert said.startswith("The pro plan's limit of workspaces you own is 5 (business: 50).") and "set-plan" in said
    assert len(listed(portal, owner)) == 5


def test_body_is_checked_before_the_plan(portal: Portal) -> None:
    owner = portal.sign_in("free@example.com")
    portal.create_workspace(owner)
    assert_error(create(portal, owner, {"name": ""}), 400, "VALIDATION_ERROR")


def test_concurrent_creates_stop_exactly_at_the_plan_limit(portal: Portal) -> None:
    owner = portal.sign_in("racer@example.com", plan="pro")
    listed(portal, owner)  # warm the shared clients and the secret

    def attempt(n: int):
        event = event_for("PortalWorkspacesCreateFunction", token=owner.token, body={"name": "Race"})
        return invoke_isolated("PortalWorkspacesCreateFunction", event)

    with ThreadPoolExecutor(10) as pool:
        results = list(pool.map(attempt, range(10)))
    assert sorted(r.status for r in results) == [201] * 5 + [402] * 5
    assert {r.json()["code"] for r in results if r.status == 402} == {"PLAN_LIMIT_REACHED"}
    workspaces = listed(portal, owner)
    assert len(workspaces) == 5 and len({w["slug"] for w in workspaces}) == 5
    assert {w["id"] for w in workspaces} == {r.json()["workspace"]["id"] for r in results if r.status == 201}


def test_idempotency_key_replays_the_first_answer(portal: Portal) -> None:
    owner = portal.sign_in("retry@example.com", plan="pro")
    first = create(portal, owner, {"name": "Once"}, **{"Idempotency-Key": "create-1"})
    again = create(portal, owner, {"name": "Once"}, **{"Idempotency-Key": "create-1"})
    assert (first.status, again.status) == (201, 201) and first.json() == again.json()
    assert [w["id"] for w in listed(portal, owner)] == [first.json()["workspace"]["id"]]
    other = create(portal, owner, {"name": "Once"}, **{"Idempotency-Key": "create-2"})
    assert other.status == 201 and other.json()["workspace"]["slug"] == "once-2"


def test_idempotency_key_with_another_body_is_409(portal: Portal) -> None:
    owner = portal.sign_in("retry@example.com", plan="pro")
    create(portal, owner, {"name": "Once"}, **{"Idempotency-Key": "k"})
    assert_error(create(portal, owner, {"name": "Twice"}, **{"Idempotency-Key": "k"}), 409, "CONFLICT")
    assert len(listed(portal, owner)) == 1


def test_idempotency_keys_are_per_caller(portal: Portal) -> None:
    alice, bob = portal.sign_in("alice@example.com"), portal.sign_in("bob@example.com")
    a = create(portal, alice, {"name": "Same"}, **{"Idempotency-Key": "shared"})
    b = create(portal, bob, {"name": "Same"}, **{"Idempotency-Key": "shared"})
    assert (a.status, b.status) == (201, 201) and a.json() != b.json()


def test_a_failed_attempt_is_not_remembered(portal: Portal) -> None:
    owner = portal.sign_in("upgrade@example.com")
    portal.create_workspace(owner)
    assert create(portal, owner, {"name": "Later"}, **{"Idempotency-Key": "k"}).status == 402
    portal.users.set_plan(owner.user_id, "pro")
    assert create(portal, owner, {"name": "Later"}, **{"Idempotency-Key": "k"}).status == 201


@pytest.mark.parametrize("key", ["", "x" * 256, "tab\there"])
def test_malformed_idempotency_key_is_400(portal: Portal, key: str) -> None:
    owner = portal.sign_in("owner@example.com")
    assert_error(create(portal, owner, {"name": "Acme"}, **{"Idempotency-Key": key}), 400, "VALIDATION_ERROR")
    assert listed(portal, owner) == []


def test_concurrent_retries_with_one_idempotency_key_create_one_workspace(portal: Portal) -> None:
    owner = portal.sign_in("impatient@example.com", plan="pro")
    listed(portal, owner)

    def attempt(_: int):
        event = event_for("PortalWorkspacesCreateFunction", token=owner.token, body={"name": "Once"},
                          headers={"Idempotency-Key": "double-click"})  # fmt: skip
        return invoke_isolated("PortalWorkspacesCreateFunction", event)

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(attempt, range(6)))
    assert {r.status for r in results} <= {201, 409} and 201 in {r.status for r in results}
    assert {r.json()["code"] for r in results if r.status == 409} <= {"CONFLICT"}
    assert len({json.dumps(r.json()) for r in results if r.status == 201}) == 1
    assert len(listed(portal, owner)) == 1
