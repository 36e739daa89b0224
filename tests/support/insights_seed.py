"""An agent's insights seeded in the documented layout (docs/data-model.md; ``core.platform.main_table``, issue 40),
as many turns' worth as a test needs, with BatchWriteItem rather than a chat turn each: receipts, the days' counter
shards (each day's four shards filled in turn), question items (their ``gsi2`` keys, the count in ``gsi2sk``),
unanswered rows and the three rows of each rating. What the turns would have written, added up here the way the
turn's and the rating's ADDs add up, so the reads can be checked against the turns made at any size.

``ItemsRead`` counts what the owner's reads cost: the calls (``tests.support.call_recorder.Recorder``) and the items
each Query and BatchGetItem returned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from core.insights.questions import question_key
from core.insights.records import COUNTERS, SOURCE_COUNT, SOURCE_NAME, source_key
from core.platform import main_table as keys
from core.platform.dynamo import batch_put
from core.platform.ids import iso, new_id
from core.platform.retention import day_counted_until, expires_at, receipt_expires_at
from core.platform.settings import get_settings
from tests.support.call_recorder import Recorder


@dataclass
class SeedTurn:
    """A delivered turn, and what the visitor said of it."""

    created_at: datetime
    client: str
    thread: str
    prompt: str
    reply: str = "Here is what I found."
    unanswered: bool = False
    sources: list[dict[str, Any]] = field(default_factory=list)  # as the ``sources`` event names them
    rating: str | None = None  # up | down
    comment: str | None = None
    turn_id: str = ""

    def __post_init__(self) -> None:
        if not self.turn_id:
            self.turn_id = new_id("turn", int(self.created_at.timestamp() * 1000))

    @property
    def at(self) -> str:
        return iso(self.created_at)

    @property
    def day(self) -> str:
        return self.at[:10]

    @property
    def rated_at(self) -> str:
        return iso(self.created_at + timedelta(minutes=1))


def source(name: str, *, item_id: str | None = None, post_id: str | None = None) -> dict[str, Any]:
    return {"itemId": item_id, "postId": post_id, "name": name, "r2Key": None, "where": ""}


def seed(
    dynamodb: Any, workspace_id: str, agent_id: str, turns: list[SeedTurn], *, stored: bool,
    retention_days: int | None = None, receipts: bool = True,
    write: Callable[[list[dict[str, Any]]], None] | None = None,
) -> None:  # fmt: skip
    """Everything ``turns`` leave in the main table: with ``stored`` (the workspace stores conversations) also their
    question items, unanswered rows and the prompt and reply beside receipts and ratings. Written with
    BatchWriteItem, or by ``write`` (the bench's 10^5 turns go straight into moto's tables)."""
    items: list[dict[str, Any]] = []
    shards: dict[tuple[str, int], dict[str, Any]] = {}
    seen: set[tuple[str, str, str]] = set()  # (day, "visitor"|"thread", who): counted once a day
    questions: dict[tuple[str, str], dict[str, Any]] = {}
    per_day: dict[str, int] = {}
    for turn in turns:
        index = per_day[turn.day] = per_day.get(turn.day, -1) + 1
        shard = shards.setdefault(
            (turn.day, index % keys.INSIGHTS_SHARDS),
            keys.insights_day(agent_id, turn.day, index % keys.INSIGHTS_SHARDS)
            | dict.fromkeys(COUNTERS, 0) | {"expiresAt": day_counted_until(turn.day)},
        )  # fmt: skip
        shard["turns"] += 1
        for kind, who in (("visitors", turn.client), ("threads", f"{turn.client}#{turn.thread}")):
            if (turn.day, kind, who) not in seen:
                seen.add((turn.day, kind, who))
                shard[kind] += 1
        shard["unanswered"] += turn.unanswered
        if turn.rating:
            shard[turn.rating] += 1
        for used in turn.sources:
            named = source_key(used)
            shard[SOURCE_COUNT + named] = shard.get(SOURCE_COUNT + named, 0) + 1
            shard[SOURCE_NAME + named] = used["name"]
        kept = {"prompt": turn.prompt, "reply": turn.reply} if stored else {}
        if receipts:
            items.append(keys.turn_receipt(agent_id, turn.turn_id) | {
                "workspaceId": workspace_id, "agentId": agent_id, "turnId": turn.turn_id, "threadKey": turn.thread,
                "client": turn.client, "createdAt": turn.at, "day": turn.day, "unanswered": turn.unanswered,
                "sources": turn.sources, "expiresAt": receipt_expires_at(turn.at, retention_days), **kept,
            } | ({"rating": turn.rating, "ratedAt": turn.rated_at} if turn.rating else {})
              | ({"comment": turn.comment} if turn.rating and turn.comment else {}))  # fmt: skip
        if turn.rating:
            row: dict[str, Any] = {"turnId": turn.turn_id, "threadKey": turn.thread, "client": turn.client,
                                   "rating": turn.rating, "sources": turn.sources, "createdAt": turn.rated_at,
                                   **kept}  # fmt: skip
            row |= {"comment": turn.comment} if turn.comment else {}
            expiry = expires_at(turn.rated_at, retention_days) if stored else None
            row |= {"expiresAt": expiry} if expiry is not None else {}
            feedback_keys = keys.feedback_rows(agent_id, turn.rated_at, turn.turn_id, turn.rating, turn.client)
            items += [feedback_keys[0] | row, feedback_keys[1] | row,
                      feedback_keys[2] | {"rating": turn.rating, "turnId": turn.turn_id}]  # fmt: skip
        if not stored:
            continue
        expiry = expires_at(turn.at, retention_days)
        if turn.unanswered:
            items.append(keys.unanswered(agent_id, turn.at, turn.turn_id) | {
                "turnId": turn.turn_id, "threadKey": turn.thread, "client": turn.client, "prompt": turn.prompt,
                "createdAt": turn.at} | ({"expiresAt": expiry} if expiry is not None else {}))  # fmt: skip
        asked = question_key(turn.prompt)
        found = questions.setdefault((turn.day, asked), keys.question(agent_id, turn.day, asked) | {
            "gsi2pk": keys.questions_index(agent_id, turn.day), "gsi2sk": 0, "lastAt": ""})  # fmt: skip
        found["gsi2sk"] += 1
        if turn.at >= found["lastAt"]:
            limit = day_counted_until(turn.day)
            found |= {"question": turn.prompt, "client": turn.client, "turnId": turn.turn_id, "lastAt": turn.at,
                      "answered": not turn.unanswered, "expiresAt": min(expiry or limit, limit)}  # fmt: skip
    items += list(shards.values()) + list(questions.values())
    if write is not None:
        write(items)
    else:
        batch_put(dynamodb, get_settings().main_table, items)


@dataclass
class ItemsRead(Recorder):
    """``Recorder`` and the items each Query and BatchGetItem returned (every table, every page)."""

    items: int = 0

    def _after(self, model: Any, parsed: dict[str, Any], **more: Any) -> None:
        super()._after(model=model, parsed=parsed, **more)
        if not self.recording:
            return
        if model.name == "Query":
            self.items += int(parsed.get("ScannedCount", parsed.get("Count", 0)))
        elif model.name == "BatchGetItem":
            self.items += sum(len(found) for found in parsed.get("Responses", {}).values())

    @contextmanager
    def record(self) -> Iterator[Recorder]:
        self.items = 0
        with super().record() as recording:
            yield recording
