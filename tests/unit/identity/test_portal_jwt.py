"""core.identity.portal_jwt: HS256 only, iss/aud fixed, one hour, TOKEN_EXPIRED only for an expired good token."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import jwt
import pytest

from core.identity import portal_jwt
from core.identity.portal_jwt import PortalClaims, issue, verify
from core.platform.errors import TokenExpired, Unauthorized

SECRET = b"0123456789abcdef" * 4  # 64 bytes: long enough for HS512 too
OTHER_SECRET = b"fedcba9876543210" * 4


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {
        "iss": "service-portal",
        "aud": "service-api",
        "sub": "usr_1",
        "sid": "ses_1",
        "iat": now,
        "exp": now + 3600,
        "jti": "jti-1",
    }
    return {k: v for k, v in (base | overrides).items() if v is not None}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged(header: dict[str, Any], payload: dict[str, Any], secret: bytes = SECRET) -> str:
    """A token with an arbitrary header, HMAC-SHA256-signed with ``secret``."""
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(payload).encode())}"
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64url(signature)}"


def test_round_trip() -> None:
    before = int(time.time())
    token = issue(SECRET, "usr_1", "ses_1")
    after = int(time.time())
    result = verify(token, SECRET)
    assert isinstance(result, PortalClaims)
    assert (result.user_id, result.session_id) == ("usr_1", "ses_1")
    assert result.expires_at == result.issued_at + 3600
    assert before <= result.issued_at <= after  # issued now, however slowly
    assert result.token_id


def test_issued_claims_and_header() -> None:
    token = issue(SECRET, "usr_1", "ses_1", now=1_800_000_000)
    assert jwt.get_unverified_header(token) == {"alg": "HS256", "typ": "JWT"}
    payload = jwt.decode(token, options={"verify_signature": False})
    assert set(payload) == {"iss", "aud", "sub", "sid", "iat", "exp", "jti"}
    assert payload["iss"] == portal_jwt.ISSUER == "service-portal"
    assert payload["aud"] == portal_jwt.AUDIENCE == "service-api"
    assert (payload["sub"], payload["sid"]) == ("usr_1", "ses_1")
    assert (payload["iat"], payload["exp"]) == (1_800_000_000, 1_800_003_600)
    assert isinstance(payload["jti"], str) and len(payload["jti"]) >= 16


def test_each_token_has_a_fresh_jti() -> None:
    ids = {verify(issue(SECRET, "usr_1", "ses_1"), SECRET).token_id for _ in range(20)}
    assert len(ids) == 20


def test_expired_token_is_token_expired() -> None:
    token = issue(SECRET, "usr_1", "ses_1", now=int(time.time()) - 3601 - 60)
    with pytest.raises(TokenExpired) as caught:
        verify(token, SECRET)
    assert (caught.value.status, caught.value.code) == (401, "TOKEN_EXPIRED")


def test_alg_none_is_rejected() -> None:
    token = jwt.encode(claims(), "", algorithm="none")  # PyJWT signs "none" with no key: "" is taken as None
    with pytest.raises(Unauthorized) as caught:
        verify(token, SECRET)
    assert caught.value.code == "UNAUTHORIZED"


def test_hs512_is_rejected_even_with_the_right_secret() -> None:
    token = jwt.encode(claims(), SECRET, algorithm="HS512")
    with pytest.raises(Unauthorized):
        verify(token, SECRET)


@pytest.mark.parametrize("alg", ["RS256", "ES256", "none", "HS384", "hs256"])
def test_foreign_alg_header_is_rejected_even_if_hmac_signed(alg: str) -> None:
    with pytest.raises(Unauthorized):
        verify(forged({"alg": alg, "typ": "JWT"}, claims()), SECRET)


def test_forged_hs256_token_with_right_secret_is_accepted() -> None:
    """Control for the test above: the forging helper produces a valid token when the alg is right."""
    assert verify(forged({"alg": "HS256", "typ": "JWT"}, claims()), SECRET).user_id == "usr_1"


def test_wrong_secret_is_rejected() -> None:
    with pytest.raises(Unauthorized):
        verify(issue(OTHER_SECRET, "usr_1", "ses_1"), SECRET)


def test_expired_token_with_wrong_secret_is_unauthorized_not_expired() -> None:
    token = issue(OTHER_SECRET, "usr_1", "ses_1", now=int(time.time()) - 7200)
    with pytest.raises(Unauthorized):
        verify(token, SECRET)


@pytest.mark.parametrize(
    "overrides",
    [
        {"aud": "other-api"},
        {"aud": ["other-api"]},
        {"iss": "someone-else"},
        {"sid": None},
        {"jti": None},
        {"sub": None},
        {"iat": None},
        {"exp": None},
        {"sub": ""},
        {"sid": ""},
        {"sid": 123},
    ],
)
def test_wrong_or_missing_claims_are_unauthorized(overrides: dict[str, Any]) -> None:
    with pytest.raises(Unauthorized) as caught:
        verify(jwt.encode(claims(**overrides), SECRET, algorithm="HS256"), SECRET)
    assert type(caught.value) is Unauthorized


@pytest.mark.parametrize("garbage", ["", "garbage", "a.b.c", "eyJ.eyJ.sig", "sk_ws_" + "a" * 49])
def test_garbage_is_unauthorized_not_expired(garbage: str) -> None:
    with pytest.raises(Unauthorized) as caught:
        verify(garbage, SECRET)
    assert (type(caught.value), caught.value.status, caught.value.code) == (Unauthorized, 401, "UNAUTHORIZED")


@pytest.mark.parametrize("overrides", [{"aud": "other-api"}, {"iss": "someone-else"}])
def test_expired_token_of_the_wrong_kind_is_unauthorized(overrides: dict[str, Any]) -> None:
    past = int(time.time()) - 7200
    token = jwt.encode(claims(iat=past, exp=past + 3600, **overrides), SECRET, algorithm="HS256")
    with pytest.raises(Unauthorized) as caught:
        verify(token, SECRET)
    assert type(caught.value) is Unauthorized
