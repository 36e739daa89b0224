"""The interface between the chat service and a language model.

The chat service builds a ``ModelRequest`` from an agent's published data and the
visitor's message and iterates ``ChatModel.stream``. Implementations: Bedrock
ConverseStream in AWS (``core.chat.bedrock``), an OpenAI-compatible chat-completions
server (``core.chat.openai_compat``) and an offline model for local runs and tests
(``core.chat.offline``); which one an agent uses is its model's ``provider``
(``core.platform.model_catalogue``, ``core.chat.providers.model``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from math import ceil
from typing import ClassVar, Literal, Protocol

from core.knowledge.index import Passage


@dataclass(frozen=True)
class Message:
    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True)
class ContextItem:
    name: str
    kind: str
    folder: str


@dataclass(frozen=True)
class ContextPost:
    title: str | None
    caption: str | None
    category: str | None
    kind: str
    created_at: str


@dataclass(frozen=True)
class AgentContext:
    agent_name: str
    brand_name: str
    items: tuple[ContextItem, ...]
    posts: tuple[ContextPost, ...]
    section: str | None  # the page/section id the visitor is on (may be unknown to the site)
    section_text: str | None  # that section's published content, flattened to text, if found
    # The owner's documents, posts and site passages that best match the turn, best first (core.knowledge).
    passages: tuple[Passage, ...] = ()


@dataclass(frozen=True)
class ModelRequest:
    system: str
    messages: tuple[Message, ...]
    context: AgentContext
    max_tokens: int  # the agent's maxReplyTokens: the reply stops there, and its usage never counts more
    temperature: float = 0.3
    # The agent's behaviour as the offline model needs it (a real model reads both in ``system``): the owner's
    # words for "the material has no answer" ("" for the service's own), and whether it may go beyond the material.
    fallback: str = ""
    knowledge_only: bool = True


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class Usage:
    input_tokens: int
    output_tokens: int


class ModelError(Exception):
    """A model failure. ``message`` is shown to the visitor as is, so it never names internals."""

    MESSAGES: ClassVar[dict[str, str]] = {
        "MODEL_UNAVAILABLE": "The assistant is unavailable right now. Please try again in a moment.",
        "MODEL_BUSY": "The assistant is busy right now. Please try again in a moment.",
        "MODEL_REFUSED": "Sorry, the assistant can't help with that request.",
        "MODEL_TIMEOUT": "The reply took too long and was stopped. Please try again.",
    }

    def __init__(self, code: str, message: str | None = None) -> None:
        self.code = code
        self.message = message or self.MESSAGES.get(code, self.MESSAGES["MODEL_UNAVAILABLE"])
        super().__init__(self.message)


class ChatModel(Protocol):
    def stream(self, request: ModelRequest) -> Iterator[TextDelta | Usage]:
        """TextDelta events as text is produced, then exactly one Usage; ModelError on any failure.

        The caller may stop iterating early: closing the generator releases its resources.
        """
        ...


def estimate_tokens(chars: int) -> int:
    """Tokens for so many characters, for a backend that reports none: about four characters each."""
    return ceil(chars / 4)


def request_chars(request: ModelRequest) -> int:
    """How much the model reads, for estimating input tokens."""
    return len(request.system) + sum(len(message.text) for message in request.messages)
