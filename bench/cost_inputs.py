"""The inputs of docs/cost.md: what one request of each kind asks of AWS, measured with the real handlers.

For each operation the real handler (loaded by the template's CodeUri/Handler, with that
function's environment) runs in-process against moto, with the demo workspace loaded
(168 posts, items, wrap/site documents; placeholder media bodies): the read plane's requests, then the writer's
(bench/writer_ops.py: the demo's owner signed in through the portal, every request a real write answering
201/200, asserted). A botocore hook on the session the handlers' clients come from records, per request:

- every AWS call by operation name;
- DynamoDB capacity as on-demand bills it, from the items' sizes (bench/dynamo_meter.py);
- S3 requests and the bytes S3 sent to the function;
- the bytes the function wrote to stdout/stderr (its CloudWatch log lines, logged as the
  managed runtime's JSON format at Lambda's default level), and the number of lines;
- the in-process duration (warm; median). This machine is a proxy for Lambda's CPU, not
  a measurement of it: docs/cost.md says how it maps to billed milliseconds.

    PYTHONPATH=layers/common:. .venv/bin/python bench/cost_inputs.py [--runs 15] [--json PATH]
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, median, parser, table  # noqa: E402
from bench.dynamo_meter import Meter, Usage, item_size  # noqa: E402
from bench.in_process import (  # noqa: E402
    Operation,
    captured_output,
    configure_logging,
    demo_stack,
    invoke,
    operations,
    prepare,
    unprepare,
)


@dataclass
class Result:
    op: Operation
    status: int
    body_bytes: int
    duration_ms: float
    own_ms: float  # duration less the time inside AWS calls: the function's own work
    usage: Usage
    log_bytes: int
    log_lines: int
    memory_mb: int


def measure(op: Operation, meter: Meter, runs: int) -> Result:
    from tests.support.lambdas import stack

    meter.attach(prepare(op))  # the handlers' clients come from this session: hook it
    configure_logging()
    with captured_output():
        if op.setup:
            op.setup()
        first = invoke(op, op.event({}))  # the container's first request (clients, settings, the minute's lastUsedAt)
    assert op.expect in (None, first[0]), f"{op.label}: {first[0]}, not {op.expect}"
    durations, own, logs, usages, status, size = [], [], [], [], 0, 0
    for _ in range(op.runs or runs):
        if op.setup:
            with captured_output():
                op.setup()  # the state this request changes, neither metered nor timed
        meter.reset()
        with captured_output() as out:
            start = time.perf_counter()
            status, size = invoke(op, op.event({}))
            elapsed = (time.perf_counter() - start) * 1000
        assert op.expect in (None, status), f"{op.label}: {status}, not {op.expect}"
        logs.append(out[0])
        usages.append(meter.reset())
        durations.append(elapsed - usages[-1].meter_ms)
        own.append(durations[-1] - usages[-1].call_ms)
    unprepare(op)
    typical, log = usages[len(usages) // 2], logs[len(logs) // 2]
    memory = stack().functions()[op.function].memory
    return Result(op, status, size, median(durations), median(own), typical, len(log), log.count(b"\n"), memory)


def load(runs: int, only: set[str] | None = None) -> list[Result]:
    """Every operation (or those whose label is in ``only``) measured against the demo workspace: the read plane's,
    then the writer's (bench/writer_ops.py; built after, so the posts they add are not in the feed measured)."""
    import boto3

    from bench.writer_ops import writer_operations
    from local.aws.emulator import make_moto_dynamodb_as_in_the_runner

    # As the tests' and the runner's moto: a transaction saves the items it touches, not every table (moto's own
    # copies the tables: hundreds of ms per write here, none of it DynamoDB's).
    make_moto_dynamodb_as_in_the_runner()
    with demo_stack() as demo:
        meter = Meter(boto3.Session().client("dynamodb"))
        found = [measure(op, meter, runs) for op in operations(demo) if only is None or op.label in only]
        return found + [measure(op, meter, runs) for op in writer_operations(demo) if only is None or op.label in only]


def report(results: list[Result]) -> str:
    headers = ["operation", "status", "body B", "ms", "own ms", "MB", "RRU", "WRU", "items", "log B", "lines"]
    headers.append("AWS calls")
    rows = [
        [r.op.label, r.status, r.body_bytes, r.duration_ms, r.own_ms, r.memory_mb, r.usage.rru, r.usage.wru,
         r.usage.items_read, r.log_bytes, r.log_lines,
         ", ".join(f"{k.split(':')[1]} {v}" for k, v in sorted(r.usage.calls.items()))]
        for r in results
    ]  # fmt: skip
    capacity = [[r.op.label, ", ".join(f"{k} {v:g}" for k, v in sorted(r.usage.by_call.items()) if v)] for r in results]
    return "\n\n".join([
        table(headers, rows),
        "ms: warm in-process duration (median); own ms: the same less the wall time with an AWS call in flight "
        "(moto here). MB: the function's memory size. RRU/WRU: DynamoDB on-demand request units; items: "
        "DynamoDB items read; log B/lines: stdout+stderr.",
        "Capacity by call (per request):\n\n" + table(["operation", "units by call"], capacity),
    ])  # fmt: skip


def access_log_line() -> int:
    """Bytes of one API Gateway access-log line: the template's format with typical values."""
    from stack.template import load

    fmt = load()["Resources"]["BrainApi"]["Properties"]["AccessLogSetting"]["Format"]
    browser = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1"
    typical = {
        "requestId": "c0ffee00-1234-4abc-9def-0123456789ab", "extendedRequestId": "Ab1Cd2Ef3Gh4Ij5=",
        "apiId": "a1b2c3d4e5", "stage": "live", "requestTimeEpoch": "1767225600123",
        "identity.sourceIp": "203.0.113.45", "identity.userAgent": f"{browser} Safari/605.1.15",
        "httpMethod": "GET", "resourcePath": "/v1/agent/{agentId}/feed",
        "protocol": "HTTP/1.1", "status": "200", "responseLength": "61128", "responseLatency": "48",
        "integrationLatency": "41", "integrationStatus": "200", "error.responseType": "-",
        "xrayTraceId": "1-6776a200-0123456789abcdef01234567",
    }  # fmt: skip
    return len(re.sub(r"\$context\.([A-Za-z.]+)", lambda m: typical[m.group(1)], fmt).encode())


def busy_limiter_item() -> int:
    """Bytes of a key's rate-limit item with every one-second bucket of the window in use (a steadily busy key)."""
    item = {"pk": {"S": "key#key_01JH2Z3X4Y5W6V7T8S9R0Q1P2N"}, "newest": {"N": "29462000"}}
    item |= {f"b{29462000 - i}": {"N": "10"} for i in range(61)} | {"expiresAt": {"N": "1767720180"}}
    return item_size(item)


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--runs", type=int, default=15, help="warm requests per operation (median reported)")
    args = cli.parse_args(argv)
    markdown = report(load(args.runs))
    markdown += f"\n\nAPI Gateway access-log line (template format, typical values): {access_log_line()} B. "
    markdown += f"A steadily busy key's rate-limit item (61 live buckets): {busy_limiter_item()} B."
    return finish(args, "Cost inputs per request (in-process, moto)", command("cost_inputs.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
