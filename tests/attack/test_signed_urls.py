"""Signed media URLs, attacked over HTTP: tampering with each part, replays elsewhere, revoked keys, deleted
workspaces, paths off the allowlist (core/objects/signing.py, services/key_auth.py ``authenticate_signed``).

Some URLs are forged with the runner's own secret (``<state_dir>/MediaUrlSecret.secret``), so a URL can be
validly signed yet wrong in exactly one way, as a leaked secret or a confused signer would make it.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import pytest

from core.objects import signing as media_signing
from tests.support.attack import Cast, demo, portal
from tests.support.runner import LocalService, Reply
from tests.support.signed_urls import register_signatures

pytestmark = pytest.mark.attack

INVALID = {"error": "This media URL is not valid", "code": "SIGNED_URL_INVALID"}
EXPIRED_CODE = "SIGNED_URL_EXPIRED"


def secret(service: LocalService) -> bytes:
    return (service.state_dir / "MediaUrlSecret.secret").read_text().strip().encode()


def key_id(service: LocalService, key: str) -> str:
    return service.brain_get("/v1/agent/_whoami", key).json()["apiKeyId"]


def ask(service: LocalService, key: str, *paths: str, **headers: str) -> Reply:
    body = json.dumps({"paths": list(paths)}).encode()
    return service.request(
        "POST", f"{service.brain}/v1/media-urls", headers={"Authorization": f"Bearer {key}"} | headers, body=body
    )


def signed(service: LocalService, key: str, path: str) -> str:
    reply = ask(service, key, path)
    assert reply.status == 200, reply.body
    register_signatures(reply.json()["urls"][0]["url"])
    return reply.json()["urls"][0]["url"]


def fetch(service: LocalService, url: str, **headers: str) -> Reply:
    return service.request("GET", url, headers=headers)


def forged(service: LocalService, kid: str, path: str, expires: int, *, signed_path: str | None = None) -> str:
    sig = media_signing.sign(secret(service), kid, signed_path or path, expires)
    query = urlencode({"expires": expires, "kid": kid, "sig": sig})
    register_signatures(url := f"{service.brain}/v1/r2/{quote(path, safe='/')}?{query}")
    return url


def with_param(url: str, **changes: str | None) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query)) | changes
    kept = {k: v for k, v in query.items() if v is not None}
    return parts._replace(query=urlencode(kept)).geturl()


@pytest.fixture(scope="module")
def media(service: LocalService) -> dict[str, Any]:
    """Workspace A's key and two of its objects (a feed post's image and another), B's key."""
    first, second = demo(service)
    agent = first["agents"][0]["id"]
    posts = service.brain_get(f"/v1/agent/{agent}/feed", first["key"]).json()
    paths = [f"projects/{agent}/{post['key']}" for post in posts[:2]]
    return {"key": first["key"], "paths": paths, "other_key": second["key"]}


def test_an_untouched_url_serves_without_a_header(service: LocalService, media) -> None:
    reply = fetch(service, signed(service, media["key"], media["paths"][0]))
    assert reply.status == 200 and reply.body


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(lambda u, q: with_param(u, expires=str(int(q["expires"]) + 1)), id="expires+1"),
        pytest.param(lambda u, q: with_param(u, expires=str(int(q["expires"]) - 1)), id="expires-1"),
        pytest.param(lambda u, q: with_param(u, sig=q["sig"][:-1] + ("A" if q["sig"][-1] != "A" else "B")), id="sig"),
        pytest.param(lambda u, q: with_param(u, sig=q["sig"] + "="), id="sig-padded"),
        pytest.param(lambda u, q: with_param(u, sig=q["sig"].upper()), id="sig-case"),
        pytest.param(lambda u, q: with_param(u, sig=None), id="no-sig"),
        pytest.param(lambda u, q: with_param(u, kid=None), id="no-kid"),
        pytest.param(lambda u, q: with_param(u, expires=None), id="no-expires"),
        pytest.param(lambda u, q: with_param(u, expires="1e12"), id="expires-not-digits"),
        pytest.param(lambda u, q: with_param(u, kid=q["kid"] + "0"), id="kid-changed"),
        pytest.param(lambda u, q: with_param(u, kid="key_01JD0SAMPLE0APIKEY0000000"), id="kid-unknown"),
    ],
)
def test_each_tampered_part_is_the_same_vague_403(service: LocalService, media, tamper) -> None:
    url = signed(service, media["key"], media["paths"][0])
    reply = fetch(service, tamper(url, dict(parse_qsl(urlsplit(url).query))))
    assert (reply.status, reply.json()) == (403, INVALID), reply.body
    assert reply.header("ratelimit-limit") is None  # refused before any key was counted


