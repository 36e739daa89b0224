"""The ``session`` cookie's flags (decisions.md: HttpOnly, SameSite=Lax, Path=/, 30 days, Secure except on
plain-http local runs) and its end at logout (core/platform/cookies.py, functions/portal/auth_*)."""

from __future__ import annotations

import pytest

from core.platform.cookies import clear_session_cookie, session_cookie
from core.platform.settings import Settings
from tests.support.attack import magic_token, portal, verify
from tests.support.lambdas import stack
from tests.support.runner import LocalService

pytestmark = pytest.mark.attack

THIRTY_DAYS = 30 * 24 * 3600


def attributes(set_cookie: str) -> tuple[str, dict[str, str]]:
    """``(name=value, {attribute (lower case): value})`` of one Set-Cookie header."""
    pair, *rest = (part.strip() for part in set_cookie.split(";"))
    attrs = {}
    for item in rest:
        name, _, value = item.partition("=")
        attrs[name.lower()] = value
    return pair, attrs


def test_the_session_cookie_is_httponly_lax_and_site_wide(service: LocalService) -> None:
    signed_in = verify(service, magic_token(service, "attack.flags@example.org"))
    assert signed_in.status == 200
    pair, attrs = attributes(signed_in.required_header("set-cookie"))
    name, _, value = pair.partition("=")
    assert name == "session" and len(value) >= 32  # an opaque random token
    assert "httponly" in attrs  # no script can read it
    assert attrs["samesite"] == "Lax"  # not sent on cross-site POSTs
    assert attrs["path"] == "/"
    assert attrs["max-age"] == str(THIRTY_DAYS)
    assert "domain" not in attrs  # host-only: never shared with sibling subdomains
    # The local runner serves plain http (COOKIE_SECURE=false); the deployed default is checked below.
    assert "secure" not in attrs


def test_secure_is_on_wherever_the_template_deploys_the_sign_in_functions() -> None:
    """No function of the template turns ``COOKIE_SECURE`` off, the setting defaults to on, and then the
    cookie the handlers build carries ``Secure``."""
    for name, function in stack().functions().items():
        assert function.environment.get("COOKIE_SECURE", "true").lower() not in ("false", "0", "no"), name
    assert Settings.model_validate({"MAIN_TABLE": "t", "API_KEYS_TABLE": "t", "LEDGER_TABLE": "t",
                                    "RATE_LIMITS_TABLE": "t", "CONTENT_BUCKET": "b"}).cookie_secure is True  # fmt: skip
    for built in (session_cookie("t", THIRTY_DAYS, secure=True), clear_session_cookie(secure=True)):
        assert "secure" in attributes(built)[1]


def test_logout_clears_the_cookie_and_ends_the_session(service: LocalService) -> None:
    signed_in = verify(service, magic_token(service, "attack.bye@example.org"))
    cookie = signed_in.required_header("set-cookie").split(";", 1)[0]
    jwt = service.request("POST", f"{service.portal}/api/auth/api-token", headers={"Cookie": cookie}).json()["token"]
    out = service.request("POST", f"{service.portal}/api/auth/logout", headers={"Cookie": cookie})
    assert (out.status, out.json()) == (200, {})
    pair, attrs = attributes(out.required_header("set-cookie"))
    assert pair == "session=" and attrs["max-age"] == "0"
    assert "httponly" in attrs and attrs["path"] == "/" and attrs["samesite"] == "Lax"
    # The old cookie (kept by an attacker who copied it) is dead, and so is every JWT of its session.
    again = service.request("POST", f"{service.portal}/api/auth/api-token", headers={"Cookie": cookie})
    assert (again.status, again.json()["code"]) == (401, "UNAUTHORIZED")
    assert portal(service, "GET", "/api/user/account", jwt).status == 401
