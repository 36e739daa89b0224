"""Workspace API keys: mint (owner/admin, plan-gated, idempotent), list (metadata only), revoke."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.keys.key_format import is_well_formed
from core.platform.settings import get_settings
from tests.support.portal import JSON, Portal, Session, assert_error


@pytest.fixture
def team(portal: Portal) -> dict[str, Any]:
    owner = portal.sign_in("owner@example.com", plan="pro")
    ws = portal.create_workspace(owner)
    people: dict[str, Any] = {"owner": owner, "workspace": ws}
    for role in ("admin", "member"):
        people[role] = portal.sign_in(f"{role}@example.com")
        portal.add_member(ws["id"], people[role].user_id, role)
    people["stranger"] = portal.sign_in("stranger@example.com", plan="pro")
    return people


def mint(portal: Portal, who: Session, workspace_id: str, body: Any, **headers: str):
    params = {"workspaceId": workspace_id}
    return portal.call("PortalKeysMintFunction", token=who.token, params=params, body=body, headers=headers)


def keys(portal: Portal, who: Session, workspace_id: str) -> list[dict[str, Any]]:
    result = portal.call("PortalKeysListFunction", token=who.token, params={"workspaceId": workspace_id})
    assert (result.status, result.header("Content-Type")) == (200, JSON), result.body
    assert result.json().keys() == {"keys", "nextCursor"}
    assert result.json()["nextCursor"] is None  # every test's keys fit one page
    return result.json()["keys"]


def revoke(portal: Portal, who: Session, workspace_id: str, key_id: str):
    params = {"workspaceId": workspace_id, "keyId": key_id}
    return portal.call("PortalKeyRevokeFunction", token=who.token, params=params)


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_mint_returns_the_raw_key_once(portal: Portal, team: dict[str, Any], role: str) -> None:
    ws = team["workspace"]
    result = mint(portal, team[role], ws["id"], {"name": "  Server  "})
    assert (result.status, result.header("Content-Type")) == (201, JSON), result.body
    key = result.json()["key"]
    assert set(result.json()) == {"key"}
    assert key == {
        "id": key["id"], "name": "Server", "prefix": key["key"][:12], "rateLimit": 600, "allowedOrigins": None,
        "lastUsedAt": None, "createdAt": key["createdAt"], "createdBy": team[role].user_id, "revokedAt": None,
        "key": key["key"],
    }  # fmt: skip
    assert key["id"].startswith("key_") and re.fullmatch(r"sk_ws_[0-9A-Za-z]{49}", key["key"])
    assert is_well_formed(key["key"]) and key["prefix"].startswith("sk_ws_")
    whoami = portal.whoami(key["key"])
    assert (whoami.status, whoami.json()) == (200, {"workspaceId": ws["id"], "apiKeyId": key["id"]})


@pytest.mark.parametrize("rate_limit", [1, 42, 100_000])
def test_explicit_rate_limit(portal: Portal, team: dict[str, Any], rate_limit: int) -> None:
    key = portal.mint_key(team["owner"], team["workspace"]["id"], rateLimit=rate_limit)
    assert key["rateLimit"] == rate_limit
    assert portal.whoami(key["key"]).header("RateLimit-Limit") == str(rate_limit)


def test_list_is_newest_first_and_never_shows_raw_keys(portal: Portal, team: dict[str, Any]) -> None:
    owner, ws = team["owner"], team["workspace"]
    minted = [portal.mint_key(owner, ws["id"], f"key {n}", rateLimit=10 + n) for n in range(3)]
    listed = keys(portal, team["member"], ws["id"])
    assert listed == [{k: v for k, v in key.items() if k != "key"} for key in reversed(minted)]
    assert all("key" not in k and k["lastUsedAt"] is None and k["revokedAt"] is None for k in listed)
    portal.whoami(minted[0]["key"])
    used = {k["id"]: k["lastUsedAt"] for k in keys(portal, owner, ws["id"])}
    assert used[minted[0]["id"]] is not None and used[minted[1]["id"]] is None


def test_member_may_not_mint(portal: Portal, team: dict[str, Any]) -> None:
    assert_error(mint(portal, team["member"], team["workspace"]["id"], {"name": "mine"}), 403, "FORBIDDEN")
    assert keys(portal, team["owner"], team["workspace"]["id"]) == []


def test_stranger_gets_404(portal: Portal, team: dict[str, Any]) -> None:
    assert_error(mint(portal, team["stranger"], team["workspace"]["id"], {"name": "x"}), 404, "NOT_FOUND")


def test_free_owner_cannot_mint(portal: Portal) -> None:
    owner = portal.sign_in("free@example.com")
    ws = portal.create_workspace(owner)
    refused = mint(portal, owner, ws["id"], {"name": "nope"})
    assert_error(refused, 402, "API_KEYS_NOT_AVAILABLE")
    said = refused.json()["error"]  # the plan, the plans that have keys, and how an operator changes it (issue 28)
    assert said.startswith("The free plan has no API keys; pro, business have them.") and "set-plan" in said


def test_the_owners_plan_gates_an_admins_mint(portal: Portal, team: dict[str, Any]) -> None:
    portal.users.set_plan(team["owner"].user_id, "free")
    portal.users.set_plan(team["admin"].user_id, "business")
    result = mint(portal, team["admin"], team["workspace"]["id"], {"name": "x"})
    assert_error(result, 402, "API_KEYS_NOT_AVAILABLE")


@pytest.mark.parametrize(
    "body",
    [{"name": "k", "rateLimit": 0}, {"name": "k", "rateLimit": 100_001}, {"name": "k", "rateLimit": "5"},
     {"name": "k", "rateLimit": 1.5}, {"name": "k", "rateLimit": True}, {"name": "k", "rateLimit": -1},
     {"name": ""}, {"name": "   "}, {"name": "n" * 65}, {"name": 7}, {}, {"name": "k", "scope": "all"},
     "{broken", "[]"],
)  # fmt: skip
def test_invalid_mint_bodies_are_400(portal: Portal, team: dict[str, Any], body: Any) -> None:
    assert_error(mint(portal, team["owner"], team["workspace"]["id"], body), 400, "VALIDATION_ERROR")
    assert keys(portal, team["owner"], team["workspace"]["id"]) == []


def test_name_of_64_characters_is_accepted(portal: Portal, team: dict[str, Any]) -> None:
    assert portal.mint_key(team["owner"], team["workspace"]["id"], "n" * 64)["name"] == "n" * 64


def test_snake_case_rate_limit_is_an_unknown_field(portal: Portal, team: dict[str, Any]) -> None:
    result = mint(portal, team["owner"], team["workspace"]["id"], {"name": "k", "rate_limit": 5})
    assert_error(result, 400, "VALIDATION_ERROR")


@pytest.mark.parametrize(("who", "status", "code"), [("member", 403, "FORBIDDEN"), ("stranger", 404, "NOT_FOUND")])
def test_access_is_checked_before_the_body(
    portal: Portal, team: dict[str, Any], who: str, status: int, code: str
) -> None:
    assert_error(mint(portal, team[who], team["workspace"]["id"], {"name": ""}), status, code)


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_revoke_stops_the_key_at_once(portal: Portal, team: dict[str, Any], role: str) -> None:
    ws = team["workspace"]
    key, other = portal.mint_key(team["owner"], ws["id"]), portal.mint_key(team["owner"], ws["id"], "other")
    assert portal.whoami(key["key"]).status == 200
    result = revoke(portal, team[role], ws["id"], key["id"])
    assert (result.status, result.header("Content-Type"), result.json()) == (200, JSON, {})
    assert_error(portal.whoami(key["key"]), 401, "UNAUTHORIZED")
    assert portal.whoami(other["key"]).status == 200
    (revoked,) = [k for k in keys(portal, team["owner"], ws["id"]) if k["id"] == key["id"]]
    assert revoked["revokedAt"] is not None and revoked["revokedAt"] >= revoked["createdAt"]
    again = revoke(portal, team[role], ws["id"], key["id"])
    assert (again.status, again.json()) == (200, {})
    assert [k for k in keys(portal, team["owner"], ws["id"]) if k["id"] == key["id"]] == [revoked]


def test_revoke_refusals(portal: Portal, team: dict[str, Any]) -> None:
    ws = team["workspace"]
    key = portal.mint_key(team["owner"], ws["id"])
    assert_error(revoke(portal, team["member"], ws["id"], key["id"]), 403, "FORBIDDEN")
    assert_error(revoke(portal, team["stranger"], ws["id"], key["id"]), 404, "NOT_FOUND")
    assert_error(revoke(portal, team["owner"], ws["id"], "key_01JDOESNOTEXIST000000000"), 404, "NOT_FOUND")
    elsewhere = portal.create_workspace(team["stranger"], "Elsewhere")
    assert_error(revoke(portal, team["stranger"], elsewhere["id"], key["id"]), 404, "NOT_FOUND")
    assert portal.whoami(key["key"]).status == 200


def test_idempotent_mint_returns_the_same_raw_key_and_mints_once(portal: Portal, team: dict[str, Any]) -> None:
    ws, owner = team["workspace"], team["owner"]
    first = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "mint-1"})
    again = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "mint-1"})
    assert (first.status, again.status) == (201, 201) and first.json() == again.json()
    assert [k["id"] for k in keys(portal, owner, ws["id"])] == [first.json()["key"]["id"]]
    assert portal.whoami(again.json()["key"]["key"]).status == 200
    assert_error(mint(portal, owner, ws["id"], {"name": "cd"}, **{"Idempotency-Key": "mint-1"}), 409, "CONFLICT")
    other = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "mint-2"})
    assert other.json()["key"]["key"] != first.json()["key"]["key"]


def test_idempotency_record_never_stores_the_raw_key(portal: Portal, team: dict[str, Any]) -> None:
    ws = team["workspace"]
    raw = mint(portal, team["owner"], ws["id"], {"name": "ci"}, **{"Idempotency-Key": "k"}).json()["key"]["key"]
    table = portal.aws.dynamodb.scan(TableName=get_settings().main_table)["Items"]
    assert all(raw not in str(item) for item in table)


def test_a_replayed_mint_is_still_subject_to_todays_role(portal: Portal, team: dict[str, Any]) -> None:
    ws, admin = team["workspace"], team["admin"]
    first = mint(portal, admin, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "k"})
    assert first.status == 201
    portal.add_member(ws["id"], admin.user_id, "member")  # demoted (the membership item is replaced)
    assert_error(mint(portal, admin, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "k"}), 403, "FORBIDDEN")


def forget_idempotency_records(portal: Portal) -> None:
    """What DynamoDB's TTL does to idempotency records a day after they were written."""
    table = get_settings().main_table
    for item in portal.aws.dynamodb.scan(TableName=table)["Items"]:
        if item["pk"]["S"].startswith("IDEMPOTENCY#"):
            portal.aws.dynamodb.delete_item(TableName=table, Key={"pk": item["pk"], "sk": item["sk"]})


