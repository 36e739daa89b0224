"""A key's rate-limit window item over many days (issue 43): its size and each request's write units, before and after.

The real limiter (``SlidingWindowLimiter`` + ``RateLimitStore``) on moto, a fake clock moved a day at a time: each day a
key serves ``--agents`` agents one request each, then one more each answered 429 (the key's limit is the agents'
count), so each day leaves the key's and every agent's counters (requests and 429s). "Before" is the limiter without
a hand-on (the window item keeps ``KEEP_DAYS`` of counters: every key's item before issue 43); "after" hands each
closed day on to the workspace's day item (what the read plane's key check does now). The item's size is DynamoDB's
(``bench/dynamo_meter.py``), a write's units are 1 KB units of the item's size (on-demand bills the larger of before
and after). The day item the closed days went to is shown too (written once a day per key shard, in a transaction).

    PYTHONPATH=layers/common:. .venv/bin/python bench/usage_window.py [--days 90] [--agents 16] [--json PATH]
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.dynamo_meter import item_size, write_units  # noqa: E402

START = 1_800_000_000.0
WORKSPACE, KEY = "ws_bench", "key_bench"


def run(days: int, agents: int, hand_on: bool) -> dict[int, tuple[int, int]]:
    """{day number: (window item bytes, day item bytes)} after each of ``days`` days."""
    import boto3

    from core.platform import usage_counters
    from core.platform.errors import RateLimited
    from core.platform.rate_limit import SlidingWindowLimiter
    from core.platform.rate_limit_store import RateLimitStore

    db = boto3.client("dynamodb")
    table_name = f"bench-usage-window-{int(hand_on)}"
    db.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
    )  # fmt: skip
    now = [START]
    limiter = SlidingWindowLimiter(RateLimitStore(db, table_name), clock=lambda: now[0])
    to = usage_counters.HandOn(WORKSPACE, KEY) if hand_on else None
    ids = [f"prj_agent{n:02d}" for n in range(agents)]
    sizes: dict[int, tuple[int, int]] = {}

    def size(pk: str) -> int:
        return item_size(db.get_item(TableName=table_name, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item"))

    for day in range(days):
        now[0] = START + day * usage_counters.DAY_SECONDS + 30
        for agent in ids * 2:
            with contextlib.suppress(RateLimited):  # the day's 429s: counted on the item too
                limiter.take(f"key#{KEY}", agents, tags=("", usage_counters.tag_of(agent)), hand_on=to)
        today = usage_counters.day_of(now[0])
        sizes[day + 1] = (size(f"key#{KEY}"), size(usage_counters.day_item(WORKSPACE, today - 1)))
    return sizes


def main(argv: list[str] | None = None) -> dict[str, str]:
    args_parser = parser(__doc__)
    args_parser.add_argument("--days", type=int, default=90)
    args_parser.add_argument("--agents", type=int, default=16)
    args = args_parser.parse_args(argv)
    os.environ.update(
        {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"}
    )
    from moto import mock_aws

    with mock_aws():
        before = run(args.days, args.agents, hand_on=False)
        after = run(args.days, args.agents, hand_on=True)
    shown = sorted({1, 2, 7, 30, args.days} & set(before))
    rows = [
        [day, before[day][0], write_units(before[day][0]), after[day][0], write_units(after[day][0]), after[day][1]]
        for day in shown
    ]
    headers = ["after day", "before: window item bytes", "before: WCU a request", "after: window item bytes",
               "after: WCU a request", "after: yesterday's day item bytes"]  # fmt: skip
    markdown = f"A key serving {args.agents} agents a day (one request each, then one 429 each), on moto:\n\n"
    markdown += table(headers, rows)
    cmd = command("usage_window.py", sys.argv[1:] if argv is None else argv)
    return finish(args, "Rate-limit window item against days elapsed", cmd, markdown)


if __name__ == "__main__":
    main()
