"""The answers' wire model (authoring.md, "The owner's answers")."""

from __future__ import annotations

from pydantic import Field

from core.platform.models import ApiModel


class Answer(ApiModel):
    """The owner's answer to a question: part of the agent's knowledge, the best passage for a message close to its
    question, named in the chat's ``sources`` (``answerId``, ``name`` = its question)."""

    id: str
    question: str = Field(description="the question it answers (1-500 characters)")
    answer: str = Field(description="the owner's answer (1-4,000 characters)")
    created_at: str
    updated_at: str