def test_a_revoked_key_stays_revoked_when_its_idempotency_key_is_used_again_later(
    portal: Portal, team: dict[str, Any]
) -> None:
    """Issue 11, hole 1: after the 24 h record expired, the same header used to re-derive the same raw key
    and overwrite the revoked record, bringing the key back to life."""
    ws, owner = team["workspace"], team["owner"]
    first = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "deploy-42"}).json()["key"]
    assert revoke(portal, owner, ws["id"], first["id"]).status == 200
    replayed = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "deploy-42"})
    assert (replayed.status, replayed.json()["key"]["key"]) == (201, first["key"])  # within the day: a replay
    assert_error(portal.whoami(first["key"]), 401, "UNAUTHORIZED")
    forget_idempotency_records(portal)
    later = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "deploy-42"})
    assert later.status == 201, later.body
    fresh = later.json()["key"]
    assert fresh["key"] != first["key"] and fresh["id"] != first["id"]
    assert_error(portal.whoami(first["key"]), 401, "UNAUTHORIZED")
    assert portal.whoami(fresh["key"]).json() == {"workspaceId": ws["id"], "apiKeyId": fresh["id"]}
    listed = {k["id"]: k["revokedAt"] for k in keys(portal, owner, ws["id"])}
    assert listed[first["id"]] is not None and listed[fresh["id"]] is None and len(listed) == 2


