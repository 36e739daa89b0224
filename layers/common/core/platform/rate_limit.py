"""Sliding-window rate limits: never more than ``limit`` requests in ANY rolling window, across every container.

A window is cut into ``BUCKETS`` buckets (60 s → 60 buckets of 1 s). A request at time t
counts every bucket that overlaps (t - window, t], the oldest, partly covered one
counted whole: so the estimate is never below the truth (no rolling window ever holds
more than ``limit``), at the price of a request being remembered for up to one bucket
longer than the window (at a steady rate, 1/61 of the throughput for 60 x 1 s).

Per request: one strongly consistent GetItem and one conditional UpdateItem (see
``rate_limit_store``); a refused request writes nothing. Only a request that
opens a new bucket while another container does the same can need a second write.
The design and its caveats (clock skew) are in docs/decisions.md, "Workspace keys".

A key's window item holds only the open day's usage counters: the first counted write that finds a closed day's
hands them on to the workspace's day item, once (``_hand_on``; ``usage_counters`` has the layout).

A limit above ``rate_shards.SHARD_WRITES_PER_SECOND`` per second is split across shards (one item each,
each holding its share of the limit), since one DynamoDB item takes about 1,000 writes a
second: see ``rate_shards`` and docs/decisions.md, "A hot key at scale".
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from core.platform import observability, usage_counters
from core.platform.errors import RateLimited
from core.platform.ports import RateCounters
from core.platform.rate_limit_store import Buckets
from core.platform.rate_shards import shard_count, shard_limits, shard_subject

logger = logging.getLogger(__name__)
WINDOW_SECONDS = 60
BUCKETS = 60
ATTEMPTS = 8  # each failed attempt means another request was counted meanwhile: contention, never a loop
_FULL_CACHE_SUBJECTS = 1024  # sharded subjects whose full shards a container remembers (LRU)
# After a hand-on that failed (cancelled by a race, or a fault), a container lets this many seconds pass before it
# tries that subject's again: a hot shard's hundreds of writes a second must not each start a transaction (they
# would cancel each other); the counters wait on the window item meanwhile, counted and readable.
HAND_ON_PAUSE = 1.0
_shuffle = random.SystemRandom().shuffle  # os.urandom: restored SnapStart copies never share one shard order


@dataclass(frozen=True)
class RateStatus:
    limit: int
    remaining: int
    reset_seconds: int  # until ``remaining`` next goes up (= Retry-After when it is 0)
    count: int = field(default=0, compare=False)  # requests counted in the window, this one included
    new_minute: bool = field(default=False, compare=False)  # the first request counted in this clock minute
    # The usage counters this request was counted in (``usage_counters`` names), each as the write left it (ALL_NEW):
    # 1 means this request was the day's first of its tag. Empty without ``tags``.
    usage: Mapping[str, int] = field(default_factory=dict, compare=False)

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


@dataclass(frozen=True)
class _Refusal:
    full: bool  # False: lost every attempt to contention (not known full)
    opens_at: float = 0.0  # clock time the subject next has room (when full)
    status: RateStatus | None = None
    usage: Mapping[str, int] | None = None  # the usage counters the refusing read saw


# The metric's name for each kind of subject (its prefix): bounded, never the subject itself (an id, a hash).
_LIMITER_OF_PREFIX = {"key": "key_rate", "visitor": "chat_visitor", "mail-to": "magic_link_address",
                      "mail-ip": "magic_link_ip", "invite-ws": "invitation_workspace",
                      "invite-pair": "invitation_workspace_address", "invite-to": "invitation_address",
                      "preview": "agent_preview", "feedback": "feedback_visitor"}  # fmt: skip


def _limiter_of(subject: str) -> str:
    return _LIMITER_OF_PREFIX.get(subject.partition("#")[0], "other")


class SlidingWindowLimiter:
    def __init__(self, counters: RateCounters, clock: Callable[[], float] | None = None):
        self._counters = counters
        self._clock = clock
        # Per sharded subject, the shards seen full and when each next has room: a full shard's buckets are
        # frozen and counts only grow, so it stays full until then (skipping it never admits more).
        self._full: OrderedDict[str, dict[int, float]] = OrderedDict()
        self._full_lock = threading.Lock()
        self._failed_hand_on: OrderedDict[str, float] = OrderedDict()  # subject -> when its hand-on last failed

    def take(
        self, subject: str, limit: int, window: int = WINDOW_SECONDS, *, tags: tuple[str, ...] = (),
        keep_days: int | None = None, hand_on: usage_counters.HandOn | None = None,
    ) -> RateStatus:  # fmt: skip
        """Count one request of ``subject``; over ``limit``: ``RateLimited`` (429, ``Retry-After``, ``RateLimit-*``).

        ``window`` (seconds) must be a multiple of ``BUCKETS``. ``Retry-After`` is the least
        whole number of seconds after which the same request would be counted. ``tags``: usage counters to count
        the request in (``usage_counters.tag_of``: ``""`` the subject's own, ``"~<agentId>"`` its agent's), in the
        counted write itself; a refusal counts in them with one more write, on the refused path only.
        ``keep_days``: for an item whose counters only the request itself reads (the chat's visitor item: is this
        the visitor's, or the thread's, first turn today? ``RateStatus.usage``), keep them and the item only this
        many days rather than the API's ``usage_counters.TTL_DAYS``, and count no refusal in them.
        ``hand_on``: where the item's closed days go (a key's: its workspace's day items), so that it holds only
        the open day; None keeps them on the item ``KEEP_DAYS`` (or ``keep_days``) as before.
        """
        if window % BUCKETS:
            raise ValueError(f"window must be a multiple of {BUCKETS} seconds")
        size = window // BUCKETS
        current = self._clock() if self._clock else now()  # ``now`` looked up per call: tests move it
        shards = shard_count(limit, window)
        outcome = (
            self._count(subject, limit, size, current, tags, keep_days=keep_days, hand_on=hand_on)
            if shards == 1
            else self._count_sharded(
                subject, shard_limits(limit, shards), size, current, tags, keep_days=keep_days, hand_on=hand_on
            )
        )
        if isinstance(outcome, RateStatus):
            return outcome
        observability.count("Throttled", limiter=_limiter_of(subject))
        if tags and keep_days is None:
            self._tally_refusal(subject, tags, current, outcome)
        if outcome.status is None:
            raise RateLimited(headers={"Retry-After": "1"})  # only under extreme contention; the next try will pass
        raise RateLimited(headers=outcome.status.headers() | {"Retry-After": str(outcome.status.reset_seconds)})

    def _tally_refusal(self, subject: str, tags: tuple[str, ...], current: float, refusal: _Refusal) -> None:
        """The 429's count: one unconditional ADD to the subject's (shard 0's) item. Best-effort: the answer is
        429 whatever happens here, and a refusal never waits on bookkeeping's failure."""
        day = usage_counters.day_of(current)
        present = refusal.usage if refusal.usage is not None else {}
        try:
            self._counters.tally(
                subject, usage_counters.names(usage_counters.REFUSED, day, tags, present),
                expires_at=int(current) + usage_counters.TTL_DAYS * usage_counters.DAY_SECONDS,
            )  # fmt: skip
        except Exception:
            logger.warning("a 429 was not counted", extra={"limiter": _limiter_of(subject)})

    def _count_sharded(
        self,
        subject: str,
        shares: list[int],
        size: int,
        current: float,
        tags: tuple[str, ...] = (),
        *,
        keep_days: int | None = None,
        hand_on: usage_counters.HandOn | None = None,
    ) -> RateStatus | _Refusal:
        """Count in a random shard with room, probing the others (never those known full) before refusing:
        a request is refused only when every shard is full, so the key admits as much as one item would.
        The ``RateLimit-*`` figures of a counted request are its shard's, scaled to the whole limit."""
        limit, shards = sum(shares), len(shares)
        with self._full_lock:
            full = self._full.pop(subject, {})
            full = {index: at for index, at in full.items() if at > current}
        order = [index for index in range(shards) if index not in full]
        _shuffle(order)
        contended = False
        for index in order:
            outcome = self._count(
                shard_subject(subject, index), shares[index], size, current, tags, keep_days=keep_days,
                hand_on=hand_on,
            )  # fmt: skip
            if isinstance(outcome, RateStatus):
                self._remember(subject, full)
                return RateStatus(
                    limit=limit, remaining=min(limit, outcome.remaining * shards), reset_seconds=outcome.reset_seconds,
                    count=min(limit, outcome.count * shards), new_minute=outcome.new_minute,
                    usage=outcome.usage,  # the shard's own counters (a sharded subject counts usage per shard)
                )  # fmt: skip
            if outcome.full:
                full[index] = outcome.opens_at
            contended = contended or not outcome.full
        self._remember(subject, full)
        if contended:
            return _Refusal(full=False)
        wait = max(1, math.ceil(min(full.values()) - current))  # the first known-full shard to have room
        return _Refusal(full=True, status=RateStatus(limit=limit, remaining=0, reset_seconds=wait, count=limit))

    def _remember(self, subject: str, full: dict[int, float]) -> None:
        if not full:
            return
        with self._full_lock:
            self._full[subject] = full
            self._full.move_to_end(subject)
            while len(self._full) > _FULL_CACHE_SUBJECTS:
                self._full.popitem(last=False)

    def _count(
        self,
        subject: str,
        limit: int,
        size: int,
        current: float,
        tags: tuple[str, ...] = (),
        *,
        keep_days: int | None = None,
        hand_on: usage_counters.HandOn | None = None,
    ) -> RateStatus | _Refusal:
        """One item's sliding window: one consistent read, then conditional writes until counted or full."""
        seen = self._counters.read(subject)
        day = usage_counters.day_of(current)
        for _ in range(ATTEMPTS):
            # Never behind the newest bucket written: a container whose clock lags joins the others' timeline.
            bucket = max(int(current // size), seen.newest if seen.newest is not None else -1)
            oldest = bucket - BUCKETS
            counts = {i: n for i, n in seen.counts.items() if oldest <= i <= bucket}
            used = sum(counts.values())
            if used >= limit:
                opens = bucket + _until_fewer(counts, oldest, used, limit)
                wait = self._seconds_until(opens, size, current)
                status = RateStatus(limit=limit, remaining=0, reset_seconds=wait, count=used)
                return _Refusal(full=True, opens_at=float(opens * size), status=status, usage=seen.usage)
            expires_at = (bucket + BUCKETS + 1) * size + 60
            ttl_days, keep = (usage_counters.TTL_DAYS, usage_counters.KEEP_DAYS) if keep_days is None else (
                keep_days, keep_days)  # fmt: skip
            if tags:  # an item that counts usage keeps it for the days the API (or the request) reads
                expires_at = max(expires_at, int(current) + ttl_days * usage_counters.DAY_SECONDS)
            written = usage_counters.names(usage_counters.COUNTED, day, tags, seen.usage) if tags else []
            added = self._counters.add(
                subject, bucket, cap=limit - (used - counts.get(bucket, 0)), seen=seen,
                drop=[i for i in seen.counts if i < oldest], expires_at=expires_at, usage=written,
                drop_usage=usage_counters.stale(seen.usage, day, keep) if tags else (),
            )  # fmt: skip
            if added.counted:
                status = self._status(
                    added.item, bucket, limit, size, current, opened=self._opens_minute(seen, bucket, size)
                )
                if not written:
                    return status
                if hand_on is not None:
                    self._hand_on(subject, added.item.usage, day, hand_on, current)
                return replace(status, usage={name: added.item.usage.get(name, 0) for name in written})
            seen = added.item  # someone else was counted meanwhile: decide again on what is there now
        return _Refusal(full=False)

    def _hand_on(
        self, subject: str, usage: Mapping[str, int], day: int, to: usage_counters.HandOn, current: float
    ) -> None:
        """Hand the closed days' counters this write left on the item (``usage``: ALL_NEW) to ``to``'s day items.

        At most one call, made by the first counted write of a day that finds a closed day on the item (once a
        day per key shard). Best-effort: the request is counted already, and a hand-on that fails or is cancelled
        moved nothing (the counters stay on the window item, where the reader finds them, until a later write
        hands them on)."""
        closed = usage_counters.closed(usage, day)
        if not closed:
            return
        with self._full_lock:
            failed = self._failed_hand_on.get(subject)
        if failed is not None and current - failed < HAND_ON_PAUSE:
            return
        try:
            moved = self._counters.hand_on(subject, closed, to)
        except Exception:
            logger.warning("a closed day's usage was not handed on", extra={"limiter": _limiter_of(subject)})
            moved = False
        with self._full_lock:
            if moved:
                self._failed_hand_on.pop(subject, None)
                return
            self._failed_hand_on[subject] = current
            self._failed_hand_on.move_to_end(subject)
            while len(self._failed_hand_on) > _FULL_CACHE_SUBJECTS:
                self._failed_hand_on.popitem(last=False)

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
