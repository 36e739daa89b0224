"""What the answers' routes read: an agent's answers a page at a time (newest first), one answer, and a turn's
receipt (``main_table.turn_receipt``, written by the chat after each delivered turn), whose prompt a ``fromTurn``
answer takes as its question."""

from __future__ import annotations

from typing import Any

from core.answers.records import AnswerRecord, TurnPrompt
from core.platform import main_table as keys
from core.platform.dynamo import get_item, query_all, to_item


class AnswerReadStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get(self, agent_id: str, answer_id: str) -> AnswerRecord | None:
        found = get_item(self._db, self._table, keys.answer(agent_id, answer_id), consistent=True)
        return AnswerRecord.model_validate(found) if found else None

    def newest(self, agent_id: str, limit: int, after: str | None) -> list[AnswerRecord]:
        """The newest ``limit`` answers (ids are ULIDs: the sort key orders them by creation), or the newest older
        than the answer whose sort key is ``after``."""
        partition = keys.answers_partition(agent_id)
        request: dict[str, Any] = {
            "TableName": self._table, "ConsistentRead": True, "ScanIndexForward": False, "Limit": limit,
            "KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": to_item({":pk": partition}),
        }  # fmt: skip
        if after is not None:
            request["ExclusiveStartKey"] = to_item({"pk": partition, "sk": after})
        return [AnswerRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def receipt(self, agent_id: str, turn_id: str) -> TurnPrompt | None:
        found = get_item(self._db, self._table, keys.turn_receipt(agent_id, turn_id), consistent=True)
        return TurnPrompt.model_validate(found) if found else None
