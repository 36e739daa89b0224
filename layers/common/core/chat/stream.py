"""One chat turn as NDJSON: ``start``, ``delta``…, then ``sources`` and ``done``, or a final ``error``; billed
exactly once.

The credits were held before the first byte (``ChatService.start``). Here the turn is
marked delivered with its first text, then settled if any text reached the visitor
(also when the visitor went away mid-stream: closing the generator runs ``finally``),
or released if none did. A crash in between leaves the hold to the sweeper, which
settles or releases it by the same rule.

A delivered turn is then logged (``on_reply``: its receipt, counts and stored transcript) once, after ``done``
(or after the ``error`` line, or when the visitor went away): never before a line the visitor waits for.
"""

from __future__ import annotations

import contextvars
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from core.chat.model import ChatModel, ModelError, ModelRequest, TextDelta, Usage
from core.credits.billing import Billing
from core.credits.records import HoldRecord
from core.platform import observability

logger = logging.getLogger(__name__)
KEEPALIVE = object()


def ndjson(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def with_keepalive[T](source: Iterator[T], seconds: float, deadline: float) -> Iterator[T | object]:
    """``source``'s items, ``KEEPALIVE`` whenever it has been silent for ``seconds``, until ``deadline``.

    ``source`` is drained by a thread of its own (a blocked ``next`` cannot be timed out),
    which stops at its next item once the consumer is gone and closes ``source`` itself.
    Past ``deadline`` (``time.monotonic()``) a ``ModelError("MODEL_TIMEOUT")`` ends it, so a
    turn ends with an ``error`` line (and is billed) before Lambda's timeout would cut it mute.
    """
    handoff: queue.Queue[tuple[str, Any]] = queue.Queue()
    gone = threading.Event()

    def pump() -> None:
        try:
            for item in source:
                if gone.is_set():
                    break
                handoff.put(("item", item))
            handoff.put(("end", None))
        except BaseException as exc:  # handed to the consumer, raised there
            handoff.put(("error", exc))
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    # The pump runs in a copy of this context, as ``together`` runs its reads: what the turn set there (the tests'
    # name of the calling function, a tracer's segment) holds for the model's calls too.
    threading.Thread(target=contextvars.copy_context().run, args=(pump,), name="chat-model", daemon=True).start()
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ModelError("MODEL_TIMEOUT")
            try:
                kind, value = handoff.get(timeout=min(seconds, left))
            except queue.Empty:
                if time.monotonic() < deadline:
                    yield KEEPALIVE
                continue
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        gone.set()


class ChatStream:
    def __init__(
        self,
        *,
        turn_id: str,
        thread_key: str,
        hold: HoldRecord,
        model: ChatModel,
        request: ModelRequest,
        credits: Billing,
        keepalive_seconds: float,
        deadline: float,
        on_reply: Callable[[str, Usage | None, bool], None] | None = None,
        sources: list[dict[str, str | None]] | None = None,
    ):
        self.turn_id = turn_id
        self.thread_key = thread_key
        self._hold = hold
        self._model = model
        self._request = request
        self._credits = credits
        self._keepalive = keepalive_seconds
        self._deadline = deadline
        self._on_reply = on_reply
        self._sources = sources or []
        self._delivered = False
        self._finished = False
        self._logged = False
        self._reply: list[str] = []
        self._usage: Usage | None = None

    def __iter__(self) -> Iterator[bytes]:
        return self._events()

    def close(self) -> None:
        """The response is over, however it went; a stream closed before it began is released here."""
        self._finish(complete=False)

    def _events(self) -> Iterator[bytes]:
        complete = False
        try:
            yield ndjson({"type": "start", "threadKey": self.thread_key, "turnId": self.turn_id})
            try:
                for event in with_keepalive(self._model.stream(self._request), self._keepalive, self._deadline):
                    if event is KEEPALIVE:
                        yield ndjson({"type": "keepalive"})
                    elif isinstance(event, TextDelta) and event.text:
                        self._deliver()
                        self._reply.append(event.text)
                        yield ndjson({"type": "delta", "text": event.text})
                    elif isinstance(event, Usage):
                        self._usage = event
            except ModelError as error:
                observability.count("ModelErrors", code=error.code)
                self._finish(complete)
                yield ndjson({"type": "error", "message": str(error), "code": error.code})
                return
            except Exception:
                logger.exception("chat turn failed", extra={"turnId": self.turn_id})
                self._finish(complete)
                yield ndjson({"type": "error", "message": "The reply could not be completed", "code": "INTERNAL_ERROR"})
                return
            complete = True
            self._finish(complete)
            yield ndjson({"type": "sources", "sources": self._sources})
            yield ndjson({"type": "done", "usage": self._usage_event()})
            self._log(complete)  # the runtime drains the body to its end: the visitor already has ``done``
        finally:
            self._finish(complete)  # the visitor went away mid-stream: bill what was delivered, once
            self._log(complete)  # ... and log it, once (nothing if it was logged above)

    def _deliver(self) -> None:
        if not self._delivered:
            # From here on even a crash bills this turn. A hold that is gone (swept) stops the turn, unpaid.
            if not self._mark_delivered():
                raise ModelError("MODEL_TIMEOUT")
            self._delivered = True

    def _mark_delivered(self) -> bool:
        """The mark, retried once after a failure: it is idempotent, and a lost reply may hide an applied mark.

        Giving up after a mark that did apply would leave a hold that release refuses and the sweeper
        charges, for a turn that showed no text; the retry settles which it is, so the text follows the charge.
        """
        try:
            return self._credits.mark_delivered(self._hold)
        except Exception:
            logger.warning("marking a chat turn delivered failed; retrying once", extra={"turnId": self.turn_id})
        return self._credits.mark_delivered(self._hold)

    def _finish(self, complete: bool) -> None:
        """Once per turn: settle the hold if any text was delivered, else release it."""
        if self._finished:
            return
        self._finished = True
        try:
            if self._delivered:
                self._credits.settle(self._hold)
            else:
                self._credits.release(self._hold)
        except Exception:  # the hold stays; the sweeper finishes it by the same rule
            logger.exception("billing a chat turn failed", extra={"turnId": self.turn_id})

    def _log(self, complete: bool) -> None:
        """Once per delivered turn, after billing: ``on_reply`` (which never raises to the visitor's stream)."""
        if self._logged or not self._delivered or self._on_reply is None:
            return
        self._logged = True
        try:
            self._on_reply("".join(self._reply), self._usage, complete)
        except Exception:  # the visitor has the turn and the bill; its log is bookkeeping
            logger.exception("logging a chat turn failed", extra={"turnId": self.turn_id})

    def _usage_event(self) -> dict[str, int]:
        usage = self._usage
        return {
            "inputTokens": usage.input_tokens if usage else 0,
            "outputTokens": usage.output_tokens if usage else 0,
            "credits": self._hold.amount if self._delivered else 0,
        }
