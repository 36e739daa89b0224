"""The holes an outside review found (issue 11), attacked over HTTP. Each asserts the fixed behaviour; one
that is still open is marked ``xfail(strict=True)`` with what goes wrong, so the fix turns it green (and a
strict XPASS tells whoever fixed it to drop the marker)."""

from __future__ import annotations

import json
import secrets

import pytest

from tests.support.attack import Cast, demo, portal, raw_request, send
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

VISITOR = "visitor_3f9a2c7e5b1d4e8f"


def code(reply: Reply) -> tuple[int, str]:
    return reply.status, reply.json()["code"]


def test_a_revoked_key_never_comes_back_through_an_idempotent_re_mint(service: LocalService, cast: Cast) -> None:
    """Issue 11, hole 1: a mint replayed with the same Idempotency-Key after its record expired (24 h; here the
    record is deleted, as its TTL would) must yield a new key and never re-enable the revoked one."""
    from stack.template import Stack, load

    ws = f"/api/workspaces/{demo(service)[0]['id']}/keys"
    idem = {"Idempotency-Key": f"attack-{secrets.token_hex(8)}"}
    first = portal(service, "POST", ws, cast.owner_a.jwt, {"name": "resurrect"}, **idem)
    assert first.status == 201, first.body
    old = first.json()["key"]
    assert portal(service, "DELETE", f"{ws}/{old['id']}", cast.owner_a.jwt).status == 200
    assert service.brain_get("/v1/agent/_whoami", old["key"]).status == 401

    db, table = service.aws("dynamodb"), Stack(load()).physical_name("MainTable")
    scan = db.get_paginator("scan").paginate(TableName=table, FilterExpression="begins_with(pk, :p)",
                                            ExpressionAttributeValues={":p": {"S": "IDEMPOTENCY#"}})  # fmt: skip
    expired = [item for page in scan for item in page["Items"]]  # every page: the demo's records fill several
    for item in expired:
        db.delete_item(TableName=table, Key={"pk": item["pk"], "sk": item["sk"]})

    again = portal(service, "POST", ws, cast.owner_a.jwt, {"name": "resurrect"}, **idem)
    assert again.status == 201, again.body
    assert again.json()["key"]["key"] != old["key"]
    assert service.brain_get("/v1/agent/_whoami", old["key"]).status == 401
    portal(service, "DELETE", f"{ws}/{again.json()['key']['id']}", cast.owner_a.jwt)


@pytest.mark.parametrize("name", ["bad\u0000name", "bad\u001bname", "bad\u0085name", "bad\u009bname", "line\nbreak"])
def test_control_characters_in_names_are_a_400(service: LocalService, cast: Cast, name: str) -> None:
    """Issue 11, hole 7. B's owner is on the free plan and owns a workspace: a body check that passes is a 402,
    so nothing is ever created here; a key name is refused before the plan check too."""
    created = portal(service, "POST", "/api/workspaces", cast.owner_b.jwt, {"name": name})
    assert code(created) == (400, "VALIDATION_ERROR"), created.body
    minted = portal(service, "POST", f"/api/workspaces/{demo(service)[1]['id']}/keys", cast.owner_b.jwt, {"name": name})
    assert code(minted) == (400, "VALIDATION_ERROR"), minted.body


@pytest.mark.parametrize("prompt", ["\u200b\u200b", " \u200b \u2060 \ufeff ", "\u200d\t\n"])
def test_an_empty_looking_prompt_is_a_400_and_not_billed(service: LocalService, cast: Cast, prompt: str) -> None:
    first = demo(service)[0]
    before = portal(service, "GET", "/api/credits/balance", cast.owner_a.jwt).json()["balance"]
    reply = service.request(
        "POST", f"{service.brain}/v1/agent/{first['agents'][0]['id']}/chat",
        headers={"Authorization": f"Bearer {first['key']}", "Content-Type": "application/json"},
        body=json.dumps({"prompt": prompt, "client": VISITOR}).encode(),
    )  # fmt: skip
    assert code(reply) == (400, "VALIDATION_ERROR"), reply.body
    assert portal(service, "GET", "/api/credits/balance", cast.owner_a.jwt).json()["balance"] == before


