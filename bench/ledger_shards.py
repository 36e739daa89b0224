"""Chat turns a second one billed account can take: its hot items against DynamoDB's ceilings, unsharded and sharded.

A model, not a load test (DynamoDB's ceilings cannot be reproduced in moto), like bench/hot_key.py: second by
second, ``--seconds`` of steady demand of one account's chat turns. One item takes at most 1,000 WCU a second (an
item is never split across partitions; a partition key's other items can be, so the ceiling that holds is the
item's), a transactional write costs 2 WCU an item (under 1 KB), a plain one 1. What a turn writes (docs/ledger.md):

- the hold's reserve: Put hold, ConditionCheck marker, Update **balance** (a transaction); mark delivered: Update
  hold (plain); the settlement: Delete hold, Put marker, Put entry, Update **balance**, Update the workspace's
  **usage day** (a transaction). The hold, marker and entry are the turn's own items; the balance and the usage day
  are shared by every turn of the account: 4 and 2 WCU a turn.
- the **expiringHolds index** key of the hold (``HOLDS#<crc32 mod HOLD_SHARDS>``, every account's holds): 3 index
  writes a turn (put, delivered, deleted), 1 WCU each; the sort key (expiry) only grows, so a key is not split.
- the credit history (issue 43's numberer, off the request path): one transaction per 33 entries that Updates the
  account's **HISTORY** item (2 WCU), SETs ``n`` on each entry and Puts two history rows an entry, rows in blocks
  of 100 over 16 partitions per family (``ACCT#<id>#H<k>``, ``ACCT#<id>#T#llm#<k>``).
- sharded (``shards`` = S): each turn's hold and settlement write its book's balance and its book's usage day
  (``<day>#S<k>``), turns spread over the books by their ids (multinomial); a shard's balance leases
  ``LEASE_TURNS`` turns' worth from the main balance at a time (2 WCU on each of the two balances).

Turns that need an item over its ceiling are throttled (the share over the ceiling, per book; then the share over
the ceiling of the account's or the service's shared items). Burst and adaptive capacity are left out (they only
delay throttling).

Measured: the real ledger on moto (in-process, atomic requests as in the tests), ``--threads`` threads taking
``--turns`` turns (hold, delivered, settle with usage) of one account, unsharded and with S shards: the writes of
its hottest item and of its main balance per turn (the ceilings above make those the throughput), and that the
ledger is exact afterwards (balance = Σ entries over every book, nothing held, each turn charged once).

    PYTHONPATH=layers/common:. .venv/bin/python bench/ledger_shards.py [--seconds 60] [--shards 16] [--json PATH]
"""

from __future__ import annotations

import collections
import math
import os
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from bench.benchkit import command, finish, parser, table
from core.credits.shards import LEASE_TURNS

ITEM_CEILING = 1_000  # WCU a second, one item (one partition's at most)
TX, PLAIN = 2, 1  # WCU per item written in a transaction, and outside one
BALANCE_WCU = 2 * TX  # reserve + settlement
USAGE_WCU = TX
INDEX_WRITES = 3 * PLAIN  # the hold's index entry: put, delivered, deleted
NUMBERED_PER_TX = 33
ROW_PARTITIONS = 16
HOLD_KEYS_BEFORE, HOLD_KEYS_NOW = 8, 32


@dataclass(frozen=True)
class Outcome:
    served: float  # turns a second, mean
    throttled: float  # share of demand
    hottest: str
    hottest_wcu: float  # its WCU in the busiest second


def spread(total: int, parts: int, rng: random.Random) -> list[int]:
    counts, left = [], total
    for index in range(parts - 1):
        n = rng.binomialvariate(left, 1 / (parts - index))
        counts.append(n)
        left -= n
    return [*counts, left]


def over(wcu: float) -> float:
    """The share of an item's writes that its ceiling throttles."""
    return max(0.0, 1 - ITEM_CEILING / wcu) if wcu > 0 else 0.0


