"""A streaming function for the tests, written as the real ones are: our REST resolver's routes, a ``StreamBody``.

- ``GET /ticks?count=&delay=&failAt=&marker=&wait=&gate=``: NDJSON lines ``{"n", "t": unix time produced, "pid"}``,
  ``delay`` s apart, after ``wait`` s before answering at all; it raises before line ``failAt``, and its
  generator's ``finally`` writes ``completed`` or ``closed`` to the file ``marker``. With ``gate`` (a file path)
  it produces nothing after line 0 until that file exists: a test that opens the gate only once it has read
  line 0 shows streaming by order, not by timing (buffered, line 0 could not arrive before the rest was made).
- ``/sized``: a streamed body with its own Content-Length; ``/text`` (also HEAD): a plain str body;
  ``/context``: what the handler sees of its context; ``/boom``: raises before anything is streamed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.platform.response_stream import StreamBody
from core.platform.rest.router import Response, RestResolver

app = RestResolver()


GATE_POLL_SECONDS = 0.01


def _ticks(count: int, delay: float, fail_at: int, marker: str | None, gate: str | None = None) -> Iterator[bytes]:
    completed = False
    try:
        for n in range(count):
            if n == 1 and gate:
                while not Path(gate).exists():  # ended by the function's timeout if the gate is never opened
                    time.sleep(GATE_POLL_SECONDS)
            if n:
                time.sleep(delay)
            if n == fail_at:
                raise RuntimeError("probe failed mid-stream")
            yield json.dumps({"n": n, "t": time.time(), "pid": os.getpid()}).encode() + b"\n"
        completed = True
    finally:
        if marker:
            Path(marker).write_text("completed" if completed else "closed")


@app.get("/ticks")
def ticks() -> Response:
    query = app.current_event.query_string_parameters or {}
    time.sleep(float(query.get("wait", "0")))
    count, delay, fail_at = int(query.get("count", "3")), float(query.get("delay", "0")), int(query.get("failAt", "-1"))
    return Response(
        200,
        content_type="application/x-ndjson",
        body=StreamBody(_ticks(count, delay, fail_at, query.get("marker"), query.get("gate"))),
        headers={"X-Probe": ["one", "two"]},
        cookies=["a=1; Path=/", "b=2; Path=/"],  # written as given, as the plane's are
    )


@app.get("/sized")
def sized() -> Response:
    return Response(
        200, content_type="text/plain", body=StreamBody([b"abc", b"", b"def"]), headers={"Content-Length": "6"}
    )


@app.route("/text", method=["GET", "HEAD"])
def text() -> Response:
    return Response(200, content_type="text/plain; charset=utf-8", body="plain text, é")


@app.get("/context")
def context() -> dict[str, Any]:
    ctx = app.lambda_context
    return {
        "functionName": ctx.function_name,
        "memory": ctx.memory_limit_in_mb,
        "requestId": ctx.aws_request_id,
        "arn": ctx.invoked_function_arn,
        "remainingMs": ctx.get_remaining_time_in_millis(),
        "traceId": os.environ.get("_X_AMZN_TRACE_ID"),
    }


@app.get("/boom")
def boom() -> Response:
    raise RuntimeError("probe failed before streaming")


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