def test_an_existing_key_record_is_never_overwritten(portal: Portal, team: dict[str, Any]) -> None:
    from core.keys import providers as keys_providers
    from core.keys.key_format import hash_key
    from core.platform.errors import Conflict

    ws, owner = team["workspace"], team["owner"]
    key = portal.mint_key(owner, ws["id"])
    assert revoke(portal, owner, ws["id"], key["id"]).status == 200
    repo = keys_providers.store()
    revoked = repo.get_by_hash(hash_key(key["key"]))
    assert revoked is not None and revoked.revoked_at is not None
    with pytest.raises(Conflict):
        repo.put(revoked.model_copy(update={"id": "key_01JNEWRECORD0000000000000", "revoked_at": None}))
    assert repo.get_by_hash(hash_key(key["key"])) == revoked
    assert_error(portal.whoami(key["key"]), 401, "UNAUTHORIZED")


def stored_then_crashed(owner: Session, workspace_id: str, idempotency_key: str) -> str:
    """A first attempt that stored its key and died before completing its idempotency record (the
    record stays IN_PROGRESS): the raw key it would have answered."""
    from core.keys import providers as keys_providers
    from core.keys.key_format import display_prefix, generate, hash_key
    from core.keys.models import MintedKeyEnvelope, MintKeyRequest
    from core.keys.records import ApiKeyRecord
    from core.platform import providers as platform_providers
    from core.platform.ids import new_id, now_iso

    admin, request, raw = keys_providers.admin(), MintKeyRequest(name="ci"), []

    def crash(claim: Any) -> MintedKeyEnvelope:
        raw.append(generate(admin.replay_secret(owner.user_id, workspace_id, claim.attempt)))
        keys_providers.store().put(ApiKeyRecord(id=new_id("key"), key_hash=hash_key(raw[0]), workspace_id=workspace_id,
                                         name="ci", prefix=display_prefix(raw[0]), created_at=now_iso()))  # fmt: skip
        raise TimeoutError("the function timed out")  # in doubt: the claim is kept

    with pytest.raises(TimeoutError):
        platform_providers.idempotency().run_claimed(idempotency_key, scope=f"{owner.user_id}|mint-key|{workspace_id}",
                                       request=request.model_dump_json(), status=201, work=crash)  # fmt: skip
    return raw[0]


