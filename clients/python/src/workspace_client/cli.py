"""``workspace-client``: sign in once, then publish agent bundles to a workspace and export them back; run its
workspaces, keys, agents, audit log, members and invitations (``cli_admin``).

    workspace-client login --portal https://portal.example --email ava@northwind.example
    workspace-client workspaces create "Northwind" ; workspace-client keys mint --workspace ws_… --name site
    workspace-client publish examples/northwind-barista --workspace ws_… [--dry-run] [--no-progress] [--no-wait]
    workspace-client export --workspace ws_… --agent barista barista-copy/
    workspace-client agents update barista --workspace ws_… --instructions-file voice.txt --model offline-plus
    workspace-client agents try barista "When are you open?" --workspace ws_… ; workspace-client models

Exit status: 0 done, 1 refused (by the service, whose message and code are shown, or for the bundle), 2 usage;
``publish`` also 3 (published, but a document could not be read: each is named with the reason) and 4 (published,
but documents were still being read when ``--wait-seconds`` ran out); 130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from . import __version__
from .bundle import BundleError, IndexReport, carry_out, export, load_bundle, make_plan, wait_for_index
from .bundle.indexing import DEFAULT_TIMEOUT
from .bundle.session import ENV_VARIABLE, Session, SessionError, default_path, load, save
from .cli_admin import add_commands
from .errors import ApiError, AuthError, ClientError
from .portal import Portal

PORTAL_VARIABLE = "WORKSPACE_CLIENT_PORTAL"
EXIT_DOCUMENT_FAILED = 3  # published, but the service could not read a document (encrypted, damaged, over the plan)
EXIT_STILL_PENDING = 4  # published, but documents were still being read when --wait-seconds ran out
# More unpublished posts and deactivated items than this in one plan need --yes: a bundle missing its posts.json
# (or an export of another agent) would otherwise take a whole feed down without a word.
FEW_REMOVALS = 3
PUBLISH_EXIT_STATUS = (
    "Exit status: 0 published (and every document it changed read, unless --no-wait); 1 refused (by the service, "
    "whose message and code are shown, for the bundle, naming the file, the entry and the field, or for a plan that "
    "takes more than a few posts and items down without --yes); 2 a usage "
    f"error; {EXIT_DOCUMENT_FAILED} published, but a document could not be read (each is named with its path and the "
    f"reason); {EXIT_STILL_PENDING} published, but documents were still being read after --wait-seconds (each is "
    "named; they are read in the background); 130 interrupted."
)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(format="workspace-client: %(message)s", level=logging.WARNING, stream=sys.stderr)
    command: Callable[[argparse.Namespace], int] = args.run
    try:
        return command(args)
    except AuthError as error:
        return _failed(f"the session was refused ({error.message}, {error.code}): run workspace-client login")
    except ApiError as error:
        said = f"the service refused: {error.message} ({error.code}, HTTP {error.status})"
        return _failed(said, *_notes(error), *advice(error))
    except (BundleError, SessionError, ClientError, OSError) as error:
        return _failed(str(error), *_notes(error))
    except KeyboardInterrupt:
        return _failed("interrupted: run the same command again to finish (nothing is done twice)", status=130)


def _failed(message: str, *notes: str, status: int = 1) -> int:
    print(f"workspace-client: {message}", *notes, sep="\n  ", file=sys.stderr)
    return status


# What to do about a refusal whose message cannot say it (the service does not know who runs the deployment).
ADVICE = {
    "INSUFFICIENT_CREDITS": (
        "the workspace's owner has no credits left for this (chat turns and previews are billed to the owner): "
        "workspace-client credits balance shows the owner's balance, credits history what was spent; credits are "
        "granted by the deployment's operator: python -m ops [--stack NAME] grant --email OWNER --credits N "
        '(make ops ARGS="grant ..." locally)'
    ),
    "STORAGE_LIMIT_REACHED": (
        "make the file smaller, or delete objects the workspace no longer needs, or ask the deployment's operator "
        "for a larger plan"
    ),
}


def advice(error: ApiError) -> list[str]:
    """What to do next, for the refusals whose cure is outside the command line."""
    said = ADVICE.get(error.code)
    return [said] if said else []


def _notes(error: BaseException) -> list[str]:
    """What was under way when it failed (``publish`` notes the change it was carrying out)."""
    return list(getattr(error, "__notes__", []))


class _Formatter(argparse.HelpFormatter):
    """argparse's help, never breaking a line inside an option's name (``--no-wait``, ``--wait-seconds``)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(re.sub(r"\s+", " ", text).strip(), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)  # fmt: skip

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(re.sub(r"\s+", " ", text).strip(), width, break_on_hyphens=False)


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--session-file",
        type=Path,
        default=argparse.SUPPRESS,
        help=f"the session file (default: ${ENV_VARIABLE}, else $XDG_CONFIG_HOME/workspace-client/session.json)",
    )
    top = argparse.ArgumentParser(
        prog="workspace-client",
        parents=[common],
        description="Publish agent bundles to a workspace, and export them back; list and create workspaces, mint "
        "and revoke keys, list agents, read the audit log, invite people and run the workspace's members.",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = top.add_subparsers(title="commands", required=True, metavar="COMMAND")

    login = commands.add_parser(
        "login",
        parents=[common],
        help="sign in with a mailed link and keep the session",
        description="Mail a sign-in link, read the link (or its token) from stdin, and keep the session in a file "
        "only you can read.",
    )
    login.add_argument("--portal", help=f"the portal's URL (default: ${PORTAL_VARIABLE}, else the saved session's)")
    login.add_argument("--email", help="your address (default: read from stdin)")
    login.set_defaults(run=run_login)

    publish = commands.add_parser(
        "publish",
        parents=[common],
        help="make a workspace's agent equal a bundle",
        description="Compare the bundle with the workspace, print the plan, and carry it out. Then wait until the "
        "service has read the documents the publish created, changed or uploaded (the items the agent answers "
        "from; media are not read), and print how many were indexed and which failed, and why.",
        epilog=PUBLISH_EXIT_STATUS,
        formatter_class=_Formatter,
    )
    publish.add_argument("dir", type=Path, metavar="DIR", help="the bundle's folder")
    publish.add_argument("--workspace", required=True, metavar="ID", help="the workspace's id (ws_…) or slug")
    publish.add_argument("--dry-run", action="store_true", help="print the plan only; change nothing")
    publish.add_argument(
        "--yes", action="store_true",
        help=f"carry out a plan that unpublishes or deactivates more than {FEW_REMOVALS} posts and items (without "
        "it, such a plan is printed and nothing is done)",
    )  # fmt: skip
    publish.add_argument("--no-progress", action="store_true", help="draw no progress bar")
    publish.add_argument(
        "--no-wait", action="store_true", help="do not wait for the documents to be read (exit once published)"
    )
    publish.add_argument(
        "--wait-seconds",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="N",
        help=f"wait at most N seconds for the documents (default {DEFAULT_TIMEOUT:.0f}); those still being read "
        f"then are named and the exit status is {EXIT_STILL_PENDING}",
    )
    publish.set_defaults(run=run_publish)

    export_ = commands.add_parser(
        "export",
        parents=[common],
        help="write a workspace's agent as a bundle",
        description="Write the agent (its documents, posts, items and files) as a bundle into a new folder.",
    )
    export_.add_argument("--workspace", required=True, metavar="ID", help="the workspace's id (ws_…) or slug")
    export_.add_argument("--agent", required=True, metavar="SLUG", help="the agent's slug")
    export_.add_argument("dir", type=Path, metavar="DIR", help="a new or empty folder")
    export_.add_argument("--no-progress", action="store_true", help="draw no progress bar")
    export_.set_defaults(run=run_export)
    add_commands(commands, common, signed_in)
    return top


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value}") from None
    if not 0 <= seconds <= 86_400:
        raise argparse.ArgumentTypeError(f"must be 0 to 86400 seconds: {value}")
    return seconds


