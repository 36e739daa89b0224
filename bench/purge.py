"""A workspace purge and an agent purge at a size: time and AWS calls by service and operation (moto, in-process).

For each size N in ``--sizes`` and each kind: a fresh moto with the template's resources; a workspace whose agent
holds N objects (3 bytes each, with the storage counter's records) and N posts (each its canonical item, its row
and a filter copy), five more objects in the workspace's ``assets/``, and a neighbour workspace that must survive
(tests/support/purge_seed.py seeds them: objects straight into moto's S3 backend, posts as copies of one written
by the store). Then the workspace (or the agent) is deleted and the purge worker runs passes with ``--budget-ms``
each until it finishes. Reported: passes, seconds, every call its clients made (by service and operation), the most
items one call read, and what is left. Sizes beyond those measured are modelled from the per-call counts (each
operation's calls are linear in N: pages of 1,000 versions, 500 items, 25 writes, 99 records), and say so.

    PYTHONPATH=layers/common:. .venv/bin/python bench/purge.py [--sizes 1000 10000] [--model 100000] [--json PATH]
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402

os.environ.update({
    "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_MAX_ATTEMPTS": "1",
})  # fmt: skip

KINDS = ("workspace", "agent")
# Operations whose answer is items read: the most one call read is reported (the purge's pages bound it).
READS = {"Query": "Items", "ListObjectVersions": "Versions"}


@dataclass(frozen=True)
class Measured:
    kind: str
    size: int
    passes: int
    seconds: float
    calls: Counter[str]
    largest_read: int
    left: int
    exact: bool


def _remaining_ms(deadline: float) -> int:
    return int((deadline - time.monotonic()) * 1000)


def measure(kind: str, size: int, budget_ms: int) -> Measured:
    """One purge of ``kind`` at ``size`` objects and posts, in a moto of its own."""
    from moto import mock_aws

    from local.aws.emulator import make_dynamodb_reads_fast, make_moto_dynamodb_as_in_the_runner

    make_moto_dynamodb_as_in_the_runner()  # as the tests' and the runner's moto: Queries read their partition
    make_dynamodb_reads_fast()
    with mock_aws():
        from core.platform import providers as platform_providers
        from core.purge import providers as purge_providers

        dynamodb, s3 = _resources()
        seeded, neighbour = _seeded(dynamodb, kind, size)
        ws = seeded.workspace.id
        calls, largest = _metered()
        worker = purge_providers.worker()
        passes, started = 0, time.perf_counter()
        while True:
            passes += 1
            left_ms = partial(_remaining_ms, time.monotonic() + budget_ms / 1000)
            agent = seeded.agent_id
            result = worker.purge(ws, left_ms) if kind == "workspace" else worker.purge_agent(ws, agent, left_ms)
            if result.finished:
                break
        elapsed = time.perf_counter() - started
        left, exact = _after(dynamodb, s3, kind, seeded, neighbour)
        platform_providers.reset()
    return Measured(kind, size, passes, elapsed, calls, largest[0], left, exact)


def _resources() -> tuple[Any, Any]:
    """The template's tables, bucket and queues in this moto, and the purge function's settings."""
    import boto3

    from core.platform import providers as platform_providers
    from core.platform.settings import get_settings
    from local.aws.emulator import create_resources
    from stack.template import Stack, load

    stack = Stack(load())
    os.environ.update(stack.functions()["WorkspacePurgeFunction"].environment)
    # A purge first waits out the upload URLs signed before the deletion (16 minutes); the deletion is what is
    # measured here, so it starts at once, as the tests' purges do.
    os.environ["PURGE_SETTLE_SECONDS"] = "0"
    get_settings.cache_clear()
    dynamodb, s3 = boto3.client("dynamodb"), boto3.client("s3")
    create_resources(stack, dynamodb, s3, secrets=boto3.client("secretsmanager"), sqs=boto3.client("sqs"))
    platform_providers.reset()
    return dynamodb, s3


def _seeded(dynamodb: Any, kind: str, size: int) -> tuple[Any, Any]:
    """The workspace (deleted, or its agent deleted) and a neighbour that stays."""
    from tests.support.purge_seed import delete_agent, delete_workspace, workspace_with

    seeded = workspace_with(dynamodb, f"{kind}-{size}@example.com", objects=size, posts=size)
    neighbour = workspace_with(dynamodb, f"kept-{kind}-{size}@example.com", objects=3, posts=3)
    if kind == "workspace":
        delete_workspace(dynamodb, seeded.workspace)
    else:
        delete_agent(dynamodb, seeded.workspace, seeded.agent_id)
    return seeded, neighbour


def _metered() -> tuple[Counter[str], list[int]]:
    """Every call of the worker's clients by service and operation, and the most items one call read."""
    from core.platform import aws

    calls: Counter[str] = Counter()
    largest = [0]

    def counted(model: Any, **_: Any) -> None:
        calls[f"{model.service_model.service_name}.{model.name}"] += 1

    def read(model: Any, parsed: dict[str, Any], **_: Any) -> None:
        if model.name in READS:
            found = len(parsed.get(READS[model.name], [])) + len(parsed.get("DeleteMarkers", []))
            largest[0] = max(largest[0], found)

    for client in (aws.dynamodb(), aws.s3()):  # the cached clients the worker uses
        client.meta.events.register("before-call.*.*", counted)
        client.meta.events.register("after-call.*.*", read)
    return calls, largest


