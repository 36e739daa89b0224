"""Balance shards: a billed account whose turns outrun one partition (pure: no I/O). See docs/ledger.md, "Shards".

One balance item takes at most ~500 transactional writes a second (1,000 WCU a partition, 2 WCU a transactional
write), and every turn writes it twice (hold, then settlement): ~250 turns a second per account. An operator gives
a busy account ``shards`` = S (``python -m ops shard-ledger``): S more *books*, partitions ``ACCT#<id>#S<k>``
(k = 1..S), each with its own balance, holds, markers and entries. The main book ``ACCT#<id>`` keeps the grants
and lends credit to the shards (a *lease*); a reference's hold, marker and entry live in one book, chosen from
its id, so a turn is charged once whichever container handles it.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable

MAIN = 0  # the main book: ``ACCT#<id>``
MAX_SHARDS = 32  # main + every shard balance fit one TransactGetItems (≤ 100 items) with room to spare
# A lease moves this many turns' worth of credit to a shard at once: one write of the main balance covers that
# many turns of the shard (at 2,500 turns/s over 16 shards, ~125 leases/s on the main item, within its partition).
LEASE_TURNS = 20
# How long a container trusts what it learned of an account's shards. Shards only grow (``shard-ledger`` refuses
# fewer), and a hold names its book, so a stale count only places a new reference in a book the next count would
# not: still one book per reference, still charged once.
CACHE_SECONDS = 60.0
# A reserve that races other reserves of the account for its credit (leases, gathers) tries this many times
# before it gives up with 503; a 402 is answered only from a consistent read of every book.
RESERVE_ATTEMPTS = 12


def partition(account_id: str, book: int) -> str:
    """The partition key of an account's book."""
    return f"ACCT#{account_id}" if book == MAIN else f"ACCT#{account_id}#S{book}"


def book_of(ref_id: str, shards: int) -> int:
    """The book a reference's hold, marker and entry are written in: the main book of an unsharded account, else
    one of its shards, the same for every container that sees the same ``shards``."""
    return MAIN if shards <= 0 else zlib.crc32(ref_id.encode()) % shards + 1


def lease_size(amount: int, wanted: int) -> int:
    """Credit to lend a shard that needs ``wanted`` more to hold ``amount``: a few turns' worth, at least ``wanted``."""
    return max(amount * LEASE_TURNS, wanted)


def usage_sk(day: str, book: int) -> str:
    """The usage item a settlement in ``book`` counts on: the day's own for the main book, else ``<day>#S<k>``
    (the workspace's day is as hot as the account's balance; a reader sums ``<day>`` … ``<day>~``)."""
    return day if book == MAIN else f"{day}#S{book}"


def usage_day(sk: str) -> str:
    return sk.split("#", 1)[0]


class ShardCounts:
    """What this container learned of accounts' shards (from a reserve's cancelled condition or a balance read),
    for ``CACHE_SECONDS``. Thread-safe enough: a dict assignment is atomic, and a lost update is a re-read."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, seconds: float = CACHE_SECONDS):
        self._clock = clock
        self._seconds = seconds
        self._known: dict[str, tuple[int, float]] = {}

    def get(self, account_id: str) -> int | None:
        found = self._known.get(account_id)
        if found is None or self._clock() - found[1] > self._seconds:
            return None
        return found[0]

    def learn(self, account_id: str, shards: int) -> None:
        self._known[account_id] = (shards, self._clock())
