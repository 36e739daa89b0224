"""``python -m core.platform.lambda_runtime`` (``__main__``): a Lambda Runtime API loop that streams each response.

The managed Python runtime (awslambdaric) can only return a buffered result; an API
Gateway route with ``ResponseTransferMode: RESPONSE_STREAM`` needs the prelude,
delimiter and body as a stream (``response_stream``). ``stream-bootstrap``, the
function's ``AWS_LAMBDA_EXEC_WRAPPER``, starts this loop instead of awslambdaric, on
the same interpreter. The local runner starts it too, against ``local.containers.runtime_api``.
Protocol: https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html
"""

from __future__ import annotations

import base64
import http.client
import importlib
import json
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from http.client import HTTPMessage
from typing import Any, NoReturn

from core.platform import observability
from core.platform.lambda_runtime.chunked_post import ChunkedPost, ReaderGone
from core.platform.lambda_runtime.context import Context
from core.platform.response_stream import StreamBody, body_chunks, prelude

API = "/2018-06-01/runtime"
STREAMING = (
    ("Lambda-Runtime-Function-Response-Mode", "streaming"),
    ("Content-Type", "application/vnd.awslambda.http-integration-response"),
    ("Trailer", "Lambda-Runtime-Function-Error-Type"),
    ("Trailer", "Lambda-Runtime-Function-Error-Body"),
)
Handler = Callable[[Any, Any], Any]


logger = logging.getLogger(__name__)  # JSON through the plane's Powertools Logger (core.platform.observability)


def _log(message: str, exc: BaseException | None = None) -> None:
    """One JSON line (with the traceback, if any). Never pass events or request headers here."""
    if exc is None:
        logger.warning(message)
    else:
        logger.error(message, exc_info=(type(exc), exc, exc.__traceback__))


def _request(
    method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, HTTPMessage, bytes]:
    # No timeout: /next blocks until Lambda has an invocation (the sandbox is frozen meanwhile).
    connection = http.client.HTTPConnection(os.environ["AWS_LAMBDA_RUNTIME_API"])
    try:
        connection.request(method, API + path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def _error_document(exc: BaseException, message: str | None = None, *, stack: bool = True) -> dict[str, Any]:
    return {
        "errorType": type(exc).__name__,
        "errorMessage": message or str(exc),
        "stackTrace": traceback.format_tb(exc.__traceback__) if stack else [],
    }


def _post_error(path: str, error_type: str, document: dict[str, Any]) -> None:
    headers = {"Lambda-Runtime-Function-Error-Type": error_type, "Content-Type": "application/json"}
    status, _, _ = _request("POST", path, json.dumps(document).encode(), headers)
    if status >= 300:
        _log(f"POST {path} answered {status}")


def _init_failed(error_type: str, exc: BaseException, message: str) -> NoReturn:
    _log(message, exc)
    _post_error("/init/error", error_type, _error_document(exc, message))
    sys.exit(1)


def load_handler() -> Handler:
    """The handler named by ``_HANDLER`` (``module.function``; the module may be a path)."""
    module_name, _, function_name = os.environ.get("_HANDLER", "").rpartition(".")
    try:
        module = importlib.import_module(module_name.replace("/", "."))
    except Exception as exc:  # incl. SyntaxError in the module: Lambda reports them all as import errors
        _init_failed("Runtime.ImportModuleError", exc, f"Unable to import module {module_name!r}: {exc}")
    handler: object = getattr(module, function_name, None)
    if not callable(handler):
        missing = AttributeError(function_name)
        _init_failed("Runtime.HandlerNotFound", missing, f"Handler {function_name!r} missing on {module_name!r}")
    return handler


def _close_body(result: Any, request_id: str) -> None:
    body = result.get("body") if isinstance(result, dict) else None
    if isinstance(body, StreamBody):
        try:
            body.close()
        except Exception as exc:  # the loop must live on: the next invocation would pay a cold start
            _log(f"{request_id}: closing the response body failed", exc)


def _pump(post: ChunkedPost, chunks: Iterator[bytes], request_id: str) -> list[tuple[str, str]]:
    """Write each chunk as it is produced; a function error becomes the trailers reporting it."""
    try:
        for chunk in chunks:
            if chunk:  # an empty chunk would end the chunked body early
                post.write(chunk)
    except ReaderGone:
        raise
    except Exception as exc:
        _log(f"{request_id}: function error after the response began", exc)
        # Lambda passes the trailers on to the caller: name the error's type, never its text (internals).
        document = json.dumps(_error_document(exc, "The response failed", stack=False)).encode()
        return [
            ("Lambda-Runtime-Function-Error-Type", type(exc).__name__),
            ("Lambda-Runtime-Function-Error-Body", base64.b64encode(document).decode()),
        ]
    return []


def _stream(request_id: str, head: bytes, chunks: Iterator[bytes]) -> None:
    address = os.environ["AWS_LAMBDA_RUNTIME_API"]
    try:
        post = ChunkedPost(address, f"{API}/invocation/{request_id}/response", STREAMING)
        try:
            post.write(head)
            status = post.finish(_pump(post, chunks, request_id))
        finally:
            post.close()
    except ReaderGone as exc:  # stop pulling chunks: nobody reads them any more
        _log(f"{request_id}: response stream closed by the reader ({exc})")
        return
    if status >= 300:
        _log(f"{request_id}: streamed response answered {status}")


def handle_next(handler: Handler) -> None:
    """Wait for one invocation, run it, and stream (or report) its outcome."""
    status, headers, payload = _request("GET", "/invocation/next")
    if status != 200:
        raise RuntimeError(f"/invocation/next answered {status}")
    context = Context(headers)
    # X-Ray (and Powertools' Tracer) read the current trace from the environment.
    if trace := headers.get("Lambda-Runtime-Trace-Id"):
        os.environ["_X_AMZN_TRACE_ID"] = trace
    else:
        os.environ.pop("_X_AMZN_TRACE_ID", None)
    result: Any = None
    try:
        try:
            result = handler(json.loads(payload), context)
            head, chunks = prelude(result), body_chunks(result)
        except Exception as exc:  # nothing was sent yet: report a plain function error
            _log(f"{context.aws_request_id}: function error", exc)
            _post_error(f"/invocation/{context.aws_request_id}/error", type(exc).__name__, _error_document(exc))
            return
        _stream(context.aws_request_id, head, chunks)
    finally:
        # Always: a generator's ``finally`` releases resources and records usage.
        _close_body(result, context.aws_request_id)


def main() -> None:
    # Until the handler's plane frames its first invocation, the runtime's own lines (an import error) go
    # through this logger; each invocation then carries the request id, correlation id and cold start.
    observability.logger_for("runtime")
    handler = load_handler()
    while True:
        handle_next(handler)