def _after(dynamodb: Any, s3: Any, kind: str, seeded: Any, neighbour: Any) -> tuple[int, bool]:
    """What is left of what was purged, and whether the counters are exact."""
    from core.objects import providers as objects
    from core.platform import main_table as keys
    from core.platform.settings import get_settings

    ws = seeded.workspace.id
    prefix = f"workspaces/{ws}/" if kind == "workspace" else f"workspaces/{ws}/projects/{seeded.agent_id}/"
    listed = s3.list_object_versions(Bucket=get_settings().content_bucket, Prefix=prefix)
    left = len(listed.get("Versions", [])) + len(listed.get("DeleteMarkers", []))
    for pk in (keys.posts_partition(seeded.agent_id), keys.feed_filters_partition(seeded.agent_id)):
        left += dynamodb.query(TableName=get_settings().main_table, KeyConditionExpression="pk = :pk",
                               ExpressionAttributeValues={":pk": {"S": pk}}, Select="COUNT")["Count"]  # fmt: skip
    store = objects.storage()
    # Exact: an agent purge leaves the workspace's other bytes counted; a workspace purge its neighbour's.
    exact = store.counted(neighbour.workspace.id)[0] == 3 * 3 + neighbour.kept_bytes and (
        kind == "workspace" or store.counted(ws)[0] == seeded.kept_bytes
    )
    return left, exact


def _calls(calls: Counter[str]) -> str:
    return ", ".join(f"{name.split('.', 1)[1]} {n}" for name, n in sorted(calls.items()))


# Typical in-region latencies of one call, for the modelled rows' time (assumed, not measured: moto's are not AWS's).
LATENCY_S = {"BatchWriteItem": 0.02, "TransactWriteItems": 0.03, "Query": 0.01, "GetItem": 0.005,
             "BatchGetItem": 0.01, "ListObjectVersions": 0.1, "DeleteObjects": 0.3}  # fmt: skip
PASS_S = (900_000 - 30_000) / 1000  # a pass: the function's 15 minutes less the purge's safety margin


def modelled(runs: list[Measured], size: int) -> list[list[Any]]:
    """A row at ``size`` per kind, from the two largest measured runs of the kind: each operation's calls fitted as
    a + b*N (its pages are linear in N; a + b*N is exact for them and for the constant few, like the tombstone's
    GetItem); time as those calls at the assumed latencies, in passes of the function's budget."""
    rows = []
    for kind in KINDS:
        small, large = sorted((r for r in runs if r.kind == kind), key=lambda r: r.size)[-2:]
        fitted: Counter[str] = Counter()
        for name in small.calls | large.calls:
            slope = (large.calls[name] - small.calls[name]) / (large.size - small.size)
            fitted[name] = max(0, round(small.calls[name] + slope * (size - small.size)))
        seconds = sum(n * LATENCY_S.get(name.split(".", 1)[1], 0.02) for name, n in fitted.items())
        passes = max(1, -(-int(seconds) // int(PASS_S)))
        rows.append([kind, f"{size:,}", f"{passes} (modelled)", f"{seconds:,.0f} (modelled)", sum(fitted.values()),
                     _calls(fitted), large.largest_read, "-", "-"])  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[1_000, 2_000],
        help="objects and posts, each (multiples of the 1,000-version page)",
    )
    cli.add_argument(
        "--model", type=int, nargs="*", default=[10_000, 100_000], help="sizes modelled from the two largest measured"
    )
    cli.add_argument("--budget-ms", type=int, default=900_000, help="the purge function's time budget")
    args = cli.parse_args(argv)

    runs = [measure(kind, size, args.budget_ms) for size in args.sizes for kind in KINDS]
    rows: list[list[Any]] = [
        [r.kind, f"{r.size:,}", r.passes, round(r.seconds, 1), sum(r.calls.values()), _calls(r.calls), r.largest_read,
         r.left, "yes" if r.exact else "NO"]
        for r in runs
    ]  # fmt: skip
    for size in args.model if len(args.sizes) > 1 else ():
        if size not in args.sizes:
            rows += modelled(runs, size)
    markdown = (
        "In-process against moto (seconds are moto's, on this machine: its ListObjectVersions deep-copies every key of "
        "the bucket on each call, so time grows faster than calls here; AWS answers a page in time that does not "
        "grow with the bucket). A size N is N objects under the agent's folder and N posts (3 items each). "
        "\"modelled\" rows fit each operation's calls as a + b*N through the two largest measured runs (the pages are "
        "linear in N) and give their time at assumed AWS latencies (DynamoDB 5-30 ms a call, ListObjectVersions "
        "100 ms, DeleteObjects of 1,000 300 ms), in passes of the function's 15 minutes.\n\n"
    ) + table(
        ["purge", "objects and posts", "passes", "seconds", "AWS calls", "by operation", "most items one call read",
         "left", "counters exact"],
        rows,
    )  # fmt: skip
    return finish(args, "Purge of a deleted workspace or agent", command("purge.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
