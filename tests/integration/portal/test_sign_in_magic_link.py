"""Magic-link sign-in: request (202 either way), verify (cookie + Account), single use, expiry, races."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from core.platform.settings import get_settings
from tests.support.portal import JSON, Portal, assert_error, event_for, invoke_isolated

COOKIE = r"^session=[A-Za-z0-9_-]{43}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax"


def test_link_is_mailed_for_unknown_and_known_addresses_with_the_same_answer(portal: Portal) -> None:
    portal.sign_in("known@example.com")
    answers = [portal.call("PortalMagicLinkFunction", body={"email": e}) for e in ("known@example.com", "x@y.org")]
    assert [(a.status, a.header("Content-Type"), a.json()) for a in answers] == [(202, JSON, {"sent": True})] * 2
    mail = portal.mails("x@y.org")[-1]
    assert set(mail) == {"to", "subject", "text", "link"}
    assert mail["link"].startswith("http://localhost:5173?token=") and mail["link"] in mail["text"]
    assert "15 minutes" in mail["text"]


def test_address_is_trimmed_and_lower_cased(portal: Portal) -> None:
    first = portal.verify(portal.request_link(" Mixed.Case@Example.COM "))
    again = portal.verify(portal.request_link("MIXED.case@example.com"))
    assert first.json()["user"]["email"] == "mixed.case@example.com"
    assert again.json()["user"]["id"] == first.json()["user"]["id"]


@pytest.mark.parametrize("email", ["not-an-email", "a@b", "two@@example.com", "sp ace@example.com", 42, None, ""])
def test_invalid_address_is_400(portal: Portal, email: object) -> None:
    assert_error(portal.call("PortalMagicLinkFunction", body={"email": email}), 400, "VALIDATION_ERROR")
    assert portal.mails() == []


@pytest.mark.parametrize("body", ["{not json", "[]", "{}", '{"email": "a@example.com", "extra": 1}'])
def test_malformed_request_body_is_400(portal: Portal, body: str) -> None:
    assert_error(portal.call("PortalMagicLinkFunction", body=body), 400, "VALIDATION_ERROR")


def test_verify_starts_a_session_and_creates_the_user_on_first_sign_in(portal: Portal) -> None:
    verified = portal.verify(portal.request_link("first@example.com"))
    assert (verified.status, verified.header("Content-Type")) == (200, JSON)
    user = verified.json()["user"]
    assert set(verified.json()) == {"user"}
    assert user == {
        "id": user["id"], "email": "first@example.com", "name": "", "image": "", "role": "user",
        "workspaceId": None, "createdAt": user["createdAt"],
    }  # fmt: skip
    assert user["id"].startswith("usr_")
    cookie = verified.header("Set-Cookie")
    assert cookie is not None and re.match(COOKIE + "; Secure$", cookie), cookie
    stored = portal.users.get(user["id"])
    assert stored is not None and (stored.plan, stored.email) == ("free", "first@example.com")


def test_cookie_is_not_secure_on_plain_http_local_runs(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.platform import providers as platform_providers

    monkeypatch.setenv("COOKIE_SECURE", "false")
    platform_providers.reset()
    cookie = portal.verify(portal.request_link("local@example.com")).header("Set-Cookie")
    assert cookie is not None and "Secure" not in cookie and "HttpOnly" in cookie


def test_second_sign_in_is_the_same_user(portal: Portal) -> None:
    first, second = portal.sign_in("twice@example.com"), portal.sign_in("twice@example.com")
    assert first.user_id == second.user_id and first.cookie != second.cookie


def test_token_is_single_use(portal: Portal) -> None:
    token = portal.request_link("once@example.com")
    assert portal.verify(token).status == 200
    second = portal.verify(token)
    assert_error(second, 401, "UNAUTHORIZED")
    assert second.header("Set-Cookie") is None


def test_unknown_token_is_401(portal: Portal) -> None:
    portal.request_link("someone@example.com")
    assert_error(portal.verify("made-up-token"), 401, "UNAUTHORIZED")


def test_empty_or_missing_token_is_400(portal: Portal) -> None:
    assert_error(portal.verify(""), 400, "VALIDATION_ERROR")
    assert_error(portal.call("PortalMagicLinkVerifyFunction", body={}), 400, "VALIDATION_ERROR")


def test_expired_token_is_401_and_burnt(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> None:
    token = portal.request_link("late@example.com")
    later = time.time() + 15 * 60 + 1
    monkeypatch.setattr("core.identity.store.time", SimpleNamespace(time=lambda: later))
    assert_error(portal.verify(token), 401, "UNAUTHORIZED")
    monkeypatch.undo()
    assert_error(portal.verify(token), 401, "UNAUTHORIZED")


def test_token_is_valid_until_its_fifteen_minutes_are_over(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> None:
    token = portal.request_link("in-time@example.com")
    nearly = time.time() + 15 * 60 - 5
    monkeypatch.setattr("core.identity.store.time", SimpleNamespace(time=lambda: nearly))
    assert portal.verify(token).status == 200


def test_concurrent_verifications_of_one_token_sign_in_once(portal: Portal) -> None:
    token = portal.request_link("race@example.com")
    portal.call("PortalAccountFunction")  # warm the shared clients before the threads start

    def verify(_: int):
        return invoke_isolated("PortalMagicLinkVerifyFunction", event_for("PortalMagicLinkVerifyFunction", body={
            "token": token}))  # fmt: skip

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(verify, range(8)))
    assert sorted(r.status for r in results) == [200] + [401] * 7
    assert len({r.json()["user"]["id"] for r in results if r.status == 200}) == 1


def test_concurrent_first_sign_ins_of_one_address_make_one_user(portal: Portal) -> None:
    tokens = [portal.request_link("newcomer@example.com") for _ in range(5)]  # the per-address mail limit

    def verify(token: str):
        event = event_for("PortalMagicLinkVerifyFunction", body={"token": token})
        return invoke_isolated("PortalMagicLinkVerifyFunction", event)

    with ThreadPoolExecutor(5) as pool:
        results = list(pool.map(verify, tokens))
    assert [r.status for r in results] == [200] * 5
    assert len({r.json()["user"]["id"] for r in results}) == 1


def test_tokens_and_sessions_are_stored_only_as_hashes(portal: Portal) -> None:
    token = portal.request_link("hashed@example.com")
    cookie = portal.verify(token).header("Set-Cookie")
    assert cookie is not None
    session_token = cookie.split(";", 1)[0].removeprefix("session=")
    stored = str(portal.aws.dynamodb.scan(TableName=get_settings().main_table)["Items"])
    assert token not in stored and session_token not in stored
