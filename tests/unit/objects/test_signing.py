"""core.objects.signing, core.platform.origins and the URL base: pure functions, no AWS."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from core.keys.check import KeyAuthenticator
from core.objects import signing as media_signing
from core.objects.service import _CachePolicy
from core.objects.signed_urls import request_base_url, signed_url
from core.platform import origins
from core.platform.errors import SignedUrlExpired, SignedUrlInvalid
from core.platform.rate_limit_store import Added, Buckets
from core.platform.usage_counters import HandOn

SECRET = b"s" * 64
NOW = 1_800_000_000
KID = "key_01JD0SAMPLE0APIKEY0000000"


def params(path: str = "assets/a.png", expires: int = NOW + 900, kid: str = KID, secret: bytes = SECRET):
    return {"expires": str(expires), "kid": kid, "sig": media_signing.sign(secret, kid, path, expires)}


def test_a_signature_verifies_for_exactly_its_key_expiry_and_path() -> None:
    good = media_signing.parse(params(), NOW)
    media_signing.verify(SECRET, good, "assets/a.png")
    for changed in (
        media_signing.SignedParams(good.expires + 1, good.key_id, good.sig),
        media_signing.SignedParams(good.expires, "key_other", good.sig),
    ):
        with pytest.raises(SignedUrlInvalid):
            media_signing.verify(SECRET, changed, "assets/a.png")
    for path in ("assets/b.png", "assets/a.pn", "assets/a.png/", "Assets/a.png"):
        with pytest.raises(SignedUrlInvalid):
            media_signing.verify(SECRET, good, path)
    with pytest.raises(SignedUrlInvalid):
        media_signing.verify(b"t" * 64, good, "assets/a.png")


def test_the_signature_is_unpadded_base64url_of_32_bytes() -> None:
    sig = params()["sig"]
    assert len(sig) == 43 and "=" not in sig and "+" not in sig and "/" not in sig


def test_a_field_separator_in_the_path_cannot_forge_another_message() -> None:
    a = media_signing.sign(SECRET, KID, "assets/x\n1", 5)
    assert a != media_signing.sign(SECRET, KID, "assets/x", 1)


@pytest.mark.parametrize(
    "query",
    [
        None,
        {},
        {"expires": str(NOW + 10), "kid": KID},
        {"kid": KID, "sig": "A" * 43},
        params() | {"expires": "+1800000900"},
        params() | {"expires": "1e9"},
        params() | {"expires": "1" * 13},
        params() | {"kid": "sk_ws_abc"},
        params() | {"kid": "key_" + "a" * 65},
        params() | {"sig": "A" * 42},
        params() | {"sig": "A" * 43 + "="},
        params() | {"sig": "+" * 43},
        params(expires=NOW + 3600 + 61),
    ],
)
def test_malformed_or_overlong_parameters_are_invalid_before_any_io(query) -> None:
    with pytest.raises(SignedUrlInvalid):
        media_signing.parse(query, NOW)


@pytest.mark.parametrize("expires", [NOW, NOW - 1, 0])
def test_expired_is_its_own_code(expires: int) -> None:
    with pytest.raises(SignedUrlExpired):
        media_signing.parse(params(expires=expires), NOW)


def test_the_longest_lifetime_with_skew_is_accepted() -> None:
    assert media_signing.parse(params(expires=NOW + 3600 + 60), NOW).expires == NOW + 3660


def test_carries_signature_on_any_one_parameter() -> None:
    assert not media_signing.carries_signature(None) and not media_signing.carries_signature({"x": "1"})
    assert all(media_signing.carries_signature({name: ""}) for name in media_signing.PARAMS)


@pytest.mark.parametrize(
    ("value", "normal"),
    [
        ("https://shop.example.com", "https://shop.example.com"),
        ("HTTPS://Shop.EXAMPLE.com", "https://shop.example.com"),
        ("https://shop.example.com:443", "https://shop.example.com"),
        ("http://shop.example.com:80", "http://shop.example.com"),
        ("http://shop.example.com:443", "http://shop.example.com:443"),
        ("https://localhost:08443", "https://localhost:8443"),
        ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("https://xn--bcher-kva.example", "https://xn--bcher-kva.example"),
    ],
)
def test_origins_are_normalised_to_their_serialization(value: str, normal: str) -> None:
    assert origins.normalize_origin(value) == normal


def test_is_allowed_compares_serialized_origins_and_lets_no_origin_pass() -> None:
    allowed = ("https://shop.example.com",)
    assert origins.is_allowed(None, "https://anything.example")
    assert origins.is_allowed(allowed, None)
    assert origins.is_allowed(allowed, "https://SHOP.example.com:443")
    assert not origins.is_allowed(allowed, "null")
    assert not origins.is_allowed(allowed, "https://shop.example.com.evil.example")
    assert not origins.is_allowed(allowed, "https://shop.example.com/")
    assert not origins.is_allowed((), "https://shop.example.com")


def test_cors_of_a_restricted_key() -> None:
    allowed = ("https://shop.example.com",)
    assert origins.cors_headers(allowed, "https://shop.example.com") == {
        "Vary": "Origin", "Access-Control-Allow-Origin": "https://shop.example.com"
    }  # fmt: skip
    assert origins.cors_headers(allowed, "https://evil.example") == {"Vary": "Origin"}
    assert origins.cors_headers(allowed, None) == {"Vary": "Origin"}


@pytest.mark.parametrize(
    ("own", "until", "expected"),
    [
        (None, None, "private, max-age=3600"),
        ("public, max-age=31536000, immutable", None, "public, max-age=31536000, immutable"),
        (None, NOW + 900, "private, max-age=900"),
        ("public, max-age=31536000, immutable", NOW + 120, "private, max-age=120"),
        ("public, max-age=30", NOW + 120, "private, max-age=30"),
        ("no-store", NOW + 120, "no-store"),
        ("no-cache", NOW + 120, "private, max-age=120, no-cache"),
        (None, NOW - 5, "private, max-age=0"),
    ],
)
def test_a_signed_answer_is_never_cached_past_its_url(own, until, expected) -> None:
    assert _CachePolicy("private, max-age=3600", until, NOW).of(own) == expected


def test_a_redirect_from_a_signed_url_lives_no_longer_than_it() -> None:
    assert _CachePolicy("x", None, NOW).seconds_left(300) == 300
    assert _CachePolicy("x", NOW + 90, NOW).seconds_left(300) == 90
    assert _CachePolicy("x", NOW, NOW).seconds_left(300) == 1


def test_urls_percent_encode_the_path_once() -> None:
    url = signed_url("https://h.example", SECRET, KID, "media/a b%/ü?#.jpg", NOW)
    assert url.startswith("https://h.example/v1/r2/media/a%20b%25/%C3%BC%3F%23.jpg?expires=1800000000&kid=")


@pytest.mark.parametrize(
    ("headers", "context", "base"),
    [
        ({"host": "a1.execute-api.us-east-1.amazonaws.com", "x-forwarded-proto": "https"}, {"stage": "v1"},
         "https://a1.execute-api.us-east-1.amazonaws.com/v1"),
        ({"Host": "api.example.com", "X-Forwarded-Proto": "https"}, {"stage": "live"}, "https://api.example.com"),
        ({"Host": "localhost:3001"}, {}, "http://localhost:3001"),
        ({"Host": "h.example", "X-Forwarded-Proto": "gopher"}, {}, "https://h.example"),
        ({"Host": "h.example\r\nX: y"}, {"domainName": "d.example"}, "http://d.example"),
        ({}, {}, "http://localhost"),
    ],
)  # fmt: skip
def test_the_base_url(headers, context, base) -> None:
    assert request_base_url(headers, context) == base


class _Recorder:
    """A key repository, rate-limit counters and a secret that record every call (any call is I/O on AWS)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def secret(self) -> bytes:
        self.calls.append("secretsmanager")
        return SECRET

    def hash_of(self, key_id: str) -> str | None:
        self.calls.append("dynamodb:Query")
        return None

    def get_by_hash(self, key_hash: str) -> None:
        self.calls.append("dynamodb:GetItem")

    def touch_last_used(self, key_hash: str, at: str) -> None:
        self.calls.append("dynamodb:UpdateItem")

    def read(self, subject: str) -> Buckets:  # the rate-limit counters
        self.calls.append("dynamodb:GetItem")
        return Buckets()

    def add(
        self,
        subject: str,
        bucket: int,
        *,
        cap: int,
        seen: Buckets,
        drop: Iterable[int],
        expires_at: int,
        usage: Iterable[str] = (),
        drop_usage: Iterable[str] = (),
    ) -> Added:
        self.calls.append("dynamodb:UpdateItem")
        return Added(counted=True, item=seen)

    def tally(self, subject: str, usage: Iterable[str], *, expires_at: int) -> None:
        self.calls.append("dynamodb:UpdateItem")

    def hand_on(self, subject: str, closed: Mapping[int, Mapping[str, int]], to: HandOn) -> bool:
        self.calls.append("dynamodb:TransactWriteItems")
        return True


