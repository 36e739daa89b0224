"""``workspace-client conversations``: an agent's stored conversations, listed (``list``), read (``show``), erased
for one visitor (``erase``), or exported (``export``) as JSON Lines, one turn a line with its agent, thread and
visitor, read through the listing API (most recent thread first, each thread's turns oldest first).

Conversations are stored only where the workspace says so (``workspaces update --store-conversations``, off for a
new workspace); a list or an export that finds nothing says whether that is why.

Export is resumable with --state FILE (and --output FILE): after every thread the state file records the page the
export is in (its cursor), the threads of that page already written and the output's size; run the same command
again and it truncates the output to that size (a thread cut short by a kill is written again, whole) and goes on
from there. Progress goes to stderr (rewritten in place on a terminal, a plain line a page otherwise), so stdout
stays JSON Lines (-, the default output) or, with --json and --output, the summary as JSON.

    workspace-client conversations list AGENT --workspace ws_… [--client C] [--since T] [--until T] [--limit N]
    workspace-client conversations show AGENT THREAD --workspace ws_… --client C
    workspace-client conversations erase AGENT --workspace ws_… --client C
    workspace-client conversations export --workspace ws_… --agent AGENT [--client C] [--since T] [--until T]
        [--output FILE] [--state FILE] [--page-size N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

from ._commands import SignedIn, run_signed_in
from .portal import Portal


def add_commands(commands: Any, in_workspace: argparse.ArgumentParser, signed_in: SignedIn) -> None:
    conversations = commands.add_parser("conversations", help="list, read, erase or export an agent's stored "
                                        "conversations (stored only where the workspace says so)")  # fmt: skip
    under = conversations.add_subparsers(title="actions", required=True, metavar="ACTION")
    export = under.add_parser("export", parents=[in_workspace], help="JSON Lines, one turn a line (resumable)",
                              description=_help(__doc__),
                              formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    export.add_argument("--agent", required=True, metavar="AGENT", help="the agent's id (prj_…) or slug")
    _filters(export)
    export.add_argument("--output", default="-", metavar="FILE", help="where the lines go (default: stdout)")
    export.add_argument("--state", metavar="FILE", help="resume from (and keep) this state file; needs --output")
    export.add_argument("--page-size", type=int, default=50, metavar="N", help="threads a page (1-200)")
    export.set_defaults(run=lambda args: _run(signed_in, args))

    listing = under.add_parser("list", parents=[in_workspace], help="an agent's stored threads, newest first: "
                               "last turn, turns, visitor, thread")  # fmt: skip
    listing.add_argument("agent", metavar="AGENT", help="the agent's id (prj_…) or slug")
    _filters(listing)
    listing.add_argument("--limit", type=int, default=20, metavar="N", help="threads (1-200, default 20)")
    listing.add_argument("--cursor", metavar="C", help="the next page (the cursor a previous list printed)")
    listing.set_defaults(run=lambda args: run_signed_in(signed_in, _list, args))

    show = under.add_parser("show", parents=[in_workspace], help="a stored thread's turns, oldest first")
    show.add_argument("agent", metavar="AGENT", help="the agent's id (prj_…) or slug")
    show.add_argument("thread", metavar="THREAD", help="the thread's key (conversations list prints it)")
    show.add_argument("--client", required=True, metavar="C", help="the visitor whose thread it is")
    show.set_defaults(run=lambda args: run_signed_in(signed_in, _show, args))

    erase = under.add_parser("erase", parents=[in_workspace],
                             help="erase every stored turn of one visitor with the agent (for good)")  # fmt: skip
    erase.add_argument("agent", metavar="AGENT", help="the agent's id (prj_…) or slug")
    erase.add_argument("--client", required=True, metavar="C", help="the visitor (conversations list prints it)")
    erase.set_defaults(run=lambda args: run_signed_in(signed_in, _erase, args))


def _help(doc: str | None) -> str:
    """A docstring as help: without the reStructuredText quotes (````x````) meant for the code's readers."""
    return (doc or "").replace("``", "")


def _filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--client", metavar="C", help="one visitor's conversations only")
    parser.add_argument("--since", metavar="TIME", help="threads whose last turn is at or after this RFC 3339 time")
    parser.add_argument("--until", metavar="TIME", help="threads whose last turn is before this time")