def simulate(demand: int, shards: int, hold_keys: int, *, seconds: int, seed: int) -> Outcome:
    rng = random.Random(seed)  # noqa: S311 - a reproducible model, not a secret
    served = 0.0
    heat: dict[str, float] = collections.defaultdict(float)
    for _ in range(seconds):
        books = spread(demand, shards, rng) if shards else [demand]
        kept = 0.0
        leases = 0
        for n in books:
            lent = math.ceil(n / LEASE_TURNS) if shards else 0
            leases += lent
            balance, usage = BALANCE_WCU * n + TX * lent, USAGE_WCU * n
            name = f"shard balance (busiest of {shards})" if shards else "balance"
            heat[name] = max(heat[name], balance)  # the busiest second's
            usage_name = "usage day (busiest shard's)" if shards else "usage day"
            heat[usage_name] = max(heat[usage_name], usage)
            kept += n * (1 - max(over(balance), over(usage)))
        shared = {
            "main balance (leases)": TX * leases if shards else 0,
            "HISTORY item": TX * math.ceil(demand / NUMBERED_PER_TX),
            "history rows' partition": TX * demand / ROW_PARTITIONS,
            f"expiringHolds key (of {hold_keys})": max(spread(INDEX_WRITES * demand, hold_keys, rng)),
        }
        for name, wcu in shared.items():
            heat[name] = max(heat[name], wcu)
        kept *= 1 - max(over(w) for w in shared.values())
        served += kept
    hottest = max(heat, key=lambda name: heat[name])
    return Outcome(served / seconds, 1 - served / (seconds * demand), hottest, heat[hottest])


def ceiling(shards: int, hold_keys: int, *, seconds: int) -> int:
    """The most turns a second served with under 0.1% throttled (to 50 turns)."""
    low, high = 50, 40_000
    while high - low > 50:
        mid = (low + high) // 2
        if simulate(mid, shards, hold_keys, seconds=seconds, seed=mid).throttled < 0.001:
            low = mid
        else:
            high = mid
    return low


def model_rows(shards: int, seconds: int) -> list[list[object]]:
    configs = [("today (one balance, 8 index keys)", 0, HOLD_KEYS_BEFORE), (f"S={shards}, 32 index keys", shards,
               HOLD_KEYS_NOW)]  # fmt: skip
    found: list[list[object]] = []
    for demand in (250, 500, 1_000, 2_500, 3_000):
        for label, count, keys in configs:
            got = simulate(demand, count, keys, seconds=seconds, seed=demand)
            found.append([f"{demand:,}", label, f"{got.served:,.0f}", f"{100 * got.throttled:.1f}%", got.hottest,
                          f"{got.hottest_wcu:,.0f}"])  # fmt: skip
    for label, count, keys in configs:
        found.append(["most (<0.1% throttled)", label, f"{ceiling(count, keys, seconds=seconds):,}", "", "", ""])
    return found


# ------------------------------------------------------------------ measured: the real ledger on moto


