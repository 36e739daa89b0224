"""The management plane's reads of stored conversations and usage, as the stored turns grow (10³ and 10⁵ turns).

For each size, a fresh moto (in-process, the template's resources, the demo workspace: bench/in_process.py) is
given that many stored turns of the demo's agent, in threads of ``--turns-per-thread`` turns, each visitor with
``--threads-per-visitor`` threads, in the last 30 days. Each thread's last turn is stored by the chat's own
``ConversationStore.save`` (the turn and its thread's item, one transaction); its earlier turns are put as that
save puts a turn, straight into moto (10⁵ transactions through the API would take an hour here). The workspace's
usage has one item a day for 30 days, written by the settlement's own update (``LedgerItems.count_usage``).

Then the real handlers (in-process, the owner's portal JWT) answer, each measured as bench/cost_inputs.py measures
(warm, median of ``--runs``): the agent's threads (first page, most recent first), one visitor's threads, one
thread's turns, the agent's usage and a key's usage (30 days). What the data model promises (docs/data-model.md):
the items read and the round trips of each stay the same whatever the number of stored turns; the last column is
the time at the larger size over the time at the smaller, in the same run.

    PYTHONPATH=layers/common:. .venv/bin/python bench/stored_conversations.py [--sizes 1000 100000] [--runs 5] \\
        [--turns-per-thread 10] [--threads-per-visitor 2] [--json PATH]
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack  # noqa: E402

TITLE = "Stored conversations and usage, read as the stored turns grow"
LIST, THREAD = "PortalConversationsListFunction", "PortalConversationGetFunction"
AGENT_USAGE, KEY_USAGE = "PortalAgentUsageFunction", "PortalKeyUsageFunction"
DAYS = 30


def seed(demo: dict[str, Any], key_id: str, turns: int, per_thread: int, per_visitor: int) -> tuple[str, str]:
    """``turns`` stored turns of the demo's agent and 30 days of usage; a visitor and a thread key to read."""
    import boto3
    from moto.backends import get_backend
    from moto.core.models import DEFAULT_ACCOUNT_ID

    from core.chat.conversation_store import ConversationStore
    from core.credits.ledger_items import LedgerItems
    from core.credits.records import HoldUsage
    from core.platform import main_table as keys
    from core.platform.dynamo import to_item
    from tests.support.lambdas import stack

    env = stack().functions()["BrainChatFunction"].environment
    db, agent, workspace = boto3.client("dynamodb"), demo["agents"][0]["id"], demo["id"]
    store = ConversationStore(db, env["MAIN_TABLE"])
    backend = get_backend("dynamodb")[DEFAULT_ACCOUNT_ID]["us-east-1"]
    start = datetime.now(UTC) - timedelta(days=DAYS - 1)
    step = timedelta(days=DAYS - 1) / turns
    for n in range(turns):
        thread, within = divmod(n, per_thread)
        client, key = f"bench_visitor_{thread // per_visitor:08d}", f"thread_{thread:06d}"
        turn = {"turnId": f"turn_{n:08d}", "threadKey": key, "agentId": agent, "client": client, "section": None,
                "prompt": "What is on this week?", "reply": "Yoga at seven, every weekday. " * 6,
                "usage": {"inputTokens": 900, "outputTokens": 120}, "complete": True, "credits": 1,
                "createdAt": (start + step * n).isoformat()}  # fmt: skip
        if within == per_thread - 1 or n == turns - 1:
            store.save(workspace, turn, None)  # the turn and its thread's item, as the chat stores them
        else:  # the item that save() puts for a turn
            item = keys.turn(agent, client, key, turn["turnId"]) | turn | {"workspaceId": workspace}
            backend.put_item(env["MAIN_TABLE"], to_item(item))
    ledger = LedgerItems(env["LEDGER_TABLE"])
    for day in range(DAYS):
        date = (start + timedelta(days=day)).strftime("%Y-%m-%d")
        update = ledger.count_usage(HoldUsage(workspace_id=workspace, key_id=key_id, agent_id=agent, day=date), 1)
        assert update is not None
        db.update_item(**update["Update"])
    return "bench_visitor_00000000", "thread_000000"


