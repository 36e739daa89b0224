"""The portal session on ``httpx.MockTransport``: the JWT is renewed before it expires, by refresh or the cookie."""

from __future__ import annotations

import asyncio
import base64
import json
import time

import httpx
import pytest
from workspace_client import AsyncPortal, AuthError, Portal, TokenExpiredError
from workspace_client._session import jwt_expiry, magic_link_token

ACCOUNT = {
    "id": "usr_1",
    "email": "a@b.example",
    "name": "A",
    "image": "",
    "role": "user",
    "workspaceId": None,
    "createdAt": "2026-01-01T00:00:00.000Z",
}


def jwt(exp: float, marker: str) -> str:
    def part(document: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(document).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'HS256'})}.{part({'exp': int(exp), 'jti': marker})}.signature"


class FakePortal:
    """The portal's session routes as the service answers them; every other route needs the current JWT."""

    def __init__(self, *, expired_after_refresh: bool = False) -> None:
        self.calls: list[tuple[str, str | None]] = []
        self.current = jwt(time.time() + 3600, "first")
        self.expired_after_refresh = expired_after_refresh

    def __call__(self, request: httpx.Request) -> httpx.Response:
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ") or None
        path = request.url.path
        self.calls.append((path, bearer))
        if path == "/api/auth/magic-link/verify":
            assert json.loads(request.content) == {"token": "tok_123456789"}
            return httpx.Response(
                200, json={"user": ACCOUNT}, headers={"Set-Cookie": "session=s3cr3t; Path=/; HttpOnly"}
            )
        if path == "/api/auth/api-token":
            if "session=s3cr3t" not in request.headers.get("cookie", ""):
                return httpx.Response(401, json={"error": "no", "code": "UNAUTHORIZED"})
            self.current = jwt(time.time() + 3600, f"minted{len(self.calls)}")
            return httpx.Response(200, json={"token": self.current})
        if path == "/api/auth/refresh":
            if bearer != self.current or (jwt_expiry(bearer) or 0) < time.time():
                return httpx.Response(401, json={"error": "expired", "code": "TOKEN_EXPIRED"})
            self.current = jwt(time.time() + 3600, f"refreshed{len(self.calls)}")
            return httpx.Response(200, json={"token": self.current})
        if bearer != self.current or self.expired_after_refresh:
            self.expired_after_refresh = False
            return httpx.Response(401, json={"error": "expired", "code": "TOKEN_EXPIRED"})
        return httpx.Response(200, json=ACCOUNT)


def test_magic_link_sign_in_keeps_the_cookie_and_mints_a_jwt() -> None:
    fake = FakePortal()
    portal = Portal("http://portal.test", transport=httpx.MockTransport(fake))
    account = portal.sign_in_with_magic_link("http://app.test/sign-in?token=tok_123456789")
    assert account.email == "a@b.example" and portal.session_cookie == "s3cr3t"
    assert portal.get_account().id == "usr_1"
    assert [path for path, _ in fake.calls] == [
        "/api/auth/magic-link/verify",
        "/api/auth/api-token",
        "/api/user/account",
    ]
    assert magic_link_token("tok_123456789") == "tok_123456789"


def test_a_token_about_to_expire_is_refreshed_before_the_call() -> None:
    fake = FakePortal()
    fake.current = jwt(time.time() + 30, "short")  # inside the two-minute margin
    portal = Portal("http://portal.test", token=fake.current, transport=httpx.MockTransport(fake))
    portal.get_account()
    assert [path for path, _ in fake.calls] == ["/api/auth/refresh", "/api/user/account"]
    assert portal.token == fake.current and (jwt_expiry(portal.token) or 0) > time.time() + 3000


def test_an_expired_token_is_replaced_through_the_session_cookie() -> None:
    fake = FakePortal()
    stale = jwt(time.time() - 10, "stale")
    portal = Portal("http://portal.test", token=stale, session="s3cr3t", transport=httpx.MockTransport(fake))
    portal.get_account()
    assert [path for path, _ in fake.calls] == ["/api/auth/api-token", "/api/user/account"]


def test_token_expired_from_the_service_renews_once_and_repeats_the_call() -> None:
    """The client's clock said the JWT was valid, the service's did not (skew): refresh cannot help, the cookie does."""
    fake = FakePortal(expired_after_refresh=True)
    portal = Portal("http://portal.test", token=fake.current, session="s3cr3t", transport=httpx.MockTransport(fake))
    assert portal.get_account().id == "usr_1"
    assert [path for path, _ in fake.calls] == ["/api/user/account", "/api/auth/api-token", "/api/user/account"]
    fake.expired_after_refresh = True
    with pytest.raises(TokenExpiredError):  # no cookie: raised, not repeated in vain
        Portal("http://portal.test", token=fake.current, transport=httpx.MockTransport(fake)).get_account()


def test_without_token_or_cookie_the_service_refuses() -> None:
    fake = FakePortal()
    with pytest.raises(AuthError):
        Portal("http://portal.test", transport=httpx.MockTransport(fake)).get_account()


def test_the_async_portal_renews_the_same_way() -> None:
    fake = FakePortal()
    fake.current = jwt(time.time() + 5, "short")

    async def run() -> str:
        async with AsyncPortal("http://portal.test", token=fake.current, transport=httpx.MockTransport(fake)) as portal:
            return (await portal.get_account()).id

    assert asyncio.run(run()) == "usr_1"
    assert [path for path, _ in fake.calls] == ["/api/auth/refresh", "/api/user/account"]


def test_jwt_expiry_reads_exp_without_verifying_and_tolerates_garbage() -> None:
    assert jwt_expiry(jwt(1234, "x")) == 1234
    assert jwt_expiry("not a jwt") is None and jwt_expiry("a.%%%.c") is None