def measured(turns: int, threads: int, shards: int) -> list[list[object]]:
    os.environ.update(
        {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"}
    )
    from moto import mock_aws

    found: list[list[object]] = []
    with mock_aws():
        import boto3

        from core.credits.billing import Billing
        from core.credits.records import HoldUsage
        from core.credits.store import LedgerStore
        from core.platform.dynamo import query_all
        from local.aws.emulator import make_moto_dynamodb_as_in_the_runner
        from tests.support.ledger_calls import CountingLedgerClient

        make_moto_dynamodb_as_in_the_runner()
        db = boto3.client("dynamodb")
        for count in (0, shards):
            table_name = f"bench-ledger-{count}"
            db.create_table(
                TableName=table_name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                                      for a in ("pk", "sk", "holdShard", "expiresAt")],
                GlobalSecondaryIndexes=[{"IndexName": "expiringHolds", "Projection": {"ProjectionType": "ALL"},
                                         "KeySchema": [{"AttributeName": "holdShard", "KeyType": "HASH"},
                                                       {"AttributeName": "expiresAt", "KeyType": "RANGE"}]}],
            )  # fmt: skip
            account = "usr_bench"
            setup = LedgerStore(db, table_name)
            setup.grant(account, 10 * turns, "topup", "t1", "Top-up")
            if count:
                setup.set_shards(account, count)
            client = CountingLedgerClient(db)
            billings = [Billing(LedgerStore(client, table_name), hold_seconds=900) for _ in range(threads)]
            usage = HoldUsage(workspace_id="ws_bench", key_id="key_1", agent_id="agt_1", day="2027-01-15")

            def turn(
                n: int, billings: list[Billing] = billings, usage: HoldUsage = usage, account: str = account
            ) -> None:
                billing = billings[n % threads]  # a container per thread
                hold = billing.hold(account, "llm", f"turn_{n:06d}", 1, "Chat turn", usage=usage)
                billing.mark_delivered(hold)
                billing.settle(hold)

            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(turn, range(turns)))
            books = [f"ACCT#{account}"] + [f"ACCT#{account}#S{k}" for k in range(1, count + 1)]
            items = [i for pk in books for i in query_all(db, {"TableName": table_name, "KeyConditionExpression":
                     "pk = :pk", "ExpressionAttributeValues": {":pk": {"S": pk}}})]  # fmt: skip
            charged = -sum(int(i["amountCredits"]) for i in items if i["sk"].startswith("ENTRY#") and
                           i["refType"] == "llm")  # fmt: skip
            balance = LedgerStore(db, table_name).balance(account)
            entries = sum(int(i["amountCredits"]) for i in items if i["sk"].startswith("ENTRY#"))
            exact = (charged == turns and balance.held == 0 and balance.available == entries
                     and not any(i["sk"].startswith("HOLD#") for i in items))  # fmt: skip
            (hot_key, hot), *_ = client.writes.most_common(1)
            main = client.writes[(f"ACCT#{account}", "BALANCE")]
            found.append([
                count or "none", turns, threads, f"{hot / turns:.2f}", hot_key[1] + (" " + hot_key[0].split("#")[-1]
                if count and "#S" in hot_key[0] else ""), f"{main / turns:.3f}",
                f"{client.calls['TransactWriteItems'] / turns:.2f}", f"{client.calls['GetItem'] / turns:.3f}",
                "yes" if exact else "NO",
            ])  # fmt: skip
    return found


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--seconds", type=int, default=60, help="seconds simulated")
    cli.add_argument("--shards", type=int, default=16, help="the sharded account's S")
    cli.add_argument("--turns", type=int, default=400, help="turns in the measured (moto) run")
    cli.add_argument("--threads", type=int, default=8, help="threads (containers) in the measured run")
    args = cli.parse_args(argv)
    headers = ["demand (turns/s)", "account", "served (turns/s)", "throttled", "hottest item",
               "its WCU (busiest second)"]  # fmt: skip
    markdown = table(headers, model_rows(args.shards, args.seconds))
    calls = table(
        ["shards", "turns", "threads", "hottest item's writes / turn", "hottest item", "main balance writes / turn",
         "TransactWriteItems / turn", "GetItem / turn", "exact"],
        measured(args.turns, args.threads, args.shards),
    )  # fmt: skip
    markdown += (
        f"\n\nModel: one item takes {ITEM_CEILING:,} WCU a second; a turn writes its balance twice in transactions "
        f"(4 WCU), its usage day once (2 WCU), its hold's index key three times (3 WCU); the history numberer writes "
        f"the account's HISTORY item once per {NUMBERED_PER_TX} entries. A shard leases {LEASE_TURNS} turns' worth "
        "at a time. Today's ceiling is the balance item (1,000 / 4 = 250 turns a second); sharded, the busiest "
        "shard's balance (turns spread by their ids), then the history rows' partitions and the index keys."
        "\n\nMeasured: the real ledger on moto, every turn a hold, a delivery mark and a settlement with usage; "
        "writes counted item by item (a cancelled transaction writes nothing):\n\n" + calls
    )
    return finish(args, "Chat turns per billed account (model and measured)", command("ledger_shards.py", argv or []),
                  markdown)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
