"""Chat replies as they stream: NDJSON lines → ``ChatEvent``s, for the sync and the async client.

Each line is validated against the OpenAPI document's event union (``ChatEvent`` of
``models_brain``: start, delta, keepalive, done, error). The client hands out ``ChatEvent``, a view
that gives every event a ``text`` (empty unless it is a delta) and carries what the turn has said so
far: the ``turn_id`` and ``thread_key`` from ``start``, and on the final ``done`` event the ``usage``
with the credits charged. An ``error`` event raises ``ChatStreamError``; a stream that ends without
``done`` raises ``IncompleteStreamError`` (the connection was cut: the turn may still be billed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from ._generated.models_brain import ChatDoneEvent, ChatErrorEvent, ChatStartEvent, ChatUsage
from ._generated.models_brain import ChatEvent as WireEvent
from ._operation import adapter
from .errors import ChatStreamError, IncompleteStreamError


@dataclass(frozen=True)
class ChatEvent:
    """One event of a turn. ``type``: ``start``, ``delta``, ``keepalive`` or ``done``; ``wire``: the line as sent."""

    type: str
    text: str
    turn_id: str | None
    thread_key: str | None
    usage: ChatUsage | None
    wire: WireEvent

    @property
    def final(self) -> bool:
        return self.type == "done"

    @property
    def credits(self) -> int | None:
        """Credits charged for the turn (on the final event; 0 when no text was streamed)."""
        return None if self.usage is None else self.usage.credits


class ChatDecoder:
    """Turns NDJSON lines into ``ChatEvent``s, remembering the turn's ids for the events that follow."""

    def __init__(self) -> None:
        self.turn_id: str | None = None
        self.thread_key: str | None = None
        self.finished = False

    def decode(self, line: str) -> ChatEvent | None:
        if not line.strip():
            return None
        wire = adapter(WireEvent).validate_json(line)
        if isinstance(wire, ChatStartEvent):
            self.turn_id, self.thread_key = wire.turn_id, wire.thread_key
        if isinstance(wire, ChatErrorEvent):
            self.finished = True
            raise ChatStreamError(wire.code, wire.message, self.turn_id)
        usage = wire.usage if isinstance(wire, ChatDoneEvent) else None
        self.finished = usage is not None
        return ChatEvent(wire.type, getattr(wire, "text", ""), self.turn_id, self.thread_key, usage, wire)

    def end(self) -> None:
        if not self.finished:
            raise IncompleteStreamError(f"the chat stream of turn {self.turn_id} ended before its final event")


def events(lines: Iterator[str]) -> Iterator[ChatEvent]:
    decoder = ChatDecoder()
    for line in lines:
        if (event := decoder.decode(line)) is not None:
            yield event
        if decoder.finished:  # after the final event nothing more is read
            return
    decoder.end()


async def async_events(lines: AsyncIterator[str]) -> AsyncIterator[ChatEvent]:
    decoder = ChatDecoder()
    async for line in lines:
        if (event := decoder.decode(line)) is not None:
            yield event
        if decoder.finished:  # after the final event nothing more is read
            return
    decoder.end()
