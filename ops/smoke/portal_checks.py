"""The management plane's checks: the run's sign-in, workspace, key and publication, then every read of them,
the error bodies, and (at the end) the key revocation, the workspace deletion and the sign-out."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import bundle
from .checks import answer, equal, error, expect
from .context import Smoke

CREDITS = 10  # a chat turn costs ChatCreditsPerTurn (1 by default): room for the run's one turn and more


def sign_in(smoke: Smoke) -> None:
    minted = answer(
        smoke.portal("POST", "/api/auth/api-token", jwt="", headers={"Cookie": f"session={smoke.cookie}"}), 200
    )
    equal(sorted(minted), ["token"], "api-token fields")
    smoke.jwt = minted["token"]


def refresh(smoke: Smoke) -> None:
    refreshed = answer(smoke.portal("POST", "/api/auth/refresh"), 200)
    equal(sorted(refreshed), ["token"], "refresh fields")
    smoke.jwt = refreshed["token"]


def account(smoke: Smoke) -> None:
    body = answer(smoke.portal("GET", "/api/user/account"), 200)
    equal(
        (body["id"], body["email"], body["workspaceId"]),
        (smoke.footprint.user_id, smoke.footprint.email, None),
        "account",
    )


def create_workspace(smoke: Smoke) -> None:
    created = answer(smoke.portal("POST", "/api/workspaces", json={"name": f"Smoke {smoke.footprint.run_id}"}), 201)
    workspace = created["workspace"]
    smoke.footprint.workspace_id, smoke.footprint.workspace_slug = workspace["id"], workspace["slug"]
    smoke.brand_id = workspace["defaultBrandId"]
    equal(
        (workspace["ownerId"], workspace["name"]),
        (smoke.footprint.user_id, f"Smoke {smoke.footprint.run_id}"),
        "workspace",
    )


def mint_key(smoke: Smoke, name: str = "smoke") -> tuple[str, str]:
    """A new key of the workspace: (its id, the raw key)."""
    ws = smoke.footprint.workspace_id
    minted = answer(smoke.portal("POST", f"/api/workspaces/{ws}/keys", json={"name": name}), 201)["key"]
    smoke.footprint.rate_subjects.append(f"key#{minted['id']}")  # the counter its read-plane calls add to
    expect(minted["key"].startswith("sk_ws_") and minted["prefix"] == minted["key"][:12], "the raw key's form")
    return minted["id"], minted["key"]


def publish(smoke: Smoke) -> None:
    with tempfile.TemporaryDirectory(prefix="smoke-bundle-") as directory:
        ws = smoke.footprint.workspace_id or ""
        agent_id = bundle.publish_agent(smoke.target.portal_url, smoke.jwt, ws, Path(directory), smoke.transport)
    smoke.footprint.agent_id = agent_id


def reads(smoke: Smoke) -> None:
    """Every portal read of what the run made, each its own check: (name, path, what its answer must show)."""
    ws, agent, footprint = smoke.footprint.workspace_id, smoke.agent_id, smoke.footprint
    base, photo = f"/api/workspaces/{ws}", f"projects/{agent}/{bundle.POST['key']}"
    history = [("topup", CREDITS)]
    reads: list[tuple[str, str, Callable[[Any], None]]] = [
        ("/api/workspaces", "/api/workspaces", lambda b: equal([w["id"] for w in b], [ws], "workspaces")),
        ("/api/workspaces/{id}", base, lambda b: equal(b["workspace"]["id"], ws, "workspace id")),
        (
            "…/members",
            f"{base}/members",
            lambda b: equal([(m["userId"], m["role"]) for m in b], [(footprint.user_id, "owner")], "members"),
        ),
        ("…/brands", f"{base}/brands", lambda b: equal([x["id"] for x in b], [smoke.brand_id], "brands")),
        ("…/keys", f"{base}/keys", lambda b: _keys(b, smoke.key_id)),
        ("…/workflows", f"{base}/workflows", _workflow),
        (
            "…/agents",
            f"{base}/agents",
            lambda b: equal([(a["id"], a["slug"]) for a in b["agents"]], [(agent, bundle.SLUG)], "agents"),
        ),
        ("…/agents/{id}", f"{base}/agents/{agent}", lambda b: _agent(b["agent"])),
        ("…/agents/{id}/wrap", f"{base}/agents/{agent}/wrap", lambda b: equal(b["wrap"], bundle.WRAP, "wrap")),
        ("…/agents/{id}/site", f"{base}/agents/{agent}/site", lambda b: equal(b["site"], bundle.SITE, "site")),
        ("…/agents/{id}/posts", f"{base}/agents/{agent}/posts", _posts),
        (
            "…/agents/{id}/items",
            f"{base}/agents/{agent}/items",
            lambda b: equal([i["name"] for i in b["items"]], [bundle.ITEM["name"]], "items"),
        ),
        ("…/objects", f"{base}/objects", lambda b: _objects(b, agent)),
        ("…/objects/{path}", f"{base}/objects/{quote(photo)}", lambda b: expect(b["url"].startswith("http"), "a URL")),
        (
            "/api/credits/balance",
            "/api/credits/balance",
            lambda b: equal(b["balance"]["available"], CREDITS, "available credits"),
        ),
        (
            "/api/credits/history",
            "/api/credits/history",
            lambda b: equal([(e["refType"], e["amountCredits"]) for e in b["entries"]], history, "history"),
        ),
    ]
    for name, path, verify in reads:
        smoke.checks.run(f"portal GET {name}", partial(_read, smoke, path, verify))


def _read(smoke: Smoke, path: str, verify: Callable[[Any], None]) -> None:
    verify(answer(smoke.portal("GET", path), 200))


def _keys(body: Any, key_id: str) -> None:
    listed = body["keys"]
    equal([k["id"] for k in listed], [key_id], "key ids")
    expect("key" not in listed[0], "a listed key shows its raw value")


def _workflow(body: Any) -> None:
    (workflow,) = body["workflows"]
    equal(workflow["suggestions"], bundle.SUGGESTIONS, "suggestions")


def _agent(agent: Any) -> None:
    equal(
        (agent["slug"], agent["name"], agent["postCount"], agent["itemCount"]),
        (bundle.SLUG, bundle.NAME, 1, 1),
        "agent",
    )


def _posts(body: Any) -> None:
    (post,) = body["posts"]
    equal((post["title"], post["status"], post["key"]), (bundle.POST["title"], "published", bundle.POST["key"]), "post")


def _objects(body: Any, agent: str) -> None:
    paths = sorted(o["path"] for o in body["objects"])
    equal(paths, sorted(f"projects/{agent}/{p}" for p in (bundle.POST["key"], bundle.ITEM["file"])), "objects")


def errors(smoke: Smoke) -> None:
    run, ws = smoke.checks.run, smoke.footprint.workspace_id
    run(
        "portal error: no JWT → 401",
        lambda: error(smoke.portal("GET", "/api/user/account", jwt=""), 401, "UNAUTHORIZED"),
    )
    run("portal error: a workspace key as JWT → 401",
        lambda: error(smoke.portal("GET", "/api/user/account", jwt=smoke.key), 401, "UNAUTHORIZED"))  # fmt: skip
    run("portal error: unknown route → 404", lambda: error(smoke.portal("GET", "/api/no-such-route"), 404, "NOT_FOUND"))
    run(
        "portal error: unknown workspace → 404",
        lambda: error(smoke.portal("GET", "/api/workspaces/ws_unknown"), 404, "NOT_FOUND"),
    )
    run(
        "portal error: bad input → 400",
        lambda: error(smoke.portal("POST", f"/api/workspaces/{ws}/keys", json={"name": ""}), 400, "VALIDATION_ERROR"),
    )
    run(
        "portal error: bad query → 400",
        lambda: error(smoke.portal("GET", "/api/credits/history?limit=500"), 400, "VALIDATION_ERROR"),
    )


def revoke(smoke: Smoke) -> None:
    """A second key, revoked: the read plane refuses it at once."""
    key_id, raw = mint_key(smoke, "smoke-revoked")
    ws = smoke.footprint.workspace_id
    equal(answer(smoke.portal("DELETE", f"/api/workspaces/{ws}/keys/{key_id}"), 200), {}, "revocation")
    error(smoke.brain("GET", "/v1/agent/_whoami", key=raw), 401, "UNAUTHORIZED")


def delete_workspace(smoke: Smoke) -> None:
    ws = smoke.footprint.workspace_id
    equal(answer(smoke.portal("DELETE", f"/api/workspaces/{ws}"), 200), {"deleted": True}, "deletion")
    error(smoke.portal("GET", f"/api/workspaces/{ws}"), 404, "NOT_FOUND")
    error(smoke.brain("GET", "/v1/agent/_whoami"), 401, "UNAUTHORIZED")  # its keys are revoked with it


def sign_out(smoke: Smoke) -> None:
    equal(
        answer(smoke.portal("POST", "/api/auth/logout", headers={"Cookie": f"session={smoke.cookie}"}), 200),
        {},
        "logout",
    )
    error(smoke.portal("GET", "/api/user/account"), 401, "UNAUTHORIZED")  # the session has ended: its JWT too
