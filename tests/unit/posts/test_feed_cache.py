"""core.posts.feed_cache.RecentFeeds: a feed is kept for its seconds, per key, bounded, errors never kept."""

from __future__ import annotations

import pytest

from core.posts import feed_cache
from core.posts.feed_cache import RecentFeeds
from core.posts.models import FeedPost

KEY = ("ws_1", "prj_1", None, None)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def feed(n: int) -> list[FeedPost]:
    """The n-th read's feed: one post named after it (the cache never looks inside, so the rest is blank)."""
    post = FeedPost(
        id=f"feed {n}", key="", kind="text", media_type=None, title=None, sub=None, caption=None, hashtags=[],
        channels=[], category=None, width=None, height=None, created_at="", pages=[], poster="", playable="",
        is_video=False,
    )  # fmt: skip
    return [post]


class Reads:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> list[FeedPost]:
        self.count += 1
        return feed(self.count)


def test_a_feed_is_kept_for_its_seconds_then_read_again() -> None:
    clock, reads = Clock(), Reads()
    feeds = RecentFeeds(seconds=5, clock=clock)
    assert feeds.get_or_read(KEY, reads) == feed(1)
    clock.now += 4.9
    assert feeds.get_or_read(KEY, reads) == feed(1)
    clock.now += 0.1
    assert feeds.get_or_read(KEY, reads) == feed(2) and reads.count == 2


def test_each_workspace_agent_and_filter_has_its_own_entry() -> None:
    reads = Reads()
    feeds = RecentFeeds(seconds=5, clock=Clock())
    keys = [KEY, ("ws_2", "prj_1", None, None), ("ws_1", "prj_1", "site", None), ("ws_1", "prj_1", None, "news")]
    assert [feeds.get_or_read(k, reads) for k in keys] == [feed(1), feed(2), feed(3), feed(4)]


def test_a_failed_read_is_not_kept() -> None:
    feeds, reads = RecentFeeds(seconds=5, clock=Clock()), Reads()

    def fails() -> list[FeedPost]:
        raise LookupError("not found")

    with pytest.raises(LookupError):
        feeds.get_or_read(KEY, fails)
    assert feeds.get_or_read(KEY, reads) == feed(1)


def test_zero_seconds_keeps_nothing() -> None:
    feeds, reads = RecentFeeds(seconds=0, clock=Clock()), Reads()
    feeds.get_or_read(KEY, reads)
    feeds.get_or_read(KEY, reads)
    assert reads.count == 2


def test_the_container_keeps_at_most_max_feeds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feed_cache, "MAX_FEEDS", 3)
    clock, reads = Clock(), Reads()
    feeds = RecentFeeds(seconds=5, clock=clock)
    for n in range(4):
        feeds.get_or_read(("ws", f"prj_{n}", None, None), reads)
    assert reads.count == 4
    feeds.get_or_read(("ws", "prj_0", None, None), reads)  # the oldest went to make room
    feeds.get_or_read(("ws", "prj_3", None, None), reads)  # the newest stayed
    assert reads.count == 5
