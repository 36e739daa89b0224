"""The credit history's cost against the ledger's size (issue 43): DynamoDB items read and calls of one page.

An account's ledger of SMALL then LARGE entries (written as the ledger writes them, in moto), read through
``CreditReader.history`` — the newest page, a page half way down, the oldest page, and the oldest page of refunds —
twice: **before**, the ledger not numbered (the reader's path is then the one before issue 43: the books read newest
first, ``offset + limit`` entries, with ``refType`` every entry down to the page; its first round trip was one
GetItem, now a BatchGetItem of two), and **now**, numbered (``tests/support/ledger_history.seed_numbered``: the
numberer's own items, written in batches; the numberer itself is tested to write exactly those). Counted by
``bench/dynamo_meter.py`` on the reader's own client (a Query: the items it evaluated).

    PYTHONPATH=layers/common:. .venv/bin/python bench/credit_history.py [--sizes 1000 10000] [--json PATH]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402

PAGE = 50


def pages(size: int, refunds: int) -> list[tuple[str, str | None, int]]:
    return [("newest page", None, 0), ("half way down", None, size // 2), ("oldest page", None, size - PAGE),
            ("oldest page of refunds", "refund", max(0, refunds - PAGE))]  # fmt: skip


def measure(sizes: list[int]) -> list[list[Any]]:
    import boto3
    from moto import mock_aws

    from bench.dynamo_meter import Meter
    from local.aws.emulator import create_resources, make_dynamodb_reads_fast, make_moto_dynamodb_as_in_the_runner
    from stack.template import Stack, load

    make_moto_dynamodb_as_in_the_runner()
    make_dynamodb_reads_fast()
    rows: dict[tuple[str, str], list[Any]] = {}
    with mock_aws():
        stack = Stack(load())
        os.environ.update(stack.functions()["PortalCreditsHistoryFunction"].environment)
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        session = boto3.Session(region_name="us-east-1")
        create_resources(stack, session.client("dynamodb"), session.client("s3"))
        from core.credits.models import CreditHistoryQuery
        from core.credits.reader import CreditReader
        from core.credits.store import LedgerStore
        from core.platform.settings import get_settings
        from tests.support.ledger_history import TYPES, seed_numbered, write_old_ledger

        seeding = session.client("dynamodb")
        metered = session.client("dynamodb")
        meter = Meter(session.client("dynamodb"))
        meter.attach(type("Events", (), {"events": metered.meta.events})())
        reader = CreditReader(LedgerStore(metered, get_settings().ledger_table), usd_cents_per_credit=1,
                              hold_seconds=900)  # fmt: skip
        for size in sizes:
            refunds = sum(TYPES[i % len(TYPES)] == "refund" for i in range(size))
            for state in ("before", "now"):
                account = f"usr_bench{state}{size:012d}"
                entries = write_old_ledger(seeding, account, size)
                if state == "now":
                    seed_numbered(seeding, account, entries)
                for label, ref_type, offset in pages(size, refunds):
                    query = CreditHistoryQuery.model_validate({"limit": PAGE, "offset": offset, "refType": ref_type})
                    meter.reset()
                    reader.history(account, query)
                    usage = meter.reset()
                    calls = ", ".join(f"{k.split(':')[1]} {v}" for k, v in sorted(usage.calls.items()))
                    rows.setdefault((label, state), []).append(f"{usage.items_read:,} ({calls})")
    return [[label, state, *found] for (label, state), found in rows.items()]


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__)
    args.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    opts = args.parse_args(argv)
    measured = measure(opts.sizes)
    headers = ["page (50 entries)", "reader", *[f"items read (calls) at {s:,} entries" for s in opts.sizes]]
    markdown = "\n\n".join(
        [
            table(headers, sorted(measured, key=lambda r: (r[0], r[1] != "before"))),
            "before: the ledger not numbered (the reader's path before issue 43, plus one item in its first "
            "round trip); now: numbered. Modelled beyond: before, a page at `offset` reads `offset + 50 + 1` items "
            "(with `refType`: every entry down to the page, 1 MB a Query); now, 50 + 2 (+ one Query per row "
            "partition the page spans, ≤ 2), "
            "and when the numberer lags, the tail's entries from the books.",
        ]
    )
    title = "Credit history against the ledger's size (issue 43)"
    return finish(opts, title, command("credit_history.py", argv or sys.argv[1:]), markdown)


if __name__ == "__main__":
    main()
