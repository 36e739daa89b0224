"""Invoke the deployed handlers exactly as Lambda does: by the template's CodeUri and Handler."""

from __future__ import annotations

import base64
import copy
import functools
import importlib.util
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from core.platform.response_stream import StreamBody, body_chunks
from local.gateway.events import EVENTS_DIR
from stack.template import FunctionSpec, Stack, load
from tests.support.iam_check import calling


@cache
def stack() -> Stack:
    return Stack(load())


@cache
def functions() -> dict[str, FunctionSpec]:
    """The template's functions, resolved once: every invocation looks its function up (4 ms each)."""
    return stack().functions()


@dataclass(frozen=True)
class LambdaContext:
    function_name: str
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:000000000000:function:test"
    aws_request_id: str = "00000000-0000-4000-8000-000000000000"
    timeout_ms: int = 120_000

    def get_remaining_time_in_millis(self) -> int:
        return self.timeout_ms


@dataclass(frozen=True)
class HttpResult:
    status: int
    headers: dict[str, str]
    body: str

    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)


def load_handler_module(logical_id: str, module_name: str | None = None) -> ModuleType:
    """Import a function's handler file, as a container does (every handler is ``handler.py``, so each
    copy gets a name of its own; a fresh ``module_name`` is a fresh container, resolver included)."""
    spec: FunctionSpec = functions()[logical_id]
    module, _ = spec.handler.rsplit(".", 1)
    path = spec.code_uri / f"{module.replace('.', '/')}.py"
    loader = importlib.util.spec_from_file_location(module_name or f"handler_{logical_id}", path)
    assert loader is not None and loader.loader is not None
    loaded = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(loaded)
    # Its AWS calls are judged against its own policy (tests/support/iam_check.py), however a test calls it.
    entry = spec.handler.rsplit(".", 1)[1]
    setattr(loaded, entry, as_function(logical_id, getattr(loaded, entry)))
    return loaded


def as_function(function: str, entry: Callable[..., Any]) -> Callable[..., Any]:
    """``entry`` (a handler) running as ``function``: its calls, and its streamed body's, are judged as that one's."""

    @functools.wraps(entry)
    def invoked(event: Any, context: Any) -> Any:
        token = calling.set(function)
        try:
            result = entry(event, context)
        finally:
            calling.reset(token)
        if isinstance(result, dict) and isinstance(result.get("body"), StreamBody):  # read after the handler returns
            result["body"] = _StreamedAs(function, result["body"])
        return result

    return invoked


class _StreamedAs(StreamBody):
    """A streamed body whose reading and closing run as the function (its chunks call AWS too: r2, chat)."""

    def __init__(self, function: str, body: StreamBody):
        super().__init__(body)
        self._function = function

    def __iter__(self) -> Iterator[bytes]:
        source = self._as_function(super().__iter__)
        while True:
            try:
                chunk = self._as_function(lambda: next(source))
            except StopIteration:
                return
            yield chunk

    def close(self) -> None:
        self._as_function(super().close)

    def _as_function[T](self, step: Callable[[], T]) -> T:
        token = calling.set(self._function)
        try:
            return step()
        finally:
            calling.reset(token)


@cache
def handler_module(logical_id: str) -> ModuleType:
    """The function's handler, imported once: one warm container for the whole test session."""
    return load_handler_module(logical_id)


def invoke(logical_id: str, event: dict[str, Any]) -> HttpResult:
    spec = functions()[logical_id]
    entry = getattr(handler_module(logical_id), spec.handler.rsplit(".", 1)[1])
    register_event(event)
    raw = entry(event, LambdaContext(function_name=logical_id))
    result = HttpResult(status=raw["statusCode"], headers=_merged_headers(raw), body=raw.get("body") or "")
    from tests.support import log_scan  # lazily: tests/conftest.py imports this module before its plugins load

    log_scan.register_exchange(response_headers=list(_all_headers(raw)), response_body=result.body)
    return result


def register_event(event: dict[str, Any]) -> None:
    """The secrets an event carries (credentials, cookies, tokens, prompts): no log line may hold them."""
    from tests.support import log_scan

    headers = [(k, v) for k, values in (event.get("multiValueHeaders") or {}).items() for v in values or []]
    headers += list((event.get("headers") or {}).items())
    body = event.get("body")
    if body and event.get("isBase64Encoded"):
        body = base64.b64decode(body)
    log_scan.register_exchange(request_headers=headers, request_body=body)


