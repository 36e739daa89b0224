"""A hot key at scale: one key's rate-limit counter at thousands of requests a second, one item against shards.

A model, not a load test (DynamoDB's partition ceilings cannot be reproduced in moto): second by
second, ``--seconds`` of steady demand against a key's limit. Each request reads its counter item
(1 RCU, strongly consistent, under 4 KB) and, when counted, writes it (1 WCU, the item stays under
1 KB). A partition takes at most 1,000 WCU and 3,000 RCU a second; beyond that DynamoDB throttles and
the limiter fails closed (a 500). Unsharded (N=1), every request reads the one item. Sharded (the
limiter's ``shard_count`` and ``shard_limits``), a request picks a random shard with room and probes
the others before a 429; each container reads a full shard at most once until it has room, so over
the limit refused requests cost about ``--containers`` reads per full shard a second. Arrivals are
spread over shards at random (multinomial). Burst credit and adaptive capacity are left out (they
only delay throttling). Admitted and refused are from the last window (60 s) of the run, throttled from all of it.

    PYTHONPATH=layers/common:. .venv/bin/python bench/hot_key.py [--seconds 180] [--json PATH]
"""

from __future__ import annotations

import random
import sys
from collections import deque
from dataclasses import dataclass

from bench.benchkit import command, finish, parser, table
from bench.hot_key_measured import measured
from core.platform.rate_shards import shard_count, shard_limits

WRITE_CEILING = 1_000  # WCU a second, one partition
READ_CEILING = 3_000  # RCU a second, one partition
WINDOW = 60
BUCKETS = WINDOW + 1  # the oldest, partly covered second counted whole (docs/decisions.md)


@dataclass(frozen=True)
class Outcome:
    admitted: float  # a second, in the measured window
    refused: float  # 429 a second
    throttled: float  # share of every request of the run that DynamoDB throttled (a 500), the opening burst included
    peak_writes: int  # one partition's busiest second
    peak_reads: int


def spread(total: int, shards: int, rng: random.Random) -> list[int]:
    """``total`` requests, each on a uniformly random shard."""
    counts, left = [], total
    for index in range(shards - 1):
        n = rng.binomialvariate(left, 1 / (shards - index))
        counts.append(n)
        left -= n
    return [*counts, left]


