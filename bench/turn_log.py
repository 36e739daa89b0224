"""A chat turn's AWS calls before its first line, while it streams and after ``done``: the turn log (issue 40).

In-process against moto (bench/in_process.py, the demo workspace), the real chat handler with the offline model,
each call counted by a botocore hook on the function's own session, by the NDJSON line it came before. What
docs/data-model.md promises: the insights add no call before the first line (the visitor's distinct counts ride on
the rate-limit write the turn already makes) and exactly one after ``done`` (one TransactWriteItems: the receipt,
the day's counters and, when the workspace stores conversations, the stored turn, its thread, its question and
its unanswered row), with or without stored conversations. Counts, not times: the same on any machine.

    PYTHONPATH=layers/common:. .venv/bin/python bench/turn_log.py [--turns 5] [--json PATH]
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402
from bench.in_process import captured_output, demo_stack, operations, prepare, unprepare  # noqa: E402

PHASES = ("before the first line", "while streaming", "after done")


def turn(op: Any, calls: list[str]) -> list[Counter[str]]:
    """One turn through the handler: the calls of each phase."""
    from core.platform.response_stream import StreamBody, body_chunks
    from tests.support.lambdas import LambdaContext, handler_module

    calls.clear()
    raw = handler_module(op.function).lambda_handler(op.event({}), LambdaContext(function_name=op.function))
    marks, kinds = [], []
    try:
        for chunk in body_chunks(raw):
            marks.append(len(calls))
            kinds.append(json.loads(chunk)["type"])
    finally:
        if isinstance(raw.get("body"), StreamBody):
            raw["body"].close()
    assert raw["statusCode"] == 200 and kinds[-1] == "done", kinds
    ends = [marks[0], marks[-1], len(calls)]
    return [Counter(calls[start:end]) for start, end in zip([0, *ends[:2]], ends, strict=True)]


def measure(turns: int) -> dict[bool, list[list[Counter[str]]]]:
    """``turns`` warm turns without stored conversations, then as many with (one demo: seeding it is slow)."""
    with demo_stack() as demo:
        import boto3

        from core.platform import main_table as keys
        from core.platform.dynamo import to_item
        from core.platform.settings import get_settings

        op = next(o for o in operations(demo) if o.function == "BrainChatFunction")
        session = prepare(op)
        settings = get_settings()
        env = os.environ  # the chat function's, as ``prepare`` set it
        tables = {env["MAIN_TABLE"]: "main", env["LEDGER_TABLE"]: "ledger", env["API_KEYS_TABLE"]: "keys",
                  env["RATE_LIMITS_TABLE"]: "rates"}  # fmt: skip
        calls: list[str] = []

        def count(model: Any, params: dict[str, Any], **_: Any) -> None:
            body = params.get("body")
            raw = body.decode() if isinstance(body, bytes) else body if isinstance(body, str) else ""
            found = json.loads(raw) if raw[:1] == "{" else {}
            name = found.get("TableName") or next(iter(found.get("RequestItems", {})), "")
            if not name and found.get("TransactItems"):
                name = next(iter(found["TransactItems"][0].values()))["TableName"]
            calls.append(f"{model.name}:{tables.get(name, model.service_model.endpoint_prefix)}")

        session.events.register("before-call.*.*", count)
        found: dict[bool, list[list[Counter[str]]]] = {}
        with captured_output():
            turn(op, calls)  # the container's first turn: clients, settings, the index
            found[False] = [turn(op, calls) for _ in range(turns)]
            boto3.client("dynamodb").update_item(
                TableName=settings.main_table, Key=to_item(keys.workspace(demo["id"])),
                UpdateExpression="SET storeConversations = :yes", ExpressionAttributeValues={":yes": {"BOOL": True}},
            )  # fmt: skip
            turn(op, calls)  # the workspace's setting is read per turn (with the agent): no cache to clear
            found[True] = [turn(op, calls) for _ in range(turns)]
        unprepare(op)
    return found


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--turns", type=int, default=5)
    args = cli.parse_args(argv)
    rows = []
    measured = measure(args.turns)
    for stored in (False, True):
        # The key check's and the limiter's calls vary (lastUsedAt once a minute, a lost race retried): set apart.
        runs = [[Counter({c: n for c, n in phase.items() if not c.endswith((":keys", ":rates"))}) for phase in run]
                for run in measured[stored]]  # fmt: skip
        assert all(run == runs[0] for run in runs), "every warm turn makes the same calls"
        for phase, counted in zip(PHASES, runs[0], strict=True):
            listed = ", ".join(f"{name} x{n}" if n > 1 else name for name, n in sorted(counted.items()))
            rows.append(["stored" if stored else "not stored", phase, sum(counted.values()), listed or "-"])
        after = runs[0][2]
        assert after == Counter({"TransactWriteItems:main": 1}), after
        assert not any(name.endswith(":main") and "Write" in name for name in runs[0][0])
    markdown = "\n\n".join([
        f"AWS calls of a warm chat turn (the same in each of {args.turns} turns), by when they are made; the key "
        "check and the visitor's rate-limit write (`:keys`, `:rates`, before the first line) left out:",
        table(["conversations", "phase", "calls", "which"], rows),
        "The turn log is the one call after `done`; nothing of it comes before the first line.",
    ])  # fmt: skip
    return finish(args, "Chat turn log: calls before the first line and after done", command("turn_log.py", argv or []),
                  markdown)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
