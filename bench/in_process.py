"""The real handlers in-process against moto, with the demo's first agent seeded: what the in-process benches share.

``demo_stack()`` starts moto, creates the template's resources and seeds examples/northwind-barista (168 posts, items,
wrap/site documents; placeholder media bodies, so no ffmpeg) plus two large media objects;
``operations()`` names one request per brain endpoint; ``prepare()`` gives a function its environment and
fresh clients from the default session (so a hook on that session sees every call it makes); ``invoke()``
runs one request as ``core.platform.lambda_runtime.loop`` does, draining a streamed body chunk by chunk.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # the project and its layer, importable
MIB = 1024 * 1024


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


@dataclass(frozen=True)
class Operation:
    label: str
    function: str
    event: Callable[[dict[str, Any]], dict[str, Any]]
    streamed: bool = False
    env: dict[str, str] = field(default_factory=dict)
    runs: int | None = None  # fewer for the large objects
    expect: int | None = None  # the status every request must answer (a write's bench measures no refusal)
    setup: Callable[[], None] | None = None  # run before each request, unmetered (a state for it to change)


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
    """Status and body bytes; a streamed body is drained chunk by chunk and closed, as
    core.platform.lambda_runtime.loop does."""
    from core.platform.response_stream import StreamBody, body_chunks
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
    """Log as on Lambda: Powertools' JSON lines where the layer uses it (core.platform.observability), else the managed
    runtime's JSON format for stdlib logging (core.lambda_logging, older layers), at Lambda's default level."""
    try:
        from core import lambda_logging  # type: ignore[attr-defined]
    except ImportError:
        return  # core.platform.observability routes the layer's loggers through Powertools (it writes to stdout)
    lambda_logging.configure()


@contextlib.contextmanager
def demo_stack() -> Iterator[dict[str, Any]]:
    """moto running, the template's resources created, the demo loaded: the first demo workspace."""
    from tests.conftest import FAKE_AWS
    from tests.support.lambdas import stack

    os.environ |= FAKE_AWS | stack().functions()["BrainFeedFunction"].environment
    # What Lambda sets for LoggingConfig LogFormat JSON (no ApplicationLogLevel in the template: INFO).
    os.environ |= {"AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": "INFO"}
    import boto3
    from moto import mock_aws

    from bench.seeded_example import seed_example
    from local.aws.emulator import create_resources, make_moto_dynamodb_as_in_the_runner

    # DynamoDB as the runner and the tests have it: a transaction puts back only the items it touched (moto's own
    # copies every table it names, stream records included now that the tables stream: quadratic in the seeding)
    make_moto_dynamodb_as_in_the_runner()
    with mock_aws():
        db, s3 = boto3.client("dynamodb"), boto3.client("s3")
        # The secrets and queues too: the writer's benches sign in (the portal JWT's secret) through the portal.
        create_resources(stack(), db, s3, secrets=boto3.client("secretsmanager"), sqs=boto3.client("sqs"))
        env = stack().functions()["BrainFeedFunction"].environment
        demo = seed_example(
            db, s3, main_table=env["MAIN_TABLE"], api_keys_table=env["API_KEYS_TABLE"],
            ledger_table=env["LEDGER_TABLE"], bucket=env["CONTENT_BUCKET"],
        )  # fmt: skip
        prefix = f"workspaces/{demo['id']}/media/"
        s3.put_object(Bucket=env["CONTENT_BUCKET"], Key=prefix + "bench-1mib.bin", Body=os.urandom(MIB))
        s3.put_object(Bucket=env["CONTENT_BUCKET"], Key=prefix + "bench-100mib.bin", Body=os.urandom(100 * MIB))
        yield demo


def prepare(op: Operation) -> Any:
    """The function's environment set, its cached clients dropped: the boto3 session its new clients come from."""
    import boto3

    from core.platform import providers as platform_providers
    from tests.support.lambdas import stack

    os.environ.update(stack().functions()[op.function].environment | op.env)
    platform_providers.reset()
    boto3.setup_default_session()
    return boto3.DEFAULT_SESSION


def unprepare(op: Operation) -> None:
    for name in op.env:
        os.environ.pop(name, None)
