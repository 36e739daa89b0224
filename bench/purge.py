"""How the background purge of a deleted workspace behaves with many objects (moto, in-process).

Seeds ``--objects`` objects under one workspace's prefix (plus a neighbour that
must survive), deletes the workspace through the service, then runs purge passes
as the SQS worker would and reports passes, S3 calls and time.

    PYTHONPATH=layers/common:. .venv/bin/python bench/purge.py [--objects 10000] [--json PATH]
"""

from __future__ import annotations

import os
import sys
import time
from functools import partial
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # a script: make ``bench`` importable

from bench.benchkit import command, finish, parser, table  # noqa: E402

os.environ.update({
    "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_MAX_ATTEMPTS": "1",
})  # fmt: skip


def _remaining_ms(deadline: float) -> int:
    return int((deadline - time.monotonic()) * 1000)


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--objects", type=int, default=10_000)
    cli.add_argument("--budget-ms", type=int, default=900_000, help="the purge function's time budget")
    args = cli.parse_args(argv)

    from moto import mock_aws

    with mock_aws():
        import boto3

        from core.platform import aws
        from core.platform import providers as platform_providers
        from core.purge import providers as purge_providers
        from local.aws.emulator import create_resources
        from stack.template import Stack, load

        stack = Stack(load())
        os.environ.update(stack.functions()["WorkspacePurgeFunction"].environment)
        # A purge first waits out the upload URLs signed before the deletion (16 minutes); the deletion is what is
        # measured here, so it starts at once, as the tests' purges do.
        os.environ["PURGE_SETTLE_SECONDS"] = "0"
        dynamodb, objects = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(stack, dynamodb, objects, secrets=boto3.client("secretsmanager"), sqs=boto3.client("sqs"))
        platform_providers.reset()
        bucket = stack.physical_name("ContentBucket")

        from tests.support.seed import Seeder

        seed = Seeder(dynamodb)
        owner = seed.user("owner@example.com", plan="pro")
        doomed, neighbour = seed.workspace(owner, "Doomed"), seed.workspace(owner, "Neighbour")
        agent = seed.agent(doomed)
        seed.posts(agent.id, 300)
        started = time.perf_counter()
        for n in range(args.objects):
            objects.put_object(Bucket=bucket, Key=f"workspaces/{doomed.id}/media/{n:06d}.bin", Body=b"x")
        objects.put_object(Bucket=bucket, Key=f"workspaces/{neighbour.id}/assets/keep.txt", Body=b"keep")
        seeded = time.perf_counter() - started

        calls = {"s3": 0}
        s3 = aws.s3()  # the cached client the purge uses: count what it asks of S3
        s3.meta.events.register("before-call.s3", lambda **_: calls.__setitem__("s3", calls["s3"] + 1))

        purge_providers.deletion().delete(owner.id, doomed.id)
        passes, started = 0, time.perf_counter()
        while True:
            passes += 1
            deadline = time.monotonic() + args.budget_ms / 1000
            result = purge_providers.worker().purge(doomed.id, partial(_remaining_ms, deadline))
            if result.finished:
                break
        elapsed = time.perf_counter() - started
        left = objects.list_objects_v2(Bucket=bucket, Prefix=f"workspaces/{doomed.id}/").get("KeyCount", 0)
        kept = objects.list_objects_v2(Bucket=bucket, Prefix=f"workspaces/{neighbour.id}/").get("KeyCount", 0)
    rows = [[args.objects, passes, elapsed, calls["s3"], left, kept]]
    markdown = f"In-process against moto; seeding took {seeded:.1f} s.\n\n" + table(
        ["objects", "passes", "seconds", "S3 calls", "left under prefix", "neighbour objects kept"], rows
    )
    return finish(args, "Purge of a deleted workspace", command("purge.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
