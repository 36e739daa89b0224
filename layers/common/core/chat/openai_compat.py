"""A ``ChatModel`` on any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama, llama.cpp, …).

``POST {baseUrl}/chat/completions`` with ``stream: true`` and ``stream_options: {include_usage: true}``; the reply
is Server-Sent Events, one ``data: {chunk}`` per event, each chunk's ``choices[0].delta.content`` a piece of text,
then (asked for by ``include_usage``) a chunk whose ``choices`` are empty and whose ``usage`` counts the turn's
tokens, then ``data: [DONE]``.

The standard library's ``http.client`` only: no SDK and no new dependency, and this module is imported only by
``core.chat.providers`` when a model's provider is ``openai``, so the functions that never run such a model load
none of it (docs/decisions.md, "OpenAI-compatible models").

Every failure becomes a ``ModelError`` whose message is safe to show a visitor (``core.chat.model``); what went
wrong is logged by status, error type and code, never the conversation nor the key. The adapter never retries: a
visitor is waiting and the turn has its own deadline; a 429's ``Retry-After`` is passed on in the message.
"""

from __future__ import annotations

import http.client
import json
import logging
import time
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from core.chat.model import ModelError, ModelRequest, TextDelta, Usage, estimate_tokens, request_chars

if TYPE_CHECKING:
    from core.platform.model_catalogue import ModelSpec

logger = logging.getLogger(__name__)

CONNECT_SECONDS = 5.0  # a server that does not even accept the connection in this long is down for this turn
REPLY_SECONDS = 115.0  # the chat function's 120 s less the turn's FINISH_SECONDS: no socket outlives the turn
MAX_LINE = 1 << 20  # one SSE line; a server sending more without a newline is broken (or hostile)
MAX_ERROR_BODY = 64 * 1024  # of an error answer, read to log its type and code
RETRY_AFTER_CAP = 3600  # a Retry-After beyond an hour is not a wait worth telling a visitor


