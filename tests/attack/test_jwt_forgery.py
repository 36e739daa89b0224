"""Forged and tampered portal JWTs against the management plane (core/identity/portal_jwt.py, services/identity.py).

Tokens that are validly signed with the service's own secret but wrong in exactly one claim show that each
check holds by itself, not just the signature.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any

import pytest

from tests.support.attack import Cast, b64url, claims_of, forge, jwt_secret, portal, sign_in
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

UNAUTHORIZED = "UNAUTHORIZED"


def account(service: LocalService, token: str) -> Reply:
    return portal(service, "GET", "/api/user/account", token)


def assert_refused(reply: Reply, code: str = UNAUTHORIZED) -> None:
    assert (reply.status, reply.json()["code"]) == (401, code), reply.body
    assert reply.required_header("content-type").startswith("application/json")


def hs256(header: dict[str, Any], claims: dict[str, Any], key: bytes) -> str:
    """A JWT signed by hand: PyJWT will not sign with an empty key or under a lying header."""
    signing_input = f"{b64url(header)}.{b64url(claims)}"
    signature = hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64url(signature)}"


@pytest.fixture(scope="module")
def genuine(service: LocalService, cast: Cast) -> dict[str, Any]:
    """The claims of a live token of the demo's owner of workspace A (sub and sid are real)."""
    return claims_of(service, cast.owner_a.jwt)


def test_the_genuine_token_works(service: LocalService, cast: Cast) -> None:
    assert account(service, cast.owner_a.jwt).status == 200


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "nOnE"])
def test_alg_none_is_refused(service: LocalService, genuine: dict[str, Any], alg: str) -> None:
    unsigned = f"{b64url({'alg': alg, 'typ': 'JWT'})}.{b64url(genuine)}."
    assert_refused(account(service, unsigned))
    # An alg:none header in front of a real signature is no better.
    signed = hs256({"alg": "HS256", "typ": "JWT"}, genuine, jwt_secret(service))
    assert_refused(account(service, f"{b64url({'alg': alg})}.{signed.split('.', 1)[1]}"))


@pytest.mark.parametrize("public_value", [b"", b"service-portal", b"service-api", b"null", b"{}"])
def test_hs256_signed_with_a_public_value_is_refused(
    service: LocalService, genuine: dict[str, Any], public_value: bytes
) -> None:
    """Algorithm confusion: a symmetric signature keyed with something an attacker can know."""
    assert_refused(account(service, hs256({"alg": "HS256", "typ": "JWT"}, genuine, public_value)))


@pytest.mark.parametrize("alg", ["RS256", "ES256", "PS256", "HS384", "HS512", "EdDSA"])
def test_other_algorithms_with_the_real_secret_are_refused(
    service: LocalService, genuine: dict[str, Any], alg: str
) -> None:
    """The header's ``alg`` is never trusted: an HMAC under the real secret behind another ``alg`` is refused,
    and so is a genuine HS384/HS512 signature (HS256 only, decisions.md)."""
    secret = jwt_secret(service)
    if alg in ("HS384", "HS512"):
        token = forge(genuine, secret, alg)
    else:
        token = hs256({"alg": alg, "typ": "JWT"}, genuine, secret)
    assert_refused(account(service, token))


def test_a_token_signed_with_another_secret_is_refused(service: LocalService, genuine: dict[str, Any]) -> None:
    assert_refused(account(service, forge(genuine, b"k" * 64)))


@pytest.mark.parametrize(
    "header",
    [
        {"kid": "../../../../dev/null"},
        {"kid": "' OR 1=1 --"},
        {"jku": "https://attacker.example/jwks.json"},
        {"x5u": "https://attacker.example/cert.pem"},
        {"jwk": {"kty": "oct", "k": b64url(b"k" * 64)}},
    ],
)
def test_key_selection_headers_are_ignored(
    service: LocalService, genuine: dict[str, Any], header: dict[str, Any]
) -> None:
    """``kid``/``jku``/``x5u``/``jwk`` never choose the key: the attacker's key is refused, and the real key
    still verifies (the header was ignored, not honoured)."""
    attacker_key = b"k" * 64
    assert_refused(account(service, forge(genuine, attacker_key, headers=header)))
    assert account(service, forge(genuine, jwt_secret(service), headers=header)).status == 200


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"iss": "someone-else"}, UNAUTHORIZED),
        ({"iss": ["service-portal"]}, UNAUTHORIZED),
        ({"aud": "another-api"}, UNAUTHORIZED),
        ({"aud": ["another-api"]}, UNAUTHORIZED),
        ({"sub": "usr_01AAAAAAAAAAAAAAAAAAAAAAAA"}, UNAUTHORIZED),  # a session belongs to one user
        ({"sid": "ses_01AAAAAAAAAAAAAAAAAAAAAAAA"}, UNAUTHORIZED),  # no such session
        ({"sub": ""}, UNAUTHORIZED),
        ({"exp": "9999999999"}, UNAUTHORIZED),  # a string, not a NumericDate
        ({"iat": True}, UNAUTHORIZED),
    ],
)
def test_validly_signed_tokens_with_a_wrong_claim_are_refused(
    service: LocalService, genuine: dict[str, Any], change: dict[str, Any], code: str
) -> None:
    token = hs256({"alg": "HS256", "typ": "JWT"}, genuine | change, jwt_secret(service))  # PyJWT won't sign a list iss
    assert_refused(account(service, token), code)


