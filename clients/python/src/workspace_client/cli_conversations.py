"""``workspace-client conversations export``: an agent's stored conversations as JSON Lines, one turn a line with
its agent, thread and visitor, read through the listing API (most recent thread first, each thread's turns oldest
first).

Resumable with ``--state FILE`` (and ``--output FILE``): after every thread the state file records the page the
export is in (its cursor), the threads of that page already written and the output's size; run the same command
again and it truncates the output to that size (a thread cut short by a kill is written again, whole) and goes on
from there. Progress goes to stderr, so stdout stays JSON Lines (``-``, the default output) or, with ``--json``
and ``--output``, the summary as JSON.

    workspace-client conversations export --workspace ws_… --agent prj_… [--client C] [--since T] [--until T]
        [--output FILE] [--state FILE] [--page-size N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO, Any

from .portal import Portal

SignedIn = Callable[[argparse.Namespace], AbstractContextManager[Portal]]


def add_commands(commands: Any, in_workspace: argparse.ArgumentParser, signed_in: SignedIn) -> None:
    conversations = commands.add_parser("conversations", help="export an agent's stored conversations")
    under = conversations.add_subparsers(title="actions", required=True, metavar="ACTION")
    export = under.add_parser("export", parents=[in_workspace], help="JSON Lines, one turn a line (resumable)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    export.add_argument("--agent", required=True, metavar="ID", help="the agent's id (prj_…)")
    export.add_argument("--client", metavar="C", help="one visitor's conversations only")
    export.add_argument("--since", metavar="TIME", help="threads whose last turn is at or after this RFC 3339 time")
    export.add_argument("--until", metavar="TIME", help="threads whose last turn is before this time")
    export.add_argument("--output", default="-", metavar="FILE", help="where the lines go (default: stdout)")
    export.add_argument("--state", metavar="FILE", help="resume from (and keep) this state file; needs --output")
    export.add_argument("--page-size", type=int, default=50, metavar="N", help="threads a page (1-200)")
    export.set_defaults(run=lambda args: _run(signed_in, args))


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
    out = _open_output(args, state)
    try:
        while True:
            page = portal.list_conversations(args.workspace, args.agent, limit=args.page_size, cursor=state["cursor"],
                                             client=args.client, since=args.since, until=args.until)  # fmt: skip
            for thread in page.threads:
                name = [thread.client, thread.thread_key]
                if name in state["done"]:
                    continue
                turns = portal.get_conversation(args.workspace, args.agent, thread.thread_key, client=thread.client)
                for turn in turns.turns:
                    line = {"agentId": args.agent, "threadKey": thread.thread_key, "client": thread.client}
                    out.write(json.dumps(line | turn.model_dump(mode="json", by_alias=True), ensure_ascii=False) + "\n")
                out.flush()
                state["done"].append(name)
                state["threads"] += 1
                state["turns"] += len(turns.turns)
                state["bytes"] = out.tell() if out is not sys.stdout else 0
                _save_state(args.state, state)
                print(f"\rworkspace-client: {state['threads']} threads, {state['turns']} turns exported", end="",
                      file=sys.stderr, flush=True)  # fmt: skip
            if page.next_cursor is None:
                break
            state["cursor"], state["done"] = page.next_cursor, []
            _save_state(args.state, state)
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"\rworkspace-client: {state['threads']} threads, {state['turns']} turns exported, done", file=sys.stderr)
    return {"threads": state["threads"], "turns": state["turns"], "output": args.output}
