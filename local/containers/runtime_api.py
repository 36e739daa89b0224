"""A local Lambda Runtime API, one per emulated streaming container (``local.containers``).

``core.platform.lambda_runtime.loop`` talks to it as to Lambda's: it long-polls ``/next``, then streams its
response as a chunked POST (prelude, eight NUL bytes, body, and trailers for an error
raised mid-stream) or posts ``/error``; or it posts ``/init/error`` and exits. What
arrives is handed at once to the gateway thread waiting on the ``Invocation``.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from local.containers.invocation import Failed, Invocation, Started, outcome, parse_prelude, read_chunks

logger = logging.getLogger("local.runtime_api")
API = "/2018-06-01/runtime"
DELIMITER = b"\x00" * 8


class RuntimeApi:
    """The Runtime API of one container on a free loopback port: one invocation at a time."""

    def __init__(self, function_arn: str, on_idle: Callable[[], None]):
        self.function_arn = function_arn
        self.init_error: str | None = None
        self._on_idle = on_idle
        self._cond = threading.Condition()
        self._pending: Invocation | None = None  # submitted, not yet taken by /next
        self._current: Invocation | None = None  # taken by /next, until the runtime asks again
        self._busy = False  # from a submit until the container is free again
        self._retired: str | None = None  # why it takes no more invocations (a failed container is not reused)
        self._closed = False
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.api = self
        # shutdown() waits up to one poll interval, and a failed container is closed on the request path.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="runtime-api", daemon=True
        )
        self._thread.start()

    @property
    def address(self) -> str:
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)  # an AF_INET address (typed str | bytes for AF_UNIX)
        return f"{host}:{port}"

    def submit(self, invocation: Invocation) -> None:
        with self._cond:
            if (retired := self._retired) is None:
                self._pending, self._busy = invocation, True
                self._cond.notify_all()
        if retired is not None:
            invocation.put(Failed(retired))

    def release(self) -> None:
        """The invocation is over: the container may take the next (dispatched when its runtime asks)."""
        with self._cond:
            free = self._busy and self._pending is None and self._retired is None
            if free:
                self._busy = False
        if free:
            self._on_idle()

    def next_invocation(self) -> Invocation | None:
        """For /next; blocks until an invocation is submitted (None: the container is stopping)."""
        self.release()  # after an aborted stream, this is the first sign that the runtime is free
        with self._cond:
            self._current = None
            self._cond.wait_for(lambda: self._pending is not None or self._closed)
            invocation = self._current = self._pending
            self._pending = None
        if invocation is not None:
            invocation.put(Started(time.monotonic() + invocation.timeout))
        return invocation

    def current(self, request_id: str) -> Invocation | None:
        with self._cond:
            invocation = self._current
        return invocation if invocation is not None and invocation.request_id == request_id else None

    def retire(self, reason: str) -> None:
        """The function failed or its runtime is gone: what it runs or was to run fails, and nothing more runs."""
        with self._cond:
            reason = self._retired = self._retired or reason
            stranded = [i for i in (self._current, self._pending) if i is not None]
            self._pending = None
        for invocation in stranded:
            invocation.put(Failed(reason))

    def close(self) -> None:
        self.retire("the container was stopped")
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._server.shutdown()
        self._server.server_close()  # joins the request threads (daemon_threads is off)
        self._thread.join()


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    api: RuntimeApi

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a runtime killed mid-request is expected
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        if self.path != f"{API}/invocation/next":
            return self._reply(404)
        if (invocation := self.server.api.next_invocation()) is None:  # the container is being stopped
            return self._reply(503)
        return self._reply(200, json.dumps(invocation.event).encode(), {
            "Lambda-Runtime-Aws-Request-Id": invocation.request_id,
            "Lambda-Runtime-Deadline-Ms": str(int((time.time() + invocation.timeout) * 1000)),
            "Lambda-Runtime-Invoked-Function-Arn": self.server.api.function_arn,
            "Lambda-Runtime-Trace-Id": f"Root=1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]};Sampled=0",
        })  # fmt: skip

    def do_POST(self) -> None:
        api = self.server.api
        if self.path == f"{API}/init/error":
            api.init_error = self._error_text()
            logger.error("runtime failed to start: %s", api.init_error)
            return self._reply(202)
        request_id, _, action = self.path.removeprefix(f"{API}/invocation/").partition("/")
        invocation = api.current(request_id)
        if invocation is None or action not in ("response", "error"):
            self.close_connection = True  # its body is left unread
            return self._reply(400)
        if action == "error":
            api.retire(self._error_text())
            return self._reply(202)
        return self._stream(
            invocation
        )  # core.platform.lambda_runtime.loop always streams: a buffered reply is not emulated

    def _stream(self, invocation: Invocation) -> None:
        invocation.connection = self.connection
        trailers: dict[str, str] = {}
        head, streamed = b"", False
        try:
            for chunk in read_chunks(self.rfile, trailers):
                body = chunk
                if not streamed:  # the prelude is JSON: its first NUL byte starts the delimiter
                    head += chunk
                    metadata, found, body = head.partition(DELIMITER)
                    if not found:
                        continue
                    if isinstance(prelude := parse_prelude(metadata), Failed):
                        self.server.api.retire(prelude.reason)
                    else:
                        invocation.put(prelude)
                    streamed = True
                if body:
                    invocation.put(body)
        except (OSError, ValueError) as exc:  # the runtime died, or the gateway aborted the stream
            self.close_connection = True
            invocation.put(Failed(f"the response stream broke: {exc}"))
            return None
        if (failure := outcome(trailers, streamed)) is not None:
            self.server.api.retire(failure.reason)
        else:  # free before the gateway even sees the end, so the next request finds it warm
            self.server.api.release()
            invocation.put(None)
        return self._reply(202)

    def _error_text(self) -> str:
        error = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        return f"{error.get('errorType', 'Error')}: {error.get('errorMessage', '')}"

    def _reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug(format, *args)
