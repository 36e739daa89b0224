"""``workspace-client``'s commands for how an agent answers (authoring.md, "How an agent answers" and "Trying an
agent before visitors do"): set its behaviour, list the deployment's models and their prices, try it with a preview
that shows the passages behind the reply, and search its knowledge as a turn would.

    workspace-client agents update AGENT --workspace ws_… [--instructions-file F] [--model M] [--temperature T]
        [--max-reply-tokens N] [--knowledge-only | --no-knowledge-only] [--fallback TEXT] [--reset FIELD ...]
    workspace-client agents try AGENT "question" --workspace ws_… [--model M] [--instructions-file F] [...]
    workspace-client models
    workspace-client knowledge search AGENT "query" --workspace ws_… [--limit N]

AGENT is the agent's id (``prj_…``) or its slug. Only the fields given are sent: ``agents update`` changes those and
leaves the rest as they are; ``--reset FIELD`` puts one back to the service's default (sent as ``null``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from functools import partial
from pathlib import Path
from typing import Any

from ._commands import SignedIn, signed_in_command
from ._generated.models_portal import Agent, BehaviourPatch, ConsideredPassage, PassageSource, RetrievedPassage
from ._operation import CLEAR
from .errors import ChatStreamError, ClientError
from .portal import Portal

# The behaviour's fields: the command line's name (also accepted: the wire's camelCase) → the client's.
FIELDS = {
    "instructions": "instructions",
    "model": "model",
    "temperature": "temperature",
    "max-reply-tokens": "max_reply_tokens",
    "knowledge-only": "knowledge_only",
    "fallback": "fallback",
}
WIRE = {"maxReplyTokens": "max-reply-tokens", "knowledgeOnly": "knowledge-only"}
EXCERPT = 100  # characters of a passage's text on its line (--json: the whole text)


def add_commands(commands: Any, agents: Any, shared: argparse.ArgumentParser, in_workspace: argparse.ArgumentParser,
                 signed_in: SignedIn) -> None:  # fmt: skip
    """``agents update|try`` under ``agents`` (the ``agents`` command's actions), ``models`` and ``knowledge search``
    under ``commands``; ``shared`` has the session and ``--json``, ``in_workspace`` also ``--workspace``."""

    command = partial(signed_in_command, signed_in=signed_in)

    update = command(agents, "update", _update, parents=[in_workspace],
                     help="change how an agent answers: only the fields given (the others stay as they are)",
                     description="Change the agent's behaviour: only the options given are sent. --reset FIELD puts "
                     "a field back to the service's default. Prints the agent's behaviour as it now is.")  # fmt: skip
    update.add_argument("agent", metavar="AGENT", help="the agent's id (prj_…) or slug")
    _behaviour_options(update)
    update.add_argument("--reset", action="extend", nargs="+", type=_field, default=[], metavar="FIELD",
                        help=f"put a field back to its default ({', '.join(FIELDS)})")  # fmt: skip

    try_ = command(agents, "try", _try, parents=[in_workspace],
                   help="ask the agent a question as a visitor would, then show the passages behind the reply",
                   description="A preview: the agent's reply streamed as it is written, then every passage its "
                   "retrieval considered (score, used or not, source, where, an excerpt) and the credits charged. "
                   "Billed to the workspace's owner at the model's price, like a visitor's turn, and never stored "
                   "as a conversation. The options try a behaviour for this question only (nothing is "
                   "saved).")  # fmt: skip
    try_.add_argument("agent", metavar="AGENT", help="the agent's id (prj_…) or slug")
    try_.add_argument("question", metavar="QUESTION")
    _behaviour_options(try_)

    command(commands, "models", _models, parents=[shared],
            help="the deployment's models: id, price a turn, name, provider, context tokens, the default")  # fmt: skip

    knowledge = commands.add_parser("knowledge", help="what an agent's chat turn would retrieve")
    under = knowledge.add_subparsers(title="actions", required=True, metavar="ACTION")
    search = command(under, "search", _search, parents=[in_workspace],
                     help="the passages a turn would retrieve for a query, best first: score, source, where, "
                     "excerpt (unbilled)")  # fmt: skip
    search.add_argument("agent", metavar="AGENT", help="the agent's id (prj_…) or slug")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--limit", type=int, metavar="N", help="passages (1-20, default 6)")


def _behaviour_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instructions-file", type=Path, metavar="F",
                        help="the owner's instructions (persona, tone, scope; at most 8,000 characters) from a "
                        "UTF-8 file, - for stdin")  # fmt: skip
    parser.add_argument("--model", metavar="M", help="a model's id (workspace-client models)")
    parser.add_argument("--temperature", type=float, metavar="T", help="0 to 1")
    parser.add_argument("--max-reply-tokens", type=int, metavar="N", help="the reply's limit, 64 to 4096")
    parser.add_argument("--knowledge-only", action=argparse.BooleanOptionalAction, default=None,
                        help="answer only from the agent's material (or, with --no-knowledge-only, also from "
                        "general knowledge, saying so)")  # fmt: skip
    parser.add_argument("--fallback", metavar="TEXT", help="what it says when its material has no answer")


def _field(value: str) -> str:
    name = WIRE.get(value, value).replace("_", "-")
    if name not in FIELDS:
        raise argparse.ArgumentTypeError(f"not a field of the behaviour: {value} (one of {', '.join(FIELDS)})")
    return name


def resolve(portal: Portal, workspace_id: str, agent: str) -> Agent:
    """The workspace's agent of that id or slug."""
    agents = portal.every_agent(workspace_id)
    found = next((a for a in agents if agent in (a.id, a.slug)), None)
    if found is None:
        known = ", ".join(a.slug for a in agents) or "none"
        raise ClientError(f"no agent {agent} in workspace {workspace_id} (its agents: {known})")
    return found


def behaviour_patch(args: argparse.Namespace) -> BehaviourPatch | None:
    """The options given, as a patch (None when none is); ``--reset`` fields as ``CLEAR`` (sent as null)."""
    given: dict[str, Any] = {}
    if args.instructions_file is not None:
        given["instructions"] = _read_text(args.instructions_file)
    for name in ("model", "temperature", "max_reply_tokens", "knowledge_only", "fallback"):
        if (value := getattr(args, name)) is not None:
            given[name] = value
    for option in getattr(args, "reset", []):
        name = FIELDS[option]
        if name in given:
            raise _UsageError(f"--reset {option} and a value for it: which one?")
        given[name] = CLEAR
    if not given:
        return None
    return BehaviourPatch(**{name: None if value is CLEAR else value for name, value in given.items()})


class _UsageError(ClientError):
    """A command line that asks for nothing, or for two contrary things (exit 2)."""


def _read_text(path: Path) -> str:
    if str(path) == "-":
        return sys.stdin.read()
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ClientError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None


def _update(portal: Portal, args: argparse.Namespace) -> int:
    try:
        patch = behaviour_patch(args)
    except _UsageError as error:
        return _usage(str(error))
    if patch is None:
        return _usage("nothing to change: give at least one of the options (--help lists them)")
    agent = resolve(portal, args.workspace, args.agent)
    updated = portal.update_agent(args.workspace, agent.id, behaviour=patch).agent
    if args.json:
        print(json.dumps(updated.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False))
        return 0
    print(f"{updated.id}\t{updated.slug}\t{updated.name}")
    for name, value in updated.behaviour.model_dump(mode="json", by_alias=True).items():
        print(f"{name}\t{_shown(name, value)}")
    return 0


def _shown(name: str, value: Any) -> str:
    """A behaviour field on one line: the instructions by their size and first line, the default model named so."""
    if name == "instructions":
        first = value.strip().splitlines()[0] if value.strip() else ""
        return f"{len(value)} character{'s' * (len(value) != 1)}" + (f": {_excerpt(first, 60)}" if first else "")
    if name == "model" and value is None:
        return "(the deployment's default)"
    if isinstance(value, bool):
        return json.dumps(value)
    return str(value)


def _usage(message: str) -> int:
    print(f"workspace-client: {message}", file=sys.stderr)
    return 2


def _models(portal: Portal, args: argparse.Namespace) -> int:
    models = portal.list_models().models
    if args.json:
        print(json.dumps([m.model_dump(mode="json", by_alias=True) for m in models], indent=2, ensure_ascii=False))
        return 0
    for m in models:
        price = f"{m.credits_per_turn} credit{'s' * (m.credits_per_turn != 1)} a turn"
        columns = [m.id, price, m.name, m.provider, f"{m.context_tokens} tokens", "default" * m.default]
        print("\t".join(columns).rstrip())
    return 0


def _search(portal: Portal, args: argparse.Namespace) -> int:
    agent = resolve(portal, args.workspace, args.agent)
    passages = portal.knowledge_search(args.workspace, agent.id, query=args.query, limit=args.limit).passages
    if args.json:
        print(json.dumps([p.model_dump(mode="json", by_alias=True) for p in passages], indent=2, ensure_ascii=False))
        return 0
    if not passages:
        print("workspace-client: no passage matches (or the agent's documents are not read yet)", file=sys.stderr)
    for passage in passages:
        print(_passage_line(passage))
    return 0


def _passage_line(passage: RetrievedPassage | ConsideredPassage) -> str:
    """``score  source  where  excerpt``, tab-separated."""
    return "\t".join([f"{passage.score:.3f}", _source(passage.source), passage.where, _excerpt(passage.text)])


def _source(source: PassageSource) -> str:
    """The source's name and what it is: ``Menu (item itm_…)``, ``Opening (post pst_…)``, ``about (section)``."""
    for kind, ident in (("item", source.item_id), ("post", source.post_id), ("answer", source.answer_id)):
        if ident:
            return f"{source.name} ({kind} {ident})"
    return f"{source.name} (section)"


def _excerpt(text: str, width: int = EXCERPT) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _try(portal: Portal, args: argparse.Namespace) -> int:
    try:
        patch = behaviour_patch(args)
    except _UsageError as error:
        return _usage(str(error))
    agent = resolve(portal, args.workspace, args.agent)
    out = sys.stdout
    event = None
    try:
        for event in portal.preview(args.workspace, agent.id, args.question, behaviour=patch):
            if args.json:
                print(json.dumps(event.wire.model_dump(mode="json", by_alias=True), ensure_ascii=False), flush=True)
            elif event.text:
                out.write(event.text)
                out.flush()
    except ChatStreamError as error:
        if not args.json:
            print(file=out, flush=True)
        print(f"workspace-client: the turn failed: {error.message} ({error.code})", file=sys.stderr)
        return 1
    if args.json or event is None:
        return 0
    print("\n", file=out)
    used = sum(passage.used for passage in event.passages)
    print(f"passages considered: {len(event.passages)} ({used} given to the model)")
    for passage in event.passages:
        print(f"{'used' if passage.used else '-'}\t{_passage_line(passage)}")
    credits = event.credits or 0
    print(f"charged {credits} credit{'s' * (credits != 1)} (to the workspace's owner; not stored as a conversation)")
    return 0
