"""The preview's wire models (authoring.md, "Trying an agent before visitors do"): the chat's body without
``client`` (nor ``threadKey`` or ``brandSlug``: a preview resumes no thread and speaks with the agent's own brand),
with an optional ``behaviour`` validated as the agent's PATCH validates it, and the one event it adds."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from core.agents.writer_models import BehaviourPatch
from core.chat.models import ChatEvent, HistoryEntry
from core.knowledge.index import Passage
from core.knowledge.models import RetrievedPassage
from core.platform.fields import Prompt
from core.platform.models import ApiModel, RequestModel

MAX_HISTORY_CHARS = 32_000  # as the chat's (core.chat.models.ChatRequest)


class PreviewRequest(RequestModel):
    model_config = RequestModel.model_config | {"str_strip_whitespace": False}

    prompt: Prompt
    history: list[HistoryEntry] = Field(default_factory=list, max_length=50)
    section: str | None = Field(None, max_length=128)
    behaviour: BehaviourPatch | None = Field(
        None, description="overrides the agent's saved behaviour for this turn only: a field sent replaces the saved "
        "one, a field sent as null takes its default; nothing is saved"
    )  # fmt: skip

    @field_validator("prompt", mode="before")
    @classmethod
    def _trim_prompt(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("history")
    @classmethod
    def _history_budget(cls, value: list[HistoryEntry]) -> list[HistoryEntry]:
        if sum(len(entry.content) for entry in value) > MAX_HISTORY_CHARS:
            raise ValueError(f"at most {MAX_HISTORY_CHARS} characters in all")
        return value


class ConsideredPassage(RetrievedPassage):
    used: bool = Field(description="true: put before the model for this turn; false: ranked, but passed over (the "
                                   "turn's passages or its budget of characters were full)")  # fmt: skip

    @classmethod
    def considered(cls, passage: Passage, used: bool) -> ConsideredPassage:
        return cls.model_validate(RetrievedPassage.of(passage).model_dump() | {"used": used})


class ChatRetrievalEvent(ApiModel):
    """The preview's line after ``start``: every passage the turn's retrieval considered, best first, with its score
    and source (those it used, and the best of the rest)."""

    type: Literal["retrieval"]
    passages: list[ConsideredPassage]


PreviewEvent = ChatEvent | ChatRetrievalEvent
