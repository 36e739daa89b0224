"""Operator commands against the local runner or a deployed stack.

    make ops ARGS="set-plan --email ava@example.com --plan pro"           # local runner (.local/runner.json)
    make ops ARGS="grant --email ava@example.com --credits 500 --ref-id invoice-42"
    make ops ARGS="--stack workspace-service-prod grant --email ... --credits 500"   # deployed stack
    make smoke [STACK=workspace-service-prod]        # python -m ops [--stack ...] smoke: docs/smoke.md

A grant is a ``topup`` ledger entry (or ``--type refund|adjustment``) and happens at most
once per ``--ref-id`` (default: a new id), so re-running a command after a timeout never
doubles credits.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.credits.records import Outcome
from core.credits.store import LedgerStore
from core.identity.store import UserStore
from core.platform.ids import new_id
from core.platform.settings import PLAN_LIMITS

LOCAL_STATE = Path(__file__).resolve().parent.parent / ".local"


def _local(state_dir: Path) -> tuple[Any, dict[str, str]]:
    import boto3

    from stack.template import Stack, load

    runner = json.loads((state_dir / "runner.json").read_text())
    session = boto3.session.Session(
        region_name=runner["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",  # noqa: S106 - moto takes any
    )
    stack = Stack(load())
    tables = {"main": stack.physical_name("MainTable"), "ledger": stack.physical_name("LedgerTable")}
    return session.client("dynamodb", endpoint_url=runner["awsEndpoint"]), tables


def _deployed(stack: str) -> tuple[Any, dict[str, str]]:
    import boto3

    described = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    return boto3.client("dynamodb"), {"main": outputs["MainTableName"], "ledger": outputs["LedgerTableName"]}


def _smoke(stack: str | None, state_dir: Path) -> int:
    """Exit status 0 only if every check passed (the cleanup's included)."""
    import signal
    import tempfile

    from ops.smoke import deployed, local_runner, smoke

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)  # SIGTERM unwinds like Ctrl-C: the smoke's finally removes what it made

    signal.signal(signal.SIGTERM, stop)
    if stack:
        checks, _ = smoke(deployed(stack))
        return 1 if checks.failed else 0
    with (
        tempfile.TemporaryDirectory(prefix="smoke-runner-") as scratch,
        local_runner(state_dir, Path(scratch)) as target,
    ):
        checks, _ = smoke(target)
    return 1 if checks.failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ops", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--stack", help="a deployed stack name (default: the local runner)")
    parser.add_argument("--state-dir", type=Path, default=LOCAL_STATE, help="the local runner's state directory")
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser("set-plan", help="set a user's plan")
    plan.add_argument("--email", required=True)
    plan.add_argument("--plan", required=True, choices=list(PLAN_LIMITS))
    grant = commands.add_parser("grant", help="grant credits (a topup, refund or adjustment ledger entry)")
    grant.add_argument("--email", required=True)
    grant.add_argument("--credits", type=int, required=True)
    grant.add_argument("--type", default="topup", choices=["topup", "refund", "adjustment"], help="the entry's refType")
    grant.add_argument("--ref-id", default=None, help="idempotency reference (default: a new id)")
    grant.add_argument("--description", default="Operator top-up")
    commands.add_parser("smoke", help="check every endpoint of both planes with a temporary user, then remove it")
    args = parser.parse_args(argv)
    if args.command == "smoke":
        return _smoke(args.stack, args.state_dir)

    if not args.stack and not _runner_up(args.state_dir):
        return _no_runner(args.state_dir)
    dynamodb, tables = _deployed(args.stack) if args.stack else _local(args.state_dir)
    return _operate(args, dynamodb, tables)


def _runner_up(state_dir: Path) -> bool:
    """Whether a runner answers at the moto endpoint its ``runner.json`` names (a stopped one leaves the file)."""
    import socket
    from urllib.parse import urlsplit

    try:
        endpoint = urlsplit(json.loads((state_dir / "runner.json").read_text())["awsEndpoint"])
        with socket.create_connection((endpoint.hostname or "127.0.0.1", endpoint.port or 80), timeout=2):
            return True
    except (OSError, ValueError, KeyError):
        return False


def _no_runner(state_dir: Path) -> int:
    print(f"ops: no local runner is up (state: {state_dir}): start it with `make serve`, or give --stack NAME for a "
          "deployed stack", file=sys.stderr)  # fmt: skip
    return 1


def _operate(args: argparse.Namespace, dynamodb: Any, tables: dict[str, str]) -> int:
    users = UserStore(dynamodb, tables["main"])
    user = users.find_by_email(args.email)
    if user is None:
        print(f"no user with e-mail {args.email} (they sign in once first)", file=sys.stderr)
        return 1
    if args.command == "set-plan":
        users.set_plan(user.id, args.plan)
        print(json.dumps({"userId": user.id, "plan": args.plan}))
        return 0
    if args.credits <= 0:
        print("--credits must be a positive whole number", file=sys.stderr)
        return 2
    ref_id = args.ref_id or new_id("top")
    outcome = LedgerStore(dynamodb, tables["ledger"]).grant(user.id, args.credits, args.type, ref_id, args.description)
    applied = outcome is Outcome.APPLIED
    print(json.dumps({"userId": user.id, "credits": args.credits, "refId": ref_id, "applied": applied}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
