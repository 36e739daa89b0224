"""The portal JWT: minting from the session cookie, its claims, refresh, and logout by cookie or bearer."""

from __future__ import annotations

import os
import time

import jwt
import pytest

from tests.support.portal import JSON, Portal, assert_error


def secret(portal: Portal) -> bytes:
    found = portal.aws.secrets.get_secret_value(SecretId=os.environ["PORTAL_JWT_SECRET_ID"])
    return found["SecretString"].encode()


def claims_of(portal: Portal, token: str) -> dict:
    return jwt.decode(token, secret(portal), algorithms=["HS256"], audience="service-api", issuer="service-portal")


@pytest.mark.parametrize("cookie", [None, "session=", "session=unknown-session-token", "other=1", "garbage"])
def test_api_token_needs_a_live_session_cookie(portal: Portal, cookie: str | None) -> None:
    portal.sign_in("someone@example.com")
    result = portal.api_token(cookie)
    assert_error(result, 401, "UNAUTHORIZED")


def test_api_token_reads_the_session_among_other_cookies(portal: Portal) -> None:
    session = portal.sign_in("cookies@example.com")
    result = portal.api_token(f"theme=dark; {session.cookie}; lang=en")
    assert (result.status, result.header("Content-Type")) == (200, JSON)


def test_token_claims(portal: Portal) -> None:
    before = int(time.time())
    session = portal.sign_in("claims@example.com")
    after = int(time.time())
    header = jwt.get_unverified_header(session.token)
    claims = claims_of(portal, session.token)
    assert header == {"alg": "HS256", "typ": "JWT"}
    assert set(claims) == {"iss", "aud", "sub", "sid", "iat", "exp", "jti"}
    assert (claims["iss"], claims["aud"], claims["sub"]) == ("service-portal", "service-api", session.user_id)
    assert claims["exp"] == claims["iat"] + 3600 and before <= claims["iat"] <= after  # issued now, however slowly
    assert claims["sid"].startswith("ses_") and len(claims["jti"]) >= 16


def test_each_minted_token_has_its_own_jti_and_the_same_session(portal: Portal) -> None:
    session = portal.sign_in("many@example.com")
    again = portal.api_token(session.cookie).json()["token"]
    first, second = claims_of(portal, session.token), claims_of(portal, again)
    assert first["jti"] != second["jti"] and first["sid"] == second["sid"]


def test_refresh_returns_a_new_valid_token_of_the_same_session(portal: Portal) -> None:
    session = portal.sign_in("refresh@example.com")
    result = portal.call("PortalRefreshFunction", token=session.token)
    assert (result.status, result.header("Content-Type")) == (200, JSON)
    assert set(result.json()) == {"token"}
    fresh = result.json()["token"]
    old, new = claims_of(portal, session.token), claims_of(portal, fresh)
    assert fresh != session.token and new["jti"] != old["jti"]
    assert (new["sub"], new["sid"]) == (old["sub"], old["sid"]) and new["exp"] == new["iat"] + 3600
    assert portal.call("PortalWorkspacesListFunction", token=fresh).status == 200


def test_refresh_needs_a_bearer_not_the_cookie(portal: Portal) -> None:
    session = portal.sign_in("cookie-only@example.com")
    result = portal.call("PortalRefreshFunction", headers={"Cookie": session.cookie})
    assert_error(result, 401, "UNAUTHORIZED")


def test_logout_by_cookie_ends_the_session_and_every_token(portal: Portal) -> None:
    session = portal.sign_in("bye@example.com")
    refreshed = portal.call("PortalRefreshFunction", token=session.token).json()["token"]
    out = portal.call("PortalLogoutFunction", headers={"Cookie": session.cookie})
    assert (out.status, out.header("Content-Type"), out.json()) == (200, JSON, {})
    assert out.header("Set-Cookie") == "session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure"
    for token in (session.token, refreshed):
        assert_error(portal.call("PortalWorkspacesListFunction", token=token), 401, "UNAUTHORIZED")
        assert_error(portal.call("PortalRefreshFunction", token=token), 401, "UNAUTHORIZED")
    assert_error(portal.api_token(session.cookie), 401, "UNAUTHORIZED")


def test_logout_by_bearer_ends_the_session_of_the_cookie_too(portal: Portal) -> None:
    session = portal.sign_in("bearer-bye@example.com")
    out = portal.call("PortalLogoutFunction", token=session.token)
    assert (out.status, out.json()) == (200, {})
    assert "Max-Age=0" in (out.header("Set-Cookie") or "")
    assert_error(portal.call("PortalWorkspacesListFunction", token=session.token), 401, "UNAUTHORIZED")
    assert_error(portal.api_token(session.cookie), 401, "UNAUTHORIZED")


def test_logout_ends_only_its_own_session(portal: Portal) -> None:
    laptop, phone = portal.sign_in("two-devices@example.com"), portal.sign_in("two-devices@example.com")
    portal.call("PortalLogoutFunction", headers={"Cookie": laptop.cookie})
    assert portal.call("PortalWorkspacesListFunction", token=phone.token).status == 200
    assert portal.call("PortalWorkspacesListFunction", token=laptop.token).status == 401


def test_logout_without_a_session_is_still_ok(portal: Portal) -> None:
    session = portal.sign_in("twice-out@example.com")
    portal.call("PortalLogoutFunction", headers={"Cookie": session.cookie})
    for headers in ({"Cookie": session.cookie}, {}):
        again = portal.call("PortalLogoutFunction", headers=headers)
        assert (again.status, again.json()) == (200, {}) and "Max-Age=0" in (again.header("Set-Cookie") or "")


def test_logout_with_an_invalid_bearer_is_401(portal: Portal) -> None:
    session = portal.sign_in("bad-bearer@example.com")
    assert_error(portal.call("PortalLogoutFunction", token="garbage", headers={"Cookie": session.cookie}), 401,
                 "UNAUTHORIZED")  # fmt: skip
    assert portal.call("PortalWorkspacesListFunction", token=session.token).status == 200


def test_portal_cors_allows_only_the_portal_origin_with_credentials(portal: Portal) -> None:
    session = portal.sign_in("cors@example.com")
    own = portal.call("PortalAccountFunction", token=session.token, headers={"Origin": "http://localhost:5173"})
    assert own.header("Access-Control-Allow-Origin") == "http://localhost:5173"
    assert own.header("Access-Control-Allow-Credentials") == "true"
    other = portal.call("PortalAccountFunction", token=session.token, headers={"Origin": "https://evil.example"})
    assert other.status == 200 and other.header("Access-Control-Allow-Origin") is None
