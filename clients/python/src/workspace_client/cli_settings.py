"""``workspace-client``'s commands for a workspace's settings and the caller's credits.

    workspace-client workspaces update --workspace ws_… [--name N] [--listed | --no-listed]
        [--store-conversations | --no-store-conversations] [--retention-days N | --keep-conversations]
        [--low-credits-threshold N | --no-low-credits-threshold] [--default-brand ID] [--default-workflow ID]
        [--wrap-config FILE]
    workspace-client credits balance
    workspace-client credits history [--type render|voice|llm|topup|refund|adjustment] [--limit N] [--offset N]

Only the settings given are sent (the others stay as they are). Conversations are stored only where the workspace
says so (``--store-conversations``, off for a new workspace): without it the conversations, unanswered and
export commands find nothing. Credits are the signed-in user's: a workspace's chat turns are billed to its owner.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from ._commands import SignedIn, signed_in_command
from ._operation import CLEAR
from .errors import ClientError
from .portal import Portal

REF_TYPES = ("render", "voice", "llm", "topup", "refund", "adjustment")
SETTING_COLUMNS = ("id", "slug", "name", "listed", "storeConversations", "conversationRetentionDays",
                   "lowCreditsThreshold", "defaultBrandId", "defaultWorkflowId")  # fmt: skip


def add_commands(commands: Any, workspaces: Any, shared: argparse.ArgumentParser,
                 in_workspace: argparse.ArgumentParser, signed_in: SignedIn) -> None:  # fmt: skip
    """``workspaces update`` under ``workspaces`` (its actions) and ``credits balance|history`` under ``commands``."""

    command = partial(signed_in_command, signed_in=signed_in)

    update = command(workspaces, "update", _update, parents=[in_workspace],
                     help="change a workspace's settings: only those given (owners and admins)",
                     description="Change the workspace's settings: only the options given are sent. Conversations "
                     "are stored only with --store-conversations (off for a new workspace): the conversations, "
                     "unanswered and export commands need it. Prints every setting as it now is.")  # fmt: skip
    update.add_argument("--name", metavar="N", help="the workspace's name (its slug stays)")
    update.add_argument("--listed", action=argparse.BooleanOptionalAction, default=None,
                        help="shown in the public directory (or not)")  # fmt: skip
    update.add_argument("--store-conversations", action=argparse.BooleanOptionalAction, default=None,
                        help="keep visitors' turns, for the conversations commands, unanswered questions and top "
                        "questions (off by default)")  # fmt: skip
    keep = update.add_mutually_exclusive_group()
    keep.add_argument("--retention-days", type=int, metavar="N",
                      help="erase stored turns N days after they were written (1-3650)")  # fmt: skip
    keep.add_argument("--keep-conversations", action="store_true",
                      help="clear the retention: stored turns are kept until erased")  # fmt: skip
    low = update.add_mutually_exclusive_group()
    low.add_argument("--low-credits-threshold", type=int, metavar="N",
                     help="credits: the balance under which the workspace counts as low on credits (0 or "
                     "more); nothing is sent on it yet")  # fmt: skip
    low.add_argument("--no-low-credits-threshold", action="store_true",
                     help="clear the threshold: never low on credits (the default)")  # fmt: skip
    update.add_argument("--default-brand", metavar="ID", help="the brand new agents get (brd_…)")
    update.add_argument("--default-workflow", metavar="ID", help="the workflow new agents get")
    update.add_argument("--wrap-config", type=Path, metavar="FILE",
                        help="the workspace's wrap configuration: a JSON object from a file (- for stdin)")  # fmt: skip

    credits = commands.add_parser("credits", help="your credits: the balance, and the ledger")
    under = credits.add_subparsers(title="actions", required=True, metavar="ACTION")
    command(under, "balance", _balance, parents=[shared],
            help="your credits: available, held by turns under way, and in all (chat turns in your workspaces are "
            "billed to you, their owner)")  # fmt: skip
    history = command(under, "history", _history, parents=[shared],
                      help="your ledger, newest first: time, credits, what for, reference")  # fmt: skip
    history.add_argument("--type", choices=REF_TYPES, dest="ref_type", help="only entries of one kind")
    history.add_argument("--limit", type=int, default=50, metavar="N", help="entries (1-200, default 50)")
    history.add_argument("--offset", type=int, default=0, metavar="N", help="skip the newest N entries")


def settings_given(args: argparse.Namespace) -> dict[str, Any]:
    """The options given, as ``update_workspace``'s arguments (``--keep-conversations``: the retention cleared)."""
    given: dict[str, Any] = {
        "name": args.name,
        "listed": args.listed,
        "store_conversations": args.store_conversations,
        "conversation_retention_days": CLEAR if args.keep_conversations else args.retention_days,
        "low_credits_threshold": CLEAR if args.no_low_credits_threshold else args.low_credits_threshold,
        "default_brand_id": args.default_brand,
        "default_workflow_id": args.default_workflow,
    }
    if args.wrap_config is not None:
        given["wrap_config"] = _json_object(args.wrap_config)
    return {name: value for name, value in given.items() if value is not None}