def session_path(args: argparse.Namespace) -> Path:
    return getattr(args, "session_file", None) or default_path()


def run_login(args: argparse.Namespace) -> int:
    path = session_path(args)
    portal_url = args.portal or os.environ.get(PORTAL_VARIABLE) or _saved_portal(path)
    if not portal_url:
        return _failed(f"which portal? give --portal URL (or set {PORTAL_VARIABLE})", status=2)
    email = args.email or _read_line("Email: ")
    with Portal(portal_url) as portal:
        portal.request_magic_link(email=email)
        link = _read_line(f"A sign-in link was mailed to {email}. Paste the link (or its token): ")
        account = portal.sign_in_with_magic_link(link)
        save(path, Session(portal_url, portal.session_cookie, portal.token, account.email))
    print(f"Signed in as {account.email}; the session is kept in {path}")
    return 0


def _saved_portal(path: Path) -> str | None:
    try:
        return load(path).portal_url
    except SessionError:
        return None


def _read_line(prompt: str) -> str:
    """A line from stdin (a terminal, or a pipe for non-interactive use); the prompt goes to stderr."""
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline().strip()
    if not line:
        raise SessionError("nothing was given on stdin")
    return line


@contextmanager
def signed_in(args: argparse.Namespace) -> Iterator[Portal]:
    """A portal client resuming the saved session; a JWT it renewed meanwhile is saved back, even on failure."""
    path = session_path(args)
    saved = load(path)
    portal = Portal(saved.portal_url, session=saved.session, token=saved.token)
    try:
        if isinstance(getattr(args, "workspace", None), str):
            args.workspace = workspace_id(portal, args.workspace)
        yield portal
    finally:
        if (portal.token, portal.session_cookie) != (saved.token, saved.session) and portal.token:
            save(path, Session(saved.portal_url, portal.session_cookie, portal.token, saved.email))
        portal.close()