def _all_headers(raw: dict[str, Any]) -> Iterator[tuple[str, str]]:
    yield from (raw.get("headers") or {}).items()
    yield from ((k, v) for k, values in (raw.get("multiValueHeaders") or {}).items() for v in values)
    yield from (("Set-Cookie", c) for c in raw.get("cookies") or [])


@dataclass(frozen=True)
class StreamedResult:
    """What a streaming function sent: status, headers and the body chunks as produced."""

    status: int
    headers: dict[str, str]
    chunks: list[bytes]

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)

    def json(self) -> Any:
        return json.loads(self.body)

    def lines(self) -> list[dict[str, Any]]:
        """The NDJSON events, each line a JSON object ending in a newline."""
        assert self.body.endswith(b"\n"), self.body[-200:]
        return [json.loads(line) for line in self.body.split(b"\n")[:-1]]


def invoke_streamed(logical_id: str, event: dict[str, Any], *, read: int | None = None) -> StreamedResult:
    """Invoke a streaming function and drain its body as ``core.platform.lambda_runtime.loop`` does (closing it
    however it ends).

    ``read``: stop after that many chunks, as when the reader goes away mid-stream.
    """
    spec = functions()[logical_id]
    entry = getattr(handler_module(logical_id), spec.handler.rsplit(".", 1)[1])
    register_event(event)
    return drain(entry(event, LambdaContext(function_name=logical_id)), read=read)


def drain(raw: dict[str, Any], *, read: int | None = None) -> StreamedResult:
    """A streaming handler's result, read (up to ``read`` chunks) and closed, as
    ``core.platform.lambda_runtime.loop`` does."""
    chunks: list[bytes] = []
    try:
        for chunk in body_chunks(raw):
            chunks.append(chunk)
            if read is not None and len(chunks) >= read:
                break
    finally:
        if isinstance(raw.get("body"), StreamBody):
            raw["body"].close()
    return StreamedResult(status=raw["statusCode"], headers=_merged_headers(raw), chunks=chunks)


def _merged_headers(raw: dict[str, Any]) -> dict[str, str]:
    headers = dict(raw.get("headers") or {})
    for name, values in (raw.get("multiValueHeaders") or {}).items():
        headers[name] = ", ".join(values)
    return headers


def sample_event(logical_id: str) -> dict[str, Any]:
    """A deep copy of ``events/<logical_id>.json``."""
    return copy.deepcopy(_load_event(logical_id))


@cache
def _load_event(logical_id: str) -> dict[str, Any]:
    return json.loads((EVENTS_DIR / f"{logical_id}.json").read_text())


def with_request(
    event: dict[str, Any],
    *,
    path_parameters: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    headers: Mapping[str, str | None] | None = None,  # read only: a dict[str, str] will do
    method: str | None = None,
    body: str | None = None,
) -> dict[str, Any]:
    """The event with its path, query, headers (None removes one), method or body changed.

    A non-empty ``body`` is sent as ``application/json`` unless the event or ``headers`` name a Content-Type.
    """
    if path_parameters:
        params = (event.get("pathParameters") or {}) | path_parameters
        path = event["resource"]
        for name, value in params.items():
            path = path.replace(f"{{{name}}}", value).replace(f"{{{name}+}}", value)
        event["pathParameters"], event["path"] = params, path
    if query is not None:
        event["queryStringParameters"] = query or None
        event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()} or None
    for name, value in (headers or {}).items():
        for key in [k for k in event["headers"] if k.lower() == name.lower()]:
            del event["headers"][key]
            del event["multiValueHeaders"][key]
        if value is not None:
            event["headers"][name] = value
            event["multiValueHeaders"][name] = [value]
    if method:
        event["httpMethod"] = event["requestContext"]["httpMethod"] = method
    if body is not None:
        event["body"] = body
        named = [*event["headers"], *(headers or {})]
        if body and not any(k.lower() == "content-type" for k in named):
            # Clients declare their JSON (a body of any other type is a 415); a test wanting none passes None.
            event["headers"]["Content-Type"] = "application/json"
            event["multiValueHeaders"]["Content-Type"] = ["application/json"]
    return event
