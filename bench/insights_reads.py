"""The owner's reads of insights, ratings and unanswered questions as the turns behind them grow (10³ and 10⁵).

For each size, a fresh moto (in-process, the template's resources, the demo workspace: bench/in_process.py), set to
store conversations, is given that many turns of the demo's agent over the last 30 days, in the documented layout
(tests/support/insights_seed.py: the days' counter shards, question items with their ``gsi2`` count, unanswered
rows, the three rows of each rating; what the turns and ratings would have written, added up, put straight into
moto's table: 10⁵ chat turns through the API would take hours here). 1 turn in 7 is unanswered, 1 in 7 rated down
and 1 in 7 up; a third ask one of five popular questions, the rest one of at least 31 others (each asked every day).

Then the real handlers (in-process, the owner's portal JWT) answer, measured as bench/cost_inputs.py measures (warm,
median of ``--runs``): the agent's insights (30 days), its first page of thumbs down and of unanswered questions.
What docs/decisions.md ("Insights read in constant cost") promises: the items read and the calls are the same at
both sizes.

    PYTHONPATH=layers/common:. .venv/bin/python bench/insights_reads.py [--sizes 1000 100000] [--runs 5] [--json PATH]
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from math import gcd
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack  # noqa: E402

TITLE = "Insights, ratings and unanswered questions, read as the turns grow"
INSIGHTS, FEEDBACK, UNANSWERED = (
    "PortalInsightsGetFunction",
    "PortalFeedbackListFunction",
    "PortalUnansweredListFunction",
)
DAYS = 30


def turns_of(count: int) -> list[Any]:
    from tests.support.insights_seed import SeedTurn, source

    others = max(31, count // 40)
    while gcd(others, DAYS) != 1:  # prime to the 30 days: each day's turns ask every one of them
        others += 1
    menu, post = source("Menu", item_id="itm_menu"), source("News", post_id="pst_news")
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return [
        SeedTurn(
            today - timedelta(days=n % DAYS) + timedelta(seconds=n // DAYS % 3600), f"visitor-{n % 997:016d}",
            f"thr_{n % 2011}",
            f"Popular question {n % 5}" if n // DAYS % 3 == 0 else f"Question number {n % others} please",
            unanswered=n % 7 == 0, sources=[menu] if n % 2 else [menu, post],
            rating={1: "down", 2: "up"}.get(n % 7), comment="Hm" if n % 7 == 1 else None,
        )
        for n in range(count)
    ]  # fmt: skip


def seed(demo: dict[str, Any], turns: int) -> None:
    import boto3
    from moto.backends import get_backend
    from moto.core.models import DEFAULT_ACCOUNT_ID

    from core.platform.dynamo import to_item
    from tests.support.insights_seed import seed as seed_turns
    from tests.support.lambdas import stack

    table = stack().functions()["BrainChatFunction"].environment["MAIN_TABLE"]
    backend = get_backend("dynamodb")[DEFAULT_ACCOUNT_ID]["us-east-1"]

    def write(items: list[dict[str, Any]]) -> None:
        for item in items:
            backend.put_item(table, to_item(item))

    seed_turns(boto3.client("dynamodb"), demo["id"], demo["agents"][0]["id"], turns_of(turns), stored=True,
               receipts=False, write=write)  # fmt: skip


def operations(studio: Any, agent: str) -> list[Operation]:
    def read(function: str, query: dict[str, str]) -> Any:
        return lambda _: studio.event(function, query=query, agent_id=agent)

    return [
        Operation("insights (30 days)", INSIGHTS, read(INSIGHTS, {"days": str(DAYS)}), expect=200),
        Operation("thumbs down (first page of 20)", FEEDBACK, read(FEEDBACK, {"rating": "down"}), expect=200),
        Operation("unanswered (first page of 20)", UNANSWERED, read(UNANSWERED, {}), expect=200),
    ]


def measured(turns: int, runs: int) -> list[Any]:
    import boto3

    from bench.cost_inputs import measure
    from bench.dynamo_meter import Meter
    from bench.writer_ops import signed_in
    from local.aws.emulator import make_dynamodb_reads_fast, make_moto_dynamodb_as_in_the_runner

    make_moto_dynamodb_as_in_the_runner()  # as the tests' and the runner's moto
    make_dynamodb_reads_fast()
    with demo_stack() as demo:
        studio = signed_in(demo)
        with captured_output():
            studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True})
            seed(demo, turns)
        meter = Meter(boto3.Session().client("dynamodb"))
        return [measure(op, meter, runs) for op in operations(studio, demo["agents"][0]["id"])]


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__)
    args.add_argument("--sizes", type=int, nargs=2, default=[1000, 100_000], metavar=("SMALL", "LARGE"))
    args.add_argument("--runs", type=int, default=5)
    opts = args.parse_args(argv)
    small, large = (measured(n, opts.runs) for n in opts.sizes)
    rows = []
    for a, b in zip(small, large, strict=True):
        calls = ", ".join(f"{k.split(':')[1]} {v}" for k, v in sorted(b.usage.calls.items()))
        same = "yes" if (a.usage.items_read, a.usage.calls) == (b.usage.items_read, b.usage.calls) else "NO"
        rows.append([a.op.label, a.usage.items_read, b.usage.items_read, sum(b.usage.calls.values()), calls, same,
                     a.duration_ms, b.duration_ms])  # fmt: skip
    headers = ["read", f"items at {opts.sizes[0]:,}", f"items at {opts.sizes[1]:,}", "AWS calls", "calls by kind",
               "same items and calls", f"ms at {opts.sizes[0]:,}", f"ms at {opts.sizes[1]:,}"]  # fmt: skip
    markdown = "\n\n".join([
        table(headers, rows),
        f"Turns over {DAYS} days, seeded in the documented layout. items: DynamoDB items read (BatchGetItem's found "
        "items, a Query's evaluated items), the access check's included; AWS calls: every call of the warm request; "
        f"ms: warm in-process duration against moto (median of {opts.runs}). moto answers a Query of an index by "
        "walking every item of the table, so the insights' time grows with the table here; DynamoDB reads the "
        "index's 20 items a day, which the items read show.",
    ])  # fmt: skip
    return finish(opts, TITLE, command("insights_reads.py", sys.argv[1:] if argv is None else argv), markdown)


if __name__ == "__main__":
    main()