def _authenticator(recorder: _Recorder) -> KeyAuthenticator:
    return KeyAuthenticator(recorder, recorder, 600, lambda: NOW, signing_secret=recorder.secret)


def test_expiry_is_checked_before_any_aws_call_and_the_mac_before_any_dynamodb_call() -> None:
    recorder = _Recorder()
    auth = _authenticator(recorder)
    with pytest.raises(SignedUrlExpired):
        auth.authenticate_signed(params(expires=NOW - 1), lambda: "assets/a.png")
    assert recorder.calls == []
    with pytest.raises(SignedUrlInvalid):
        auth.authenticate_signed(params() | {"sig": "A" * 43}, lambda: "assets/a.png")
    assert recorder.calls == ["secretsmanager"]
    with pytest.raises(SignedUrlInvalid):  # a valid MAC of an unknown key: only now the index is asked
        auth.authenticate_signed(params(), lambda: "assets/a.png")
    assert recorder.calls == ["secretsmanager", "secretsmanager", "dynamodb:Query"]


def test_a_path_that_cannot_be_valid_is_an_invalid_url_without_io() -> None:
    from core.platform.errors import InvalidPath

    recorder = _Recorder()

    def bad_path() -> str:
        raise InvalidPath()

    with pytest.raises(SignedUrlInvalid):
        _authenticator(recorder).authenticate_signed(params(), bad_path)
    assert recorder.calls == []
