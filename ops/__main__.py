"""Operator commands against the local runner or a deployed stack.

    make ops ARGS="set-plan --email ava@example.com --plan pro"           # local runner (.local/runner.json)
    make ops ARGS="grant --email ava@example.com --credits 500 --ref-id invoice-42"
    make ops ARGS="--stack workspace-service-prod grant --email ... --credits 500"   # deployed stack
    make smoke [STACK=workspace-service-prod]        # python -m ops [--stack ...] smoke: docs/smoke.md
    make ops ARGS="[--stack NAME] import-turns [--workspace ID]"   # turns older versions stored in S3, into the table
    make ops ARGS="[--stack NAME] reconcile-storage [--workspace ID [--after PATH]]"   # storage counters from S3
    make ops ARGS="[--stack NAME] number-history [--account ID] [--after CURSOR]"   # the credit history numbered
    make ops ARGS="[--stack NAME] order-items [--agent ID] [--after CURSOR]"   # items' places in their listing
    make ops ARGS="[--stack NAME] shard-ledger --email ava@example.com --shards 16"   # a busy account's balance shards
    make console-upload STACK=workspace-service-prod   # python -m ops --stack NAME console-upload: the console's build

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
    """A session on the local runner's moto and the names of its tables and bucket."""
    import boto3

    from stack.template import Stack, load

    runner = json.loads((state_dir / "runner.json").read_text())
    session = boto3.session.Session(
        region_name=runner["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",  # noqa: S106 - moto takes any
    )
    stack = Stack(load())
    names = {"main": stack.physical_name("MainTable"), "ledger": stack.physical_name("LedgerTable"),
             "bucket": stack.physical_name("ContentBucket"), "endpoint": runner["awsEndpoint"]}  # fmt: skip
    return session, names


def _deployed(stack: str) -> tuple[Any, dict[str, str]]:
    import boto3

    described = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    names = {"main": outputs["MainTableName"], "ledger": outputs["LedgerTableName"],
             "bucket": outputs["ContentBucketName"]}  # fmt: skip
    return boto3.session.Session(), names


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
    turns = commands.add_parser("import-turns", help="move chat turns stored in S3 by older versions into the table")
    turns.add_argument("--workspace", default=None, help="one workspace's (default: every workspace's)")
    turns.add_argument(
        "--credits-per-turn",
        type=int,
        default=None,
        help="what an imported complete turn says it cost (default: 1, the service's default price)",
    )
    sharding = commands.add_parser("shard-ledger", help="give a busy billed account balance shards (only growing)")
    whose = sharding.add_mutually_exclusive_group(required=True)
    whose.add_argument("--email", help="the account's user's e-mail")
    whose.add_argument("--account", help="the account (a user id)")
    sharding.add_argument("--shards", type=int, required=True, help="shard books (1 to 32; never fewer than it has)")
    numbering = commands.add_parser("number-history", help="number every account's credit history (a migration)")
    numbering.add_argument("--account", default=None, help="one account's (a user id; default: every account's)")
    numbering.add_argument("--after", default=None, help='resume after this cursor (the last line\'s "after")')
    ordering = commands.add_parser("order-items", help="place the items of agents made before issue 43 (a migration)")
    ordering.add_argument("--agent", default=None, help="one agent's (an agent id; default: every agent's)")
    ordering.add_argument("--after", default=None, help='resume after this cursor (the last line\'s "after")')
    storage = commands.add_parser("reconcile-storage", help="recompute storage counters from S3's listing, fix drift")
    storage.add_argument("--workspace", default=None, help="one workspace's (default: every workspace's)")
    storage.add_argument("--after", default=None, help='with --workspace: resume after this path (a line\'s "after")')
    upload = commands.add_parser("console-upload", help="upload console/dist to a deployed stack and invalidate it")
    upload.add_argument("--dist", type=Path, default=None, help="the build (default: console/dist)")
    args = parser.parse_args(argv)
    if args.command == "smoke":
        return _smoke(args.stack, args.state_dir)
    if args.command == "console-upload":
        return _console_upload(args.stack, args.dist)

    if not args.stack and not _runner_up(args.state_dir):
        return _no_runner(args.state_dir)
    session, names = _deployed(args.stack) if args.stack else _local(args.state_dir)
    client = (
        (lambda name: session.client(name, endpoint_url=names["endpoint"])) if "endpoint" in names else session.client
    )
    if args.command == "import-turns":
        return _import_turns(args, client("s3"), client("dynamodb"), names)
    if args.command == "shard-ledger":
        from ops import shard_ledger

        return shard_ledger.main(args, client("dynamodb"), names)
    if args.command == "reconcile-storage":
        from ops import reconcile_storage

        return reconcile_storage.main(args.workspace, args.after, client("s3"), client("dynamodb"), names)
    if args.command == "number-history":
        return _number_history(args, client("dynamodb"), names)
    if args.command == "order-items":
        from core.items.write_store import ItemStore
        from ops import order_items

        order_items.run(ItemStore(client("dynamodb"), names["main"]), client("dynamodb"), names["main"],
                        agent=args.agent, after=args.after)  # fmt: skip
        return 0
    return _operate(args, client("dynamodb"), names)


def _console_upload(stack: str | None, dist: Path | None) -> int:
    import boto3

    from ops import console_upload

    if not stack:  # the local runner serves console/dist itself (make serve)
        print("ops: console-upload needs --stack NAME (the local runner serves console/dist as it is)", file=sys.stderr)
        return 2
    return console_upload.main(stack, boto3.session.Session(), dist or console_upload.DIST)


def _import_turns(args: argparse.Namespace, s3: Any, dynamodb: Any, names: dict[str, str]) -> int:
    from core.agents.write_store import AgentStore
    from core.chat.import_store import TurnImportStore
    from core.chat.turn_import import TurnImporter
    from core.platform.settings import Settings
    from core.workspaces.store import WorkspaceStore

    workspaces, agents = WorkspaceStore(dynamodb, names["main"]), AgentStore(dynamodb, names["main"])

    def retention_of(workspace_id: str, agent_id: str) -> tuple[bool, int | None]:
        workspace = workspaces.get(workspace_id)
        alive = workspace is not None and agents.get(workspace_id, agent_id) is not None
        return alive, workspace.conversation_retention_days if workspace is not None else None

    price = args.credits_per_turn or Settings.model_fields["chat_credits_per_turn"].default
    store = TurnImportStore(s3, names["bucket"], dynamodb, names["main"])
    done = TurnImporter(store, store, retention_of=retention_of, credits_per_turn=price).run(args.workspace)
    print(json.dumps(done.__dict__))
    return 0


def _number_history(args: argparse.Namespace, dynamodb: Any, names: dict[str, str]) -> int:
    from core.credits.history_store import HistoryStore
    from ops import number_history

    numberer = HistoryStore(dynamodb, names["ledger"])
    number_history.run(numberer, dynamodb, names["ledger"], account=args.account, after=args.after)
    return 0


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