def test_a_url_is_bound_to_its_path(service: LocalService, media) -> None:
    first, second = media["paths"]
    url = signed(service, media["key"], first)
    moved = url.replace(quote(first, safe="/"), quote(second, safe="/"))
    assert moved != url and (fetch(service, moved).status, fetch(service, moved).json()) == (403, INVALID)
    assert fetch(service, url.replace("/v1/r2/", "/v1/r2/./")).status in (400, 403)


def test_another_workspaces_key_id_never_reaches_this_workspaces_objects(service: LocalService, media) -> None:
    """Swapping in B's key id breaks the MAC; a validly signed URL for B's key is served from B's workspace."""
    path = media["paths"][0]
    url = signed(service, media["key"], path)
    other = key_id(service, media["other_key"])
    assert fetch(service, with_param(url, kid=other)).json() == INVALID
    as_b = fetch(service, forged(service, other, path, int(time.time()) + 300))
    assert (as_b.status, as_b.json()["code"]) == (404, "NOT_FOUND")  # verified, and A's object is not B's


def test_an_expired_url_says_so_and_nothing_else(service: LocalService, media) -> None:
    kid = key_id(service, media["key"])
    reply = fetch(service, forged(service, kid, media["paths"][0], int(time.time()) - 1))
    assert (reply.status, reply.json()["code"]) == (403, EXPIRED_CODE)


def test_a_url_claiming_more_than_an_hour_is_refused_even_validly_signed(service: LocalService, media) -> None:
    kid = key_id(service, media["key"])
    reply = fetch(service, forged(service, kid, media["paths"][0], int(time.time()) + 3600 + 600))
    assert (reply.status, reply.json()) == (403, INVALID)


@pytest.mark.parametrize("path", ["conversations/thr_1.json", "projects/../../ws_other/assets/x", "secret.txt"])
def test_paths_off_the_allowlist_are_refused_even_validly_signed(service: LocalService, media, path: str) -> None:
    assert ask(service, media["key"], path).status in (400, 403)  # never signed
    reply = fetch(service, forged(service, key_id(service, media["key"]), path, int(time.time()) + 300))
    assert (reply.status, reply.json()) == (403, INVALID)


def test_a_revoked_key_voids_its_urls_on_the_next_request(service: LocalService, cast: Cast, media) -> None:
    first, _ = demo(service)
    minted = portal(service, "POST", f"/api/workspaces/{first['id']}/keys", cast.owner_a.jwt, {"name": "page"})
    key = minted.json()["key"]
    url = signed(service, key["key"], media["paths"][0])
    assert fetch(service, url).status == 200
    revoked = portal(service, "DELETE", f"/api/workspaces/{first['id']}/keys/{key['id']}", cast.owner_a.jwt)
    assert revoked.status == 200
    assert (fetch(service, url).status, fetch(service, url).json()) == (403, INVALID)


def test_a_deleted_workspaces_urls_fail(service: LocalService, cast: Cast) -> None:
    jwt = cast.owner_a.jwt
    created = portal(service, "POST", "/api/workspaces", jwt, {"name": "Short-lived"})
    assert created.status == 201, created.body
    ws = created.json()["workspace"]
    key = portal(service, "POST", f"/api/workspaces/{ws['id']}/keys", jwt, {"name": "page"}).json()["key"]["key"]
    url = signed(service, key, "assets/logo.png")
    assert fetch(service, url).status == 404  # verified; the new workspace has no logo
    assert portal(service, "DELETE", f"/api/workspaces/{ws['id']}", jwt).status == 200
    assert (fetch(service, url).status, fetch(service, url).json()) == (403, INVALID)


def test_the_raw_key_is_never_in_a_url(service: LocalService, media) -> None:
    reply = ask(service, media["key"], *media["paths"])
    assert media["key"] not in reply.body.decode() and media["key"][6:20] not in reply.body.decode()
