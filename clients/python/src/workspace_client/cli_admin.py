"""``workspace-client``'s commands for running a workspace from a terminal: workspaces, keys, agents, the audit
log, members and invitations, so the README's journey needs no curl. Each prints one line per thing (tab-separated,
its id first: a member's line starts with the user's id, which ``members role|remove|transfer`` take), or with
``--json`` the service's JSON (wire names) for scripts.

    workspace-client workspaces list | create NAME
    workspace-client keys list|mint|revoke --workspace ws_… [--name N --origin URL… --rate-limit N | KEY_ID]
    workspace-client agents list --workspace ws_…
    workspace-client agents update|try AGENT …, models, knowledge search AGENT QUERY   (``cli_agents``)
    workspace-client audit --workspace ws_… [--limit N] [--all]
    workspace-client members list|leave --workspace ws_…
    workspace-client members role|remove|transfer --workspace ws_… USER_ID [admin|member]
    workspace-client invite EMAIL --workspace ws_… [--role admin|member]
    workspace-client invitations list|revoke --workspace ws_… [INVITATION_ID]
    workspace-client invitations accept [LINK]   (the mailed link or its token; without it, read from stdin)
    workspace-client usage --workspace ws_… --key KEY_ID | --agent AGENT_ID [--days N]
    workspace-client conversations export --workspace ws_… --agent prj_… [...]   (``cli_conversations``)
    workspace-client insights|feedback|unanswered AGENT --workspace ws_… [...]   (``cli_insights``)
    workspace-client answers list|add|rm AGENT --workspace ws_… [...]   (``cli_insights``)
    workspace-client webhooks list|add|rm|rotate|test|deliveries|retry --workspace ws_… [...]   (``cli_webhooks``)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ._session import magic_link_token
from .errors import ClientError
from .portal import Portal

SignedIn = Callable[[argparse.Namespace], AbstractContextManager[Portal]]


def add_commands(commands: Any, common: argparse.ArgumentParser, signed_in: SignedIn) -> None:
    """The admin commands under ``commands`` (the top parser's subparsers); ``signed_in`` resumes the session."""
    shared = argparse.ArgumentParser(add_help=False, parents=[common])
    shared.add_argument("--json", action="store_true", help="print the service's JSON instead of lines")
    in_workspace = argparse.ArgumentParser(add_help=False, parents=[shared])
    in_workspace.add_argument("--workspace", required=True, metavar="ID",
                              help="the workspace's id (ws_…) or its slug (workspaces list prints both)")  # fmt: skip

    def command(parent: Any, name: str, run: Callable[[Portal, argparse.Namespace], object], *, parents: list[Any],
                help: str) -> argparse.ArgumentParser:  # fmt: skip
        sub: argparse.ArgumentParser = parent.add_parser(name, parents=parents, help=help, description=help)
        sub.set_defaults(run=lambda args: _run(signed_in, run, args))
        return sub

    workspaces = commands.add_parser("workspaces", help="list or create your workspaces, change one's settings")
    under = workspaces.add_subparsers(title="actions", required=True, metavar="ACTION")
    command(under, "list", _workspaces, parents=[shared], help="the workspaces you are a member of, and your role")
    create = command(under, "create", _create_workspace, parents=[shared], help="create a workspace you own")
    create.add_argument("name", metavar="NAME")
    from . import cli_settings  # workspaces update, credits balance|history

    cli_settings.add_commands(commands, under, shared, in_workspace, signed_in)

    keys = commands.add_parser("keys", help="list, mint or revoke a workspace's API keys")
    under = keys.add_subparsers(title="actions", required=True, metavar="ACTION")
    command(under, "list", _keys, parents=[in_workspace], help="the workspace's keys (never their secret)")
    mint = command(under, "mint", _mint, parents=[in_workspace],
                   help="mint a key; its secret is printed this once")  # fmt: skip
    mint.add_argument("--name", required=True)
    mint.add_argument("--origin", action="append", dest="origins", metavar="URL",
                      help="a browser origin the key may be used from (repeat it; none: any origin)")  # fmt: skip
    mint.add_argument("--rate-limit", type=int, metavar="N", help="requests a minute (default: the service's)")
    revoke = command(under, "revoke", _revoke, parents=[in_workspace], help="revoke a key at once")
    revoke.add_argument("key_id", metavar="KEY_ID")

    agents = commands.add_parser("agents", help="list a workspace's agents, change how one answers, try one")
    under = agents.add_subparsers(title="actions", required=True, metavar="ACTION")
    command(under, "list", _agents, parents=[in_workspace], help="the workspace's agents")
    from . import cli_agents  # agents update|try, models, knowledge search

    cli_agents.add_commands(commands, under, shared, in_workspace, signed_in)

    audit = command(commands, "audit", _audit, parents=[in_workspace],
                    help="the workspace's audit log, newest first (owners and admins)")  # fmt: skip
    audit.add_argument("--limit", type=int, default=50, metavar="N", help="entries a page (1-200, default 50)")
    audit.add_argument("--all", action="store_true", help="every page, not only the newest")

    _membership_commands(commands, shared, in_workspace, command)
    usage = command(commands, "usage", _usage, parents=[in_workspace],
                    help="a key's or an agent's usage per UTC day, oldest first (owners and admins)")  # fmt: skip
    whose = usage.add_mutually_exclusive_group(required=True)
    whose.add_argument("--key", metavar="KEY_ID", help="one key's requests, chat turns, credits and 429s")
    whose.add_argument("--agent", metavar="AGENT_ID", help="one agent's, over every key")
    usage.add_argument("--days", type=int, default=30, metavar="N", help="days ending today (1-90, default 30)")

    from . import cli_conversations, cli_insights, cli_webhooks

    cli_conversations.add_commands(commands, in_workspace, signed_in)
    cli_insights.add_commands(commands, in_workspace, signed_in)  # insights, feedback, unanswered, answers
    cli_webhooks.add_commands(commands, in_workspace, signed_in)  # webhooks list|add|rm|rotate|test|deliveries|retry


def _membership_commands(commands: Any, shared: argparse.ArgumentParser, in_workspace: argparse.ArgumentParser,
                         command: Callable[..., argparse.ArgumentParser]) -> None:  # fmt: skip
    """``members``, ``invite`` and ``invitations`` (``command`` adds one that runs signed in)."""
    members = commands.add_parser("members", help="list a workspace's members, change a role, remove, leave, transfer")
    under = members.add_subparsers(title="actions", required=True, metavar="ACTION")
    command(under, "list", _members, parents=[in_workspace], help="the workspace's members (user id first) and roles")
    role = command(under, "role", _role, parents=[in_workspace],
                   help="make a member an admin or an admin a member (the owner only)")  # fmt: skip
    role.add_argument("user_id", metavar="USER_ID")
    role.add_argument("role", choices=["admin", "member"])
    remove = command(under, "remove", _remove, parents=[in_workspace],
                     help="remove a member (the owner: anyone else; an admin: members)")  # fmt: skip
    remove.add_argument("user_id", metavar="USER_ID")
    command(under, "leave", _leave, parents=[in_workspace], help="leave the workspace (not its owner: transfer first)")
    transfer = command(under, "transfer", _transfer, parents=[in_workspace],
                       help="give the workspace to one of its admins, who becomes its owner and you an admin "
                       "(the owner only)")  # fmt: skip
    transfer.add_argument("user_id", metavar="USER_ID")

    invite = command(commands, "invite", _invite, parents=[in_workspace],
                     help="mail an invitation to an address (owners and admins; only the owner invites "
                     "admins); inviting it again mails a new link")  # fmt: skip
    invite.add_argument("email", metavar="EMAIL")
    invite.add_argument("--role", choices=["admin", "member"], default="member", help="the role it joins in (member)")

    invitations = commands.add_parser("invitations", help="list, revoke or accept invitations")
    under = invitations.add_subparsers(title="actions", required=True, metavar="ACTION")
    command(under, "list", _invitations, parents=[in_workspace], help="the workspace's pending invitations")
    withdraw = command(under, "revoke", _revoke_invitation, parents=[in_workspace],
                       help="revoke a pending invitation: its link stops working")  # fmt: skip
    withdraw.add_argument("invitation_id", metavar="INVITATION_ID")
    accept = command(under, "accept", _accept, parents=[shared],
                     help="join a workspace with the link mailed to you (signed in with the address it was "
                     "mailed to)")  # fmt: skip
    accept.add_argument("link", nargs="?", metavar="LINK",
                        help="the mailed link or its token (default: read from stdin, so it stays out of the "
                        "shell's history)")  # fmt: skip


def _run(signed_in: SignedIn, run: Callable[[Portal, argparse.Namespace], object], args: argparse.Namespace) -> int:
    with signed_in(args) as portal:
        answer = run(portal, args)
    if args.json:
        print(json.dumps(_wire(answer.rows if isinstance(answer, Table) else answer), indent=2, ensure_ascii=False))
    elif isinstance(answer, Table):
        for line in answer.lines():
            print(line)
    else:
        for line in _lines(answer):
            print(line)
    return 0


@dataclass
class Table:
    """Rows printed under a line of column names, aligned (a day's numbers, a ledger): read by people, where the
    id-first lists (``cut -f1``) have no heading line to skip. ``--json`` prints the rows as the service sent them."""

    columns: tuple[str, ...]
    rows: list[Any]

    def lines(self) -> list[str]:
        cells = [list(self.columns)]
        cells += [["" if (value := _wire(row).get(name)) is None else _text(value) for name in self.columns]
                  for row in self.rows]  # fmt: skip
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.columns))]
        return ["  ".join(cell.rjust(w) if cell.lstrip("-").isdigit() else cell.ljust(w)
                          for cell, w in zip(row, widths, strict=True)).rstrip() for row in cells]  # fmt: skip