@pytest.mark.parametrize("depth", [1_000, 10_000, 100_000])
@pytest.mark.parametrize("endpoint", ["/api/auth/magic-link", "/api/auth/magic-link/verify"])
def test_deeply_nested_json_is_a_400(service: LocalService, endpoint: str, depth: int) -> None:
    """Issue 11, hole 9, on the unauthenticated sign-in endpoints (no credential needed to try it)."""
    body = ("[" * depth + "]" * depth).encode()
    # A raw socket: the shared request helper walks every body it sends (for the log scan) and would recurse.
    reply = raw_request(service.portal, f"POST {endpoint} HTTP/1.1\r\nContent-Type: application/json".encode(), body)
    assert code(reply) == (400, "VALIDATION_ERROR"), reply.body[:200]


def test_deeply_nested_json_on_chat_is_a_400(service: LocalService) -> None:
    first = demo(service)[0]
    body = ('{"prompt": "hi", "client": "' + VISITOR + '", "history": ' + "[" * 10_000 + "]" * 10_000 + "}").encode()
    head = (f"POST /v1/agent/{first['agents'][0]['id']}/chat HTTP/1.1\r\nAuthorization: Bearer {first['key']}\r\n"
            "Content-Type: application/json")  # fmt: skip
    reply = raw_request(service.brain, head.encode(), body)
    assert code(reply) == (400, "VALIDATION_ERROR"), reply.body[:200]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_json_body_of_another_type_is_a_415(service: LocalService, content_type: str) -> None:
    """Issue 11, hole 10: a simple (no-preflight) cross-site form post must not be parsed as JSON."""
    body = json.dumps({"email": "attack.csrf@example.org"}).encode()
    reply = service.request("POST", f"{service.portal}/api/auth/magic-link", headers={"Content-Type": content_type},
                            body=body)  # fmt: skip
    assert code(reply) == (415, "UNSUPPORTED_MEDIA_TYPE"), reply.body


@pytest.mark.parametrize(
    ("base", "path", "allowed"),
    [
        ("portal", "/api/user/account", "GET"),
        ("brain", "/v1/agent/_whoami", "GET"),
        ("portal", "/api/auth/logout", "POST"),
    ],
)
def test_a_405_names_the_allowed_methods(service: LocalService, base: str, path: str, allowed: str) -> None:
    reply = service.request("DELETE", getattr(service, base) + path)
    assert code(reply) == (405, "METHOD_NOT_ALLOWED")
    assert allowed in [m.strip() for m in (reply.header("allow") or "").split(",")]


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"TRACE /api/user/account HTTP/1.1", id="trace"),
        pytest.param(b"FOO /api/user/account HTTP/1.1", id="unknown-method"),
        pytest.param(b"GET /" + b"a" * 9_000 + b" HTTP/1.1", id="long-url"),
        pytest.param(b"GET /api/user/account HTTP/1.1\r\nX-Big: " + b"a" * 70_000, id="70kb-header"),
        pytest.param(b"GET /api/user/account HTTP/9.9", id="bad-version"),
    ],
)
def test_the_gateways_own_refusals_are_json(service: LocalService, head: bytes) -> None:
    reply = raw_request(service.portal, head)
    assert 400 <= reply.status < 500 or reply.status == 505, reply.status  # 505: HTTP Version Not Supported
    assert set(reply.json()) == {"error", "code"}, reply.body[:200]


def test_two_identical_authorization_headers_are_refused_too(service: LocalService) -> None:
    """Equal or not, two credentials are ambiguous (what one proxy keeps another may not)."""
    key = demo(service)[0]["key"]
    reply = send(service, service.brain, "GET", "/v1/agent/_whoami", [("Authorization", f"Bearer {key}")] * 2)
    assert code(reply) == (401, "UNAUTHORIZED")