def workspace_id(portal: Portal, given: str) -> str:
    """``--workspace``: the id (``ws_…``, taken as it is), or the slug ``workspaces list`` prints (looked up among
    the caller's workspaces; a slug has no ``_``, so the two never clash)."""
    if given.startswith("ws_"):
        return given
    workspaces = portal.list_workspaces()
    found = next((w.id for w in workspaces if given == w.slug), None)
    if found is None:
        known = ", ".join(f"{w.slug} ({w.id})" for w in workspaces) or "none"
        raise ClientError(f"no workspace {given} among yours (by slug or id: {known})")
    return found


def run_publish(args: argparse.Namespace) -> int:
    bundle = load_bundle(args.dir)  # a bundle that cannot be published is said before signing in
    with signed_in(args) as portal:
        plan = make_plan(portal, args.workspace, bundle)
        print(plan, flush=True)
        guarded = plan.removals > FEW_REMOVALS and not args.yes
        if guarded:
            again = "publish" if args.dry_run else "run it again"
            print(f"this plan takes {plan.removals} posts and items off the agent's pages: {again} with --yes to "
                  "carry it out", file=sys.stderr)  # fmt: skip
        if args.dry_run or plan.empty:
            return 0
        if guarded:
            return 1
        agent_id = carry_out(portal, plan, progress=not args.no_progress)
        print(f"published {bundle.agent.slug} to {args.workspace}", flush=True)
        if args.no_wait:
            return 0
        try:
            report = wait_for_index(portal, plan, agent_id, timeout=args.wait_seconds, progress=not args.no_progress)
        except ClientError as error:
            error.add_note("while waiting for the documents to be read (the publish itself is done)")
            raise
        except KeyboardInterrupt:
            return _failed("stopped waiting: the publish is done and its documents are read in the background "
                           "(each item's index, in the portal, says how it went)", status=130)  # fmt: skip
    return report_index(report)


def report_index(report: IndexReport) -> int:
    """How the documents a publish changed were read: the totals on stdout, the failed ones (name, path, the reason)
    and those still being read on stderr; the exit status. Nothing when the service reports no indexing."""
    if not report.reported:
        return 0
    print(report.summary(), flush=True)
    status = 0
    if report.failed:
        lines = [f"{doc.name} ({doc.path}): {doc.error or 'no reason given'}" for doc in report.failed]
        count = len(report.failed)
        status = _failed(
            f"{count} document{'s' * (count != 1)} could not be read:", *lines, status=EXIT_DOCUMENT_FAILED
        )
    if report.pending:
        lines = [f"{doc.name} ({doc.path})" for doc in report.pending]
        count = len(report.pending)
        message = (f"{count} document{'s' * (count != 1)} still being read after {report.seconds:.0f} s (they are read "
                   "in the background; each item's index, in the portal, says how it went):")  # fmt: skip
        pending = _failed(message, *lines, status=EXIT_STILL_PENDING)
        status = status or pending
    return status


def run_export(args: argparse.Namespace) -> int:
    with signed_in(args) as portal:
        target = export(portal, args.workspace, args.agent, args.dir, progress=not args.no_progress)
    print(f"exported {args.agent} to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
