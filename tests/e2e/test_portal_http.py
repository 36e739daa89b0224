"""The management plane over real HTTP: sign-in by magic link, the portal JWT, workspaces, keys, purge, ops."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from core.keys.key_format import is_well_formed
from stack.template import ROOT, Stack, load
from tests.support.runner import LocalService, portal, sign_in

pytestmark = pytest.mark.e2e


def test_sign_in_refresh_and_logout(service: LocalService) -> None:
    cookie, jwt = sign_in(service, "new.person@example.org")
    account = portal(service, "GET", "/api/user/account", jwt).json()
    assert account["email"] == "new.person@example.org" and account["workspaceId"] is None
    refreshed = portal(service, "POST", "/api/auth/refresh", jwt)
    assert refreshed.status == 200 and refreshed.json()["token"] != jwt
    out = service.request("POST", f"{service.portal}/api/auth/logout", headers={"Cookie": cookie})
    assert out.status == 200 and "Max-Age=0" in out.required_header("set-cookie")
    for token in (jwt, refreshed.json()["token"]):
        assert portal(service, "GET", "/api/workspaces", token).status == 401
    assert portal(service, "POST", "/api/auth/refresh", jwt).json()["code"] == "UNAUTHORIZED"


def test_credentials_are_not_interchangeable(service: LocalService) -> None:
    _, jwt = sign_in(service, "cross@example.org")
    key = service.demo["workspaces"][0]["key"]
    assert portal(service, "GET", "/api/workspaces", key).json()["code"] == "UNAUTHORIZED"
    assert service.brain_get("/v1/agent/_whoami", jwt).status == 401


def test_workspace_keys_and_deletion_with_background_purge(service: LocalService) -> None:
    _, jwt = sign_in(service, "owner.e2e@example.org")
    ops = [sys.executable, "-m", "ops", "--state-dir", str(service.state_dir)]
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([*ops, "set-plan", "--email", "owner.e2e@example.org", "--plan", "pro"],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(done.stdout)["plan"] == "pro"

    created = portal(service, "POST", "/api/workspaces", jwt, {"name": "E2E Shop"}, **{"Idempotency-Key": "e2e-1"})
    assert created.status == 201
    workspace = created.json()["workspace"]
    again = portal(service, "POST", "/api/workspaces", jwt, {"name": "E2E Shop"}, **{"Idempotency-Key": "e2e-1"})
    assert again.json() == created.json()
    assert [w["id"] for w in portal(service, "GET", "/api/workspaces", jwt).json()] == [workspace["id"]]

    minted = portal(service, "POST", f"/api/workspaces/{workspace['id']}/keys", jwt, {"name": "site", "rateLimit": 50})
    assert minted.status == 201
    key = minted.json()["key"]
    assert is_well_formed(key["key"]) and key["prefix"] == key["key"][:12] and key["rateLimit"] == 50
    whoami = service.brain_get("/v1/agent/_whoami", key["key"])
    assert whoami.json() == {"workspaceId": workspace["id"], "apiKeyId": key["id"]}
    assert whoami.header("ratelimit-limit") == "50"
    listed = portal(service, "GET", f"/api/workspaces/{workspace['id']}/keys", jwt).json()["keys"]
    assert [k["id"] for k in listed] == [key["id"]] and "key" not in listed[0]

    revoked = portal(service, "DELETE", f"/api/workspaces/{workspace['id']}/keys/{key['id']}", jwt)
    assert (revoked.status, revoked.json()) == (200, {})
    assert service.brain_get("/v1/agent/_whoami", key["key"]).status == 401

    s3 = service.aws("s3")
    bucket = Stack(load()).physical_name("ContentBucket")
    for n in range(30):
        s3.put_object(Bucket=bucket, Key=f"workspaces/{workspace['id']}/assets/{n}.txt", Body=b"x")
    deleted = portal(service, "DELETE", f"/api/workspaces/{workspace['id']}", jwt)
    assert (deleted.status, deleted.json()) == (200, {"deleted": True})
    assert portal(service, "GET", f"/api/workspaces/{workspace['id']}", jwt).status == 404
    deadline = time.monotonic() + 30
    while s3.list_objects_v2(Bucket=bucket, Prefix=f"workspaces/{workspace['id']}/").get("KeyCount"):
        assert time.monotonic() < deadline, "the background purge did not empty the prefix"
        time.sleep(0.2)


def test_operator_grants_show_in_balance_and_history(service: LocalService) -> None:
    """``python -m ops grant`` against the runner, then the credit endpoints over HTTP."""
    _, jwt = sign_in(service, "credits@example.org")
    ops = [
        sys.executable,
        "-m",
        "ops",
        "--state-dir",
        str(service.state_dir),
        "grant",
        "--email",
        "credits@example.org",
    ]
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}

    def grant(*args: str) -> dict:
        run = subprocess.run([*ops, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        return json.loads(run.stdout)

    assert [grant("--credits", "25", "--ref-id", "inv-1")["applied"] for _ in range(2)] == [True, False]
    assert grant("--credits", "5", "--type", "refund", "--ref-id", "inv-1")["applied"] is True
    balance = portal(service, "GET", "/api/credits/balance", jwt)
    assert (balance.status, balance.header("content-type")) == (200, "application/json; charset=utf-8")
    assert balance.json() == {
        "balance": {"available": 30, "held": 0, "total": 30},
        "unit": "credits",
        "usdCents": {"available": 30, "held": 0, "total": 30},
    }
    page = portal(service, "GET", "/api/credits/history?limit=1&offset=1", jwt).json()
    assert (page["total"], page["limit"], page["offset"]) == (2, 1, 1)
    assert [(e["refType"], e["amountCredits"], e["refId"]) for e in page["entries"]] == [("topup", 25, "inv-1")]
    refunds = portal(service, "GET", "/api/credits/history?refType=refund", jwt).json()
    assert [e["amountCredits"] for e in refunds["entries"]] == [5] and refunds["total"] == 1
    bad = portal(service, "GET", "/api/credits/history?limit=500", jwt)
    assert (bad.status, bad.json()["code"]) == (400, "VALIDATION_ERROR")


def test_demo_owner_has_the_granted_credits(service: LocalService) -> None:
    first, second = service.demo["workspaces"][:2]
    _, jwt = sign_in(service, first["ownerEmail"])
    assert portal(service, "GET", "/api/credits/balance", jwt).json()["balance"] == {
        "available": 1000, "held": 0, "total": 1000,
    }  # fmt: skip
    (topup,) = portal(service, "GET", "/api/credits/history", jwt).json()["entries"]
    assert (topup["refType"], topup["amountCredits"]) == ("topup", 1000)
    _, other = sign_in(service, second["ownerEmail"])
    assert portal(service, "GET", "/api/credits/history", other).json()["total"] == 0


def test_portal_preflight_allows_the_portal_origin_with_credentials(service: LocalService) -> None:
    reply = service.request("OPTIONS", f"{service.portal}/api/workspaces", headers={
        "Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
    })  # fmt: skip
    assert reply.status == 200
    assert reply.header("access-control-allow-origin") == "http://localhost:5173"
    assert reply.header("access-control-allow-credentials") == "true"
