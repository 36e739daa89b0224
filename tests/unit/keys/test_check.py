"""core.keys.check.KeyAuthenticator over in-memory key and rate-limit repositories."""

from __future__ import annotations

import pytest

from core.keys.check import VAGUE_MESSAGE, KeyAuthenticator, WorkspaceCaller
from core.keys.key_format import display_prefix, generate, hash_key
from core.keys.records import ApiKeyRecord
from core.platform.dynamo import StorageUnavailable
from core.platform.errors import RateLimited, Unauthorized
from core.platform.rate_limit import RateStatus
from tests.support.fake_rate_limits import FakeLimits

RAW = generate(b"k" * 32)
NOW = 1_800_000_030.25  # 30.25 s into a minute: counted in the one-second bucket 1_800_000_030
VAGUE = {"error": VAGUE_MESSAGE, "code": "UNAUTHORIZED"}


class FakeKeys:
    def __init__(self) -> None:
        self.records: dict[str, ApiKeyRecord] = {}
        self.lookups: list[str] = []
        self.touched: list[tuple[str, str]] = []

    def add(self, raw: str, *, rate_limit: int | None = None, revoked: bool = False) -> ApiKeyRecord:
        record = ApiKeyRecord(
            id="key_1", key_hash=hash_key(raw), workspace_id="ws_1", name="k", prefix=display_prefix(raw),
            rate_limit=rate_limit, created_at="2026-01-01T00:00:00.000Z",
            revoked_at="2026-01-02T00:00:00.000Z" if revoked else None,
        )  # fmt: skip
        self.records[record.key_hash] = record
        return record

    def get_by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        self.lookups.append(key_hash)
        return self.records.get(key_hash)

    def hash_of(self, key_id: str) -> str | None:
        return next((record.key_hash for record in self.records.values() if record.id == key_id), None)

    def touch_last_used(self, key_hash: str, at: str) -> None:
        self.touched.append((key_hash, at))


@pytest.fixture
def keys() -> FakeKeys:
    return FakeKeys()


@pytest.fixture
def limits() -> FakeLimits:
    return FakeLimits()


@pytest.fixture
def auth(keys: FakeKeys, limits: FakeLimits) -> KeyAuthenticator:
    return KeyAuthenticator(keys, limits, default_rate_limit=600, clock=lambda: NOW)


