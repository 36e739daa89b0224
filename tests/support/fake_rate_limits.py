"""An in-memory stand-in for the rate-limit repository, shared by the key check's and the sharded limiter's tests."""

from __future__ import annotations

from collections.abc import Iterable

from core.platform.rate_limit_store import Added, Buckets


class FakeLimits:
    """Sliding-window buckets with the real repository's contract (read / conditional add), in memory."""

    def __init__(self) -> None:
        self.items: dict[str, Buckets] = {}
        self.calls: list[tuple[str, int, int]] = []  # (subject, bucket, cap) of every write

    def read(self, subject: str) -> Buckets:
        return self.items.get(subject, Buckets())

    def add(self, subject: str, bucket: int, *, cap: int, seen: Buckets, drop: Iterable[int], expires_at: int) -> Added:
        self.calls.append((subject, bucket, cap))
        now = self.read(subject)
        if now != seen and not (now.newest == seen.newest == bucket):
            return Added(counted=False, item=now)
        if now.counts.get(bucket, 0) >= cap:
            return Added(counted=False, item=now)
        counts = {i: n for i, n in now.counts.items() if i not in set(drop)}
        counts[bucket] = counts.get(bucket, 0) + 1
        self.items[subject] = Buckets(newest=bucket, counts=counts)
        return Added(counted=True, item=self.items[subject])