def _wire(answer: object) -> Any:
    if isinstance(answer, BaseModel):
        return answer.model_dump(mode="json", by_alias=True)
    if isinstance(answer, list):
        return [_wire(item) for item in answer]
    return answer


def _lines(answer: object) -> Iterable[str]:
    """One tab-separated line per thing, its id first (``cut -f1`` gives the ids)."""
    things = answer if isinstance(answer, list) else [answer]
    for thing in things:
        row = _wire(thing)
        names = _COLUMNS.get(type(thing).__name__, tuple(row))
        # Empty trailing cells (a member without a name) are dropped: no empty column at a line's end.
        yield "\t".join("" if row.get(name) is None else _text(row[name]) for name in names).rstrip("\t")


def _text(value: object) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


_COLUMNS = {
    "WorkspaceSummary": ("id", "role", "name", "slug", "memberCount"),
    "Workspace": ("id", "name", "slug"),
    "ApiKey": ("id", "name", "prefix", "rateLimit", "allowedOrigins", "createdAt", "revokedAt"),
    "MintedApiKey": ("id", "name", "key"),
    "Agent": ("id", "slug", "name"),
    "Member": ("userId", "role", "email", "createdAt", "name"),  # a name last: often empty (a mailed sign-in)
    "Invitation": ("id", "email", "role", "expiresAt", "invitedBy"),
}