@pytest.mark.parametrize("claim", ["iss", "aud", "sub", "sid", "iat", "exp", "jti"])
def test_a_missing_required_claim_is_refused(service: LocalService, genuine: dict[str, Any], claim: str) -> None:
    claims = {k: v for k, v in genuine.items() if k != claim}
    assert_refused(account(service, forge(claims, jwt_secret(service))))


def test_an_expired_token_is_token_expired(service: LocalService, genuine: dict[str, Any]) -> None:
    now = int(time.time())
    token = forge(genuine | {"iat": now - 7200, "exp": now - 3600}, jwt_secret(service))
    assert_refused(account(service, token), "TOKEN_EXPIRED")
    # Expiry is judged last: someone else's expired token with a wrong audience learns nothing about refresh.
    assert_refused(account(service, forge(genuine | {"exp": now - 10, "aud": "x"}, jwt_secret(service))))
    # And an expired token cannot be refreshed.
    assert_refused(portal(service, "POST", "/api/auth/refresh", token), "TOKEN_EXPIRED")


@pytest.mark.parametrize("claims", [{"iat": 3600}, {"nbf": 3600}, {"iat": 3600, "nbf": 3600}])
def test_tokens_from_the_future_are_refused(
    service: LocalService, genuine: dict[str, Any], claims: dict[str, int]
) -> None:
    now = int(time.time())
    future = {name: now + offset for name, offset in claims.items()} | {"exp": now + 7200}
    assert_refused(account(service, forge(genuine | future, jwt_secret(service))))


def test_a_token_of_a_logged_out_session_is_refused(service: LocalService) -> None:
    person = sign_in(service, "attack.logout@example.org")
    refreshed = portal(service, "POST", "/api/auth/refresh", person.jwt).json()["token"]
    out = service.request("POST", f"{service.portal}/api/auth/logout", headers={"Cookie": person.cookie})
    assert out.status == 200
    for token in (person.jwt, refreshed):
        assert_refused(account(service, token))
        assert_refused(portal(service, "POST", "/api/auth/refresh", token))
    # Re-signing the same claims does not revive the session: the session record is gone, not the token.
    assert_refused(account(service, forge(claims_of(service, person.jwt), jwt_secret(service))))


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda t: t[:-6], id="truncated-signature"),
        pytest.param(lambda t: t.rsplit(".", 1)[0], id="no-signature-segment"),
        pytest.param(lambda t: t.rsplit(".", 1)[0] + ".", id="empty-signature"),
        pytest.param(lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), id="flipped-signature-char"),
        pytest.param(lambda t: t + ".extra", id="four-segments"),
        pytest.param(lambda t: "!!!." + t.split(".", 1)[1], id="non-base64-header"),
        pytest.param(lambda t: t.split(".")[0] + ".%%%." + t.split(".")[2], id="non-base64-payload"),
        pytest.param(lambda t: t.split(".")[0] + "." + b64url(b"not json") + "." + t.split(".")[2], id="non-json"),
        pytest.param(lambda t: t.split(".")[0] + "." + b64url(b"[1,2]") + "." + t.split(".")[2], id="json-array"),
        pytest.param(lambda t: " ." * 3, id="dots-only"),
        pytest.param(lambda t: t.replace(".", ".\u00e9", 1), id="non-ascii"),
    ],
)
def test_malformed_tokens_are_refused(service: LocalService, cast: Cast, mangle: Any) -> None:
    reply = service.request(
        "GET",
        f"{service.portal}/api/user/account",
        headers={"Authorization": f"Bearer {mangle(cast.owner_a.jwt)}".encode().decode("latin-1")},
    )
    assert_refused(reply)


def test_a_tampered_payload_keeps_the_original_signature_and_is_refused(
    service: LocalService, cast: Cast, genuine: dict[str, Any]
) -> None:
    header, _, signature = cast.owner_a.jwt.split(".")
    other = sign_in(service, "attack.victim@example.org")
    swapped = genuine | {"sub": other.user_id}
    assert_refused(account(service, f"{header}.{b64url(swapped)}.{signature}"))


def test_a_large_token_is_a_json_401(service: LocalService, genuine: dict[str, Any]) -> None:
    """6 KB: within API Gateway's 10 KiB request head, so the application itself answers."""
    token = forge(genuine | {"pad": "a" * 6_000}, b"k" * 64)
    assert_refused(account(service, token))


@pytest.mark.parametrize("size", [12_000, 70_000, 100_000])
def test_an_oversized_token_is_a_json_refusal_never_a_500(
    service: LocalService, genuine: dict[str, Any], size: int
) -> None:
    """Validly signed, but past the gateway's header limit: refused before any function runs, still JSON."""
    reply = account(service, forge(genuine | {"pad": "a" * size}, jwt_secret(service)))
    assert reply.status in (401, 413, 431), reply.status
    assert set(reply.json()) == {"error", "code"}


def test_a_workspace_key_is_not_a_portal_token(service: LocalService) -> None:
    assert_refused(account(service, service.demo["workspaces"][0]["key"]))
