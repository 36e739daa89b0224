"""How a rate limit is split across items so that no one DynamoDB item takes more writes than it can.

One item (one partition) takes about 1,000 write units a second; a key with a limit of 10,000
requests a second would be throttled at a tenth of it on one item, whatever its limit. A limit
is cut into ``shard_count`` shares, one item each, that add up to the limit exactly: no rolling
window admits more than the limit, and below ``SHARD_WRITES_PER_SECOND`` a second a limit keeps
its one exact item. The limiter (``rate_limit``) picks the shards; docs/decisions.md, "A hot key
at scale", has the trade-off.
"""

from __future__ import annotations

import math

# Writes a second one shard may take at its full limit: half a partition's 1,000 WCU/s, leaving room for
# an uneven random spread and a second write when two containers open one bucket at once.
SHARD_WRITES_PER_SECOND: float = 500  # a rate: hot_key_measured scales it below one to model a busy shard


def shard_count(limit: int, window: int) -> int:
    """How many items carry a limit of ``limit`` per ``window`` s: 1 (exact, one item) up to 500/s."""
    return max(1, math.ceil(limit / window / SHARD_WRITES_PER_SECOND))


def shard_limits(limit: int, shards: int) -> list[int]:
    """Each shard's share of ``limit``: they add up to ``limit`` exactly, and differ by at most one."""
    base, extra = divmod(limit, shards)
    return [base + (index < extra) for index in range(shards)]


def shard_subject(subject: str, index: int) -> str:
    """Shard 0 is the subject's own item (a key that grows past one shard keeps its counts there)."""
    return subject if index == 0 else f"{subject}#shard{index}"