def _workspaces(portal: Portal, args: argparse.Namespace) -> object:
    return portal.list_workspaces()


def _create_workspace(portal: Portal, args: argparse.Namespace) -> object:
    return portal.create_workspace(name=args.name).workspace


def _keys(portal: Portal, args: argparse.Namespace) -> object:
    return portal.every_key(args.workspace)


def _mint(portal: Portal, args: argparse.Namespace) -> object:
    minted = portal.mint_key(args.workspace, name=args.name, rate_limit=args.rate_limit, allowed_origins=args.origins)
    print("workspace-client: the key's secret is shown this once: keep it (the service stores only its hash)",
          file=sys.stderr)  # fmt: skip
    return minted.key


def _revoke(portal: Portal, args: argparse.Namespace) -> object:
    portal.revoke_key(args.workspace, args.key_id)
    return {"revoked": args.key_id}


def _agents(portal: Portal, args: argparse.Namespace) -> object:
    return portal.every_agent(args.workspace)  # every page: the listing answers 200 at a time


def _audit(portal: Portal, args: argparse.Namespace) -> object:
    entries, cursor = [], None
    while True:
        page = portal.list_audit(args.workspace, limit=args.limit, cursor=cursor)
        entries += page.entries
        cursor = page.next_cursor
        if not args.all or cursor is None:
            break
    if args.json:
        return entries
    # Who did it, by address: the members list, read once (not per entry); a former member keeps their id.
    people = {member.user_id: member.email for member in portal.every_member(args.workspace)}
    return Table(AUDIT_COLUMNS, [{"time": e.created_at, "action": e.action, "by": people.get(e.actor_id, e.actor_id),
                                  "target": e.target + ("" if e.count is None else f" ({e.count})"),
                                  "request": e.request_id} for e in entries])  # fmt: skip