class OpenAICompatModel:
    """One deployment model on one server; ``api_key`` is called per turn (a cached secret: cheap when warm)."""

    def __init__(
        self,
        *,
        model_id: str,
        base_url: str,
        model_name: str,
        api_key: Callable[[], str] | None = None,
        connect_seconds: float = CONNECT_SECONDS,
        reply_seconds: float = REPLY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"model {model_id}: baseUrl must be an http(s) URL, not {base_url!r}")
        self._model_id = model_id  # the catalogue's id: what the logs name
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._path = parts.path.rstrip("/") + "/chat/completions"
        self._model_name = model_name
        self._api_key = api_key
        self._connect_seconds = connect_seconds
        self._reply_seconds = reply_seconds
        self._clock = clock

    def stream(self, request: ModelRequest) -> Iterator[TextDelta | Usage]:
        """The reply, traced as one X-Ray subsegment from the call to the stream's end (when tracing is on)."""
        from core.platform import observability

        with observability.subsegment("openai.chat_completions"):
            yield from self._stream(request)

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The request's JSON: the system prompt, then the conversation, oldest first."""
        messages = [{"role": "system", "content": request.system}]
        messages += [{"role": message.role, "content": message.text} for message in request.messages]
        body: dict[str, Any] = {
            "model": self._model_name,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": request.max_tokens,  # the agent's maxReplyTokens
            "temperature": request.temperature,  # the agent's, 0..1: within every compatible server's range
        }
        return body

    def _stream(self, request: ModelRequest) -> Iterator[TextDelta | Usage]:
        deadline = self._clock() + self._reply_seconds
        payload = json.dumps(self.body(request), ensure_ascii=False).encode()
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "User-Agent": "workspace-chat/1",
        }
        key = self._api_key() if self._api_key is not None else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        connection = self._connection()
        try:
            try:
                connection.request("POST", self._path, body=payload, headers=headers)
                self._wait(connection, deadline)
                response = connection.getresponse()
            except TimeoutError:
                raise self._failure("MODEL_TIMEOUT", "call", "no answer before the turn's deadline") from None
            except (OSError, http.client.HTTPException) as error:  # refused, reset, DNS, TLS: nothing answered
                raise self._failure("MODEL_UNAVAILABLE", "call", type(error).__name__) from None
            if response.status != 200:
                raise self._refusal(response)
            content_type = response.getheader("Content-Type", "")
            if not content_type.startswith("text/event-stream"):
                raise self._failure("MODEL_UNAVAILABLE", "call", f"a {content_type or 'typeless'} answer, not a stream")
            yield from self._reply(connection, response, request, deadline)
        finally:
            connection.close()  # also when the consumer stops early: the server sees the visitor leave

    def _connection(self) -> http.client.HTTPConnection:
        if self._https:
            import ssl  # deferred: a plain-HTTP server on the network (vLLM, Ollama) needs no TLS stack

            context = ssl.create_default_context()
            return http.client.HTTPSConnection(self._host, self._port, timeout=self._connect_seconds, context=context)
        return http.client.HTTPConnection(self._host, self._port, timeout=self._connect_seconds)

    def _wait(self, connection: http.client.HTTPConnection, deadline: float) -> None:
        """From here every read waits at most until the turn's deadline: a server that never answers ends it, and
        so does one that trickles comments or empty events past it."""
        left = deadline - self._clock()
        if left <= 0:
            raise TimeoutError
        if connection.sock is not None:
            connection.sock.settimeout(left)

    def _reply(
        self,
        connection: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        request: ModelRequest,
        deadline: float,
    ) -> Iterator[TextDelta | Usage]:
        usage: Usage | None = None
        output_chars = 0
        finished = False  # a finish_reason seen: the answer is whole even if [DONE] never comes
        try:
            for data in self._events(connection, response, deadline):
                if data == "[DONE]":
                    break
                chunk = _chunk(data)
                if chunk is None:
                    raise self._failure("MODEL_UNAVAILABLE", "stream", "a malformed chunk")
                if "error" in chunk:  # vLLM and others report a failure mid-stream as a chunk
                    raise self._failure("MODEL_UNAVAILABLE", "stream", f"an error chunk: {_error_kind(chunk)}")
                text, ends = _text(chunk)
                if text:
                    output_chars += len(text)
                    yield TextDelta(text)
                finished = finished or ends
                counts = chunk.get("usage")
                if isinstance(counts, dict):  # the include_usage chunk (every other chunk's usage is null)
                    usage = Usage(_count(counts.get("prompt_tokens")), _count(counts.get("completion_tokens")))
            else:
                if not finished:  # the connection ended cleanly mid-answer: a proxy or the server gave up
                    raise self._failure("MODEL_UNAVAILABLE", "stream", "the stream ended before the answer did")
        except TimeoutError:
            raise self._failure("MODEL_TIMEOUT", "stream", "silent past the turn's deadline") from None
        except (OSError, http.client.HTTPException) as error:  # reset, cut chunked body (IncompleteRead)
            broke = f"the connection broke: {type(error).__name__}"
            raise self._failure("MODEL_UNAVAILABLE", "stream", broke) from None
        yield usage or Usage(estimate_tokens(request_chars(request)), estimate_tokens(output_chars))

    def _events(
        self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse, deadline: float
    ) -> Iterator[str]:
        """Each SSE event's data (its ``data:`` lines joined), as the HTML standard's event-stream parsing says.

        Comment lines (``: keep-alive``, as some proxies and OpenRouter send) and other fields (``event:``,
        ``id:``, ``retry:``) carry nothing here. Data left without a closing blank line at the end still counts.
        """
        data: list[str] = []
        while True:
            self._wait(connection, deadline)
            raw = response.readline(MAX_LINE + 1)
            if not raw:
                break
            if len(raw) > MAX_LINE:
                raise self._failure("MODEL_UNAVAILABLE", "stream", "a line past the limit")
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise self._failure("MODEL_UNAVAILABLE", "stream", "a line that is not UTF-8") from None
            if not line:
                if data:
                    yield "\n".join(data)
                    data = []
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
        if data:
            yield "\n".join(data)

    def _refusal(self, response: http.client.HTTPResponse) -> ModelError:
        """A non-200 answer: its error body read for the log, its status mapped for the visitor."""
        status = response.status
        try:
            kind = _error_kind(json.loads(response.read(MAX_ERROR_BODY)))
        except (ValueError, OSError, http.client.HTTPException):
            kind = "no JSON error body"
        if status in (401, 403):
            # The deployment's key or the server's access is wrong: nothing the visitor can change.
            logger.error("openai model %s refused its key (HTTP %s, %s): check secretId", self._model_id, status, kind)
            return ModelError("MODEL_UNAVAILABLE")
        if status == 429:
            wait = retry_after(response.getheader("Retry-After"), time.time())
            logger.warning("openai model %s is rate limited (%s), retry after %s s", self._model_id, kind, wait)
            if wait is not None:
                return ModelError("MODEL_BUSY", f"The assistant is busy right now. Please try again in {wait} seconds.")
            return ModelError("MODEL_BUSY")
        if status in (408, 504):
            return self._failure("MODEL_TIMEOUT", "call", f"HTTP {status}, {kind}")
        level = logging.ERROR if 400 <= status < 500 else logging.WARNING  # 4xx: our request or config is wrong
        logger.log(level, "openai model %s answered HTTP %s (%s)", self._model_id, status, kind)
        return ModelError("MODEL_UNAVAILABLE")

    def _failure(self, code: str, stage: str, what: str) -> ModelError:
        logger.warning("openai model %s failed during %s: %s", self._model_id, stage, what)
        return ModelError(code)


