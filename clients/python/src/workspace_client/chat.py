"""Chat replies as they stream: NDJSON lines → ``ChatEvent``s, for the sync and the async client.

Each line is validated against the OpenAPI document's event union (``ChatEvent`` of
``models_brain``: start, delta, keepalive, done, error). The client hands out ``ChatEvent``, a view
that gives every event a ``text`` (empty unless it is a delta) and carries what the turn has said so
far: the ``turn_id`` and ``thread_key`` from ``start``, the ``sources`` of the reply (the ``sources``
event, sent just before ``done``) and on the final ``done`` event the ``usage`` with the credits charged.
After ``done`` the rest of the stream is read to its end (nothing more is yielded): the service records the turn
(what a rating needs, ``Brain.feedback``) before it ends the stream, so a loop that ran to its end can rate the
reply at once.
A preview (``Portal.preview``) also sends a ``retrieval`` event after ``start``: every passage the turn
considered, with its score and source, kept on the events that follow as ``passages``.
An ``error`` event raises ``ChatStreamError``; a stream that ends without ``done`` raises
``IncompleteStreamError`` (the connection was cut: the turn may still be billed). An event of a type
this client does not know is skipped, and fields it does not know are kept on ``wire`` (a newer service
keeps working with an older client).
"""

from __future__ import annotations

import typing
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from ._generated.models_brain import ChatDoneEvent, ChatErrorEvent, ChatStartEvent, ChatUsage
from ._generated.models_brain import ChatEvent as WireEvent
from ._generated.models_portal import ChatRetrievalEvent, ConsideredPassage
from ._model import ApiModel
from ._operation import adapter
from .errors import ChatStreamError, IncompleteStreamError

SOURCES = "sources"  # the event listing what the reply drew on, just before ``done``
RETRIEVAL = "retrieval"  # a preview's event after ``start``: the passages considered, with their scores
SourceKind = Literal["item", "post", "answer", "section"]


@dataclass(frozen=True)
class Source:
    """What a reply drew on: one of the agent's items, posts, the owner's answers or site sections, most relevant
    first.

    An item has ``item_id`` and ``r2_key`` (its object, workspace-relative: ``brain.download(source.r2_key, …)``
    or a signed media URL), a post ``post_id``, an owner's answer ``answer_id`` (its ``name`` is the answer's
    question), a site section none. ``where`` is the place in it, in words (``page 2``, ``sheet Prices``,
    ``section about``), possibly empty.
    """

    name: str
    where: str = ""
    item_id: str | None = None
    post_id: str | None = None
    r2_key: str | None = None
    answer_id: str | None = None

    @property
    def kind(self) -> SourceKind:
        if self.item_id:
            return "item"
        if self.post_id:
            return "post"
        return "answer" if self.answer_id else "section"

    @classmethod
    def from_wire(cls, entry: Any) -> Source | None:
        """One entry of the event's ``sources`` (fields this client does not know are ignored); None if no object."""
        if not isinstance(entry, Mapping):
            return None

        def text(name: str) -> str | None:
            value = entry.get(name)
            return value if isinstance(value, str) and value else None

        return cls(
            text("name") or "", text("where") or "", text("itemId"), text("postId"), text("r2Key"), text("answerId")
        )


def sources_of(entries: Any) -> tuple[Source, ...]:
    """The ``sources`` of the wire's event, in its order; anything that is not a list of objects is none."""
    if not isinstance(entries, list):
        return ()
    return tuple(source for entry in entries if (source := Source.from_wire(entry)) is not None)