AUDIT_COLUMNS = ("time", "action", "by", "target", "request")  # a count (turns erased) beside its target
USAGE_COLUMNS = ("date", "requests", "chatTurns", "credits", "rateLimited")


def _members(portal: Portal, args: argparse.Namespace) -> object:
    return portal.every_member(args.workspace)  # every page: the listing answers 200 at a time


def _role(portal: Portal, args: argparse.Namespace) -> object:
    return portal.update_member(args.workspace, args.user_id, role=args.role).member


def _remove(portal: Portal, args: argparse.Namespace) -> object:
    portal.remove_member(args.workspace, args.user_id)
    return {"removed": args.user_id}


def _leave(portal: Portal, args: argparse.Namespace) -> object:
    portal.remove_member(args.workspace, portal.get_account().id)  # leaving is removing oneself
    return {"left": args.workspace}


def _transfer(portal: Portal, args: argparse.Namespace) -> object:
    workspace = portal.transfer_workspace(args.workspace, user_id=args.user_id).workspace
    print(f"workspace-client: {workspace.id} is now owned by {workspace.owner_id}; you are one of its admins",
          file=sys.stderr)  # fmt: skip
    return workspace


def _invite(portal: Portal, args: argparse.Namespace) -> object:
    invitation = portal.create_invitation(args.workspace, email=args.email, role=args.role).invitation
    print(f"workspace-client: a link was mailed to {invitation.email}; it works once, until {invitation.expires_at}",
          file=sys.stderr)  # fmt: skip
    return invitation


def _invitations(portal: Portal, args: argparse.Namespace) -> object:
    return portal.list_invitations(args.workspace).invitations


def _revoke_invitation(portal: Portal, args: argparse.Namespace) -> object:
    portal.revoke_invitation(args.workspace, args.invitation_id)
    return {"revoked": args.invitation_id}


def _accept(portal: Portal, args: argparse.Namespace) -> object:
    link = args.link or _read_line("Paste the invitation's link (or its token): ")
    return portal.accept_invitation(token=magic_link_token(link)).workspace


def _read_line(prompt: str) -> str:
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline().strip()
    if not line:
        raise ClientError("nothing was given on stdin")
    return line


def _usage(portal: Portal, args: argparse.Namespace) -> object:
    if args.key is not None:
        days = portal.key_usage(args.workspace, args.key, days=args.days).days
    else:
        days = portal.agent_usage(args.workspace, args.agent, days=args.days).days
    return Table(USAGE_COLUMNS, list(days))
