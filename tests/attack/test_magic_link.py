"""Magic-link sign-in under attack: replay, expiry, redirecting a token to another address, guessing,
and telling known from unknown addresses (services/identity.py, repositories/users.py)."""

from __future__ import annotations

import hashlib
import json
import secrets
import time

import pytest

from tests.support.attack import magic_token, post_json, verify
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

REFUSED = (401, "UNAUTHORIZED")


def code(reply: Reply) -> tuple[int, str]:
    return reply.status, reply.json()["code"]


def test_a_consumed_link_cannot_be_used_again(service: LocalService) -> None:
    token = magic_token(service, "attack.replay@example.org")
    first = verify(service, token)
    assert first.status == 200 and first.json()["user"]["email"] == "attack.replay@example.org"
    for _ in range(3):
        again = verify(service, token)
        assert code(again) == REFUSED
        assert again.header("set-cookie") is None  # no session for a replay


def test_an_expired_link_is_refused(service: LocalService) -> None:
    """A genuine link whose 15 minutes have passed (its stored expiry moved into the past, as time would)."""
    from core.identity.store import UserStore
    from stack.template import Stack, load

    token = magic_token(service, "attack.late@example.org")
    users = UserStore(service.aws("dynamodb"), Stack(load()).physical_name("MainTable"))
    users.put_magic_token(hashlib.sha256(token.encode()).hexdigest(), "attack.late@example.org", int(time.time()) - 1)
    reply = verify(service, token)
    assert code(reply) == REFUSED and reply.header("set-cookie") is None


def test_a_link_cannot_be_redirected_to_another_address(service: LocalService) -> None:
    """The token alone names the address: a body that also names a victim's is refused, and the token still
    signs in only its own address."""
    token = magic_token(service, "attack.mine@example.org")
    for extra in ({"email": "ava@northwind.example"}, {"userId": "usr_01AAAAAAAAAAAAAAAAAAAAAAAA"}):
        refused = post_json(service, "/api/auth/magic-link/verify", {"token": token} | extra)
        assert code(refused) == (400, "VALIDATION_ERROR")
    signed_in = verify(service, token)
    assert signed_in.status == 200 and signed_in.json()["user"]["email"] == "attack.mine@example.org"


def test_guessed_tokens_are_refused_alike(service: LocalService) -> None:
    """Random tokens of the real shape (32 bytes, URL-safe) and near misses: one identical 401 for all."""
    real = magic_token(service, "attack.guess@example.org")
    guesses = [secrets.token_urlsafe(32) for _ in range(10)]
    guesses += [real[:-1] + ("A" if real[-1] != "A" else "B"), real.upper(), real + "=", real[1:]]
    bodies = set()
    for guess in guesses:
        reply = verify(service, guess)
        assert code(reply) == REFUSED, guess
        bodies.add(reply.body)
    assert len(bodies) == 1
    assert verify(service, real).status == 200  # the guesses burned nothing


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"token": ""}, (400, "VALIDATION_ERROR")),
        ({"token": "x" * 10_000}, (400, "VALIDATION_ERROR")),
        ({"token": 123}, (400, "VALIDATION_ERROR")),
        ({"token": None}, (400, "VALIDATION_ERROR")),
        ({"token": ["a", "b"]}, (400, "VALIDATION_ERROR")),
        ({"token": {"$ne": ""}}, (400, "VALIDATION_ERROR")),
        ({}, (400, "VALIDATION_ERROR")),
    ],
)
def test_malformed_tokens_are_a_400(service: LocalService, body: dict, expected: tuple[int, str]) -> None:
    assert code(post_json(service, "/api/auth/magic-link/verify", body)) == expected


def test_known_and_unknown_addresses_get_the_same_answer(service: LocalService) -> None:
    """Nothing in the answer (status, body, header names) tells whether an address has an account."""
    replies = [post_json(service, "/api/auth/magic-link", {"email": email})
               for email in ("ava@northwind.example", "nobody.at.all@example.org")]  # fmt: skip
    known, unknown = replies
    assert (known.status, known.body) == (unknown.status, unknown.body) == (202, b'{"sent":true}')
    ignore = {"date", "content-length"}
    assert {h for h in known.headers if h not in ignore} == {h for h in unknown.headers if h not in ignore}


def test_the_session_cookie_is_the_only_way_to_a_jwt(service: LocalService) -> None:
    """``api-token`` wants a live session cookie: a forged, empty or token-shaped cookie is 401."""
    token = magic_token(service, "attack.cookie@example.org")
    for cookie in ("session=forged", "session=", f"session={token}", f"session={secrets.token_urlsafe(32)}",
                   "Session=x; session=", "other=1"):  # fmt: skip
        reply = service.request("POST", f"{service.portal}/api/auth/api-token", headers={"Cookie": cookie})
        assert code(reply) == REFUSED, cookie
    assert json.loads(verify(service, token).body)["user"]["email"] == "attack.cookie@example.org"
