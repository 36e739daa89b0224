"""What observability adds to a cold start: import + first request, tracing off vs on vs a baseline tree.

Each sample is a fresh interpreter, as a Lambda cold start is: moto and the template's tables are set up
first (the platform, not the function), then the clock runs over ``import handler`` and one request
(``BrainWhoAmIFunction``'s sample event: a key check, so one DynamoDB call goes through botocore).

- ``off``: as deployed without X-Ray (and as locally): Tracer is never imported.
- ``on``: as Lambda runs it with ``Tracing: Active`` (daemon address, trace header): Powertools' Tracer and
  aws-xray-sdk are imported on the first request and botocore is patched (UDP to loopback; nobody listens).
- ``baseline``: the same in another checkout (``--baseline DIR``, e.g. a ``git worktree`` of the commit
  before the observability layer), for the cost of the Logger/metrics framing itself.

    .venv/bin/python bench/cold_observability.py [--runs 9] [--baseline /tmp/base-tree] [--json PATH]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script: make ``bench`` importable
from bench.benchkit import command, finish, parser, table  # noqa: E402

FUNCTION = "BrainWhoAmIFunction"

PROBE = """
import json, sys, time
sys.path[:0] = [{code!r}, {layer!r}, {root!r}]
from moto import mock_aws
from local.aws.emulator import create_resources
from stack.template import Stack, load
with mock_aws():
    import boto3
    create_resources(Stack(load()), boto3.client("dynamodb"), boto3.client("s3"))
    event = json.load(open({event!r}))

    class Context:
        function_name, memory_limit_in_mb, aws_request_id = {function!r}, 512, "00000000-0000-4000-8000-000000000001"
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + function_name

        def get_remaining_time_in_millis(self):
            return 10_000

    start = time.perf_counter()
    import handler
    imported = time.perf_counter()
    status = handler.lambda_handler(event, Context())["statusCode"]
    done = time.perf_counter()
print(json.dumps({{"import": (imported - start) * 1000, "first": (done - imported) * 1000, "status": status,
                  "xray": "aws_xray_sdk" in sys.modules}}))
"""
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
}  # fmt: skip
TRACING_ON = {
    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
    "AWS_LAMBDA_FUNCTION_NAME": FUNCTION,
    "_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
    "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
}


def sample(tree: Path, tracing: bool) -> dict[str, float]:
    sys.path[:0] = [str(tree)]
    from stack.template import Stack, load

    spec = Stack(load(tree / "template.yaml")).functions()[FUNCTION]
    sys.path.remove(str(tree))
    layer = tree / "layers" / "common"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POWERTOOLS_"))}
    env |= FAKE_AWS | spec.environment | {"LAMBDA_TASK_ROOT": str(spec.code_uri)}
    env |= TRACING_ON if tracing else {}
    probe = PROBE.format(
        code=str(spec.code_uri), layer=str(layer), root=str(tree), function=FUNCTION,
        event=str(tree / "events" / f"{FUNCTION}.json"),
    )  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env, cwd=tree
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def measure(tree: Path, tracing: bool, runs: int) -> dict[str, float]:
    sample(tree, tracing)  # warm the bytecode cache, as a deployed package has .pyc files
    samples = [sample(tree, tracing) for _ in range(runs)]
    assert all(s["xray"] == tracing for s in samples) or not tracing, "tracing off must not import aws_xray_sdk"
    return {
        "import": statistics.median(s["import"] for s in samples),
        "first": statistics.median(s["first"] for s in samples),
        "total": statistics.median(s["import"] + s["first"] for s in samples),
    }


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--runs", type=int, default=9)
    cli.add_argument("--baseline", type=Path, help="another checkout to compare with (e.g. a git worktree)")
    args = cli.parse_args(argv)
    rows = {"tracing off": measure(ROOT, False, args.runs), "tracing on": measure(ROOT, True, args.runs)}
    if args.baseline:
        rows = {"baseline": measure(args.baseline.resolve(), False, args.runs)} | rows
    reference = rows.get("baseline", rows["tracing off"])["total"]
    cells = [[name, r["import"], r["first"], r["total"], round(r["total"] / reference, 2)] for name, r in rows.items()]
    markdown = f"{FUNCTION}: import + first request, median of {args.runs} fresh interpreters, ms.\n\n" + table(
        ["", "import", "first", "total", "ratio"], cells
    )
    return finish(args, "What observability adds to a cold start", command("cold_observability.py", argv or []),
                  markdown)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
