"""Round trips: request time when every AWS call costs a network round trip, reads issued together beside one
after another.

moto answers in-process, and its own CPU time (a 120-post Query: hundreds of ms here) would swamp what round
trips cost on Lambda and compete with our threads for the GIL. So each operation runs once against moto to
record every answer, and the timed requests are then answered from that recording by a botocore
``before-call`` hook that first sleeps ``--latency-ms`` in the calling thread (calls issued together wait at
the same time; botocore still builds and signs each request, only the wire and parsing are replaced). Each
operation runs alternately with ``core.platform.together.run`` as shipped (``concurrently``) and as
``in_order`` (the same calls one after another: the baseline, measured in the same run). A chat turn is timed
to its first line (the stream's ``start``, sent once the turn's reads and hold are done) and to its end; the
feed's per-container cache is off, so every request reads. Medians of ``--runs`` requests, demo data.

    PYTHONPATH=layers/common:. .venv/bin/python bench/round_trips.py [--runs 15] [--latency-ms 10] [--json PATH]
"""

from __future__ import annotations

import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from botocore.awsrequest import AWSResponse  # noqa: E402
from botocore.compat import HTTPHeaders  # noqa: E402

from bench.benchkit import command, finish, median, parser, table  # noqa: E402
from bench.in_process import Operation, captured_output, demo_stack, operations, prepare, unprepare  # noqa: E402

TIMED = ("agent", "feed (120 of 168 posts)", "items", "suggestions", "chat turn (offline model)")


def timed(op: Operation) -> tuple[float, float]:
    """(ms to the first body chunk, ms to the end) of one request, drained as core.platform.lambda_runtime.loop does."""
    from core.platform.response_stream import StreamBody, body_chunks
    from tests.support.lambdas import LambdaContext, handler_module, stack

    entry = getattr(handler_module(op.function), stack().functions()[op.function].handler.rsplit(".", 1)[1])
    start = time.perf_counter()
    raw = entry(op.event({}), LambdaContext(function_name=op.function))
    first = None
    try:
        for _ in body_chunks(raw) if op.streamed else [raw.get("body")]:
            first = first or time.perf_counter()
    finally:
        if isinstance(raw.get("body"), StreamBody):
            raw["body"].close()
    assert 200 <= raw["statusCode"] < 300, raw
    end = time.perf_counter()
    return ((first or end) - start) * 1000, (end - start) * 1000


class Replay:
    """Answers recorded from moto, given back after ``latency`` seconds: by the same request body if it was seen,
    else the last answer to the same operation on the same table (writes carry fresh ids and times)."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.recording = True
        self.calls = 0
        self._by_body: dict[tuple[str, bytes], dict[str, Any]] = {}
        self._by_operation: dict[tuple[str, str], dict[str, Any]] = {}

    @staticmethod
    def _keys(model: Any, params: dict[str, Any]) -> tuple[tuple[str, bytes], tuple[str, str]]:
        body = params.get("body")
        raw = body if isinstance(body, bytes) else str(body).encode()
        table = json.loads(raw).get("TableName", "") if raw.startswith(b"{") else params.get("url_path", "")
        return (model.name, raw), (model.name, table)

    def before(self, model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> Any:
        exact, similar = self._keys(model, params)
        if self.recording:
            context["replay.keys"] = exact, similar  # after-call is not given the request
            return None
        self.calls += 1
        time.sleep(self.latency)
        parsed = copy.deepcopy(self._by_body.get(exact) or self._by_operation[similar])
        return AWSResponse("https://replayed.invalid/", 200, HTTPHeaders(), None), parsed

    def after(self, parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        if self.recording and "replay.keys" in context:
            exact, similar = context.pop("replay.keys")
            self._by_body[exact] = self._by_operation[similar] = copy.deepcopy(parsed)


def measure(op: Operation, runs: int, latency: float) -> dict[str, Any]:
    from core.platform import together
    from core.posts import feed_cache

    feed_cache.FEED_CACHE_SECONDS = 0  # every feed request reads
    replay = Replay(latency)
    session = prepare(op)
    session.events.register("before-call", replay.before)
    session.events.register("after-call", replay.after)
    shipped = together.run
    samples: dict[str, list[tuple[float, float]]] = {"together": [], "in order": []}
    try:
        with captured_output():
            timed(op)  # the container's first request (clients, settings, the minute's lastUsedAt)
            timed(op)  # a warm one, recorded
            replay.recording = False
            for _ in range(runs):
                for mode, run in (("together", shipped), ("in order", together.in_order)):
                    together.run = run
                    replay.calls = 0
                    samples[mode].append(timed(op))
    finally:
        together.run = shipped
        unprepare(op)
    result: dict[str, Any] = {"calls": replay.calls}
    for mode, values in samples.items():
        result[mode] = (median(v[0] for v in values), median(v[1] for v in values))
    return result


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--runs", type=int, default=15, help="requests per operation and mode (median reported)")
    cli.add_argument("--latency-ms", type=float, default=10.0, help="delay added to every AWS call")
    args = cli.parse_args(argv)
    rows = []
    with demo_stack() as demo:
        for op in [o for o in operations(demo) if o.label in TIMED]:
            found = measure(op, args.runs, args.latency_ms / 1000)
            (first, end), (first_seq, end_seq) = found["together"], found["in order"]
            streamed = op.streamed
            line = [f"{first:.1f}", f"{first_seq:.1f}", f"{first / first_seq:.2f}x"] if streamed else ["", "", ""]
            rows.append([op.label, found["calls"], *line, f"{end:.1f}", f"{end_seq:.1f}", f"{end / end_seq:.2f}x"])
    headers = ["Operation", "AWS calls", "First line, together (ms)", "First line, in order (ms)", "Ratio",
               "Whole request, together (ms)", "Whole request, in order (ms)", "Ratio"]  # fmt: skip
    note = (
        f"Every AWS call costs {args.latency_ms:g} ms (an emulated round trip, answered from a recording); medians of "
        f'{args.runs} requests per mode, alternated. "In order" is the same code with the reads it issues '
        "together run one after another. Calls include the key check."
    )
    markdown = note + "\n\n" + table(headers, rows)
    return finish(args, "Round trips: reads issued together", command("round_trips.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