@dataclass(frozen=True)
class ChatEvent:
    """One event of a turn. ``type``: ``start``, ``delta``, ``keepalive``, ``sources`` or ``done``; ``wire``: the
    line as sent. ``sources``: what the reply drew on, from the ``sources`` event on (so on ``done`` too); empty
    before it, when it drew on nothing, and from a service that sends no such event. ``passages``: a preview's
    ``retrieval`` event's passages (best first, each with ``score``, ``used``, ``source``), from that event on."""

    type: str
    text: str
    turn_id: str | None
    thread_key: str | None
    usage: ChatUsage | None
    wire: WireEvent | ApiModel
    sources: tuple[Source, ...] = ()
    passages: tuple[ConsideredPassage, ...] = ()

    @property
    def final(self) -> bool:
        return self.type == "done"

    @property
    def credits(self) -> int | None:
        """Credits charged for the turn (on the final event; 0 when no text was streamed)."""
        return None if self.usage is None else self.usage.credits


@cache
def known_types() -> frozenset[str]:
    """The event types of the OpenAPI document's union (its members' ``type`` literals)."""
    union = typing.get_args(WireEvent)[0]  # Annotated[A | B | …, discriminator]
    members: tuple[type[ApiModel], ...] = typing.get_args(union)
    return frozenset(value for member in members for value in typing.get_args(member.model_fields["type"].annotation))


class ChatDecoder:
    """Turns NDJSON lines into ``ChatEvent``s, remembering the turn's ids and sources for the events that follow.
    ``retrieval``: a preview's stream, whose ``retrieval`` event is read (a visitor's chat never has one)."""

    def __init__(self, *, retrieval: bool = False) -> None:
        self.turn_id: str | None = None
        self.thread_key: str | None = None
        self.sources: tuple[Source, ...] = ()
        self.passages: tuple[ConsideredPassage, ...] = ()
        self.retrieval = retrieval
        self.finished = False

    def decode(self, line: str) -> ChatEvent | None:
        """The event of one line; None for a blank line or an event type this client does not know (skipped)."""
        if not line.strip():
            return None
        raw = adapter(dict[str, Any]).validate_json(line)  # not a JSON object: a ValidationError, as before
        kind = raw.get("type")
        wire: WireEvent | ApiModel
        if kind in known_types():
            wire = adapter(WireEvent).validate_python(raw)
        elif kind == SOURCES:  # a service newer than the generated models: read without them
            wire = ApiModel.model_validate(raw)
        elif kind == RETRIEVAL and self.retrieval:
            retrieval = adapter(ChatRetrievalEvent).validate_python(raw)
            self.passages, wire = tuple(retrieval.passages), retrieval
        else:
            return None
        if kind == SOURCES:
            self.sources = sources_of(raw.get("sources"))
        if isinstance(wire, ChatStartEvent):
            self.turn_id, self.thread_key = wire.turn_id, wire.thread_key
        if isinstance(wire, ChatErrorEvent):
            self.finished = True
            raise ChatStreamError(wire.code, wire.message, self.turn_id)
        usage = wire.usage if isinstance(wire, ChatDoneEvent) else None
        self.finished = usage is not None
        text = getattr(wire, "text", "") if kind == "delta" else ""
        return ChatEvent(str(kind), text, self.turn_id, self.thread_key, usage, wire, self.sources, self.passages)

    def end(self) -> None:
        if not self.finished:
            raise IncompleteStreamError(f"the chat stream of turn {self.turn_id} ended before its final event")


def events(lines: Iterator[str], *, retrieval: bool = False) -> Iterator[ChatEvent]:
    decoder = ChatDecoder(retrieval=retrieval)
    for line in lines:
        if decoder.finished:  # after the final event the rest is read (the turn's record comes before the end)
            continue
        if (event := decoder.decode(line)) is not None:
            yield event
    decoder.end()


async def async_events(lines: AsyncIterator[str], *, retrieval: bool = False) -> AsyncIterator[ChatEvent]:
    decoder = ChatDecoder(retrieval=retrieval)
    async for line in lines:
        if decoder.finished:  # after the final event the rest is read (the turn's record comes before the end)
            continue
        if (event := decoder.decode(line)) is not None:
            yield event
    decoder.end()
