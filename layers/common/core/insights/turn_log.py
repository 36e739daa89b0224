"""What a delivered chat turn leaves for its owner, written once after ``done`` in one transaction.

Every delivered turn: its receipt (``main_table.turn_receipt``, 8 days: what a rating checks) and one shard of its
day's counters (``main_table.insights_day``: turns, the day's new visitors and threads, unanswered turns, each
source used). When the workspace stores conversations, also: the day's item of its question (counted by
``gsi2sk``), its unanswered row when it was one, and the stored turn with its thread's item
(``ConversationStore.stage``), so the stored turn and its counts are all written or none.

Distinct visitors and threads cost no read: the visitor's rate-limit write counts the day's turns of the visitor
and of the thread (``RateStatus.usage``), so the turn knows whether it was the first (docs/decisions.md, "Insights
counted by the turn (issue 40)").
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from core.insights.questions import question_key
from core.insights.records import (
    SOURCE_COUNT,
    SOURCE_NAME,
    QuestionRecord,
    ReceiptRecord,
    UnansweredRecord,
    source_key,
)
from core.platform import main_table as keys
from core.platform.retention import INSIGHTS_DAYS, RECEIPT_DAYS, day_of, expires_at
from core.platform.transactions import Transaction

_shard = random.SystemRandom().randrange  # os.urandom: restored SnapStart copies never pick the same shards


@dataclass(frozen=True)
class DeliveredTurn:
    """A turn some text of which reached the visitor (it was billed), as the log needs it."""

    workspace_id: str
    agent_id: str
    turn_id: str
    thread_key: str
    client: str
    key_id: str | None
    created_at: str
    prompt: str
    reply: str
    credits: int  # what the turn was charged (its hold, settled): ``conversation.turn.completed`` says it
    sources: list[dict[str, Any]] = field(default_factory=list)
    unanswered: bool = False
    first_visit: bool = False  # the visitor's first counted turn of the day (``RateStatus.usage``)
    first_in_thread: bool = False  # the thread's first counted turn of the day (or a thread the turn started)
    stored: bool = False  # the workspace stores conversations: prompt and reply are kept
    retention_days: int | None = None


def is_unanswered(passages_found: bool, fallback: str, reply: str) -> bool:
    """No passage matched the message, or the reply is the owner's fallback: the offline model says it word for
    word, alone (knowledgeOnly) or after a sentence saying so; a real model is told to say it as it is."""
    if not passages_found:
        return True
    said, wanted = " ".join(reply.casefold().split()), " ".join(fallback.casefold().split())
    return bool(wanted) and (said.startswith(wanted) or said.endswith(wanted))


def day_expiry(day: str, days: int) -> int:
    """Epoch seconds of the start of ``day`` + ``days``."""
    end = date.fromisoformat(day) + timedelta(days=days)
    return int(datetime(end.year, end.month, end.day, tzinfo=UTC).timestamp())


def _sooner(first: int, second: int | None) -> int:
    return first if second is None else min(first, second)


class TurnLog:
    def __init__(self, table: str):
        self._table = table

    def actions(self, turn: DeliveredTurn, tx: Transaction | None = None) -> Transaction:
        """The turn's writes (added to ``tx`` when given: the stored turn's own)."""
        tx = tx if tx is not None else Transaction(self._table)
        day = day_of(turn.created_at)
        kept = expires_at(turn.created_at, turn.retention_days) if turn.stored else None
        receipt = ReceiptRecord(
            workspace_id=turn.workspace_id, agent_id=turn.agent_id, turn_id=turn.turn_id, thread_key=turn.thread_key,
            client=turn.client, key_id=turn.key_id, created_at=turn.created_at, day=day, unanswered=turn.unanswered,
            credits=turn.credits, sources=turn.sources, prompt=turn.prompt if turn.stored else None,
            reply=turn.reply if turn.stored else None,
            expires_at=_sooner(int(datetime.fromisoformat(turn.created_at).timestamp()) + RECEIPT_DAYS * 86_400, kept),
        )  # fmt: skip
        tx.put(keys.turn_receipt(turn.agent_id, turn.turn_id) | receipt.attributes())
        self._count(tx, turn, day)
        if turn.stored:
            self._question(tx, turn, day, kept)
            if turn.unanswered:
                row = UnansweredRecord(
                    turn_id=turn.turn_id, thread_key=turn.thread_key, client=turn.client, prompt=turn.prompt,
                    created_at=turn.created_at, expires_at=kept,
                )  # fmt: skip
                tx.put(keys.unanswered(turn.agent_id, turn.created_at, turn.turn_id) | row.attributes())
        return tx

    @staticmethod
    def _count(tx: Transaction, turn: DeliveredTurn, day: str) -> None:
        """ADD to a random shard of the day (no one item takes every turn of a busy agent)."""
        adds = {"turns": 1, "visitors": int(turn.first_visit), "threads": int(turn.first_in_thread),
                "unanswered": int(turn.unanswered)}  # fmt: skip
        names: dict[str, str] = {}
        values: dict[str, Any] = {":one": 1, ":exp": day_expiry(day, INSIGHTS_DAYS)}
        added = [f"{counter} :one" for counter, n in adds.items() if n]
        sets = ["expiresAt = :exp"]
        seen: set[str] = set()
        for source in turn.sources:
            key = source_key(source)
            if key in seen:
                continue
            seen.add(key)
            i = len(seen) - 1
            names |= {f"#s{i}": SOURCE_COUNT + key, f"#n{i}": SOURCE_NAME + key}
            values[f":n{i}"] = source.get("name") or ""
            added.append(f"#s{i} :one")
            sets.append(f"#n{i} = :n{i}")
        tx.update(
            keys.insights_day(turn.agent_id, day, _shard(keys.INSIGHTS_SHARDS)),
            "ADD " + ", ".join(added) + " SET " + ", ".join(sets), values=values, names=names or None,
        )  # fmt: skip

    @staticmethod
    def _question(tx: Transaction, turn: DeliveredTurn, day: str, kept: int | None) -> None:
        """One more asking of the question today; the item keeps the latest asking's text, asker and outcome."""
        latest = QuestionRecord(
            question=turn.prompt, client=turn.client, turn_id=turn.turn_id, last_at=turn.created_at,
            answered=not turn.unanswered, expires_at=_sooner(day_expiry(day, INSIGHTS_DAYS), kept),
        ).attributes()  # fmt: skip
        names = {f"#a{i}": name for i, name in enumerate(latest)}
        values: dict[str, Any] = {f":a{i}": value for i, value in enumerate(latest.values())}
        values |= {":gpk": keys.questions_index(turn.agent_id, day), ":one": 1}
        sets = [f"#a{i} = :a{i}" for i in range(len(latest))]
        tx.update(
            keys.question(turn.agent_id, day, question_key(turn.prompt)),
            "SET " + ", ".join([*sets, "gsi2pk = :gpk"]) + " ADD gsi2sk :one", values=values, names=names,
        )  # fmt: skip
