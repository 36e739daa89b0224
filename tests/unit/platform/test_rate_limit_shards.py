"""A hot key's limit split across shards (issue 13, section 4): how many, each one's share, which one a request
counts in, and that a sharded limit admits exactly what one item would (over the in-memory repository)."""

from __future__ import annotations

from typing import Any

import pytest

from core.platform import rate_shards
from core.platform.errors import RateLimited
from core.platform.rate_limit import SlidingWindowLimiter
from core.platform.rate_limit_store import Added, Buckets
from core.platform.rate_shards import shard_count, shard_limits, shard_subject
from tests.support.fake_rate_limits import FakeLimits

NOW = 1_800_000_030.25  # 30.25 s into a window: bucket 1_800_000_030


class CountingLimits(FakeLimits):
    """The in-memory repository, also recording every read."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def read(self, subject: str) -> Buckets:
        self.reads.append(subject)
        return super().read(subject)

    def add(self, subject: str, bucket: int, **given: Any) -> Added:
        before = len(self.reads)
        added = super().add(subject, bucket, **given)
        del self.reads[before:]  # the fake's own look inside a write is not a GetItem
        return added

    def written(self) -> set[str]:
        return {subject for subject, _, _ in self.calls}


@pytest.mark.parametrize(
    ("limit", "window", "shards"),
    [
        (1, 60, 1),
        (600, 60, 1),  # the default key limit
        (20, 60, 1),  # a chat visitor
        (5, 900, 1),  # a magic-link counter (15 minutes)
        (30_000, 60, 1),  # 500/s: the most one item carries
        (30_001, 60, 2),
        (100_000, 60, 4),
        (600_000, 60, 20),  # 10,000 requests a second
        (1_200_000, 60, 40),
    ],
)
def test_shard_count_keeps_each_shard_at_500_writes_a_second(limit: int, window: int, shards: int) -> None:
    assert shard_count(limit, window) == shards
    assert max(shard_limits(limit, shards)) / window <= rate_shards.SHARD_WRITES_PER_SECOND


@pytest.mark.parametrize(("limit", "shards"), [(600_000, 20), (30_001, 2), (100_003, 7), (7, 7), (1, 1)])
def test_shares_add_up_to_the_limit_and_differ_by_at_most_one(limit: int, shards: int) -> None:
    shares = shard_limits(limit, shards)
    assert len(shares) == shards and sum(shares) == limit
    assert max(shares) - min(shares) <= 1


def test_shard_zero_is_the_subjects_own_item_and_the_others_are_distinct() -> None:
    names = [shard_subject("key#key_1", index) for index in range(20)]
    assert names[0] == "key#key_1"
    assert len(set(names)) == 20 and all(name.startswith("key#key_1#") for name in names[1:])


def test_a_small_limit_uses_one_item_and_stays_exact() -> None:
    limits = CountingLimits()
    take = SlidingWindowLimiter(limits, clock=lambda: NOW).take
    assert [take("key#k", 30_000).remaining for _ in range(3)] == [29_999, 29_998, 29_997]
    for _ in range(3):
        take("key#small", 3)
    with pytest.raises(RateLimited) as caught:
        take("key#small", 3)
    assert caught.value.headers["RateLimit-Remaining"] == "0"
    assert limits.written() == {"key#k", "key#small"}  # never a shard item


@pytest.fixture
def tiny_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards of one request a second, so a limit of a few hundred a minute is sharded and fills quickly."""
    monkeypatch.setattr(rate_shards, "SHARD_WRITES_PER_SECOND", 1)


def test_requests_spread_over_every_shard(tiny_shards: None) -> None:
    limits = CountingLimits()
    take = SlidingWindowLimiter(limits, clock=lambda: NOW).take
    assert shard_count(1_200, 60) == 20
    statuses = [take("key#hot", 1_200) for _ in range(400)]
    assert limits.written() == {shard_subject("key#hot", index) for index in range(20)}
    assert all(status.limit == 1_200 for status in statuses)
    per_shard = [sum(1 for subject, _, _ in limits.calls if subject == name) for name in limits.written()]
    assert max(per_shard) <= 60  # each is capped at its share (60): randomness never overfills one


def test_a_sharded_limit_admits_exactly_the_limit_then_refuses_until_a_shard_has_room(tiny_shards: None) -> None:
    now = [NOW]
    limits = CountingLimits()
    take = SlidingWindowLimiter(limits, clock=lambda: now[0]).take
    assert shard_count(130, 60) == 3  # shares 44, 43, 43
    for _ in range(130):
        take("key#hot", 130)  # never refused while any shard has room: every full shard is probed past
    with pytest.raises(RateLimited) as caught:
        take("key#hot", 130)
    headers = caught.value.headers
    assert (headers["RateLimit-Limit"], headers["RateLimit-Remaining"], headers["Retry-After"]) == ("130", "0", "61")
    now[0] += 60.75  # the bucket they were counted in left the window: every shard has room again
    take("key#hot", 130)


def test_a_request_finds_the_one_shard_with_room(tiny_shards: None) -> None:
    limits = CountingLimits()
    fill = SlidingWindowLimiter(limits, clock=lambda: NOW).take
    shares = shard_limits(600, 10)
    for index in range(1, 10):  # fill every shard but 0 directly, as other containers would have
        for _ in range(shares[index]):
            fill(shard_subject("key#hot", index), shares[index])
    for _ in range(5):  # a fresh container each time: a random first shard, known full or not
        limits.calls.clear()
        SlidingWindowLimiter(limits, clock=lambda: NOW).take("key#hot", 600)
        assert limits.written() == {"key#hot"}


def test_a_container_reads_a_full_shard_once_until_it_has_room(tiny_shards: None) -> None:
    now = [NOW]
    limits = CountingLimits()
    for _ in range(120):  # two shards of 60, filled by another container
        SlidingWindowLimiter(limits, clock=lambda: now[0]).take("key#hot", 120)
    take = SlidingWindowLimiter(limits, clock=lambda: now[0]).take
    limits.reads.clear()
    for _ in range(50):  # a flood over the limit
        with pytest.raises(RateLimited):
            take("key#hot", 120)
    assert sorted(limits.reads) == ["key#hot", "key#hot#shard1"]  # each full shard read once, then skipped
    now[0] += 61  # every bucket left the window
    limits.reads.clear()
    take("key#hot", 120)
    assert len(limits.reads) == 1
