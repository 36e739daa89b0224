"""The rendered feed kept per container for a few seconds, so a hot brand page costs one Query per
container per period instead of one per request (an agent's posts partition serves ~375 feeds/s:
docs/decisions.md, "A hot key at scale").

What it trades: a post published, unpublished or changed shows (or goes) on the next read after its
entry expires, at most ``FEED_CACHE_SECONDS`` later in each container. The key check is never cached
(a revoked key or a deleted workspace is refused on its next request), and entries are per workspace
and agent, so one tenant's feed is never served to another's key.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from core.posts.models import FeedPost

FEED_CACHE_SECONDS = 5.0
MAX_FEEDS = 256  # (agent, filter) pairs per container: about 256 x 60 KB at most

FeedKey = tuple[str, str, str | None, str | None]  # workspace, agent, channel, category


class RecentFeeds:
    def __init__(self, seconds: float | None = None, clock: Callable[[], float] = time.monotonic):
        self._seconds = FEED_CACHE_SECONDS if seconds is None else seconds  # looked up here: a bench may set 0
        self._clock = clock
        self._feeds: dict[FeedKey, tuple[float, list[FeedPost]]] = {}
        self._lock = threading.Lock()

    def get_or_read(self, key: FeedKey, read: Callable[[], list[FeedPost]]) -> list[FeedPost]:
        """The feed kept for ``key`` if it is fresh, else ``read()`` (kept only if it succeeded)."""
        now = self._clock()
        with self._lock:
            kept = self._feeds.get(key)
        if kept is not None and kept[0] > now:
            return kept[1]
        feed = read()  # outside the lock: a slow read must not hold up other keys
        if self._seconds > 0:
            with self._lock:
                self._feeds.pop(key, None)
                if len(self._feeds) >= MAX_FEEDS:
                    self._drop_stale(now)
                self._feeds[key] = (now + self._seconds, feed)
        return feed

    def _drop_stale(self, now: float) -> None:
        for stale in [k for k, (expires, _) in self._feeds.items() if expires <= now]:
            del self._feeds[stale]
        while len(self._feeds) >= MAX_FEEDS:  # all fresh: the oldest entry goes
            del self._feeds[next(iter(self._feeds))]
