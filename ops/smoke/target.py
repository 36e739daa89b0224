"""Where the smoke runs: the two planes' URLs and the AWS resources behind them.

A deployed stack is found through its CloudFormation outputs (the same ones ``ops --stack`` reads) with the
operator's own credentials; the rate-limit table is not an output, so it is asked of the stack by logical id.
A local runner is found through its ``runner.json`` and ``demo.json``; when none is running, ``local_runner``
starts one for the run (docs/smoke.md says why).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Target:
    name: str  # "local" or the stack's name: printed, never parsed
    portal_url: str
    brain_url: str
    dynamodb: Any
    s3: Any
    main_table: str
    api_keys_table: str
    ledger_table: str
    rate_limits_table: str
    bucket: str
    local: bool  # the offline chat model answers (and plain http is expected)


def deployed(stack: str, session: Any = None) -> Target:
    """The stack's target, with the operator's credentials (``session``: a boto3 session, default the default)."""
    import boto3

    aws = session or boto3.session.Session()
    cloudformation = aws.client("cloudformation")
    described = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    rate_limits = cloudformation.describe_stack_resource(StackName=stack, LogicalResourceId="RateLimitsTable")
    return Target(
        name=stack,
        portal_url=outputs["PortalApiUrl"].rstrip("/"),
        brain_url=outputs["BrainApiUrl"].rstrip("/"),
        dynamodb=aws.client("dynamodb"),
        s3=aws.client("s3"),
        main_table=outputs["MainTableName"],
        api_keys_table=outputs["ApiKeysTableName"],
        ledger_table=outputs["LedgerTableName"],
        rate_limits_table=rate_limits["StackResourceDetail"]["PhysicalResourceId"],
        bucket=outputs["ContentBucketName"],
        local=False,
    )


def running_local(state_dir: Path) -> Target | None:
    """The target of the runner whose state is ``state_dir``, if one is running there (its pid answers)."""
    about, demo = state_dir / "runner.json", state_dir / "demo.json"
    if not about.exists() or not demo.exists():
        return None
    runner = json.loads(about.read_text())
    try:
        os.kill(int(runner["pid"]), 0)  # signal 0: only asks whether the process exists
    except (ProcessLookupError, PermissionError, KeyError, ValueError):
        return None
    return _local_target(state_dir, json.loads(demo.read_text()))


def _local_target(state_dir: Path, demo: dict[str, Any]) -> Target:
    from stack.process import moto_client
    from stack.template import Stack, load

    stack = Stack(load())
    return Target(
        name="local",
        portal_url=demo["portalUrl"],
        brain_url=demo["brainUrl"],
        dynamodb=moto_client(state_dir, "dynamodb"),
        s3=moto_client(state_dir, "s3"),
        main_table=stack.physical_name("MainTable"),
        api_keys_table=stack.physical_name("ApiKeysTable"),
        ledger_table=stack.physical_name("LedgerTable"),
        rate_limits_table=stack.physical_name("RateLimitsTable"),
        bucket=stack.physical_name("ContentBucket"),
        local=True,
    )


@contextmanager
def local_runner(state_dir: Path, scratch: Path) -> Iterator[Target]:
    """The runner of ``make serve`` when it runs; else a runner of the smoke's own in ``scratch`` for the run.

    Starting one keeps ``make smoke`` a single command that always checks something real; the smoke's own runner
    starts from the test suites' published demo copy (``LOCAL_DEMO_TEMPLATE=1``), so it takes seconds, not the
    minute a first ``make serve`` takes, and it never touches ``.local/state``.
    """
    found = running_local(state_dir)
    if found is not None:
        yield found
        return
    from stack.process import RunnerProcess

    print(f"smoke: no runner in {state_dir}; starting one in {scratch} for this run")
    runner = RunnerProcess(scratch, env={"LOCAL_DEMO_TEMPLATE": "1"})
    runner.start()
    try:
        target = running_local(scratch)
        if target is None:
            raise RuntimeError(f"the smoke's runner in {scratch} did not write runner.json")
        yield target
    finally:
        runner.stop()