def plural(count: int, word: str) -> str:
    """``1 thread``, ``2 threads``, ``0 turns``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def why_nothing(portal: Portal, args: argparse.Namespace) -> str:
    """Why a list or an export found no thread: the workspace stores none, or none matches."""
    workspace = portal.get_workspace(args.workspace).workspace
    if not workspace.store_conversations:
        return (f"no conversations: workspace {workspace.slug} does not store them (storeConversations is off, the "
                f"default for a new workspace). Turn it on with: workspace-client workspaces update --workspace "
                f"{workspace.slug} --store-conversations (turns from then on are stored)")  # fmt: skip
    filters = [f"--{name} {value}" for name in ("client", "since", "until") if (value := getattr(args, name, None))]
    if filters:
        return f"no stored conversation matches {' '.join(filters)}"
    return "no stored conversations yet (none since storeConversations was turned on, or all past their retention)"


def _say(message: str) -> None:
    print(f"workspace-client: {message}", file=sys.stderr)


def _agent_id(portal: Portal, args: argparse.Namespace) -> str:
    from .cli_agents import resolve

    return args.agent if args.agent.startswith("prj_") else resolve(portal, args.workspace, args.agent).id


def _list(portal: Portal, args: argparse.Namespace) -> int:
    page = portal.list_conversations(args.workspace, _agent_id(portal, args), limit=args.limit,
                                     cursor=args.cursor, client=args.client, since=args.since,
                                     until=args.until)  # fmt: skip
    if args.json:
        print(json.dumps(page.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False))
        return 0
    if not page.threads and args.cursor is None:
        _say(why_nothing(portal, args))
    for thread in page.threads:
        print(f"{thread.last_at}\t{plural(thread.turns, 'turn')}\t{thread.client}\t{thread.thread_key}")
    if page.next_cursor:
        _say(f"more: --cursor {page.next_cursor}")
    return 0


def _show(portal: Portal, args: argparse.Namespace) -> int:
    turns = portal.get_conversation(args.workspace, _agent_id(portal, args), args.thread, client=args.client).turns
    if args.json:
        print(json.dumps([t.model_dump(mode="json", by_alias=True) for t in turns], indent=2, ensure_ascii=False))
        return 0
    for turn in turns:
        print(f"{turn.created_at}  {turn.turn_id}  ({plural(turn.credits, 'credit')})")
        print(f"  visitor: {turn.prompt}")
        print(f"  agent:   {turn.reply}")
    return 0


def _erase(portal: Portal, args: argparse.Namespace) -> int:
    erased = portal.erase_conversations(args.workspace, _agent_id(portal, args), client=args.client)
    if args.json:
        print(json.dumps(erased.model_dump(mode="json", by_alias=True)))
        return 0
    print(f"erased {plural(erased.deleted, 'turn')} of {args.client}")
    return 0


def _run(signed_in: SignedIn, args: argparse.Namespace) -> int:
    if args.state and args.output == "-":
        print("workspace-client: --state needs --output FILE (stdout cannot be resumed)", file=sys.stderr)
        return 2
    with signed_in(args) as portal:
        summary = export(portal, args)
    if args.json and args.output != "-":
        print(json.dumps(summary))
    return 0


def _load_state(path: str | None) -> dict[str, Any]:
    if path and Path(path).exists():
        state: dict[str, Any] = json.loads(Path(path).read_text())
        return state
    return {"cursor": None, "done": [], "bytes": 0, "threads": 0, "turns": 0}


def _save_state(path: str | None, state: dict[str, Any]) -> None:
    if path:  # written aside, then renamed over: a kill never leaves half a state file
        temporary = Path(f"{path}.tmp")
        temporary.write_text(json.dumps(state))
        os.replace(temporary, path)


def _open_output(args: argparse.Namespace, state: dict[str, Any]) -> IO[str]:
    if args.output == "-":
        return sys.stdout
    out = open(args.output, "a+", encoding="utf-8")  # noqa: SIM115 - closed by export()
    out.truncate(state["bytes"])  # what a killed run wrote after its last finished thread goes
    out.seek(0, os.SEEK_END)
    return out


def export(portal: Portal, args: argparse.Namespace) -> dict[str, Any]:
    """Every turn of the listing's threads, appended to the output; the state after each thread."""
    state = _load_state(args.state)
    agent_id = _agent_id(portal, args)
    out = _open_output(args, state)
    live = sys.stderr.isatty()  # rewritten in place on a terminal; a log gets plain lines, a page each
    try:
        while True:
            page = portal.list_conversations(args.workspace, agent_id, limit=args.page_size, cursor=state["cursor"],
                                             client=args.client, since=args.since, until=args.until)  # fmt: skip
            for thread in page.threads:
                name = [thread.client, thread.thread_key]
                if name in state["done"]:
                    continue
                turns = portal.get_conversation(args.workspace, agent_id, thread.thread_key, client=thread.client)
                for turn in turns.turns:
                    line = {"agentId": agent_id, "threadKey": thread.thread_key, "client": thread.client}
                    out.write(json.dumps(line | turn.model_dump(mode="json", by_alias=True), ensure_ascii=False) + "\n")
                out.flush()
                state["done"].append(name)
                state["threads"] += 1
                state["turns"] += len(turns.turns)
                state["bytes"] = out.tell() if out is not sys.stdout else 0
                _save_state(args.state, state)
                if live:
                    print(f"\r{_progress(state)}", end="", file=sys.stderr, flush=True)
            if not live and page.threads:
                print(_progress(state), file=sys.stderr, flush=True)
            if page.next_cursor is None:
                break
            state["cursor"], state["done"] = page.next_cursor, []
            _save_state(args.state, state)
    finally:
        if out is not sys.stdout:
            out.close()
    print(("\r" if live else "") + _progress(state) + ", done", file=sys.stderr)
    if not state["threads"]:
        _say(why_nothing(portal, args))
    return {"threads": state["threads"], "turns": state["turns"], "output": args.output}


def _progress(state: dict[str, Any]) -> str:
    return f"workspace-client: {plural(state['threads'], 'thread')}, {plural(state['turns'], 'turn')} exported"
