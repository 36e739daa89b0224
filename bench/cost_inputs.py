"""The inputs of docs/cost.md: what one request of each kind asks of AWS, measured with the real handlers.

For each operation the real handler (loaded by the template's CodeUri/Handler, with that
function's environment) runs in-process against moto, with the demo workspace loaded
(168 posts, items, wrap/site documents; placeholder media bodies). A botocore hook on the
session the handlers' clients come from records, per request:

- every AWS call by operation name;
- DynamoDB capacity as on-demand bills it, from the items' sizes (AWS's item-size rules,
  approximated for numbers): reads 4 KB units (x0.5 eventually consistent, x2 in a
  transaction), Query by the summed size of the items it evaluated (filters apply after),
  writes 1 KB units of the larger of the item before and after (x2 in a transaction,
  ConditionCheck billed as a write, a failed condition still billed);
- S3 requests and the bytes S3 sent to the function;
- the bytes the function wrote to stdout/stderr (its CloudWatch log lines, logged as the
  managed runtime's JSON format at Lambda's default level), and the number of lines;
- the in-process duration (warm; median). This machine is a proxy for Lambda's CPU, not
  a measurement of it: docs/cost.md says how it maps to billed milliseconds.

    PYTHONPATH=layers/common:. .venv/bin/python bench/cost_inputs.py [--runs 15]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # a script: make the project importable

MIB = 1024 * 1024
READ_UNIT, WRITE_UNIT = 4096, 1024


# ------------------------------------------------------------------ DynamoDB item sizes and units


def attribute_size(value: dict[str, Any]) -> int:
    """Bytes DynamoDB counts for one attribute value (numbers: about one byte per two digits, plus one)."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "N":
        digits = Decimal(inner).normalize().as_tuple().digits
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(inner)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind in ("SS", "NS", "BS"):
        return sum(attribute_size({kind[0]: v}) for v in inner)
    if kind == "L":
        return 3 + sum(1 + attribute_size(v) for v in inner)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + attribute_size(v) for k, v in inner.items())
    raise ValueError(kind)


def item_size(item: dict[str, Any] | None) -> int:
    return sum(len(name.encode()) + attribute_size(v) for name, v in (item or {}).items())


def read_units(size: int, *, consistent: bool, transactional: bool = False) -> float:
    units = max(1, math.ceil(size / READ_UNIT))
    return units * (2 if transactional else 1) * (1 if consistent or transactional else 0.5)


def write_units(size: int, *, transactional: bool = False) -> int:
    return max(1, math.ceil(size / WRITE_UNIT)) * (2 if transactional else 1)


# ------------------------------------------------------------------ the meter


@dataclass
class Usage:
    calls: collections.Counter = field(default_factory=collections.Counter)
    rru: float = 0.0  # read request units
    wru: float = 0.0  # write request units
    items_read: int = 0
    call_ms: float = 0.0  # time inside AWS calls (moto here; DynamoDB/S3 latency on AWS)
    meter_ms: float = 0.0  # the meter's own probes: taken out of every duration
    bytes_from_s3: int = 0
    by_call: collections.Counter = field(default_factory=collections.Counter)  # units per call kind


