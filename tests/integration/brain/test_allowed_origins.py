"""Keys restricted to origins: set at mint, shown in listings, enforced on every read-plane route (moto)."""

from __future__ import annotations

from typing import Any

import pytest

from core.keys import providers as keys_providers
from core.keys.key_format import hash_key
from core.platform.settings import get_settings
from local.gateway.events import SAMPLE_WORKSPACE_ID
from tests.support.brain import call
from tests.support.portal import Portal, Session
from tests.support.signed_urls import ask, fetch, sign

SHOP = "https://shop.example.com"
STAGING = "http://localhost:8080"
REFUSED = {"error": "This API key may not be used from this origin", "code": "ORIGIN_NOT_ALLOWED"}


@pytest.fixture
def owner(portal: Portal) -> tuple[Session, str]:
    who = portal.sign_in("owner@example.com", plan="pro")
    return who, portal.create_workspace(who)["id"]


def mint(portal: Portal, who: Session, workspace_id: str, **fields: Any):
    params = {"workspaceId": workspace_id}
    return portal.call("PortalKeysMintFunction", token=who.token, params=params, body={"name": "page"} | fields)


def test_mint_normalises_the_origins_and_listings_show_them(portal: Portal, owner) -> None:
    who, ws = owner
    sent = ["HTTPS://Shop.Example.com:443", "http://localhost:8080", "https://shop.example.com", "http://[::1]:80"]
    minted = mint(portal, who, ws, allowedOrigins=sent)
    assert minted.status == 201, minted.body
    assert minted.json()["key"]["allowedOrigins"] == [SHOP, STAGING, "http://[::1]"]
    open_key = portal.mint_key(who, ws, "server")
    assert open_key["allowedOrigins"] is None
    assert portal.mint_key(who, ws, "explicit null", allowedOrigins=None)["allowedOrigins"] is None
    listed = portal.call("PortalKeysListFunction", token=who.token, params={"workspaceId": ws}).json()["keys"]
    assert [k["allowedOrigins"] for k in listed] == [None, None, [SHOP, STAGING, "http://[::1]"]]
    assert all("allowedOrigins" in k for k in listed)


@pytest.mark.parametrize(
    "origins",
    [
        [],
        [SHOP] * 11,
        ["https://shop.example.com/"],
        ["https://shop.example.com/app"],
        ["https://shop.example.com?x=1"],
        ["https://shop.example.com#top"],
        ["https://user@shop.example.com"],
        ["ftp://shop.example.com"],
        ["shop.example.com"],
        ["*"],
        ["https://*.example.com"],
        ["null"],
        ["https://shop.example.com:0"],
        ["https://shop.example.com:65536"],
        ["https://bücher.example"],
        ["https://-bad.example.com"],
        ["http://[not-ipv6]"],
        "https://shop.example.com",
        [7],
    ],
)
def test_mint_refuses_what_is_not_a_list_of_serialized_origins(portal: Portal, owner, origins: Any) -> None:
    who, ws = owner
    refused = mint(portal, who, ws, allowedOrigins=origins)
    assert (refused.status, refused.json()["code"]) == (400, "VALIDATION_ERROR"), refused.body
    assert refused.json()["error"].startswith("allowedOrigins")


@pytest.fixture
def restricted(seed, tenant, aws, as_function) -> str:
    """A key of the sample tenant restricted to SHOP and STAGING, with a rate limit of 5 a minute."""
    as_function("BrainR2Function")
    raw = seed.api_key(tenant.ws.id, rate_limit=5)
    keys_providers.store()._db.update_item(
        TableName=get_settings().api_keys_table,
        Key={"keyHash": {"S": hash_key(raw)}},
        UpdateExpression="SET allowedOrigins = :o",
        ExpressionAttributeValues={":o": {"L": [{"S": SHOP}, {"S": STAGING}]}},
    )
    aws.s3.put_object(Bucket=get_settings().content_bucket, Key=f"workspaces/{SAMPLE_WORKSPACE_ID}/assets/logo.png",
                      Body=b"logo", ContentType="image/png")  # fmt: skip
    return raw


