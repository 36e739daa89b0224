"""``workspace-client``'s commands for what visitors say back (authoring.md, "Feedback, unanswered questions and the
owner's answers"): an agent's insights per UTC day, its rated replies, its unanswered questions, and the owner's
answers, written once and used by the agent from its next turn.

    workspace-client insights AGENT --workspace ws_… [--days N] [--json]
    workspace-client feedback AGENT --workspace ws_… [--rating up|down] [--limit N] [--all]
    workspace-client unanswered AGENT --workspace ws_… [--limit N] [--all]
    workspace-client answers list AGENT --workspace ws_… [--limit N] [--all]
    workspace-client answers add AGENT --workspace ws_… (--question Q | --from-turn TURN) --answer A
    workspace-client answers rm AGENT ANSWER_ID --workspace ws_…

AGENT is the agent's id (``prj_…``) or its slug. The lists print one tab-separated line per thing, newest first (a
feedback's or an unanswered question's line starts with its time and turn id, which ``answers add --from-turn``
takes); ``--json`` prints the service's JSON. The calls are written here as the contract has them, so the commands
need nothing beyond the client's transport; their answers are read as the service's JSON (wire names).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import Field

from ._commands import SignedIn, run_signed_in
from ._model import ApiModel
from ._operation import Operation, new_idempotency_key, present
from .cli_agents import resolve
from .portal import Portal

JSON = dict[str, Any]
AGENT_PATH = "/api/workspaces/{workspaceId}/agents/{agentId}"
EXCERPT = 80  # characters of a prompt, reply, comment or answer on a line (--json: the whole text)
TOP = 20  # the service's top questions and sources (at most)


class AnswerBody(ApiModel):
    """``POST …/answers``: ``{question, answer}``, or ``{fromTurn, answer}`` (the question is that turn's prompt)."""

    question: str | None = None
    from_turn: str | None = Field(default=None, alias="fromTurn")
    answer: str


def add_commands(commands: Any, in_workspace: argparse.ArgumentParser, signed_in: SignedIn) -> None:
    """``insights``, ``feedback``, ``unanswered`` and ``answers list|add|rm`` under ``commands``; ``in_workspace``
    has the session, ``--json`` and ``--workspace``."""

    def command(parent: Any, name: str, run: Callable[[Portal, argparse.Namespace], int], *, help: str,
                description: str | None = None) -> argparse.ArgumentParser:  # fmt: skip
        sub: argparse.ArgumentParser = parent.add_parser(name, parents=[in_workspace], help=help,
                                                         description=description or help)  # fmt: skip
        sub.add_argument("agent", metavar="AGENT", help="the agent's id (prj_…) or slug")
        sub.set_defaults(run=lambda args: run_signed_in(signed_in, run, args))
        return sub

    insights = command(commands, "insights", _insights,
                       help="an agent's turns, threads, visitors, thumbs up and down and unanswered turns per UTC "
                       "day, its top questions and its most used sources (owners and admins)",
                       description="A table of the days asked for (oldest first, zeros included), then the top "
                       "questions (most asked first: how often, answered or not, when last asked; only for "
                       "workspaces that store conversations) and the most used sources. --json: the service's "
                       "JSON.")  # fmt: skip
    insights.add_argument("--days", type=int, default=30, metavar="N", help="days ending today (1-90, default 30)")

    feedback = command(commands, "feedback", _feedback,
                       help="the replies visitors rated, newest first: time, rating, turn, visitor, question, "
                       "comment (owners and admins)")  # fmt: skip
    feedback.add_argument("--rating", choices=["up", "down"], help="only thumbs up, or only thumbs down")
    _pages(feedback)

    unanswered = command(commands, "unanswered", _unanswered,
                         help="the questions the agent's material did not answer, newest first: time, turn, "
                         "visitor, question (workspaces that store conversations)")  # fmt: skip
    _pages(unanswered)

    answers = commands.add_parser("answers", help="the owner's answers: list, add (from a question or a turn), rm")
    under = answers.add_subparsers(title="actions", required=True, metavar="ACTION")
    listing = command(under, "list", _answers, help="the agent's answers, newest first: id, question, answer")
    _pages(listing)
    add = command(under, "add", _add,
                  help="answer a question once: the agent uses the answer from its next turn",
                  description="Write the owner's answer to a question (--question), or to the question a turn asked "
                  "(--from-turn, the turn id of an unanswered question or a rated reply: its prompt is taken as the "
                  "question; the turn must be within its 8 days and the workspace must store conversations). "
                  "Prints the answer's id.")  # fmt: skip
    which = add.add_mutually_exclusive_group(required=True)
    which.add_argument("--question", metavar="Q", help="the question (at most 500 characters)")
    which.add_argument("--from-turn", metavar="TURN", help="the turn whose question this answers")
    add.add_argument("--answer", required=True, metavar="A", help="the answer (at most 4,000 characters)")
    rm = command(under, "rm", _remove, help="delete one of the agent's answers (it is no longer used)")
    rm.add_argument("answer_id", metavar="ANSWER_ID")


def _pages(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="lines a page (1-100, default 20)")
    parser.add_argument("--all", action="store_true", help="every page, not only the newest")


def _path(args: argparse.Namespace, agent_id: str) -> dict[str, str]:
    return {"workspaceId": args.workspace, "agentId": agent_id}


def _get(portal: Portal, template: str, path: dict[str, str], **query: Any) -> JSON:
    answer: JSON = portal._call(Operation("GET", template, response=JSON, path=path, query=query))
    return answer


def _listed(portal: Portal, args: argparse.Namespace, suffix: str, key: str, **query: Any) -> list[JSON]:
    """The list's newest page (``--limit``), or with ``--all`` every page, following ``nextCursor``."""
    path = _path(args, resolve(portal, args.workspace, args.agent).id)
    found: list[JSON] = []
    cursor = None
    while True:
        page = _get(portal, AGENT_PATH + suffix, path, limit=args.limit, cursor=cursor, **query)
        found += page[key]
        cursor = page.get("nextCursor")
        if not args.all or cursor is None:
            return found


def _insights(portal: Portal, args: argparse.Namespace) -> int:
    path = _path(args, resolve(portal, args.workspace, args.agent).id)
    insights = _get(portal, AGENT_PATH + "/insights", path, days=args.days)
    if args.json:
        _print_json(insights)
        return 0
    for line in insights_table(insights):
        print(line)
    return 0


DAY_COLUMNS = ("turns", "threads", "visitors", "up", "down", "unanswered")


def insights_table(insights: JSON) -> list[str]:
    """The days as an aligned table with a total line, then the top questions and the top sources."""
    days = insights.get("days", [])
    rows = [["date", *DAY_COLUMNS]]
    rows += [[day["date"], *(str(day.get(name, 0)) for name in DAY_COLUMNS)] for day in days]
    rows.append(["total", *(str(sum(day.get(name, 0) for day in days)) for name in DAY_COLUMNS)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [_aligned(row, widths) for row in rows]
    questions = insights.get("topQuestions", [])
    lines += ["", f"top questions ({len(questions)}):"]
    if not questions:
        lines.append("  none (the workspace does not store conversations, or nobody asked yet)")
    for entry in questions[:TOP]:
        answered = "answered" if entry.get("answered") else "unanswered"
        lines.append(f"  {entry.get('count', 0):>5}  {answered:<10}  {entry.get('lastAt') or '-'}  "
                     f"{_excerpt(entry.get('question') or '')}")  # fmt: skip
    sources = insights.get("topSources", [])
    lines += ["", f"top sources ({len(sources)}):"]
    if not sources:
        lines.append("  none")
    for source in sources[:TOP]:
        lines.append(f"  {source.get('count', 0):>5}  {_source(source)}")
    return lines


def _aligned(row: list[str], widths: list[int]) -> str:
    """The date left-aligned, the numbers right-aligned, two spaces between columns."""
    cells = [cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))]
    return "  ".join(cells).rstrip()


def _source(source: JSON) -> str:
    """``Menu (item itm_…)``, ``Opening (post pst_…)``, ``When do you open? (answer ans_…)``, ``about (section)``."""
    for kind, name in (("item", "itemId"), ("post", "postId"), ("answer", "answerId")):
        if source.get(name):
            return f"{source.get('name') or ''} ({kind} {source[name]})"
    return f"{source.get('name') or ''} (section)"


def _feedback(portal: Portal, args: argparse.Namespace) -> int:
    rated = _listed(portal, args, "/feedback", "feedback", rating=args.rating)
    columns = ("createdAt", "rating", "turnId", "client", "prompt", "comment")
    return _print(args, rated, columns)


def _unanswered(portal: Portal, args: argparse.Namespace) -> int:
    questions = _listed(portal, args, "/unanswered", "questions")
    return _print(args, questions, ("createdAt", "turnId", "client", "prompt"))


def _answers(portal: Portal, args: argparse.Namespace) -> int:
    answers = _listed(portal, args, "/answers", "answers")
    return _print(args, answers, ("id", "question", "answer", "updatedAt"))


def _add(portal: Portal, args: argparse.Namespace) -> int:
    path = _path(args, resolve(portal, args.workspace, args.agent).id)
    body = AnswerBody(**present(question=args.question, from_turn=args.from_turn, answer=args.answer))
    created: JSON = portal._call(Operation("POST", AGENT_PATH + "/answers", response=JSON, ok=(200, 201), path=path,
                                           body=body, idempotency_key=new_idempotency_key()))  # fmt: skip
    return _print(args, created["answer"], ("id", "question", "answer", "updatedAt"))


def _remove(portal: Portal, args: argparse.Namespace) -> int:
    path = _path(args, resolve(portal, args.workspace, args.agent).id) | {"answerId": args.answer_id}
    portal._call(Operation("DELETE", AGENT_PATH + "/answers/{answerId}", ok=(200, 204), path=path))
    return _print(args, {"deleted": args.answer_id}, ("deleted",))


def _print(args: argparse.Namespace, answer: JSON | list[JSON], columns: Iterable[str]) -> int:
    if args.json:
        _print_json(answer)
        return 0
    names = tuple(columns)
    for row in answer if isinstance(answer, list) else [answer]:
        print("\t".join(_cell(row.get(name)) for name in names))
    return 0


def _cell(value: Any) -> str:
    """A value on one line: text flattened (a tab or a newline would break the columns) and cut to ``EXCERPT``."""
    return "" if value is None else _excerpt(str(value))


def _excerpt(text: str, width: int = EXCERPT) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _print_json(answer: Any) -> None:
    print(json.dumps(answer, indent=2, ensure_ascii=False))
