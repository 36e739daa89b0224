"""Sliding-window rate limits: never more than ``limit`` requests in ANY rolling window, across every container.

A window is cut into ``BUCKETS`` buckets (60 s → 60 buckets of 1 s). A request at time t
counts every bucket that overlaps (t - window, t], the oldest, partly covered one
counted whole: so the estimate is never below the truth (no rolling window ever holds
more than ``limit``), at the price of a request being remembered for up to one bucket
longer than the window (at a steady rate, 1/61 of the throughput for 60 x 1 s).

Per request: one strongly consistent GetItem and one conditional UpdateItem (see
``repositories.rate_limits``); a refused request writes nothing. Only a request that
opens a new bucket while another container does the same can need a second write.
The design and its caveats (clock skew) are in docs/decisions.md, "Workspace keys".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .. import observability
from ..errors import RateLimited
from ..repositories.rate_limits import Buckets, RateLimitRepository

WINDOW_SECONDS = 60
BUCKETS = 60
ATTEMPTS = 8  # each failed attempt means another request was counted meanwhile: contention, never a loop


@dataclass(frozen=True)
class RateStatus:
    limit: int
    remaining: int
    reset_seconds: int  # until ``remaining`` next goes up (= Retry-After when it is 0)
    count: int = field(default=0, compare=False)  # requests counted in the window, this one included
    new_minute: bool = field(default=False, compare=False)  # the first request counted in this clock minute

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }


def now() -> float:
    """The limiters' clock (one place for tests to move it)."""
    return time.time()


def _until_fewer(counts: Mapping[int, int], oldest: int, used: int, below: int) -> int:
    """How many buckets must leave the window (oldest first) before fewer than ``below`` are counted."""
    left, k = used, 0
    while left >= below:
        left -= counts.get(oldest + k, 0)
        k += 1
    return k


# The metric's name for each kind of subject (its prefix): bounded, never the subject itself (an id, a hash).
_LIMITER_OF_PREFIX = {"key": "key_rate", "visitor": "chat_visitor", "mail-to": "magic_link_address",
                      "mail-ip": "magic_link_ip"}  # fmt: skip


def _limiter_of(subject: str) -> str:
    return _LIMITER_OF_PREFIX.get(subject.partition("#")[0], "other")


class SlidingWindowLimiter:
    def __init__(self, counters: RateLimitRepository, clock: Callable[[], float] | None = None):
        self._counters = counters
        self._clock = clock

    def take(self, subject: str, limit: int, window: int = WINDOW_SECONDS) -> RateStatus:
        """Count one request of ``subject``; over ``limit``: ``RateLimited`` (429, ``Retry-After``, ``RateLimit-*``).

        ``window`` (seconds) must be a multiple of ``BUCKETS``. ``Retry-After`` is the least
        whole number of seconds after which the same request would be counted.
        """
        if window % BUCKETS:
            raise ValueError(f"window must be a multiple of {BUCKETS} seconds")
        size = window // BUCKETS
        current = self._clock() if self._clock else now()  # ``now`` looked up per call: tests move it
        seen = self._counters.read(subject)
        for _ in range(ATTEMPTS):
            # Never behind the newest bucket written: a container whose clock lags joins the others' timeline.
            bucket = max(int(current // size), seen.newest if seen.newest is not None else -1)
            oldest = bucket - BUCKETS
            counts = {i: n for i, n in seen.counts.items() if oldest <= i <= bucket}
            used = sum(counts.values())
            if used >= limit:
                wait = self._seconds_until(bucket + _until_fewer(counts, oldest, used, limit), size, current)
                status = RateStatus(limit=limit, remaining=0, reset_seconds=wait, count=used)
                observability.count("Throttled", limiter=_limiter_of(subject))
                raise RateLimited(headers=status.headers() | {"Retry-After": str(wait)})
            added = self._counters.add(
                subject, bucket, cap=limit - (used - counts.get(bucket, 0)), seen=seen,
                drop=[i for i in seen.counts if i < oldest], expires_at=(bucket + BUCKETS + 1) * size + 60,
            )  # fmt: skip
            if added.counted:
                return self._status(
                    added.item, bucket, limit, size, current, opened=self._opens_minute(seen, bucket, size)
                )
            seen = added.item  # someone else was counted meanwhile: decide again on what is there now
        observability.count("Throttled", limiter=_limiter_of(subject))
        raise RateLimited(headers={"Retry-After": "1"})  # only under extreme contention; the next try will pass

    def _status(self, item: Buckets, bucket: int, limit: int, size: int, current: float, *, opened: bool) -> RateStatus:
        oldest = bucket - BUCKETS
        counts = {i: n for i, n in item.counts.items() if oldest <= i <= bucket}
        used = sum(counts.values())
        reset = self._seconds_until(bucket + _until_fewer(counts, oldest, used, min(used, limit)), size, current)
        return RateStatus(
            limit=limit, remaining=max(0, limit - used), reset_seconds=reset, count=used, new_minute=opened
        )

    @staticmethod
    def _seconds_until(bucket: int, size: int, current: float) -> int:
        """Whole seconds from ``current`` to the start of ``bucket`` (at least 1)."""
        return max(1, math.ceil(bucket * size - current))

    @staticmethod
    def _opens_minute(seen: Buckets, bucket: int, size: int) -> bool:
        return seen.newest is None or (seen.newest * size) // 60 != (bucket * size) // 60
