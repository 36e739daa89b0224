"""The answers' writer (authoring.md, "The owner's answers"): request bodies and the listing's query (strict: unknown
fields refused, ``null`` is absent), and the envelopes an owner reads back."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.answers.models import Answer
from core.answers.records import MAX_ANSWER, MAX_QUESTION
from core.platform.fields import QueryInt
from core.platform.models import ApiModel, RequestModel
from core.platform.write_fields import ListQuery, free_text_rules

Question = Annotated[str, *free_text_rules(MAX_QUESTION, min_length=1)]
AnswerText = Annotated[str, *free_text_rules(MAX_ANSWER, min_length=1)]
# A turn id as the chat's ``start`` event gives it (``turn_<ulid>``): checked only for its size and alphabet, so an
# unknown or another agent's turn is the same 404 as one that never was.
TurnId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class AnswerEnvelope(ApiModel):
    answer: Answer


class AnswerPage(ApiModel):
    answers: list[Answer]
    next_cursor: str | None


class AnswerCreate(RequestModel):
    """``{question, answer}``, or ``{fromTurn, answer}``: the question is then the prompt of that turn of the agent
    (a turn of the last 8 days, of a workspace that stores conversations: its receipt keeps the prompt)."""

    question: Question | None = None
    from_turn: TurnId | None = Field(
        None, description="a turn of this agent (the chat's start event's turnId): its prompt is the question; "
        "instead of question"
    )  # fmt: skip
    answer: AnswerText


class AnswerUpdate(RequestModel):
    question: Question | None = None
    answer: AnswerText | None = None


class AnswerQuery(ListQuery):
    limit: QueryInt = Field(20, ge=1, le=100)
    cursor: str | None = Field(None, min_length=1, max_length=512)
