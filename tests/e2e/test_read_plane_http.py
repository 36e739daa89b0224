"""The read plane over real HTTP: local runner → API Gateway emulation → the deployed handlers → moto."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from core.identity.portal_jwt import issue
from tests.support.runner import LocalService

pytestmark = pytest.mark.e2e

VAGUE_401 = {"error": "Invalid or missing API key", "code": "UNAUTHORIZED"}
FEED_FIELDS = {
    "id", "key", "kind", "mediaType", "title", "sub", "caption", "hashtags", "channels", "category",
    "width", "height", "createdAt", "pages", "poster", "playable", "isVideo",
}  # fmt: skip
ITEM_FIELDS = {"id", "name", "kind", "r2Key", "mimeType", "size", "folder", "order", "updatedAt", "origin"}


@pytest.fixture(scope="module")
def first(service: LocalService) -> dict:
    return service.demo["workspaces"][0]


@pytest.fixture(scope="module")
def second(service: LocalService) -> dict:
    return service.demo["workspaces"][1]


def test_demo_json_lists_two_workspaces_with_keys_and_agents(service: LocalService, first: dict, second: dict) -> None:
    assert service.brain.startswith("http://127.0.0.1:") and service.portal.startswith("http://127.0.0.1:")
    assert first["id"] != second["id"] and first["ownerEmail"] != second["ownerEmail"]
    for ws in (first, second):
        assert set(ws) == {"id", "name", "ownerEmail", "key", "agents"}
        assert ws["key"].startswith("sk_ws_") and ws["agents"]
        assert all(set(a) == {"id", "slug"} and a["id"].startswith("prj_") for a in ws["agents"])


def test_whoami_resolves_each_key_to_its_workspace(service: LocalService, first: dict, second: dict) -> None:
    for ws in (first, second):
        reply = service.brain_get("/v1/agent/_whoami", ws["key"])
        assert reply.status == 200
        assert reply.header("content-type") == "application/json; charset=utf-8"
        body = reply.json()
        assert body["workspaceId"] == ws["id"] and body["apiKeyId"].startswith("key_")


def test_agent_metadata(service: LocalService, first: dict) -> None:
    agent = first["agents"][0]
    body = service.brain_get(f"/v1/agent/{agent['id']}", first["key"]).json()
    assert body["id"] == agent["id"] and body["slug"] == agent["slug"]
    assert set(body) == {"id", "slug", "name", "brand", "activeWorkflowId"}
    assert set(body["brand"]) == {"id", "slug", "name"} and body["activeWorkflowId"].startswith("wf_")


def test_feed_is_capped_newest_first_and_complete(service: LocalService, first: dict) -> None:
    agent = first["agents"][0]["id"]
    reply = service.brain_get(f"/v1/agent/{agent}/feed", first["key"])
    posts = reply.json()
    assert reply.status == 200 and len(posts) == 120
    assert all(set(p) == FEED_FIELDS for p in posts)
    stamps = [p["createdAt"] for p in posts]
    assert stamps == sorted(stamps, reverse=True)
    kinds = {p["kind"] for p in posts}
    assert kinds == {"image", "video", "carousel", "story", "reel", "text"}
    for post in posts:
        assert post["isVideo"] == (post["mediaType"] == "video")
        if post["kind"] == "video":
            assert post["poster"] and post["playable"]


@pytest.mark.parametrize(("query", "check"), [
    ("channel=site", lambda p: "site" in p["channels"]),
    ("channel=instagram", lambda p: "instagram" in p["channels"]),
])  # fmt: skip
def test_feed_channel_filter(service: LocalService, first: dict, query: str, check) -> None:
    posts = service.brain_get(f"/v1/agent/{first['agents'][0]['id']}/feed?{query}", first["key"]).json()
    assert posts and all(check(p) for p in posts) and len(posts) <= 120


def test_feed_category_filter_and_both_filters(service: LocalService, first: dict) -> None:
    agent = first["agents"][0]["id"]
    everything = service.brain_get(f"/v1/agent/{agent}/feed", first["key"]).json()
    category = everything[0]["category"]
    by_category = service.brain_get(f"/v1/agent/{agent}/feed?category={quote(category)}", first["key"]).json()
    assert by_category and all(p["category"] == category for p in by_category)
    both = service.brain_get(f"/v1/agent/{agent}/feed?category={quote(category)}&channel=site", first["key"]).json()
    assert all(p["category"] == category and "site" in p["channels"] for p in both)
    assert {p["id"] for p in both} <= {p["id"] for p in by_category}


def test_items_are_ordered_by_folder_then_order(service: LocalService, first: dict) -> None:
    items = service.brain_get(f"/v1/agent/{first['agents'][0]['id']}/items", first["key"]).json()
    assert items and all(set(i) == ITEM_FIELDS for i in items)
    assert [(i["folder"], i["order"]) for i in items] == sorted((i["folder"], i["order"]) for i in items)


def test_wrap_site_and_suggestions_of_a_published_agent(service: LocalService, first: dict) -> None:
    agent = first["agents"][0]["id"]
    wrap = service.brain_get(f"/v1/agent/{agent}/wrap", first["key"]).json()
    assert wrap["layout"] in {"chat", "feed", "grid", "split"} and wrap["greeting"] and wrap["theme"]
    site = service.brain_get(f"/v1/agent/{agent}/site", first["key"]).json()
    assert site["pages"] and {"pages", "nav", "sections"} <= set(site)
    suggestions = service.brain_get(f"/v1/agent/{agent}/suggestions", first["key"]).json()
    assert suggestions["suggestions"] and all("prompt" in s for s in suggestions["suggestions"])


def test_unpublished_agent_gets_neutral_wrap_and_empty_site(service: LocalService) -> None:
    ws = next(w for w in service.demo["workspaces"] if len(w["agents"]) > 1)
    draft = ws["agents"][1]["id"]
    wrap = service.brain_get(f"/v1/agent/{draft}/wrap", ws["key"]).json()
    assert (wrap["layout"], wrap["greeting"], wrap["theme"]) == ("chat", "", {})
    assert service.brain_get(f"/v1/agent/{draft}/site", ws["key"]).json()["pages"] == []


@pytest.mark.parametrize("suffix", ["", "/feed", "/items", "/wrap", "/site", "/suggestions"])
def test_another_workspaces_agent_is_404(service: LocalService, first: dict, second: dict, suffix: str) -> None:
    reply = service.brain_get(f"/v1/agent/{first['agents'][0]['id']}{suffix}", second["key"])
    assert (reply.status, reply.json()) == (404, {"error": "Agent not found", "code": "NOT_FOUND"})


@pytest.mark.parametrize("credential", [None, "sk_ws_nope", "sk_ws_" + "0" * 49, "portal-jwt"])
def test_bad_credentials_get_the_same_vague_401(service: LocalService, first: dict, credential: str | None) -> None:
    if credential == "portal-jwt":
        credential = issue(b"x" * 32, "usr_01TEST", "ses_01TEST")
    reply = service.brain_get(f"/v1/agent/{first['agents'][0]['id']}", credential)
    assert (reply.status, reply.json()) == (401, VAGUE_401)


def test_cors_preflight_and_headers(service: LocalService, first: dict) -> None:
    url = f"{service.brain}/v1/agent/{first['agents'][0]['id']}/feed"
    preflight = service.request("OPTIONS", url, headers={
        "Origin": "https://brand.example.com", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization",
    })  # fmt: skip
    assert preflight.status == 200
    assert preflight.header("access-control-allow-origin") == "*"
    assert "authorization" in preflight.required_header("access-control-allow-headers").lower()
    assert "GET" in preflight.required_header("access-control-allow-methods")
    reply = service.brain_get("/v1/agent/_whoami", first["key"], Origin="https://brand.example.com")
    assert reply.header("access-control-allow-origin") == "*"
    assert int(reply.required_header("ratelimit-limit")) >= int(reply.required_header("ratelimit-remaining")) >= 0


def test_unknown_route_is_404_and_wrong_method_405(service: LocalService, first: dict) -> None:
    auth = {"Authorization": f"Bearer {first['key']}"}
    missing = service.request("GET", f"{service.brain}/v2/nothing", headers=auth)
    assert (missing.status, missing.json()["code"]) == (404, "NOT_FOUND")
    wrong = service.request("DELETE", f"{service.brain}/v1/agent/{first['agents'][0]['id']}", headers=auth)
    assert (wrong.status, wrong.json()["code"]) == (405, "METHOD_NOT_ALLOWED")
    portal = service.request("GET", f"{service.portal}/api/nothing")
    assert (portal.status, portal.json()["code"]) == (404, "NOT_FOUND")