def bearer(value: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {value}"}


@pytest.mark.parametrize(
    "headers",
    [
        None,
        {},
        {"Authorization": ""},
        {"Authorization": f"Basic {RAW}"},
        bearer(RAW[:-1] + ("A" if RAW[-1] != "A" else "B")),  # checksum broken
        bearer(RAW[:20] + "x" + RAW[21:]),
        bearer("sk_ws_short"),
        bearer("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.sig"),
    ],
)
def test_missing_or_malformed_key_is_refused_without_lookup(
    auth: KeyAuthenticator, keys: FakeKeys, limits: FakeLimits, headers: dict[str, str] | None
) -> None:
    keys.add(RAW)
    with pytest.raises(Unauthorized) as caught:
        auth.authenticate(headers)
    assert caught.value.body() == VAGUE
    assert keys.lookups == [] and limits.calls == []


def test_unknown_key_is_refused_vaguely(auth: KeyAuthenticator, keys: FakeKeys, limits: FakeLimits) -> None:
    with pytest.raises(Unauthorized) as caught:
        auth.authenticate(bearer(RAW))
    assert caught.value.body() == VAGUE
    assert keys.lookups == [hash_key(RAW)]
    assert limits.calls == []


def test_revoked_key_is_refused_vaguely(auth: KeyAuthenticator, keys: FakeKeys, limits: FakeLimits) -> None:
    keys.add(RAW, revoked=True)
    with pytest.raises(Unauthorized) as caught:
        auth.authenticate(bearer(RAW))
    assert caught.value.body() == VAGUE
    assert (caught.value.status, caught.value.headers) == (401, {})
    assert limits.calls == [] and keys.touched == []


def test_valid_key_resolves_to_its_workspace(auth: KeyAuthenticator, keys: FakeKeys, limits: FakeLimits) -> None:
    keys.add(RAW)
    caller = auth.authenticate({"authorization": f"bearer {RAW}"})
    assert isinstance(caller, WorkspaceCaller)
    assert (caller.workspace_id, caller.api_key_id) == ("ws_1", "key_1")
    # Remaining goes up when second 1_800_000_030 leaves every rolling minute: at 1_800_000_091, 60.75 s away.
    assert caller.rate == RateStatus(limit=600, remaining=599, reset_seconds=61)
    assert caller.rate.headers() == {"RateLimit-Limit": "600", "RateLimit-Remaining": "599", "RateLimit-Reset": "61"}
    assert limits.calls == [("key#key_1", int(NOW), 600)]


def test_last_used_is_touched_once_per_minute(keys: FakeKeys, limits: FakeLimits) -> None:
    keys.add(RAW)
    now = [NOW]
    auth = KeyAuthenticator(keys, limits, default_rate_limit=600, clock=lambda: now[0])
    for step in (0, 0, 5, 20):  # 30.25 → 55.25 s: one minute, several buckets
        now[0] += step
        auth.authenticate(bearer(RAW))
    assert len(keys.touched) == 1
    now[0] += 5  # 60.25 s: the next minute
    auth.authenticate(bearer(RAW))
    assert len(keys.touched) == 2
    key_hash, at = keys.touched[0]
    assert key_hash == hash_key(RAW) and at.endswith("Z")


def test_a_failed_last_used_touch_lets_the_counted_request_through(
    auth: KeyAuthenticator, keys: FakeKeys, limits: FakeLimits, caplog: pytest.LogCaptureFixture
) -> None:
    keys.add(RAW)

    def broken(key_hash: str, at: str) -> None:
        raise StorageUnavailable()

    keys.touch_last_used = broken  # type: ignore[method-assign]
    caller = auth.authenticate(bearer(RAW))
    assert caller.api_key_id == "key_1" and caller.rate.remaining == 599
    assert limits.calls == [("key#key_1", int(NOW), 600)]  # counted once, not refused
    warnings = [r for r in caplog.records if r.name == "core.keys.check"]
    assert [r.levelname for r in warnings] == ["WARNING"]
    assert RAW not in caplog.text and hash_key(RAW) not in caplog.text


def test_default_rate_limit_when_record_has_none(keys: FakeKeys, limits: FakeLimits) -> None:
    keys.add(RAW, rate_limit=None)
    auth = KeyAuthenticator(keys, limits, default_rate_limit=7, clock=lambda: NOW)
    assert auth.authenticate(bearer(RAW)).rate.limit == 7
    assert limits.calls[0][2] == 7


def test_record_rate_limit_wins_over_default(auth: KeyAuthenticator, keys: FakeKeys, limits: FakeLimits) -> None:
    keys.add(RAW, rate_limit=3)
    remaining = [auth.authenticate(bearer(RAW)).rate.remaining for _ in range(3)]
    assert remaining == [2, 1, 0]
    assert [call[2] for call in limits.calls] == [3, 3, 3]  # one bucket: its cap is the whole limit


def test_over_the_limit_is_rate_limited_with_headers(auth: KeyAuthenticator, keys: FakeKeys) -> None:
    keys.add(RAW, rate_limit=2)
    auth.authenticate(bearer(RAW))
    auth.authenticate(bearer(RAW))
    with pytest.raises(RateLimited) as caught:
        auth.authenticate(bearer(RAW))
    error = caught.value
    assert (error.status, error.code) == (429, "RATE_LIMITED")
    assert error.headers == {
        "Retry-After": "61", "RateLimit-Limit": "2", "RateLimit-Remaining": "0", "RateLimit-Reset": "61",
    }  # fmt: skip


@pytest.mark.parametrize(("now", "reset"), [(1_800_000_000.0, 61), (1_800_000_059.9, 61), (1_800_000_059.0, 61)])
def test_retry_after_is_whole_seconds_until_the_request_leaves_every_rolling_minute(
    keys: FakeKeys, limits: FakeLimits, now: float, reset: int
) -> None:
    keys.add(RAW, rate_limit=1)
    auth = KeyAuthenticator(keys, limits, default_rate_limit=600, clock=lambda: now)
    assert auth.authenticate(bearer(RAW)).rate.reset_seconds == reset
    with pytest.raises(RateLimited) as caught:
        auth.authenticate(bearer(RAW))
    assert caught.value.headers["Retry-After"] == str(reset)


def test_a_request_leaves_the_window_61_seconds_after_its_second_began(keys: FakeKeys, limits: FakeLimits) -> None:
    keys.add(RAW, rate_limit=1)
    now = [NOW]
    auth = KeyAuthenticator(keys, limits, default_rate_limit=600, clock=lambda: now[0])
    auth.authenticate(bearer(RAW))
    now[0] = int(NOW) + 60.999  # its second is still partly within the last 60 s: counted whole
    with pytest.raises(RateLimited) as caught:
        auth.authenticate(bearer(RAW))
    assert caught.value.headers["Retry-After"] == "1"
    now[0] = int(NOW) + 61
    assert auth.authenticate(bearer(RAW)).rate.remaining == 0
