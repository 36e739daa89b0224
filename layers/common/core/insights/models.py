"""The owner's reads of what visitors said back (authoring.md, "Feedback, unanswered questions and the owner's
answers"): an agent's insights per UTC day, its ratings and its unanswered questions, newest first. Management plane
only: the chat never loads this module."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from core.platform.fields import QueryInt
from core.platform.models import ApiModel
from core.platform.write_fields import ListQuery

TOP = 20  # topQuestions and topSources hold at most this many


class InsightsQuery(ListQuery):
    days: QueryInt = Field(30, ge=1, le=90)


class InsightsDay(ApiModel):
    date: str = Field(description="the UTC day, YYYY-MM-DD")
    turns: int = Field(description="turns delivered")
    threads: int = Field(description="distinct threads with a turn that day")
    visitors: int = Field(description="distinct visitors (the chat's `client`) with a turn that day")
    up: int = Field(description="thumbs up on that day's turns")
    down: int = Field(description="thumbs down on that day's turns")
    unanswered: int = Field(description="turns no passage matched, or whose reply was the fallback")


class TopQuestion(ApiModel):
    question: str = Field(description="the latest asking's words")
    count: int = Field(description="how often it was asked over the days read")
    answered: bool = Field(description="whether its latest asking was answered")
    last_at: str


class TopSource(ApiModel):
    """A source the replies drew on: an item, a post, an owner's answer, or the agent's site (no id)."""

    item_id: str | None
    post_id: str | None
    answer_id: str | None
    name: str
    count: int = Field(description="turns that used it over the days read")


class InsightsPage(ApiModel):
    days: list[InsightsDay]
    top_questions: list[TopQuestion] = Field(description="at most 20, most asked first; [] unless conversations "
                                             "are stored")  # fmt: skip
    top_sources: list[TopSource] = Field(description="at most 20, most used first")


class FeedbackQuery(ListQuery):
    rating: Literal["up", "down"] | None = Field(None, description="only the thumbs up, or only the thumbs down")
    limit: QueryInt = Field(20, ge=1, le=100)
    cursor: str | None = Field(None, min_length=1, max_length=1024)


class FeedbackSource(ApiModel):
    """A source of the rated reply, as the chat's ``sources`` event named it."""

    item_id: str | None = None
    post_id: str | None = None
    answer_id: str | None = None
    name: str
    r2_key: str | None = None
    where: str = ""


class Feedback(ApiModel):
    turn_id: str
    thread_key: str
    client: str
    rating: Literal["up", "down"]
    comment: str | None
    prompt: str | None = Field(description="the visitor's message, when the workspace stores conversations")
    reply: str | None = Field(description="the agent's reply, when the workspace stores conversations")
    sources: list[FeedbackSource]
    created_at: str = Field(description="when the rating was made")


class FeedbackPage(ApiModel):
    feedback: list[Feedback]
    next_cursor: str | None


class UnansweredQuery(ListQuery):
    limit: QueryInt = Field(20, ge=1, le=100)
    cursor: str | None = Field(None, min_length=1, max_length=1024)


class UnansweredQuestion(ApiModel):
    turn_id: str
    thread_key: str
    client: str
    prompt: str
    created_at: str


class UnansweredPage(ApiModel):
    questions: list[UnansweredQuestion] = Field(description="newest first; [] unless conversations are stored")
    next_cursor: str | None