class Meter:
    """Counts what the handlers' boto3 clients ask of AWS; sizes are read with a separate, unhooked client."""

    def __init__(self, probe: Any):
        self.usage = Usage()
        self._probe = probe  # a DynamoDB client on another session: its calls are not counted
        self._keys: dict[str, list[str]] = {}

    def attach(self, session: Any) -> None:
        session.events.register("before-parameter-build", self._before)
        session.events.register("before-call", self._sending)
        session.events.register("after-call", self._after)

    @staticmethod
    def _sending(context: dict[str, Any], **_: Any) -> None:
        context["cost_sent"] = time.perf_counter()

    def reset(self) -> Usage:
        done, self.usage = self.usage, Usage()
        return done

    # The item as it is now (the key schema looked up once per table).
    def _current(self, table: str, key_or_item: dict[str, Any]) -> dict[str, Any] | None:
        if table not in self._keys:
            schema = self._probe.describe_table(TableName=table)["Table"]["KeySchema"]
            self._keys[table] = [k["AttributeName"] for k in schema]
        key = {name: key_or_item[name] for name in self._keys[table]}
        return self._probe.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")

    def _write_targets(self, name: str, params: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
        if name in ("PutItem", "UpdateItem", "DeleteItem"):
            return [(params["TableName"], params.get("Key") or params["Item"], False)]
        if name == "TransactWriteItems":
            targets = []
            for action in params["TransactItems"]:
                ((_, spec),) = action.items()
                targets.append((spec["TableName"], spec.get("Key") or spec["Item"], True))
            return targets
        if name == "BatchWriteItem":
            return [
                (table, (r.get("PutRequest") or {}).get("Item") or r["DeleteRequest"]["Key"], False)
                for table, requests in params["RequestItems"].items()
                for r in requests
            ]
        return []

    def _before(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if model.service_model.service_name != "dynamodb":
            return
        started = time.perf_counter()
        targets = self._write_targets(model.name, params)
        context["cost_params"] = params
        context["cost_before"] = [(t, k, tx, item_size(self._current(t, k))) for t, k, tx in targets]
        self.usage.meter_ms += (time.perf_counter() - started) * 1000

    def _after(self, http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        service, name = model.service_model.service_name, model.name
        self.usage.calls[f"{service}:{name}"] += 1
        started = time.perf_counter()
        self.usage.call_ms += (started - context.get("cost_sent", started)) * 1000
        try:
            self._account(service, name, http_response, parsed, context)
        finally:
            self.usage.meter_ms += (time.perf_counter() - started) * 1000

    def _account(self, service: str, name: str, response: Any, parsed: dict[str, Any], context: dict[str, Any]) -> None:
        if service == "s3":
            if name == "GetObject" and response.status_code < 300:
                self.usage.bytes_from_s3 += int(parsed.get("ContentLength") or 0)
            return
        if service != "dynamodb":
            return
        params = context.get("cost_params", {})
        rru = wru = 0.0
        if name == "GetItem":
            found = self._current(params["TableName"], params["Key"])
            rru = read_units(item_size(found), consistent=bool(params.get("ConsistentRead")))
            self.usage.items_read += found is not None
        elif name == "Query":
            evaluated = self._evaluated(params, parsed)
            rru = read_units(sum(map(item_size, evaluated)), consistent=bool(params.get("ConsistentRead")))
            self.usage.items_read += len(evaluated)
        elif name in ("BatchGetItem", "TransactGetItems"):
            gets = (
                [(t, k, True) for t, spec in params["RequestItems"].items() for k in spec["Keys"]]
                if name == "BatchGetItem"
                else [(g["Get"]["TableName"], g["Get"]["Key"], False) for g in params["TransactItems"]]
            )
            for table, key, consistent_flag in gets:
                found = self._current(table, key)
                consistent = consistent_flag and bool(params["RequestItems"][table].get("ConsistentRead"))
                rru += read_units(item_size(found), consistent=consistent, transactional=name == "TransactGetItems")
                self.usage.items_read += found is not None
        if name == "TransactWriteItems":
            self.usage.by_call["TransactWriteItems items"] += len(params["TransactItems"])
        for table, key, transactional, before in context.get("cost_before", []):
            after = item_size(self._current(table, key))
            wru += write_units(max(before, after), transactional=transactional)
        self.usage.rru += rru
        self.usage.wru += wru
        self.usage.by_call[f"{name} RRU"] += rru
        self.usage.by_call[f"{name} WRU"] += wru

    def _evaluated(self, params: dict[str, Any], parsed: dict[str, Any]) -> list[dict[str, Any]]:
        """The items the Query read before its filter: the same page again, with a filter that keeps everything."""
        probe = {k: v for k, v in params.items() if k not in ("ProjectionExpression", "Select")}
        if "FilterExpression" in probe:
            probe["FilterExpression"] = f"({probe['FilterExpression']}) OR attribute_not_exists(#cost_probe)"
            probe["ExpressionAttributeNames"] = probe.get("ExpressionAttributeNames", {}) | {"#cost_probe": "_cost"}
        if parsed.get("ScannedCount") is not None:
            probe["Limit"] = max(1, parsed["ScannedCount"])
        return self._probe.query(**probe).get("Items", []) if parsed.get("ScannedCount", 1) else []


# ------------------------------------------------------------------ log capture


@contextlib.contextmanager
def captured_output() -> Iterator[list[bytes]]:
    """Everything written to file descriptors 1 and 2 (what Lambda sends to CloudWatch), collected."""
    out: list[bytes] = []
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield out
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            out.append(sink.read())


# ------------------------------------------------------------------ operations


@dataclass(frozen=True)
class Operation:
    label: str
    function: str
    event: Callable[[dict[str, Any]], dict[str, Any]]
    streamed: bool = False
    env: dict[str, str] = field(default_factory=dict)
    runs: int | None = None  # fewer for the large objects


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


def fake_media() -> Any:
    """The demo's media library with placeholder bodies: records keep their real shape, no ffmpeg needed."""
    from local.demo.media import Image, MediaLibrary, Video

    images = [Image(f"img-{i:02d}.jpg", b"jpeg", 1080, 1350 if i % 2 else 1080, "image/jpeg") for i in range(8)]
    videos = [Video(f"video-{i}.mp4", f"video-{i}-poster.jpg", b"mp4", b"jpeg", 640, 360) for i in (1, 2)]
    videos.append(Video("video-3.mp4", "video-3-poster.jpg", b"mp4", b"jpeg", 360, 640))
    logos = {n: Image(n, b"png", 256, 256, "image/png") for n in ("logo.png", "logo-old.png")}
    return MediaLibrary(
        images=images, videos=videos, card=Image("card.png", b"png", 1080, 1080, "image/png"), logos=logos
    )


def operations(demo: dict[str, Any]) -> list[Operation]:
    from tests.support.lambdas import sample_event, with_request

    ws, agent = demo, demo["agents"][0]["id"]
    auth = {"Authorization": f"Bearer {ws['key']}"}
    counter = iter(range(10**6))

    def read(fn: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
        return lambda _: with_request(sample_event(fn), path_parameters={"agentId": agent}, headers=auth)

    def r2(path: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
        return lambda _: with_request(sample_event("BrainR2Function"), path_parameters={"path": path}, headers=auth)

    def chat(_: dict[str, Any]) -> dict[str, Any]:
        body = {"prompt": "Do you have oat milk drinks?", "client": f"bench_visitor_{next(counter):012d}"}
        return with_request(sample_event("BrainChatFunction"), path_parameters={"agentId": agent}, headers=auth,
                            body=json.dumps(body))  # fmt: skip

    whoami = lambda _: with_request(sample_event("BrainWhoAmIFunction"), headers=auth)  # noqa: E731
    return [
        Operation("whoami", "BrainWhoAmIFunction", whoami),
        Operation("agent", "BrainAgentFunction", read("BrainAgentFunction")),
        Operation("feed (120 of 168 posts)", "BrainFeedFunction", read("BrainFeedFunction")),
        Operation("items", "BrainItemsFunction", read("BrainItemsFunction")),
        Operation("wrap", "BrainWrapFunction", read("BrainWrapFunction")),
        Operation("site", "BrainSiteFunction", read("BrainSiteFunction")),
        Operation("suggestions", "BrainSuggestionsFunction", read("BrainSuggestionsFunction")),
        Operation("r2 GET 1 MiB", "BrainR2Function", r2("media/bench-1mib.bin"), streamed=True),
        Operation("r2 GET 100 MiB", "BrainR2Function", r2("media/bench-100mib.bin"), streamed=True, runs=3),
        Operation(
            "r2 GET 100 MiB, 8 MiB cap (307)",
            "BrainR2Function",
            r2("media/bench-100mib.bin"),
            streamed=True,
            env={"R2_MAX_RESPONSE_BYTES": str(8 * MIB)},
            runs=5,
        ),
        Operation(
            "chat turn (offline model)",
            "BrainChatFunction",
            chat,
            streamed=True,
            env={"CHAT_MODEL": "offline", "OFFLINE_MODEL_DELAY_MS": "0"},
        ),
    ]


def invoke(op: Operation, event: dict[str, Any]) -> tuple[int, int]:
    """Status and body bytes; a streamed body is drained chunk by chunk and closed, as core.runtime does."""
    from core.streaming import StreamBody, body_chunks
    from tests.support.lambdas import LambdaContext, handler_module, stack

    spec = stack().functions()[op.function]
    entry = getattr(handler_module(op.function), spec.handler.rsplit(".", 1)[1])
    raw = entry(event, LambdaContext(function_name=op.function))
    if not op.streamed:
        return raw["statusCode"], len((raw.get("body") or "").encode())
    size = 0
    try:
        for chunk in body_chunks(raw):
            size += len(chunk)
    finally:
        if isinstance(raw.get("body"), StreamBody):
            raw["body"].close()
    return raw["statusCode"], size


def configure_logging() -> None:
    """Log as on Lambda: Powertools' JSON lines where the layer uses it (core.observability), else the managed
    runtime's JSON format for stdlib logging (core.lambda_logging, older layers), at Lambda's default level."""
    try:
        from core import lambda_logging  # type: ignore[attr-defined]
    except ImportError:
        return  # core.observability routes the layer's loggers through Powertools, which writes to stdout itself
    lambda_logging.configure()


def measure(op: Operation, meter: Meter, runs: int) -> Result:
    import boto3

    from core import deps
    from tests.support.lambdas import stack

    spec = stack().functions()[op.function]
    os.environ.update(spec.environment | op.env)
    deps.reset()
    boto3.setup_default_session()  # the handlers' clients come from this session: hook it
    meter.attach(boto3.DEFAULT_SESSION)
    configure_logging()
    with captured_output():
        invoke(op, op.event({}))  # the container's first request (clients, settings, the minute's lastUsedAt)
    durations, own, logs, usages, status, size = [], [], [], [], 0, 0
    for _ in range(op.runs or runs):
        meter.reset()
        with captured_output() as out:
            start = time.perf_counter()
            status, size = invoke(op, op.event({}))
            elapsed = (time.perf_counter() - start) * 1000
        logs.append(out[0])
        usages.append(meter.reset())
        durations.append(elapsed - usages[-1].meter_ms)
        own.append(durations[-1] - usages[-1].call_ms)
    for name in op.env:
        os.environ.pop(name, None)
    typical = usages[len(usages) // 2]
    log = logs[len(logs) // 2]
    return Result(
        op,
        status,
        size,
        statistics.median(durations),
        statistics.median(own),
        typical,
        len(log),
        log.count(b"\n"),
        spec.memory,
    )


def load(runs: int) -> list[Result]:
    from tests.conftest import FAKE_AWS
    from tests.support.lambdas import stack

    os.environ |= FAKE_AWS | stack().functions()["BrainFeedFunction"].environment
    # What Lambda sets for LoggingConfig LogFormat JSON (no ApplicationLogLevel in the template: INFO).
    os.environ |= {"AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": "INFO"}
    import boto3
    from moto import mock_aws

    import local.demo as demo_module
    from local.emulator import create_resources

    with mock_aws():
        db, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(stack(), db, s3)
        env = stack().functions()["BrainFeedFunction"].environment
        demo_module.load_media = lambda _cache: fake_media()  # the records' shapes, not the bodies
        with tempfile.TemporaryDirectory() as cache:
            demo = demo_module.load_demo(
                db, s3, main_table=env["MAIN_TABLE"], api_keys_table=env["API_KEYS_TABLE"],
                ledger_table=env["LEDGER_TABLE"], bucket=env["CONTENT_BUCKET"], cache_dir=Path(cache),
            )[0]  # fmt: skip
        prefix = f"workspaces/{demo['id']}/media/"
        s3.put_object(Bucket=env["CONTENT_BUCKET"], Key=prefix + "bench-1mib.bin", Body=os.urandom(MIB))
        s3.put_object(Bucket=env["CONTENT_BUCKET"], Key=prefix + "bench-100mib.bin", Body=os.urandom(100 * MIB))
        meter = Meter(boto3.Session().client("dynamodb"))
        return [measure(op, meter, runs) for op in operations(demo)]


def report(results: list[Result]) -> None:
    print(f"{'operation':34} {'st':>3} {'body B':>11} {'ms':>6} {'own':>6} {'MB':>4} {'RRU':>5} {'WRU':>4} "
          f"{'items':>5} {'log B':>6} {'lines':>5}  AWS calls")  # fmt: skip
    for r in results:
        u = r.usage
        calls = ", ".join(f"{k.split(':')[1]} {v}" for k, v in sorted(u.calls.items()))
        print(
            f"{r.op.label:34} {r.status:>3} {r.body_bytes:>11} {r.duration_ms:>6.1f} {r.own_ms:>6.1f} {r.memory_mb:>4} "
            f"{u.rru:>5.1f} {u.wru:>4.0f} {u.items_read:>5} {r.log_bytes:>6} {r.log_lines:>5}  {calls}"
        )
    print("\nms: warm in-process duration (median); own: the same less the time inside AWS calls (moto here).")
    print("RRU/WRU: DynamoDB on-demand request units; items: DynamoDB items read; log B/lines: stdout+stderr.")
    print("\nCapacity by call (per request):")
    for r in results:
        parts = ", ".join(f"{k} {v:g}" for k, v in sorted(r.usage.by_call.items()) if v)
        print(f"  {r.op.label:34} {parts}")


def access_log_line() -> int:
    """Bytes of one API Gateway access-log line: the template's format with typical values."""
    from local.template import load

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15, help="warm requests per operation (median reported)")
    args = parser.parse_args()
    results = load(args.runs)
    report(results)
    print(f"\nAPI Gateway access-log line (template format, typical values): {access_log_line()} B")
    print(f"A steadily busy key's rate-limit item (61 live buckets): {busy_limiter_item()} B")


if __name__ == "__main__":
    main()