def _chunk(data: str) -> dict[str, Any] | None:
    """A chunk's JSON object, or None for anything else (not JSON, not an object, choices not a list)."""
    try:
        chunk = json.loads(data)
    except ValueError:
        return None
    if not isinstance(chunk, dict) or not isinstance(chunk.get("choices", []), list):
        return None
    return chunk


def _text(chunk: dict[str, Any]) -> tuple[str, bool]:
    """The chunk's text for the visitor and whether it ends the answer (a ``finish_reason``)."""
    text, ends = "", False
    for choice in chunk.get("choices") or ():
        if not isinstance(choice, dict) or choice.get("index", 0) != 0:
            continue  # one choice is asked for (n defaults to 1); another is not for the visitor
        delta = choice.get("delta")
        # Only text: a reasoning model's reasoning_content or a tool call is not for the visitor.
        content = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(content, str):
            text += content
        ends = ends or bool(choice.get("finish_reason"))
    return text, ends


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _error_kind(body: Any) -> str:
    """``{"error": {"type", "code"}}``'s type and code (never its message, which may quote the request)."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return f"type={str(error.get('type'))[:80]} code={str(error.get('code'))[:80]}"
    if isinstance(error, str):  # some servers (Ollama, older vLLM) answer {"error": "..."}
        return "an error string"
    return "no error object"


def retry_after(header: str | None, now: float) -> int | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date); None if absent or unreadable."""
    if not header:
        return None
    header = header.strip()
    if header.isdigit():
        seconds = int(header)
    else:
        try:
            seconds = round(parsedate_to_datetime(header).timestamp() - now)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    return min(max(seconds, 1), RETRY_AFTER_CAP)


def model_for(spec: ModelSpec) -> OpenAICompatModel:
    """The model of a catalogue entry whose provider is ``openai``: its key from Secrets Manager (``secretId``),
    read once per container and again after ``SECRET_MAX_AGE``; no ``secretId`` (a local server) sends no key."""
    if spec.provider != "openai" or not spec.base_url or not spec.model_name:
        raise ValueError(f"model {spec.id} is not an OpenAI-compatible model")
    return OpenAICompatModel(
        model_id=spec.id,
        base_url=spec.base_url,
        model_name=spec.model_name,
        api_key=api_key(spec.secret_id) if spec.secret_id else None,
    )


_keys: dict[str, Callable[[], str]] = {}


def api_key(secret_id: str) -> Callable[[], str]:
    """The key held by ``secret_id`` (the secret's string, or its JSON's ``apiKey``), one cache per secret."""
    found = _keys.get(secret_id)
    if found is None:
        from core.platform.registry import track
        from core.platform.secrets import CachedSecret

        secret = track(CachedSecret(lambda: secret_id))

        def read() -> str:
            return key_of(secret().decode())

        found = _keys.setdefault(secret_id, read)
    return found


def key_of(value: str) -> str:
    """A secret stored as the key itself, or as Secrets Manager's key/value JSON ``{"apiKey": "…"}``."""
    value = value.strip()
    if value.startswith("{"):
        try:
            document = json.loads(value)
        except ValueError:
            return value
        if isinstance(document, dict) and isinstance(document.get("apiKey"), str):
            return str(document["apiKey"]).strip()
    return value
