"""The answers' storage records (docs/data-model.md, ``main_table.answer``), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record

MAX_ANSWERS = 1000  # an agent's answers at most: the knowledge worker reads them all in one Query of this Limit
MAX_QUESTION = 500
MAX_ANSWER = 4000  # one passage, which fits the turn's budget of passage text (core.knowledge.retrieval)


class AnswerRecord(Record):
    id: str
    agent_id: str
    question: str
    answer: str
    created_at: str
    updated_at: str
    version: int = 0


class TurnPrompt(Record):
    """What ``fromTurn`` reads of a turn's receipt (``main_table.turn_receipt``, written by the chat after ``done``;
    ``core.insights.records.ReceiptRecord`` is the whole of it): read here field by field, so answers do not depend on
    the insights, which depend on knowledge, which reads answers."""

    workspace_id: str
    created_at: str
    prompt: str | None = None  # kept only when the workspace stores conversations
