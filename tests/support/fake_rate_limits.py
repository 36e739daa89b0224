"""An in-memory stand-in for the rate-limit repository, shared by the key check's and the sharded limiter's tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from core.platform.rate_limit_store import Added, Buckets
from core.platform.usage_counters import HandOn, day_item, handed


class FakeLimits:
    """Sliding-window buckets with the real repository's contract (read / conditional add), in memory."""

    def __init__(self) -> None:
        self.items: dict[str, Buckets] = {}
        self.calls: list[tuple[str, int, int]] = []  # (subject, bucket, cap) of every write
        self.days: dict[str, dict[str, int]] = {}  # day items (usage_counters.day_item) the hand-ons added to

    def read(self, subject: str) -> Buckets:
        return self.items.get(subject, Buckets())

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
        self.calls.append((subject, bucket, cap))
        now = self.read(subject)
        if (now.newest, now.counts) != (seen.newest, seen.counts) and not (now.newest == seen.newest == bucket):
            return Added(counted=False, item=now)
        if now.counts.get(bucket, 0) >= cap:
            return Added(counted=False, item=now)
        counts = {i: n for i, n in now.counts.items() if i not in set(drop)}
        counts[bucket] = counts.get(bucket, 0) + 1
        kept = {n: c for n, c in now.usage.items() if n not in set(drop_usage)}
        self.items[subject] = Buckets(newest=bucket, counts=counts, usage=_plus_one(kept, usage))
        return Added(counted=True, item=self.items[subject])

    def hand_on(self, subject: str, closed: Mapping[int, Mapping[str, int]], to: HandOn) -> bool:
        """The real store's contract: the closed counters leave the window item for the day items, only if each is
        still the count read (else nothing moves)."""
        now = self.read(subject)
        moved = {name: count for day in closed.values() for name, count in day.items()}
        if any(now.usage.get(name) != count for name, count in moved.items()):
            return False
        kept = {name: count for name, count in now.usage.items() if name not in moved}
        self.items[subject] = Buckets(newest=now.newest, counts=now.counts, usage=kept)
        for day, counters in closed.items():
            item = self.days.setdefault(day_item(to.workspace_id, day), {})
            for name, count in counters.items():
                item[handed(name, to.key_id)] = item.get(handed(name, to.key_id), 0) + count
        return True

    def tally(self, subject: str, usage: Iterable[str], *, expires_at: int) -> None:
        now = self.read(subject)
        self.items[subject] = Buckets(newest=now.newest, counts=now.counts, usage=_plus_one(now.usage, usage))


def _plus_one(usage: Mapping[str, int], names: Iterable[str]) -> dict[str, int]:
    counted = dict(usage)
    for name in names:
        counted[name] = counted.get(name, 0) + 1
    return counted
