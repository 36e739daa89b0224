"""The events' dispatcher (issue 42): what it sustains, and what a chat turn pays for emission.

1. Throughput, in process against moto: ``--records`` member rows written to a workspace with ``--webhooks``
   webhooks stream to the events function, handed over in Lambda's batches (``tests/support/streams.py``); events
   per second and deliveries per second of the handler's time, beside a baseline measured in the same run on the
   same moto: a plain PutItem loop of as many delivery-sized items (moto's speed is the unit, so the ratio is what
   carries to another machine, not the rate).
2. A chat turn's AWS calls before its first line and in all, on the demo workspace, without a webhook and with one
   (every type): equal, because nothing on the request path emits (the stream does, after the commit).

    PYTHONPATH=layers/common:. .venv/bin/python bench/webhooks.py [--records 100] [--webhooks 2] [--json PATH]
"""

from __future__ import annotations

import collections
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, operations, prepare, unprepare  # noqa: E402


def add_webhooks(db: Any, table: str, workspace_id: str, count: int) -> list[str]:
    """``count`` webhooks of every type on the workspace, as the writer stores them (its count on the item)."""
    from core.platform import main_table as keys
    from core.platform.dynamo import to_item
    from core.platform.ids import new_id, now_iso
    from core.webhooks.records import WebhookRecord

    ids = []
    for n in range(count):
        at = now_iso()
        hook = WebhookRecord(id=new_id("whk"), workspace_id=workspace_id, url=f"https://93.184.215.14/h{n}",
                             events=["*"], secret="whsec_" + "A" * 32, created_at=at, updated_at=at)  # fmt: skip
        db.put_item(TableName=table, Item=to_item(keys.webhook(workspace_id, hook.id) | hook.attributes()))
        ids.append(hook.id)
    db.update_item(TableName=table, Key=to_item(keys.workspace(workspace_id)), UpdateExpression="SET webhookCount = :n",
                   ExpressionAttributeValues=to_item({":n": count}))  # fmt: skip
    return ids


def throughput(records: int, webhooks: int) -> dict[str, float]:
    """Seconds of the events handler for ``records`` member rows -> deliveries, and of a PutItem loop as long."""
    from core.platform import main_table as keys
    from core.platform import providers as platform_providers
    from core.platform.dynamo import to_item
    from tests.support.lambdas import stack
    from tests.support.streams import drain_events, skip_pending

    with demo_stack() as demo:
        os.environ.update(stack().functions()["EventsFunction"].environment)
        platform_providers.reset()
        import boto3

        db, table = boto3.client("dynamodb"), os.environ["MAIN_TABLE"]
        workspace_id = demo["id"]
        add_webhooks(db, table, workspace_id, webhooks)
        skip_pending()  # the demo's seeding is not what is measured
        for n in range(records):
            row = keys.member(workspace_id, f"usr_bench{n:05d}") | {"role": "member", "workspaceId": workspace_id,
                                                                      "userId": f"usr_bench{n:05d}"}  # fmt: skip
            db.put_item(TableName=table, Item=to_item(row))
        handler_seconds = 0.0

        from tests.support.streams import _invoker

        entry = _invoker("EventsFunction")

        def timed(event: dict[str, Any]) -> Any:
            nonlocal handler_seconds
            started = time.perf_counter()
            try:
                return entry(event)
            finally:
                handler_seconds += time.perf_counter() - started

        with captured_output():
            drained = drain_events(invoke=timed)
        assert not drained.failed and drained.records >= records, drained
        deliveries = records * webhooks
        body = "x" * 300  # about a member.joined delivery's size
        started = time.perf_counter()
        for n in range(deliveries):
            db.put_item(TableName=table, Item=to_item({"pk": f"BENCH#{n}", "sk": "B", "body": body}))
        baseline = time.perf_counter() - started
    return {"handler": handler_seconds, "baseline": baseline, "events": records, "deliveries": deliveries}


def turn_calls(webhooks: int) -> tuple[int, int]:
    """A chat turn's AWS calls (before its first line, in all) on the demo, with ``webhooks`` webhooks."""
    import boto3

    from core.platform import aws
    from core.platform.response_stream import StreamBody, body_chunks
    from tests.support.lambdas import LambdaContext, handler_module

    with demo_stack() as demo:
        if webhooks:
            add_webhooks(boto3.client("dynamodb"), os.environ["MAIN_TABLE"], demo["id"], webhooks)
        op = next(o for o in operations(demo) if o.function == "BrainChatFunction")
        op = Operation(op.label, op.function, op.event, op.streamed, {"CHAT_MODEL": "offline"})
        prepare(op)
        counted: collections.Counter[str] = collections.Counter()
        original = aws.client

        def counting(service: str) -> Any:
            client = original(service)
            client.meta.events.register("before-call.*.*", lambda **_: counted.update(["calls"]),
                                        unique_id="bench-webhooks")  # fmt: skip
            return client

        aws.client = counting  # type: ignore[assignment]
        try:
            with captured_output():
                for _ in range(2):  # the container's first turn, then the one counted
                    counted.clear()
                    raw = handler_module(op.function).lambda_handler(op.event({}), LambdaContext(op.function))
                    first = None
                    try:
                        for _chunk in body_chunks(raw):
                            first = counted["calls"] if first is None else first
                    finally:
                        if isinstance(raw.get("body"), StreamBody):
                            raw["body"].close()
        finally:
            aws.client = original
            unprepare(op)
        assert raw["statusCode"] == 200 and first is not None
    return first, counted["calls"]


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--records", type=int, default=100)
    cli.add_argument("--webhooks", type=int, default=2)
    args = cli.parse_args(argv)

    measured = throughput(args.records, args.webhooks)
    events_rate = measured["events"] / measured["handler"]
    deliveries_rate = measured["deliveries"] / measured["handler"]
    puts_rate = measured["deliveries"] / measured["baseline"]
    without, with_one = turn_calls(0), turn_calls(1)
    rows = [[args.records, args.webhooks, f"{events_rate:.0f}", f"{deliveries_rate:.0f}", f"{puts_rate:.0f}",
             f"{deliveries_rate / puts_rate:.2f}"]]  # fmt: skip
    markdown = (
        "In process against moto (the demo's tables). A delivery costs a conditional PutItem, a SendMessage and an "
        "UpdateItem; the baseline is one PutItem, so a ratio near 1/3 means the dispatcher adds little of its own.\n\n"
        + table(
            ["records", "webhooks", "events/s", "deliveries/s", "baseline PutItem/s", "deliveries : PutItems"], rows
        )
        + "\n\nA chat turn's AWS calls (the container's second turn):\n\n"
        + table(["webhooks", "calls before the first line", "calls in all"], [[0, *without], [1, *with_one]])
        + f"\n\nEmission on the chat's path: {'none (equal counts)' if without == with_one else 'DIFFERENT'}."
    )
    print(markdown)
    return finish(args, "Webhooks: the events' dispatcher", command("webhooks.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