def operations(studio: Any, agent: str, key_id: str, visitor: str, thread: str) -> list[Operation]:

    def read(function: str, query: dict[str, str] | None = None, **ids: str) -> Any:
        return lambda _: studio.event(function, query=query, **ids)

    days = {"days": str(DAYS)}
    return [
        Operation("the agent's threads (first page)", LIST, read(LIST, agent_id=agent), expect=200),
        Operation("one visitor's threads", LIST, read(LIST, {"client": visitor}, agent_id=agent), expect=200),
        Operation(
            "one thread's turns",
            THREAD,
            read(THREAD, {"client": visitor}, agent_id=agent, thread_key=thread),
            expect=200,
        ),
        Operation("the agent's usage (30 days)", AGENT_USAGE, read(AGENT_USAGE, days, agent_id=agent), expect=200),
        Operation("a key's usage (30 days)", KEY_USAGE, read(KEY_USAGE, days, key_id=key_id), expect=200),
    ]


def measured(turns: int, runs: int, per_thread: int, per_visitor: int) -> list[Any]:
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
            key_id = studio.ok("PortalKeysListFunction")["keys"][0]["id"]
            visitor, thread = seed(demo, key_id, turns, per_thread, per_visitor)
        meter = Meter(boto3.Session().client("dynamodb"))
        ops = operations(studio, demo["agents"][0]["id"], key_id, visitor, thread)
        return [measure(op, meter, runs) for op in ops]


def main(argv: list[str] | None = None) -> dict[str, str]:
    args = parser(__doc__)
    args.add_argument("--sizes", type=int, nargs=2, default=[1000, 100_000], metavar=("SMALL", "LARGE"))
    args.add_argument("--runs", type=int, default=5)
    args.add_argument("--turns-per-thread", type=int, default=10)
    args.add_argument("--threads-per-visitor", type=int, default=2)
    opts = args.parse_args(argv)
    small, large = (measured(n, opts.runs, opts.turns_per_thread, opts.threads_per_visitor) for n in opts.sizes)
    rows = []
    for a, b in zip(small, large, strict=True):
        calls = ", ".join(f"{k.split(':')[1]} {v}" for k, v in sorted(b.usage.calls.items()))
        same = "yes" if (a.usage.items_read, a.usage.calls) == (b.usage.items_read, b.usage.calls) else "NO"
        rows.append([a.op.label, a.usage.items_read, b.usage.items_read, sum(b.usage.calls.values()), calls, same,
                     a.duration_ms, b.duration_ms, f"{b.duration_ms / a.duration_ms:.2f}x"])  # fmt: skip
    headers = ["read", f"items at {opts.sizes[0]:,}", f"items at {opts.sizes[1]:,}", "AWS calls", "calls by kind",
               "same items and calls", f"ms at {opts.sizes[0]:,}", f"ms at {opts.sizes[1]:,}", "ratio"]  # fmt: skip
    markdown = "\n\n".join([
        table(headers, rows),
        f"Stored turns in threads of {opts.turns_per_thread}, {opts.threads_per_visitor} threads a visitor, over "
        f"{DAYS} days. items: DynamoDB items read (a Query's evaluated items); AWS calls: every call of the warm "
        "request, the workspace access check included; ms: warm in-process duration against moto (median of "
        f"{opts.runs}); ratio: the larger size's time over the smaller's. moto answers a Query of an index by "
        "walking every item of the table, so the listing's time grows with the table here; DynamoDB reads the "
        "index's page, which the items read show.",
    ])  # fmt: skip
    return finish(opts, TITLE, command("stored_conversations.py", sys.argv[1:] if argv is None else argv), markdown)


if __name__ == "__main__":
    main()
