"""``workspace-client webhooks``: the workspace's webhooks (events sent to the owner's systems, signed as Standard
Webhooks describe), from a terminal: listed, added (its signing secret printed this once), removed, their secret
rotated, a test event sent, their deliveries read (newest first, by status) and a failed one sent again.

    workspace-client webhooks list --workspace ws_…
    workspace-client webhooks add URL --workspace ws_… [--event TYPE]… [--description TEXT]
    workspace-client webhooks rm WEBHOOK --workspace ws_…
    workspace-client webhooks rotate WEBHOOK --workspace ws_…
    workspace-client webhooks test WEBHOOK --workspace ws_…
    workspace-client webhooks deliveries WEBHOOK --workspace ws_… [--status S] [--limit N] [--cursor C | --all]
    workspace-client webhooks retry WEBHOOK DELIVERY --workspace ws_…

Owners and admins only (the service refuses a member). A secret (``whsec_…``) is printed on stdout alone, so
``$(workspace-client webhooks add …)`` keeps it; what to know about it goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from typing import Any

from ._commands import SignedIn, signed_in_command
from .portal import Portal

ALL_EVENTS = "*"
STATUSES = ("pending", "delivered", "failed")
WEBHOOK_COLUMNS = ("id", "state", "url", "events", "description")
DELIVERY_COLUMNS = ("id", "createdAt", "type", "status", "attempts", "lastStatus", "nextAttemptAt", "lastError")
ROTATION_HOURS = 24  # the contract's: the previous secret keeps signing this long after a rotation


def add_commands(commands: Any, in_workspace: argparse.ArgumentParser, signed_in: SignedIn) -> None:
    """``webhooks list|add|rm|rotate|test|deliveries|retry`` under ``commands``; ``in_workspace`` has the session,
    ``--json`` and ``--workspace``."""
    command = partial(signed_in_command, signed_in=signed_in, parents=[in_workspace])
    webhooks = commands.add_parser("webhooks", help="the workspace's webhooks: events sent to your systems, signed "
                                   "(owners and admins)")  # fmt: skip
    under = webhooks.add_subparsers(title="actions", required=True, metavar="ACTION")

    command(under, "list", _list, help="the workspace's webhooks: id, enabled or why disabled, URL, events")

    add = command(under, "add", _add, help="add a webhook; its signing secret is printed this once",
                  description="Add a webhook: the events chosen (every one by default) are POSTed to URL, signed "
                  "with a secret printed this once on stdout (keep it: it is not shown again; rotate makes a new "
                  "one). URL is https:// (a local runner also takes http:// on loopback).")  # fmt: skip
    add.add_argument("url", metavar="URL", help="where the events are POSTed (https://…)")
    add.add_argument("--event", action="append", dest="events", metavar="TYPE",
                     help="an event type to send, e.g. conversation.turn.completed (repeat it; default * = every "
                     "event)")  # fmt: skip
    add.add_argument("--description", metavar="TEXT", help="what it is for, for you to recognise it later")

    rm = command(under, "rm", _rm, help="remove a webhook at once (nothing more is sent to it)")
    rm.add_argument("webhook", metavar="WEBHOOK", help="the webhook's id (whk_…, webhooks list prints it)")

    rotate = command(under, "rotate", _rotate, help=f"a new signing secret, printed this once; the old and the new "
                     f"both sign for {ROTATION_HOURS} hours")  # fmt: skip
    rotate.add_argument("webhook", metavar="WEBHOOK", help="the webhook's id (whk_…)")

    test = command(under, "test", _test, help="send a webhook.test event now; prints its delivery's id")
    test.add_argument("webhook", metavar="WEBHOOK", help="the webhook's id (whk_…)")

    deliveries = command(under, "deliveries", _deliveries,
                         help="a webhook's deliveries, newest first: status, attempts, the receiver's last answer "
                         "(kept 30 days)")  # fmt: skip
    deliveries.add_argument("webhook", metavar="WEBHOOK", help="the webhook's id (whk_…)")
    deliveries.add_argument("--status", choices=STATUSES, help="only deliveries in one status")
    deliveries.add_argument("--limit", type=int, default=20, metavar="N", help="deliveries a page (1-100, default 20)")
    page = deliveries.add_mutually_exclusive_group()
    page.add_argument("--cursor", metavar="C", help="the next page (the cursor a previous run printed)")
    page.add_argument("--all", action="store_true", help="every page, not only the newest")

    retry = command(under, "retry", _retry, help="send a delivery again now (a failed one, or one still waiting)")
    retry.add_argument("webhook", metavar="WEBHOOK", help="the webhook's id (whk_…)")
    retry.add_argument("delivery", metavar="DELIVERY", help="the delivery's id (dlv_…, deliveries prints it)")


def _list(portal: Portal, args: argparse.Namespace) -> int:
    webhooks = portal.list_webhooks(args.workspace).webhooks
    if args.json:
        return _json([_wire(w) for w in webhooks])
    if not webhooks:
        _say(f"no webhooks: add one with workspace-client webhooks add URL --workspace {args.workspace}")
        return 0
    rows = [{"id": w.id, "state": _state(w.enabled, w.disabled_reason), "url": w.url, "events": w.events,
             "description": w.description} for w in webhooks]  # fmt: skip
    _table(WEBHOOK_COLUMNS, rows)
    return 0


def _state(enabled: bool, reason: str | None) -> str:
    """``enabled``, or ``disabled`` with why: ``gone`` (the receiver answered 410), ``failing`` (8 days of failures),
    or none (turned off by a person)."""
    if enabled:
        return "enabled"
    return f"disabled ({reason})" if reason else "disabled"


def _add(portal: Portal, args: argparse.Namespace) -> int:
    created = portal.create_webhook(args.workspace, url=args.url, events=args.events or [ALL_EVENTS],
                                    description=args.description)  # fmt: skip
    if args.json:
        return _json(_wire(created))
    webhook = created.webhook
    _say(f"added {webhook.id} for {', '.join(webhook.events)} to {webhook.url}")
    _say("its signing secret is shown this once, here: keep it now, it will not be shown again (webhooks rotate "
         "makes a new one)")  # fmt: skip
    print(created.secret)
    return 0


def _rm(portal: Portal, args: argparse.Namespace) -> int:
    portal.delete_webhook(args.workspace, args.webhook)
    if args.json:
        return _json({"removed": args.webhook})
    print(f"removed {args.webhook}")
    return 0


def _rotate(portal: Portal, args: argparse.Namespace) -> int:
    rotated = portal.rotate_webhook(args.workspace, args.webhook)
    if args.json:
        return _json(_wire(rotated))
    _say(f"a new signing secret for {args.webhook}, shown this once: keep it now. The old and the new secret both "
         f"sign every delivery for the next {ROTATION_HOURS} hours (two signatures in webhook-signature); move your "
         "receiver to the new one before then")  # fmt: skip
    print(rotated.secret)
    return 0


def _test(portal: Portal, args: argparse.Namespace) -> int:
    sent = portal.test_webhook(args.workspace, args.webhook)
    if args.json:
        return _json(_wire(sent))
    _say(f"webhook.test sent to {args.webhook}: webhooks deliveries {args.webhook} --workspace {args.workspace} "
         "shows how it went")  # fmt: skip
    print(sent.delivery_id)
    return 0


def _deliveries(portal: Portal, args: argparse.Namespace) -> int:
    deliveries: list[Any] = []
    cursor = args.cursor
    while True:
        page = portal.list_deliveries(args.workspace, args.webhook, limit=args.limit, cursor=cursor,
                                      status=args.status)  # fmt: skip
        deliveries += page.deliveries
        cursor = page.next_cursor
        if not args.all or cursor is None:
            break
    if args.json:
        return _json({"deliveries": [_wire(d) for d in deliveries], "nextCursor": cursor})
    if not deliveries:
        _say(f"no {args.status + ' ' if args.status else ''}deliveries for {args.webhook} (they are kept 30 days)")
    else:
        _table(DELIVERY_COLUMNS, [_wire(d) for d in deliveries])
    if cursor:
        _say(f"more: --cursor {cursor} (or --all)")
    return 0


def _retry(portal: Portal, args: argparse.Namespace) -> int:
    portal.retry_delivery(args.workspace, args.webhook, args.delivery)
    if args.json:
        return _json({"retried": args.delivery})
    print(f"retrying {args.delivery}: webhooks deliveries {args.webhook} --workspace {args.workspace} shows how it "
          "goes")  # fmt: skip
    return 0


def _wire(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True)


def _json(value: Any) -> int:
    print(json.dumps(value, indent=2, ensure_ascii=False))
    return 0


def _table(columns: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    from .cli_admin import Table

    for line in Table(columns, rows).lines():
        print(line)


def _say(message: str) -> None:
    print(f"workspace-client: {message}", file=sys.stderr)
