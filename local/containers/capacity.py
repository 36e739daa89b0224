"""How many emulated Lambda containers the runner keeps, and what a request that finds none free gets.

Lambda scales out one container per concurrent request up to the account's (or the function's
reserved) concurrency, and throttles beyond it. A laptop cannot: 32 cold starts at once on two
cores outlast the function's timeout, and each container is a Python process of ~100 MB. So the
runner bounds containers per function and in total, starts only a few at once, lets a request wait
a bounded time for a free one, and sheds the rest as API Gateway sheds a throttled request: an
answer with ``Retry-After``, never a dropped connection.

Each bound can be set in the environment of ``python -m local`` (``LOCAL_*`` below).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

CONTAINER_MEMORY = 160 * 1024 * 1024  # a warm container's RSS with headroom (measured ~90-110 MB)


class Throttled(Exception):
    """No container came free within the wait: shed with ``Retry-After`` (429 for the function, 503 for the runner)."""

    def __init__(self, function: str, *, runner_full: bool, retry_after: int):
        super().__init__(f"{function}: {'the runner is' if runner_full else 'its containers are'} at capacity")
        self.function = function
        self.runner_full = runner_full
        self.retry_after = retry_after


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 4 * 1024**3


def _setting(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


@dataclass(frozen=True)
class PoolLimits:
    per_function: int  # containers of one function (its concurrency)
    total: int  # containers of all functions together: bounds memory at total x CONTAINER_MEMORY
    cold_starts: int  # containers starting at once (a cold start is CPU-bound imports)
    queue_wait: float  # seconds a request may wait for a container before it is shed
    queue_depth: int  # requests waiting per function beyond which a new one is shed at once
    idle_seconds: float  # a container idle this long is stopped

    @classmethod
    def from_environment(cls) -> PoolLimits:
        """Defaults derived from the machine: a few containers per core, within a quarter of its memory."""
        cpus = os.cpu_count() or 2
        by_memory = _memory_bytes() // 4 // CONTAINER_MEMORY
        per_function = int(_setting("LOCAL_FUNCTION_CONCURRENCY", max(2, 2 * cpus)))
        return cls(
            per_function=per_function,
            total=int(_setting("LOCAL_MAX_CONTAINERS", max(per_function, min(8 * cpus, by_memory)))),
            cold_starts=int(_setting("LOCAL_COLD_STARTS", max(1, cpus))),
            queue_wait=_setting("LOCAL_QUEUE_WAIT_SECONDS", 5.0),
            queue_depth=int(_setting("LOCAL_QUEUE_DEPTH", 64)),
            idle_seconds=_setting("LOCAL_IDLE_SECONDS", 300.0),
        )
