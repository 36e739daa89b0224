"""core.platform.ids: prefixed ULIDs (time-sortable) and RFC 3339 timestamps with milliseconds and ``Z``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.platform.ids import iso, new_id, now_iso, ulid

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ULID_RE = r"[0-9A-HJKMNP-TV-Z]{26}"
ISO_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def decode_time(value: str) -> int:
    """The 48-bit millisecond timestamp in a ULID's first ten characters."""
    ms = 0
    for ch in value[:10]:
        ms = ms * 32 + CROCKFORD.index(ch)
    return ms


@pytest.mark.parametrize("prefix", ["ws", "usr", "key", "prj", "mem"])
def test_new_id_is_prefix_underscore_ulid(prefix: str) -> None:
    assert re.fullmatch(rf"{prefix}_{ULID_RE}", new_id(prefix))


def test_ulid_is_26_crockford_chars_and_random() -> None:
    values = {ulid() for _ in range(100)}
    assert len(values) == 100
    assert all(re.fullmatch(ULID_RE, v) for v in values)


@pytest.mark.parametrize("ms", [0, 1, 1_700_000_000_000, 2**48 - 1])
def test_ulid_encodes_its_millisecond_time(ms: int) -> None:
    assert decode_time(ulid(ms)) == ms


def test_ulid_uses_current_time_by_default() -> None:
    before = int(datetime.now(UTC).timestamp() * 1000)
    value = ulid()
    after = int(datetime.now(UTC).timestamp() * 1000)
    assert before - 1 <= decode_time(value) <= after + 1


def test_ids_sort_by_creation_time() -> None:
    times = [1_700_000_000_000 + step for step in (0, 1, 2, 1000, 86_400_000, 10**10)]
    ids = [new_id("ws", at_ms=t) for t in times]
    assert sorted(ids) == ids


def test_later_millisecond_sorts_after_regardless_of_randomness() -> None:
    for _ in range(200):
        assert ulid(1_700_000_000_001) > ulid(1_700_000_000_000)


@pytest.mark.parametrize(
    ("dt", "expected"),
    [
        (datetime(2026, 11, 22, 5, 23, 35, 123456, tzinfo=UTC), "2026-11-22T05:23:35.123Z"),
        (datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "2026-01-02T03:04:05.000Z"),
        (datetime(2026, 1, 2, 3, 4, 5, 999999, tzinfo=UTC), "2026-01-02T03:04:05.999Z"),
        (datetime(2026, 1, 2, 3, 4, 5, 1000, tzinfo=UTC), "2026-01-02T03:04:05.001Z"),
        (datetime(2026, 1, 2, 1, 0, 0, 500000, tzinfo=timezone(timedelta(hours=2))), "2026-01-01T23:00:00.500Z"),
        (datetime(2026, 1, 1, 0, 0, 0, tzinfo=timezone(timedelta(hours=-5, minutes=-30))), "2026-01-01T05:30:00.000Z"),
    ],
)
def test_iso_format(dt: datetime, expected: str) -> None:
    assert iso(dt) == expected
    assert ISO_RE.match(iso(dt))


def test_iso_round_trips_through_fromisoformat() -> None:
    dt = datetime(2026, 11, 22, 5, 23, 35, 123000, tzinfo=UTC)
    assert datetime.fromisoformat(iso(dt)) == dt


def test_now_iso_is_rfc3339_utc_with_millis() -> None:
    value = now_iso()
    assert ISO_RE.match(value), value
    parsed = datetime.fromisoformat(value)
    assert abs((datetime.now(UTC) - parsed).total_seconds()) < 5


def test_iso_strings_sort_chronologically() -> None:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    stamps = [iso(base + timedelta(milliseconds=ms)) for ms in (0, 1, 999, 1000, 60_000, 86_400_000)]
    assert sorted(stamps) == stamps
