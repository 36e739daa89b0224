"""What a visitor leaves besides their stored turns (issue 40), seeded in the documented layout (docs/data-model.md,
"Feedback, insights and answers"; ``core.platform.main_table``): a turn's receipt, its unanswered row, its day's
question item and a rating's three feedback rows, with the TTLs the writers give them. The privacy tests (erasure,
retention, purge) seed through here what they need exactly; others go through real chat turns and ratings.
"""

from __future__ import annotations

from typing import Any

from core.insights.questions import question_key
from core.platform import main_table as keys
from core.platform.dynamo import query_all, to_item
from core.platform.retention import day_of, expires_at, question_expires_at, receipt_expires_at
from core.platform.settings import get_settings

# The partitions a visitor's trail is in, besides the conversations partition (``main_table``).
TRAIL = {
    "receipts": keys.turns_partition,
    "insights": keys.insights_partition,
    "questions": keys.questions_partition,
    "unanswered": keys.unanswered_partition,
    "feedback": keys.feedback_partition,
}


def _put(dynamodb: Any, item: dict[str, Any]) -> None:
    present = {name: value for name, value in item.items() if value is not None}
    dynamodb.put_item(TableName=get_settings().main_table, Item=to_item(present))


def receipt(
    dynamodb: Any, workspace_id: str, turn: dict[str, Any], *, stored: bool = True, retention_days: int | None = None,
    unanswered: bool = False, sources: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The receipt of ``turn`` (as ``tests.support.conversations.store_turn`` returns it)."""
    at = turn["createdAt"]
    item = keys.turn_receipt(turn["agentId"], turn["turnId"]) | {
        "workspaceId": workspace_id, "agentId": turn["agentId"], "turnId": turn["turnId"],
        "threadKey": turn["threadKey"], "client": turn["client"], "keyId": "key_seed", "createdAt": at,
        "day": day_of(at), "unanswered": unanswered, "sources": sources or [],
        "prompt": turn["prompt"] if stored else None, "reply": turn["reply"] if stored else None,
        "expiresAt": receipt_expires_at(at, retention_days if stored else None),
    }  # fmt: skip
    _put(dynamodb, item)
    return item


def unanswered_row(dynamodb: Any, turn: dict[str, Any], *, retention_days: int | None = None) -> dict[str, Any]:
    at = turn["createdAt"]
    item = keys.unanswered(turn["agentId"], at, turn["turnId"]) | {
        "turnId": turn["turnId"], "threadKey": turn["threadKey"], "client": turn["client"], "prompt": turn["prompt"],
        "createdAt": at, "expiresAt": expires_at(at, retention_days),
    }  # fmt: skip
    _put(dynamodb, item)
    return item


def asked(
    dynamodb: Any, turn: dict[str, Any], *, retention_days: int | None = None, answered: bool = True
) -> dict[str, Any]:
    """Count ``turn``'s prompt on its day's question item, as its latest asking (the chat's Update)."""
    at, day = turn["createdAt"], day_of(turn["createdAt"])
    key = keys.question(turn["agentId"], day, question_key(turn["prompt"]))
    values = {":pk": keys.questions_index(turn["agentId"], day), ":one": 1, ":q": turn["prompt"],
              ":c": turn["client"], ":t": turn["turnId"], ":at": at, ":a": answered,
              ":x": question_expires_at(day, at, retention_days)}  # fmt: skip
    found = dynamodb.update_item(
        TableName=get_settings().main_table, Key=to_item(key), ReturnValues="ALL_NEW",
        UpdateExpression="SET gsi2pk = :pk, #q = :q, #c = :c, turnId = :t, lastAt = :at, answered = :a, "
        "expiresAt = :x ADD gsi2sk :one",
        ExpressionAttributeNames={"#q": "question", "#c": "client"}, ExpressionAttributeValues=to_item(values),
    )  # fmt: skip
    return key | {"count": int(found["Attributes"]["gsi2sk"]["N"])}


def rate(
    dynamodb: Any, turn: dict[str, Any], rating: str, rated_at: str, *, comment: str | None = None,
    stored: bool = True, retention_days: int | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """A rating of ``turn``: the receipt's attributes and the three feedback rows (a first rating: none before)."""
    table = get_settings().main_table
    dynamodb.update_item(
        TableName=table, Key=to_item(keys.turn_receipt(turn["agentId"], turn["turnId"])),
        UpdateExpression="SET rating = :r, #c = :c, ratedAt = :at", ExpressionAttributeNames={"#c": "comment"},
        ExpressionAttributeValues=to_item({":r": rating, ":c": comment, ":at": rated_at}),
    )  # fmt: skip
    row = {"turnId": turn["turnId"], "threadKey": turn["threadKey"], "client": turn["client"], "rating": rating,
           "comment": comment, "sources": [], "createdAt": rated_at,
           "prompt": turn["prompt"] if stored else None, "reply": turn["reply"] if stored else None,
           "expiresAt": expires_at(rated_at, retention_days) if stored else None}  # fmt: skip
    rows = keys.feedback_rows(turn["agentId"], rated_at, turn["turnId"], rating, turn["client"])
    for key in rows[:2]:
        _put(dynamodb, key | row)
    _put(dynamodb, rows[2] | {"rating": rating})  # the visitor's row: what an erasure finds the others by
    return rows


def everything(
    dynamodb: Any, workspace_id: str, turn: dict[str, Any], *, rating: str = "down", rated_at: str | None = None,
    retention_days: int | None = None,
) -> None:  # fmt: skip
    """A stored, unanswered, rated turn's whole trail: receipt, unanswered row, question item, feedback rows."""
    receipt(dynamodb, workspace_id, turn, unanswered=True, retention_days=retention_days)
    unanswered_row(dynamodb, turn, retention_days=retention_days)
    asked(dynamodb, turn, retention_days=retention_days, answered=False)
    rate(dynamodb, turn, rating, rated_at or turn["createdAt"], comment="It was wrong", retention_days=retention_days)


def trail(dynamodb: Any, agent_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Everything in the agent's receipts, insights, questions, unanswered and feedback partitions, by sort key."""
    table = get_settings().main_table
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for name, partition in TRAIL.items():
        rows = query_all(dynamodb, {"TableName": table, "KeyConditionExpression": "pk = :pk",
                                    "ExpressionAttributeValues": to_item({":pk": partition(agent_id)})})  # fmt: skip
        found[name] = {row["sk"]: row for row in rows}
    return found


def day_shard(dynamodb: Any, agent_id: str, day: str, **counts: int) -> None:
    """A shard of a day's counters (only so that a purge has one to drain)."""
    _put(dynamodb, keys.insights_day(agent_id, day, 0) | counts | {"expiresAt": 0})
