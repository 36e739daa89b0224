"""``python -m ops.deploy_check``: deploy the real template to LocalStack and compare the stack with template.yaml.

Run by ``make deploy-check`` (which installs .venv-localstack, the DynamoDB Local jars and Java, and runs
``make build`` first): starts LocalStack, ``sam deploy`` of .aws-sam/build, the checks of readback.py, then
``sam delete`` and LocalStack's stop whatever happened. Exit status 1 on any mismatch or failed step.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import boto3

from stack.process_tree import descendants, rss_bytes
from stack.template import ROOT, Stack, load

from . import localstack
from .checks import Result
from .readback import check_stack

SAM = ROOT / ".venv-sam" / "bin" / "sam"
BUILT = ROOT / ".aws-sam" / "build" / "template.yaml"
STACK = "deploy-check"
BUCKET = "deploy-check-artifacts"
REGION = "us-east-1"


def sam(args: list[str], env: dict[str, str], log: Path, timeout: float = 900) -> bool:
    """Run SAM CLI away from samconfig.toml (its [default] asks to confirm the changeset); output to ``log``."""
    with log.open("wb") as out:
        done = subprocess.run(  # noqa: S603 - our own virtualenv's sam
            [str(SAM), *args],
            env=env,
            cwd=localstack.HOME,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        print(f"sam {args[0]} failed ({done.returncode}); the end of {log}:")
        print("\n".join(log.read_text(errors="replace").splitlines()[-25:]))
    return done.returncode == 0


def report(results: list[Result]) -> bool:
    width = max(len(r.check) for r in results)
    for r in results:
        print(f"  {r.status:<12} {r.check:<{width}}  {r.detail}".rstrip())
    failed = [r for r in results if r.status == "FAIL"]
    modelled = len([r for r in results if r.status == "not modelled"])
    passed = len(results) - len(failed) - modelled
    print(f"deploy-check: {passed} ok, {len(failed)} failed, {modelled} not modelled by LocalStack")
    return not failed


def main() -> int:
    if not BUILT.exists():
        print(f"deploy-check: {BUILT} is missing: run make build first")
        return 1
    port = int(os.environ.get("DEPLOY_CHECK_PORT", "4566"))
    endpoint = localstack.endpoint(port)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AWS_")},  # never a real account's profile or keys
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": REGION,
        "SAM_CLI_TELEMETRY": "0",
    }
    session = boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)  # noqa: S106
    began = time.monotonic()
    process = localstack.start(port)
    print(f"deploy-check: LocalStack healthy on {endpoint} in {time.monotonic() - began:.1f} s")
    ok = False
    try:
        session.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
        deploy_began = time.monotonic()
        deploy_args = ["deploy", "--template-file", str(BUILT), "--stack-name", STACK, "--s3-bucket", BUCKET]
        deploy_args += ["--capabilities", "CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND", "--region", REGION]
        deploy_args += ["--no-confirm-changeset", "--no-fail-on-empty-changeset", "--no-progressbar"]
        # LocalStack has none of AWS's public SSM parameters, which name the secrets extension's layer
        deploy_args += ["--parameter-overrides", "SecretsExtension=off"]
        if sam(deploy_args, env, localstack.HOME / "sam-deploy.log"):
            print(f"deploy-check: sam deploy took {time.monotonic() - deploy_began:.1f} s")
            ok = report(check_stack(session, endpoint, STACK, Stack(load())))
        rss_mb = rss_bytes([process.pid, *descendants(process.pid)]) // 2**20  # it and DynamoDB Local's JVM
        print(f"deploy-check: LocalStack and DynamoDB Local use {rss_mb} MB (resident)")
    finally:
        delete_began = time.monotonic()
        delete_args = ["delete", "--stack-name", STACK, "--s3-bucket", BUCKET, "--region", REGION, "--no-prompts"]
        ok = sam(delete_args, env, localstack.HOME / "sam-delete.log", timeout=300) and ok
        print(f"deploy-check: sam delete took {time.monotonic() - delete_began:.1f} s")
        localstack.stop(process)
    print(f"deploy-check: {'passed' if ok else 'FAILED'} in {time.monotonic() - began:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