def whoami(key: str, origin: str | None):
    return call("BrainWhoAmIFunction", key=key, headers={"Origin": origin})


def vary(result) -> set[str]:
    return {t.strip().lower() for t in (result.header("Vary") or "").split(",") if t.strip()}


@pytest.mark.parametrize("origin", ["https://evil.example", "https://shop.example.com.evil.example", "null",
                                    "http://shop.example.com", "https://shop.example.com:8443", "garbage"])  # fmt: skip
def test_another_origin_is_403_without_cors_and_is_not_counted(restricted: str, origin: str) -> None:
    refused = whoami(restricted, origin)
    assert (refused.status, refused.json()) == (403, REFUSED)
    assert refused.header("Access-Control-Allow-Origin") is None  # the browser blocks it too
    assert "origin" in vary(refused) and refused.header("RateLimit-Limit") is None
    allowed = whoami(restricted, SHOP)
    assert allowed.header("RateLimit-Remaining") == "4"  # the refusal spent none of the key's budget


def test_a_listed_origin_is_echoed_with_vary_origin(restricted: str) -> None:
    for origin in (SHOP, STAGING, "HTTPS://SHOP.EXAMPLE.COM"):
        result = whoami(restricted, origin)
        assert result.status == 200, result.body
        assert result.header("Access-Control-Allow-Origin") == origin and "origin" in vary(result)
        assert result.header("Access-Control-Allow-Credentials") is None  # bearer keys, never cookies


def test_no_origin_header_is_allowed_without_acao(restricted: str) -> None:
    result = whoami(restricted, None)
    assert result.status == 200 and result.header("Access-Control-Allow-Origin") is None
    assert "origin" in vary(result)


def test_an_unrestricted_key_keeps_the_wildcard_from_any_origin(tenant, aws) -> None:
    for origin in ("https://evil.example", None, "null"):
        result = whoami(tenant.key, origin)
        assert result.status == 200 and result.header("Access-Control-Allow-Origin") == "*"


def test_every_read_plane_route_checks_the_origin(restricted: str, tenant, seed) -> None:
    for function in ("BrainAgentFunction", "BrainFeedFunction", "BrainWrapFunction"):
        result = call(function, agent_id=tenant.agent.id, key=restricted, headers={"Origin": "https://evil.example"})
        assert (result.status, result.json()) == (403, REFUSED), function
    refused = ask(restricted, {"paths": ["assets/logo.png"]}, headers={"Origin": "https://evil.example"})
    assert (refused.status, refused.json()) == (403, REFUSED)


def test_a_signed_url_of_a_restricted_key_obeys_its_origins(restricted: str) -> None:
    url = sign(restricted, "assets/logo.png", headers={"Origin": SHOP})[0]
    refused = fetch(url, headers={"Origin": "https://evil.example"})
    assert (refused.status, refused.json()) == (403, REFUSED)
    assert refused.header("Access-Control-Allow-Origin") is None
    allowed = fetch(url, headers={"Origin": SHOP})
    assert (allowed.status, allowed.body, allowed.header("Access-Control-Allow-Origin")) == (200, b"logo", SHOP)
    assert {"origin", "authorization"} <= vary(allowed)
    plain = fetch(url, headers={"Origin": None})  # an <img> without crossorigin sends no Origin
    assert plain.status == 200 and plain.header("Access-Control-Allow-Origin") is None


def test_the_planes_own_origin_list_still_applies(restricted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAIN_ALLOW_ORIGIN", STAGING)
    get_settings.cache_clear()
    assert whoami(restricted, SHOP).header("Access-Control-Allow-Origin") is None
    assert whoami(restricted, STAGING).header("Access-Control-Allow-Origin") == STAGING
