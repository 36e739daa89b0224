"""A post (and item) write's DynamoDB write units beside the agent's documents (issue 43): the demo's own site document,
then one of 64 KiB (the API's limit), published on the same agent.

The writer's requests of bench/cost_inputs.py (bench/writer_ops.py: the demo's owner signed in, each request a real
write) run in-process against moto with the benches' meter (bench/dynamo_meter.py), which bills a transaction's
Update or ConditionCheck by the larger of the item's sizes before and after, as DynamoDB does: a write that touched
the agent's item paid for its documents. Since issue 43 a post, item or answer write moves the agent's counters item
(``COUNTS#<agentId>``, core.platform.agent_counts_store), so both columns should be equal.

    PYTHONPATH=layers/common:. .venv/bin/python bench/post_write_cost.py [--runs 3]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.cost_inputs import Result, measure  # noqa: E402
from bench.dynamo_meter import Meter, item_size  # noqa: E402
from bench.in_process import captured_output, demo_stack  # noqa: E402

SITE_BYTES = 64 * 1024 - 64  # just under the API's limit on a published document


def big_site() -> dict[str, object]:
    return {"pages": [{"title": "Home", "body": "x" * (SITE_BYTES - 40)}]}


def load(runs: int) -> tuple[list[tuple[str, int, list[Result]]], dict[str, int]]:
    """Each writer operation measured beside the demo's site document, then beside a 64 KiB one."""
    import boto3

    from bench.writer_ops import signed_in, writer_operations
    from core.platform import main_table
    from core.platform.dynamo import from_item, to_item
    from core.platform.settings import get_settings
    from local.aws.emulator import make_moto_dynamodb_as_in_the_runner

    make_moto_dynamodb_as_in_the_runner()
    found: list[tuple[str, int, list[Result]]] = []
    with demo_stack() as demo:
        probe = boto3.Session().client("dynamodb")
        meter, agent = Meter(probe), demo["agents"][0]["id"]
        key = to_item(main_table.agent(demo["id"], agent))

        def agent_bytes() -> int:
            return item_size(probe.get_item(TableName=get_settings().main_table, Key=key)["Item"])

        for round_, label in enumerate(("the demo's site document", "a 64 KiB site document")):
            if label.startswith("a 64"):
                studio = signed_in(demo)
                with captured_output():
                    studio.ok("PortalAgentSitePutFunction", agent_id=agent, body=big_site())
            ops = [
                op
                for op in writer_operations(demo, first_key=round_ * 100_000)
                if op.label.startswith(("post", "item"))
            ]
            found.append((label, agent_bytes(), [measure(op, meter, runs) for op in ops]))
        counts = probe.get_item(TableName=get_settings().main_table,
                                Key=to_item(main_table.agent_counts(demo["id"], agent))).get("Item")  # fmt: skip
        sizes = {"counters item": item_size(counts) if counts else 0, "agent item": agent_bytes()}
        sizes["agent item carries postCount"] = int("postCount" in from_item(probe.get_item(
            TableName=get_settings().main_table, Key=key)["Item"]))  # fmt: skip
    return found, sizes


def report(found: list[tuple[str, int, list[Result]]], sizes: dict[str, int]) -> str:
    (small_label, small_bytes, small), (big_label, big_bytes, big) = found
    rows = [
        [s.op.label, s.usage.wru, b.usage.wru, s.usage.by_call.get("TransactWriteItems items", 0)]
        for s, b in zip(small, big, strict=True)
    ]
    headers = ["write", f"WRU beside {small_label} (agent item {small_bytes:,} B)",
               f"WRU beside {big_label} (agent item {big_bytes:,} B)", "transaction items"]  # fmt: skip
    said = ", ".join(f"{name} {value:,}" for name, value in sizes.items())
    return "\n\n".join([
        table(headers, rows),
        "WRU: DynamoDB on-demand write request units of the request (its transaction: 2 per KB of each item's larger "
        "image; the Idempotency-Key's record). Median request of the runs. After the runs: " + said + ".",
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--runs", type=int, default=3, help="warm requests per operation (median reported)")
    args = cli.parse_args(argv)
    found, sizes = load(args.runs)
    title = "A post write beside the agent's documents (issue 43)"
    return finish(args, title, command("post_write_cost.py", argv or []), report(found, sizes))


if __name__ == "__main__":
    main(sys.argv[1:])
