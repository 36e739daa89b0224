"""The read plane (brain): an agent's published data, raw objects (r2) and streamed chat.

    brain = Brain("http://127.0.0.1:3001", key="sk_ws_…")
    feed = brain.get_feed(agent_id, channel="instagram")
    for event in brain.chat(agent_id, "Hello"): print(event.text, end="")
    brain.download(f"projects/{agent_id}/{feed[0].playable}", "video.mp4")

Every JSON operation of the OpenAPI document is a method (``_generated/operations_brain.py``); chat
(NDJSON), r2 (raw bytes) and a turn's feedback (whose ``rating: null`` the generated methods could not send: they
leave out what is None) are here, on the same transport and retry policy.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import Field

from ._generated.models_brain import ChatRequest, HistoryEntry
from ._generated.operations_brain import AsyncBrainOperations, BrainOperations
from ._model import ApiModel
from ._operation import Operation
from ._transport import AsyncTransport, SyncTransport
from .chat import ChatEvent, async_events, events
from .download import WRITE, Progress, Resumable, default_progress
from .errors import IncompleteStreamError
from .objects import DOWNLOAD_OK, ObjectInfo, object_info, r2


def chat_operation(agent_id: str, prompt: str, client: str, **fields: Any) -> Operation:
    history = fields.pop("history", None)
    if history is not None:  # plain strings are the entries' content
        history = [HistoryEntry(content=entry) if isinstance(entry, str) else entry for entry in history]
    body = ChatRequest(prompt=prompt, client=client, history=history, **fields)
    return Operation("POST", "/v1/agent/{agentId}/chat", path={"agentId": agent_id}, body=body)


Rating = Literal["up", "down"] | None


class TurnFeedback(ApiModel):
    """The body of ``POST /v1/agent/{agentId}/turns/{turnId}/feedback``: ``rating`` is always sent (``null``
    withdraws the visitor's rating), ``comment`` only when given."""

    client: str
    rating: Rating = Field(...)
    comment: str | None = None


def feedback_operation(agent_id: str, turn_id: str, *, client: str, rating: Rating, comment: str | None) -> Operation:
    if rating not in ("up", "down", None):
        raise ValueError(f"rating must be 'up', 'down' or None (withdraw), not {rating!r}")
    fields: dict[str, Any] = {"client": client, "rating": rating}
    if comment is not None:
        fields["comment"] = comment
    body = TurnFeedback(**fields)  # rating set even when None: the service reads null as a withdrawal
    # Not retried after an ambiguous failure (a POST without an Idempotency-Key), though sending it twice is harmless:
    # the last rating stands.
    return Operation("POST", "/v1/agent/{agentId}/turns/{turnId}/feedback", path={"agentId": agent_id,
                     "turnId": turn_id}, body=body)  # fmt: skip


def visitor_id() -> str:
    """A ``client`` id for chat (16 to 128 of ``[A-Za-z0-9_-]``); the service allows 20 turns a minute per id."""
    return f"py_{uuid.uuid4().hex}"


class _BrainBase:
    def _init_brain(self, key: str, client_id: str | None) -> None:
        if not key:
            raise ValueError("a workspace key (sk_ws_…) is required")
        self._key = key
        self.client_id = client_id or visitor_id()

    def _bearer_value(self, operation: Operation) -> str | None:
        return self._key


class Brain(_BrainBase, SyncTransport, BrainOperations):
    """Sync read-plane client. ``client_id``: the visitor id chat sends (default: random, per instance)."""

    def __init__(self, base_url: str, *, key: str, client_id: str | None = None, **options: Any):
        super().__init__(base_url, **options)
        self._init_brain(key, client_id)

    def _bearer(self, operation: Operation) -> str | None:
        return self._bearer_value(operation)

    def chat(self, agent_id: str, prompt: str, *, client: str | None = None, **fields: Any) -> Iterator[ChatEvent]:
        """The reply, event by event as the model writes it. ``fields``: thread_key, history, section, brand_slug."""
        response = self._send(chat_operation(agent_id, prompt, client or self.client_id, **fields))
        try:
            yield from events(response.iter_lines())
        except httpx.TransportError as error:
            raise IncompleteStreamError(f"the chat stream was cut: {error!r}") from error
        finally:
            response.close()

    def feedback(
        self, agent_id: str, turn_id: str, *, client: str | None = None, rating: Rating, comment: str | None = None
    ) -> None:
        """Rate a reply as the visitor who got it (``client``: the one the turn was asked with, by default this
        client's ``client_id``): ``"up"``, ``"down"`` or None to withdraw; ``comment`` up to 1,000 characters. Within
        7 days of the turn; else, and for another visitor's or agent's turn, ``NotFoundError``. The last rating
        stands."""
        operation = feedback_operation(agent_id, turn_id, client=client or self.client_id, rating=rating,
                                       comment=comment)  # fmt: skip
        self._call(operation)

    def head(self, path: str) -> ObjectInfo:
        response = self._send(r2("HEAD", path))
        response.close()
        return object_info(response.headers)

    def get_bytes(self, path: str, *, byte_range: str | None = None) -> bytes:
        """The object (or one ``Range``, e.g. ``bytes=0-1023``) in memory: for small objects; see ``download``."""
        operation = r2("GET", path, {"Range": byte_range} if byte_range else None)
        response = self._follow(operation, self._send(operation), operation.headers)
        try:
            return response.read()
        finally:
            response.close()

    def download(self, path: str, target: str | Path, *, progress: Progress | bool | None = None) -> Path:
        """Stream the object to ``target``, resuming a ``<target>.part`` left by an interrupted call; checked."""
        state = Resumable(target, default_progress(progress))
        for headers in state.rounds(path):
            operation = r2("GET", path, headers, DOWNLOAD_OK)
            response = self._follow(operation, self._send(operation), headers)
            try:
                if state.accept(response.status_code, response.headers) == WRITE:
                    state.write(response.iter_bytes())
            except httpx.TransportError:
                pass  # cut mid-body: what arrived is in the part; the next round resumes from there
            finally:
                response.close()
        return state.finish()

    def _follow(self, operation: Operation, response: httpx.Response, headers: dict[str, str]) -> httpx.Response:
        """A 307 (an object too large for one response) leads to S3's presigned URL: asked without the key."""
        if response.status_code != 307:
            return response
        response.close()
        direct = Operation("GET", "", ok=operation.ok, auth="none", headers=headers)
        return self._send(direct, url=response.headers["location"])


class AsyncBrain(_BrainBase, AsyncTransport, AsyncBrainOperations):
    """Async read-plane client: the same methods, awaited; ``chat`` is an async iterator."""

    def __init__(self, base_url: str, *, key: str, client_id: str | None = None, **options: Any):
        super().__init__(base_url, **options)
        self._init_brain(key, client_id)

    async def _bearer(self, operation: Operation) -> str | None:
        return self._bearer_value(operation)

    async def chat(
        self, agent_id: str, prompt: str, *, client: str | None = None, **fields: Any
    ) -> AsyncIterator[ChatEvent]:
        response = await self._send(chat_operation(agent_id, prompt, client or self.client_id, **fields))
        try:
            async for event in async_events(response.aiter_lines()):
                yield event
        except httpx.TransportError as error:
            raise IncompleteStreamError(f"the chat stream was cut: {error!r}") from error
        finally:
            await response.aclose()

    async def feedback(
        self, agent_id: str, turn_id: str, *, client: str | None = None, rating: Rating, comment: str | None = None
    ) -> None:
        operation = feedback_operation(agent_id, turn_id, client=client or self.client_id, rating=rating,
                                       comment=comment)  # fmt: skip
        await self._call(operation)

    async def head(self, path: str) -> ObjectInfo:
        response = await self._send(r2("HEAD", path))
        await response.aclose()
        return object_info(response.headers)

    async def get_bytes(self, path: str, *, byte_range: str | None = None) -> bytes:
        operation = r2("GET", path, {"Range": byte_range} if byte_range else None)
        response = await self._follow(operation, await self._send(operation), operation.headers)
        try:
            return await response.aread()
        finally:
            await response.aclose()

    async def download(self, path: str, target: str | Path, *, progress: Progress | bool | None = None) -> Path:
        state = Resumable(target, default_progress(progress))
        for headers in state.rounds(path):
            operation = r2("GET", path, headers, DOWNLOAD_OK)
            response = await self._follow(operation, await self._send(operation), headers)
            try:
                if state.accept(response.status_code, response.headers) == WRITE:
                    await state.awrite(response.aiter_bytes())
            except httpx.TransportError:
                pass
            finally:
                await response.aclose()
        return state.finish()

    async def _follow(self, operation: Operation, response: httpx.Response, headers: dict[str, str]) -> httpx.Response:
        if response.status_code != 307:
            return response
        await response.aclose()
        direct = Operation("GET", "", ok=operation.ok, auth="none", headers=headers)
        return await self._send(direct, url=response.headers["location"])