@pytest.mark.parametrize("revoked", [False, True])
def test_a_retry_after_the_lock_lapsed_re_derives_the_key_its_attempt_stored(
    portal: Portal, team: dict[str, Any], monkeypatch: pytest.MonkeyPatch, revoked: bool
) -> None:
    """Issue: a lapsed claim was re-taken with a new attempt id and minted a second key. It keeps its
    attempt: the retry derives the same key and finds it stored; a revoked one is never handed back."""
    import time

    from core.platform import idempotency_store as records

    ws, owner = team["workspace"], team["owner"]
    raw = stored_then_crashed(owner, ws["id"], "deploy-7")
    [stored] = keys(portal, owner, ws["id"])
    assert_error(mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "deploy-7"}), 409, "CONFLICT")
    if revoked:
        assert revoke(portal, owner, ws["id"], stored["id"]).status == 200
    later = type("Later", (), {"time": staticmethod(lambda: time.time() + records.IN_PROGRESS_SECONDS + 1)})
    monkeypatch.setattr(records, "time", later)
    retry = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "deploy-7"})
    if revoked:  # refused, and the claim released: the next retry mints a new key
        assert_error(retry, 409, "CONFLICT")
        retry = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "deploy-7"})
        assert retry.status == 201 and retry.json()["key"]["key"] != raw
        assert_error(portal.whoami(raw), 401, "UNAUTHORIZED")
        assert len(keys(portal, owner, ws["id"])) == 2
        return
    assert retry.status == 201 and retry.json()["key"]["key"] == raw and retry.json()["key"]["id"] == stored["id"]
    assert [k["id"] for k in keys(portal, owner, ws["id"])] == [stored["id"]]
    replay = mint(portal, owner, ws["id"], {"name": "ci"}, **{"Idempotency-Key": "deploy-7"})
    assert replay.json() == retry.json()  # the record is completed now: a plain replay
    assert portal.whoami(raw).status == 200
