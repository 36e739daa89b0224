"""Stored conversations for the tests: turns stored through the chat's own store (``ConversationStore.save``, the
code a chat turn runs), at chosen times, so listings, pages and retention can be checked to the millisecond."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from core.chat.conversation_store import ConversationStore
from core.platform import main_table as keys
from core.platform.dynamo import query_all, to_item
from core.platform.ids import iso, new_id
from core.platform.settings import get_settings

VISITOR = "visitor-aaaaaaaaaaaa01"
OTHER_VISITOR = "visitor-bbbbbbbbbbbb02"


def days_ago(days: float, *, at: datetime | None = None) -> str:
    return iso((at or datetime.now(UTC)) - timedelta(days=days))


def store_turn(
    dynamodb: Any, workspace_id: str, agent_id: str, thread: str, created_at: str, *, client: str = VISITOR,
    prompt: str = "Do you have a rain jacket?", reply: str = "Yes, the waxed one.", credits: int = 1,
    retention_days: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """One turn, as the chat stores it (its turn id minted at its time, so a thread's turns sort by time)."""
    at_ms = int(datetime.fromisoformat(created_at).timestamp() * 1000)
    turn = {"turnId": new_id("turn", at_ms), "threadKey": thread, "agentId": agent_id, "client": client,
            "section": None, "prompt": prompt, "reply": reply, "usage": None, "complete": True, "credits": credits,
            "createdAt": created_at}  # fmt: skip
    ConversationStore(dynamodb, get_settings().main_table).save(workspace_id, turn, retention_days)
    return turn


def partition(dynamodb: Any, agent_id: str) -> dict[str, dict[str, Any]]:
    """Everything stored in the agent's conversations partition, by sort key."""
    rows = query_all(dynamodb, {
        "TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": to_item({":pk": keys.conversations_partition(agent_id)}),
    })  # fmt: skip
    return {row["sk"]: row for row in rows}


def is_turn(sk: str) -> bool:
    return "#TURN#" in sk