def simulate(limit: int, demand: int, shards: int, *, seconds: int, containers: int, seed: int) -> Outcome:
    """``limit`` requests a minute, ``demand`` requests a second, ``shards`` items."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible model, not a secret
    shares = shard_limits(limit, shards)
    windows = [deque([0] * BUCKETS, maxlen=BUCKETS) for _ in range(shards)]
    admitted = refused = throttled_all = 0
    peak_writes = peak_reads = 0
    for second in range(seconds):
        for window in windows:
            window.append(0)  # a new one-second bucket; the oldest leaves
        room = [share - sum(window) for share, window in zip(shares, windows, strict=True)]
        reads, writes = [0] * shards, [0] * shards
        ok = bad = no = 0
        if shards == 1:
            reads[0] = demand  # every request reads the one item, refused ones too
            served_reads = min(demand, READ_CEILING)
            wanted = min(served_reads, room[0])
            writes[0] = min(wanted, WRITE_CEILING)
            ok, bad, no = writes[0], demand - served_reads + wanted - writes[0], served_reads - wanted
        else:
            for i in range(shards):  # full since an earlier second: at most one read per container as it opens
                if room[i] <= 0:
                    reads[i] += containers
            pending, open_shards = demand, [i for i in range(shards) if room[i] > 0]
            while pending and open_shards:  # a random shard with room; past a full one, another with room
                arrivals = spread(pending, len(open_shards), rng)
                pending = 0
                for i, n in zip(open_shards, arrivals, strict=True):
                    counted = min(n, room[i])
                    reads[i] += min(n, counted + containers)  # once full, each container reads it once, then skips it
                    writes[i] += counted
                    room[i] -= counted
                    pending += n - counted
                open_shards = [i for i in open_shards if room[i] > 0]
            for i in range(shards):
                over_reads = max(0, reads[i] - READ_CEILING) / max(1, reads[i])
                lost = round(writes[i] * over_reads) + max(0, writes[i] - WRITE_CEILING)
                bad += min(lost, writes[i])
                writes[i] -= min(lost, writes[i])
                ok += writes[i]
            no = demand - ok - bad
        for window, counted in zip(windows, writes, strict=True):
            window[-1] = counted
        peak_writes, peak_reads = max(peak_writes, *writes), max(peak_reads, *reads)
        throttled_all += bad
        if second >= seconds - WINDOW:
            admitted, refused = admitted + ok, refused + no
    return Outcome(admitted / WINDOW, refused / WINDOW, throttled_all / (demand * seconds), peak_writes, peak_reads)


SCENARIOS = [  # (limit a minute, demand a second)
    (600, 15),  # the default key limit, 1.5x over it: N=1, exact as before
    (600_000, 5_000),  # a brand page's key of 10,000/s at half its limit
    (600_000, 10_000),  # at its limit
    (600_000, 15_000),  # 1.5x over its limit
    (1_200_000, 20_000),  # 20,000/s
    (600_000, 25_000),  # a burst at 2.5x the sustained rate from an empty window: past 1,000 writes a shard
]


def rows(seconds: int, containers: int) -> list[list[object]]:
    found = []
    for limit, demand in SCENARIOS:
        for shards in sorted({1, shard_count(limit, WINDOW)}):
            got = simulate(limit, demand, shards, seconds=seconds, containers=containers, seed=limit + demand)
            per_second = limit / WINDOW
            found.append([
                f"{per_second:,.0f}/s", f"{demand:,}", shards, f"{got.admitted:,.0f}",
                f"{got.admitted / min(per_second, demand):.3f}x", f"{100 * got.refused / demand:.1f}%",
                f"{100 * got.throttled:.1f}%", got.peak_writes, got.peak_reads,
            ])  # fmt: skip
    return found


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--seconds", type=int, default=180, help="seconds simulated (the last 60 are reported)")
    cli.add_argument("--containers", type=int, default=100, help="Lambda containers serving the key")
    cli.add_argument("--measured-containers", type=int, default=8, help="containers in the measured (moto) run")
    args = cli.parse_args(argv)
    headers = [
        "limit", "demand (req/s)", "shards", "admitted (req/s)", "admitted / min(limit, demand)", "429",
        "throttled (500), whole run", "peak WCU/partition/s", "peak RCU/partition/s",
    ]  # fmt: skip
    markdown = table(headers, rows(args.seconds, args.containers))
    calls = table(
        ["shards", "admitted", "refused (429)", "GetItem / admitted", "UpdateItem / admitted", "GetItem / refused"],
        measured(args.measured_containers),
    )
    markdown += (
        f"\n\nModel: one partition takes {WRITE_CEILING:,} WCU and {READ_CEILING:,} RCU a second; a counted "
        "request is 1 RCU + 1 WCU, a refused one 1 RCU (N=1) or none once its container knows every shard full; "
        f"{args.containers} containers. Shards hold at most 500 writes a second each "
        "(`core.platform.rate_shards`). 0.984x at or over the limit is the window's one-second conservatism "
        "(60/61), not the sharding. A shard takes up to 1,000 writes a second, twice its share of the sustained "
        "rate: a burst beyond that (the limit is per minute, so a key may spend it in seconds) is throttled until "
        "the window fills (last row)."
        "\n\nMeasured: the real limiter on moto, scaled down (600 requests a minute cut into 20 shards, the shape "
        f"of 600,000 a minute), 1.5x the limit from {args.measured_containers} "
        "containers in turn on a frozen clock (admitted: against the limit of 600; a sharded refusal reads a "
        "full shard once per container, then skips it):\n\n" + calls
    )
    return finish(args, "A hot key at scale (model)", command("hot_key.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
