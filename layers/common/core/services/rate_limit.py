"""Fixed-window rate limits, counted in DynamoDB so they hold across every Lambda container."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import RateLimited
from ..repositories.rate_limits import RateLimitRepository

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class RateStatus:
    limit: int
    remaining: int
    reset_seconds: int
    count: int = field(default=0, compare=False)  # requests counted in this window, this one included

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }


def now() -> float:
    """The limiters' clock (one place for tests to move it)."""
    return time.time()


class FixedWindowLimiter:
    def __init__(self, counters: RateLimitRepository, clock: Callable[[], float] | None = None):
        self._counters = counters
        self._clock = clock

    def take(self, subject: str, limit: int) -> RateStatus:
        """Count one request of ``subject`` in the current minute; ``RateLimited`` (429) once over ``limit``.

        One conditional UpdateItem; a refused request is not counted. The 429 carries
        ``Retry-After`` (whole seconds to the window's end, at least 1) and ``RateLimit-*``.
        """
        current = self._clock() if self._clock else now()  # ``now`` looked up per call: tests move it
        window = int(current // WINDOW_SECONDS)
        window_end = (window + 1) * WINDOW_SECONDS
        reset = max(1, math.ceil(window_end - current))
        count = self._counters.hit(f"{subject}#{window}", limit, expires_at=window_end + WINDOW_SECONDS)
        if count is None:
            status = RateStatus(limit=limit, remaining=0, reset_seconds=reset, count=limit)
            raise RateLimited(headers=status.headers() | {"Retry-After": str(reset)})
        return RateStatus(limit=limit, remaining=max(0, limit - count), reset_seconds=reset, count=count)
