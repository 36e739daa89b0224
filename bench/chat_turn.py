"""A chat turn's time to its first line and to its end, beside the model's own first and last token.

1. In-process against moto (bench/in_process.py, the demo workspace): the real chat handler with the offline
   model emitting a delta every ``--delay-ms``; the model's ``stream`` is wrapped to stamp when it was called
   and when it yielded its first and last text. The turn's own overhead is what lies between: the reads and
   the hold before the model (first line and model call), the hand-off of each delta, the settlement after
   the last (end).
2. Over HTTP through the local runner (same model and delay): time to the first NDJSON line, to the first
   text and to the end of the turn, cold (the container starts) and warm.

    PYTHONPATH=layers/common:. .venv/bin/python bench/chat_turn.py [--turns 10] [--delay-ms 30] [--json PATH]
"""

from __future__ import annotations

import http.client
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, median, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, operations, prepare, unprepare  # noqa: E402

JSON_TYPE = "application/json"  # a body of any other type is a 415
BODY = {"prompt": "Do you have oat milk drinks?", "client": "bench_visitor_0123456789", "threadKey": "thr_bench"}
STAMPS = ("first line", "model called", "model first token", "first text", "model last token", "end")


def stamped_model(marks: dict[str, float]) -> None:
    """Wrap the offline model's ``stream``: when it was called, its first and its last text (into ``marks``)."""
    from core.chat.model import TextDelta
    from core.chat.offline import OfflineModel

    original = OfflineModel.stream
    if getattr(original, "stamped", False):
        return

    def stream(self: OfflineModel, request: Any) -> Any:
        marks["model called"] = time.perf_counter()
        for event in original(self, request):
            if isinstance(event, TextDelta):
                marks.setdefault("model first token", time.perf_counter())
                marks["model last token"] = time.perf_counter()
            yield event

    stream.stamped = True  # type: ignore[attr-defined]
    OfflineModel.stream = stream  # type: ignore[method-assign]


def in_process_turn(op: Operation, marks: dict[str, float]) -> dict[str, float]:
    """One turn through the handler, its body drained line by line: every stamp in ms from the request."""
    from core.platform.response_stream import StreamBody, body_chunks
    from tests.support.lambdas import LambdaContext, handler_module

    marks.clear()
    event = op.event({})
    start = time.perf_counter()
    raw = handler_module(op.function).lambda_handler(event, LambdaContext(function_name=op.function))
    try:
        for chunk in body_chunks(raw):
            now = time.perf_counter()
            marks.setdefault("first line", now)
            if b'"type":"delta"' in chunk:
                marks.setdefault("first text", now)
    finally:
        if isinstance(raw.get("body"), StreamBody):
            raw["body"].close()
    marks["end"] = time.perf_counter()
    assert raw["statusCode"] == 200 and "first text" in marks, raw["statusCode"]
    return {name: (marks[name] - start) * 1000 for name in STAMPS}


def in_process(turns: int, delay_ms: int) -> list[dict[str, float]]:
    marks: dict[str, float] = {}
    with demo_stack() as demo:
        op = next(o for o in operations(demo) if o.function == "BrainChatFunction")
        op = Operation(op.label, op.function, op.event, op.streamed, {"CHAT_MODEL": "offline",
                       "OFFLINE_MODEL_DELAY_MS": str(delay_ms)})  # fmt: skip
        prepare(op)
        stamped_model(marks)
        with captured_output():
            in_process_turn(op, marks)  # the container's first turn: clients, settings
            timings = [in_process_turn(op, marks) for _ in range(turns)]
        unprepare(op)
    return timings


def over_http(turns: int, delay_ms: int) -> list[tuple[float, float, float]]:
    from stack.process import running

    function_env = {"OFFLINE_MODEL_DELAY_MS": str(delay_ms)}
    with running(Path(tempfile.mkdtemp(prefix="bench-")), function_env=function_env) as demo:
        ws = demo["workspaces"][0]
        url = urlsplit(demo["brainUrl"])
        path = f"/v1/agent/{ws['agents'][0]['id']}/chat"
        timings = []
        for n in range(turns + 1):  # the first turn starts the container (a cold start): reported apart
            body = json.dumps(BODY | {"client": f"bench_visitor_{n:012d}"}).encode()
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
            start = time.perf_counter()
            headers = {"Authorization": f"Bearer {ws['key']}", "Content-Type": JSON_TYPE}
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            first_line = first_text = 0.0
            while line := response.readline():
                now = time.perf_counter() - start
                kind = json.loads(line)["type"]
                first_line = first_line or now
                first_text = first_text or (now if kind == "delta" else 0.0)
            timings.append((first_line * 1000, first_text * 1000, (time.perf_counter() - start) * 1000))
            connection.close()
        return timings


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--turns", type=int, default=10)
    cli.add_argument("--delay-ms", type=int, default=30, help="the offline model's pause between deltas")
    args = cli.parse_args(argv)
    local = in_process(args.turns, args.delay_ms)
    rows = [[name, median(t[name] for t in local)] for name in STAMPS]
    overhead = [
        ["before the model (reads, limits, hold)", median(t["model called"] for t in local)],
        ["first text after the model's first token", median(t["first text"] - t["model first token"] for t in local)],
        ["end after the model's last token (settlement)", median(t["end"] - t["model last token"] for t in local)],
    ]
    http_turns = over_http(args.turns, args.delay_ms)
    cold, warm = http_turns[0], http_turns[1:]
    http_rows = [["cold (container start)", *cold], [f"warm, median of {len(warm)}", *(median(t[i] for t in warm)
                 for i in range(3))]]  # fmt: skip
    markdown = "\n\n".join([
        f"In-process against moto, offline model with {args.delay_ms} ms between deltas, median of {args.turns} "
        "warm turns (ms from the request):",
        table(["moment", "ms"], rows),
        "The turn's own share:",
        table(["span", "ms"], overhead),
        "Over HTTP through the local runner (moto server, same model):",
        table(["ms over HTTP", "first line", "first text", "whole turn"], http_rows),
    ])  # fmt: skip
    return finish(args, "Chat turn: first line and end beside the model's tokens", command("chat_turn.py", argv or []),
                  markdown)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