def _json_object(path: Path) -> dict[str, Any]:
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        value = json.loads(text)
    except ValueError as error:
        raise ClientError(f"{path}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise ClientError(f"{path}: the wrap configuration is a JSON object ({{...}})")
    return value


def _update(portal: Portal, args: argparse.Namespace) -> int:
    given = settings_given(args)
    if not given:
        _say("nothing to change: give at least one of the options (--help lists them)")
        return 2
    workspace = portal.update_workspace(args.workspace, **given).workspace
    if args.json:
        print(json.dumps(workspace.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False))
        return 0
    wire = workspace.model_dump(mode="json", by_alias=True)
    for name in SETTING_COLUMNS:
        value = wire.get(name)
        print(f"{name}\t{_setting(name, value)}")
    return 0


def _setting(name: str, value: Any) -> str:
    if name == "conversationRetentionDays" and value is None:
        return "(kept until erased)"
    if name == "lowCreditsThreshold" and value is None:
        return "(never)"
    if value is None:
        return "(none)"
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _balance(portal: Portal, args: argparse.Namespace) -> int:
    balance = portal.get_balance()
    if args.json:
        print(json.dumps(balance.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False))
        return 0
    amounts = balance.balance
    print(f"{amounts.available} {_credits(amounts.available)} available, {amounts.held} held by turns under way, "
          f"{amounts.total} in all")  # fmt: skip
    if amounts.available <= 0:
        _say("no credits left: chat turns in your workspaces are refused (402 INSUFFICIENT_CREDITS) until the "
             "deployment's operator grants some (python -m ops grant --email YOU --credits N)")  # fmt: skip
    return 0


def _history(portal: Portal, args: argparse.Namespace) -> int:
    page = portal.get_history(limit=args.limit, offset=args.offset, ref_type=args.ref_type)
    if args.json:
        print(json.dumps(page.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False))
        return 0
    from .cli_admin import Table

    rows = [{"time": e.created_at, "credits": e.amount_credits, "type": e.ref_type, "reference": e.ref_id,
             "description": e.description} for e in page.entries]  # fmt: skip
    if not rows:
        _say("no ledger entries" + (f" of type {args.ref_type}" if args.ref_type else ""))
        return 0
    for line in Table(("time", "credits", "type", "reference", "description"), rows).lines():
        print(line)
    shown = page.offset + len(rows)
    if shown < page.total:
        _say(f"{len(rows)} of {page.total} entries: --offset {shown} for the next ones")
    return 0


def _credits(count: int) -> str:
    return "credit" if count in (1, -1) else "credits"


def _say(message: str) -> None:
    print(f"workspace-client: {message}", file=sys.stderr)
