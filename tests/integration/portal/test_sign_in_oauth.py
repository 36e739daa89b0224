"""Google and Apple sign-in: ID tokens verified against the provider's JWKS, iss, aud, exp, verified e-mail."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jwt
import pytest

from core.platform import providers as platform_providers
from tests.support.idp import CLIENT_ID, IdentityProviders, forge, new_key, public_pem
from tests.support.portal import JSON, Portal, assert_error


def sign_in(portal: Portal, provider: str, id_token: Any):
    body = {"idToken": id_token}
    return portal.call("PortalOAuthFunction", params={"provider": provider}, body=body)


@pytest.mark.parametrize("provider", ["google", "apple"])
def test_first_sign_in_creates_the_user_and_a_session(portal: Portal, idp: IdentityProviders, provider: str) -> None:
    result = sign_in(portal, provider, idp.token(provider, "New.Person@Example.com"))
    assert (result.status, result.header("Content-Type")) == (200, JSON), result.body
    user = result.json()["user"]
    assert user == {
        "id": user["id"], "email": "new.person@example.com", "name": "OAuth User",
        "image": "https://example.com/me.png", "role": "user", "workspaceId": None, "createdAt": user["createdAt"],
    }  # fmt: skip
    cookie = result.header("Set-Cookie")
    assert cookie is not None and cookie.startswith("session=")
    assert all(part in cookie.split("; ") for part in ("HttpOnly", "SameSite=Lax", "Path=/", "Secure"))
    minted = portal.api_token(cookie.split(";", 1)[0])
    assert minted.status == 200 and set(minted.json()) == {"token"}
    stored = portal.users.get(user["id"])
    assert stored is not None and stored.plan == "free"


@pytest.mark.parametrize("provider", ["google", "apple"])
def test_same_email_is_the_same_user(portal: Portal, idp: IdentityProviders, provider: str) -> None:
    magic = portal.sign_in("both@example.com")
    first = sign_in(portal, provider, idp.token(provider, "both@example.com"))
    second = sign_in(portal, provider, idp.token(provider, "BOTH@example.com", sub="another-subject"))
    assert first.json()["user"]["id"] == second.json()["user"]["id"] == magic.user_id


def test_google_accepts_its_issuer_without_scheme(portal: Portal, idp: IdentityProviders) -> None:
    assert sign_in(portal, "google", idp.token("google", iss="accounts.google.com")).status == 200


def test_email_verified_may_be_the_string_true(portal: Portal, idp: IdentityProviders) -> None:
    assert sign_in(portal, "google", idp.token("google", email_verified="true")).status == 200


def _bad_tokens(idp: IdentityProviders, provider: str) -> dict[str, str]:
    claims = idp.claims(provider)
    kid = idp.kids[provider]
    other = "apple" if provider == "google" else "google"
    return {
        "wrong aud": idp.token(provider, aud="someone-elses-client"),
        "other provider's aud": idp.token(provider, aud=CLIENT_ID[other]),
        "wrong iss": idp.token(provider, iss="https://evil.example.com"),
        "other provider's iss": idp.token(provider, iss=idp.claims(other)["iss"]),
        "expired": idp.token(provider, iat=int(time.time()) - 7200, exp=int(time.time()) - 3600),
        "no exp": idp.token(provider, exp=None),
        "no sub": idp.token(provider, sub=None),
        "unknown kid": idp.token(provider, key=new_key(), kid="rotated-away"),
        "other provider's key": idp.token(provider, key=idp.keys[other], kid=idp.kids[other]),
        "bad signature": idp.token(provider, key=new_key()),
        "alg none": forge({"alg": "none", "kid": kid, "typ": "JWT"}, claims, None),
        "HS256 with the public key": forge({"alg": "HS256", "kid": kid}, claims, public_pem(idp.keys[provider])),
        "email not verified": idp.token(provider, email_verified=False),
        "email_verified missing": idp.token(provider, email_verified=None),
        "no email": idp.token(provider, email=None),
        "email without @": idp.token(provider, email="not-an-address"),
        "not a jwt": "not.a.jwt",
    }


@pytest.mark.parametrize("provider", ["google", "apple"])
def test_every_bad_id_token_is_401(portal: Portal, idp: IdentityProviders, provider: str) -> None:
    failures = {}
    for case, token in _bad_tokens(idp, provider).items():
        result = sign_in(portal, provider, token)
        if (result.status, result.json().get("code")) != (401, "UNAUTHORIZED") or result.header("Set-Cookie"):
            failures[case] = (result.status, result.body)
    assert failures == {}
    assert portal.users.find_by_email("oauth.user@example.com") is None


def test_unknown_provider_is_404(portal: Portal, idp: IdentityProviders) -> None:
    assert_error(sign_in(portal, "github", idp.token("google")), 404, "NOT_FOUND")


@pytest.mark.parametrize("provider", ["google", "apple"])
def test_provider_without_client_ids_refuses_every_token(
    portal: Portal, idp: IdentityProviders, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"{provider.upper()}_CLIENT_IDS", " , ")
    platform_providers.reset()
    assert_error(sign_in(portal, provider, idp.token(provider)), 401, "UNAUTHORIZED")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"idToken": ""},
        {"idToken": 5},
        {"idToken": "x", "more": 1},
        {"id_token": "x"},
    ],
)
def test_malformed_body_is_400(portal: Portal, idp: IdentityProviders, body: dict[str, Any]) -> None:
    result = portal.call("PortalOAuthFunction", params={"provider": "google"}, body=body)
    assert_error(result, 400, "VALIDATION_ERROR")


def test_a_rotated_signing_key_is_picked_up_after_a_minute(
    portal: Portal, idp: IdentityProviders, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sign_in(portal, "google", idp.token("google")).status == 200  # the JWKS is now cached
    rotated = new_key()
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rotated.public_key())) | {"kid": "google-key-2"}
    Path(idp.urls["google"].removeprefix("file://")).write_text(json.dumps({"keys": [jwk]}))
    token = idp.token("google", key=rotated, kid="google-key-2")
    assert_error(sign_in(portal, "google", token), 401, "UNAUTHORIZED")  # refetched at most once a minute
    later = time.monotonic() + 61
    monkeypatch.setattr("core.identity.oidc.time", SimpleNamespace(monotonic=lambda: later))
    assert sign_in(portal, "google", token).status == 200


def test_a_sign_in_moves_the_account_off_a_deleted_active_workspace(portal: Portal, idp: IdentityProviders) -> None:
    """The account a sign-in answers names a live workspace: the active one deleted, the oldest live membership."""
    owner = portal.sign_in("mover@example.com", plan="pro")
    kept = portal.create_workspace(owner, "Kept")
    doomed = portal.create_workspace(owner, "Doomed")
    portal.users.set_active_workspace(owner.user_id, doomed["id"])
    deleted = portal.call("PortalWorkspaceDeleteFunction", token=owner.token, params={"workspaceId": doomed["id"]})
    assert (deleted.status, deleted.json()) == (200, {"deleted": True})
    portal.users.set_active_workspace(owner.user_id, doomed["id"])  # as a session that chose it before the deletion
    result = sign_in(portal, "google", idp.token("google", "mover@example.com"))
    assert (result.status, result.json()["user"]["workspaceId"]) == (200, kept["id"])
    stored = portal.users.get(owner.user_id)
    assert stored is not None and stored.active_workspace_id == kept["id"]
