"""A local server speaking OpenAI's chat-completions protocol, streaming, with a mode for each way it can fail.

``POST {prefix}/chat/completions`` as OpenAI's API reference documents it: a bearer key checked (401 with OpenAI's
``invalid_api_key`` error body), the body validated (400 ``invalid_request_error``: ``stream_options`` only with
``stream``), and with ``stream: true`` an ``text/event-stream`` answer in chunked encoding: one ``data: {chunk}``
event per chunk (``object: chat.completion.chunk``; the first delta names the role, each next one carries
``content``, the last has ``finish_reason``: ``stop``, or ``length`` when ``max_tokens`` pieces were sent; with
``stream_options.include_usage`` every chunk has ``usage: null`` and one more chunk with empty ``choices`` carries
the usage), then ``data: [DONE]``. One piece of text counts as one token.

``Script.mode`` says how the next answers go:

- ``answer``: as above; ``usage=False`` leaves the usage chunk out (a server that ignores ``include_usage``).
- ``status``: ``status`` with OpenAI's error body (429 with ``Retry-After`` when ``retry_after`` is set).
- ``drop``: ``after`` pieces of text, then the connection is closed without ending the chunked body.
- ``malformed``: ``after`` pieces, then an event whose data is cut-off JSON.
- ``error_chunk``: ``after`` pieces, then ``data: {"error": {...}}`` (as vLLM reports a failure mid-stream).
- ``hang``: the request is read and never answered (until the server closes).
- ``stall``: ``after`` pieces, then silence (until the server closes).

The server records each request (``requests``: path, headers, JSON body) and each connection the client closed
while the server still had more to say (``client_gone``). ``python -m tests.support.openai_server --port N`` runs
one by hand (for the runner's ``CHAT_MODELS`` or a bench).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["answer", "status", "drop", "malformed", "error_chunk", "hang", "stall"]
TEXT = ("Oat milk ", "is on ", "the autumn ", "menu.")
HANG_SECONDS = 60  # a hang's longest wait: the server's close ends it sooner (a bound for a stuck test, not a measure)


@dataclass
class Script:
    mode: Mode = "answer"
    text: tuple[str, ...] = TEXT
    after: int = 2  # pieces of text sent before the failure of drop, malformed, error_chunk and stall
    status: int = 500
    retry_after: str | None = None
    usage: bool = True
    prompt_tokens: int = 57
    comments: bool = False  # ": keep-alive" comment lines between events, as some proxies send


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


ERRORS = {
    400: ("invalid_request_error", None, "The request is not valid."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("invalid_request_error", "unsupported_country_region_territory", "Country or region not supported."),
    404: ("invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 20s."),
    500: ("server_error", None, "The server had an error while processing your request. Sorry about that!"),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


class OpenAIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *, key: str | None = None, prefix: str = "/v1", port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.key = key
        self.prefix = prefix
        self.script = Script()
        self.requests: list[Seen] = []
        self.client_gone = 0
        self.left = threading.Event()  # set when a client first leaves mid-answer
        self.closing = threading.Event()  # set on close: every hang and stall ends
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{self.prefix}"

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    def gone(self) -> None:
        with self._lock:
            self.client_gone += 1
        self.left.set()

    def close(self) -> None:
        self.closing.set()
        self.shutdown()
        self.server_close()


@contextmanager
def serve(*, key: str | None = None, prefix: str = "/v1") -> Iterator[OpenAIServer]:
    server = OpenAIServer(key=key, prefix=prefix)
    threading.Thread(target=server.serve_forever, args=(0.05,), name="openai-server", daemon=True).start()
    try:
        yield server
    finally:
        server.close()


class _Handler(BaseHTTPRequestHandler):
    server: OpenAIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: pytest shows what the tests print
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        self.server.record(Seen(self.path, dict(self.headers.items()), body))
        if self.path != f"{self.server.prefix}/chat/completions":
            return self._error(404, f"Invalid URL (POST {self.path})")
        if self.server.key is not None and self.headers.get("Authorization") != f"Bearer {self.server.key}":
            return self._error(401)
        problem = _invalid(body)
        if problem:
            return self._error(400, problem)
        script = self.server.script
        if script.mode == "status":
            return self._error(script.status, retry_after=script.retry_after)
        if script.mode == "hang":
            self.server.closing.wait(HANG_SECONDS)
            self.close_connection = True
            return
        if not body.get("stream"):
            return self._json(200, self._completion(body, script))
        self._stream(body, script)

    def _stream(self, body: dict[str, Any], script: Script) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with_usage = bool((body.get("stream_options") or {}).get("include_usage")) and script.usage
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        pieces = list(script.text[:limit] if isinstance(limit, int) else script.text)
        finish = "length" if len(pieces) < len(script.text) else "stop"
        base = {"id": "chatcmpl-local", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body["model"], "system_fingerprint": "fp_local"}  # fmt: skip
        extra = {"usage": None} if with_usage else {}

        def choice(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            return base | {"choices": [{"index": 0, "delta": delta, "logprobs": None,
                                        "finish_reason": finish_reason}]} | extra  # fmt: skip

        try:
            self._event(choice({"role": "assistant", "content": "", "refusal": None}))
            for sent, piece in enumerate(pieces):
                if script.mode != "answer" and sent == script.after:
                    return self._fail(script)
                if script.comments:
                    self._chunk(b": keep-alive\n\n")
                self._event(choice({"content": piece}))
            if script.mode != "answer":
                return self._fail(script)
            self._event(choice({}, finish))
            if with_usage:
                prompt, completion = script.prompt_tokens, len(pieces)
                self._event(base | {"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                                             "total_tokens": prompt + completion}})  # fmt: skip
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")  # the chunked body's end
        except (BrokenPipeError, ConnectionResetError):
            self.server.gone()
            self.close_connection = True

    def _fail(self, script: Script) -> None:
        if script.mode == "drop":  # no terminating chunk: the client reads a cut-short body
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
        elif script.mode == "malformed":
            self._chunk(b'data: {"id": "chatcmpl-local", "choices": [{"index": 0, "delta": {"content": "Oat\n\n')
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")
        elif script.mode == "error_chunk":
            error = {"error": {"message": "The engine ran out of memory.", "type": "server_error", "code": 500}}
            self._event(error)
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")
        elif script.mode == "stall":
            self._watch_until_closed()
            self.close_connection = True

    def _watch_until_closed(self) -> None:
        """Silence until the server closes; a client that leaves first is counted (its end of the socket reads EOF)."""
        self.connection.settimeout(0.05)
        while not self.server.closing.is_set():
            try:
                if self.connection.recv(1) == b"":
                    self.server.gone()
                    return
            except TimeoutError:
                continue
            except OSError:
                self.server.gone()
                return

    def _event(self, document: dict[str, Any]) -> None:
        self._chunk(b"data: " + json.dumps(document).encode() + b"\n\n")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _completion(self, body: dict[str, Any], script: Script) -> dict[str, Any]:
        text = "".join(script.text)
        return {"id": "chatcmpl-local", "object": "chat.completion", "created": int(time.time()),
                "model": body["model"], "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                "message": {"role": "assistant", "content": text, "refusal": None}}],
                "usage": {"prompt_tokens": script.prompt_tokens, "completion_tokens": len(script.text),
                          "total_tokens": script.prompt_tokens + len(script.text)}}  # fmt: skip

    def _error(self, status: int, message: str | None = None, *, retry_after: str | None = None) -> None:
        kind, code, default = ERRORS.get(status, ("server_error", None, "Error."))
        headers = {"Retry-After": retry_after} if retry_after else {}
        body = {"error": {"message": message or default, "type": kind, "param": None, "code": code}}
        self._json(status, body, headers)

    def _json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _invalid(body: Any) -> str | None:
    """What OpenAI would refuse in the body (the parts this protocol's clients send), or None."""
    if not isinstance(body, dict):
        return "We could not parse the JSON body of your request."
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("system", "developer", "user", "assistant"):
            return "each message needs a role of system, developer, user or assistant"
        if not isinstance(message.get("content"), str):
            return "each message's content must be a string here"
    if body.get("stream_options") is not None and not body.get("stream"):
        return "The 'stream_options' parameter is only allowed when 'stream' is enabled."
    temperature = body.get("temperature")
    if temperature is not None and not (isinstance(temperature, int | float) and 0 <= temperature <= 2):
        return "'temperature' must be a number from 0 to 2"
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and not (isinstance(max_tokens, int) and max_tokens >= 1):
        return "'max_tokens' must be a positive integer"
    return None


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("--key", default=None, help="the bearer key to require (none: any)")
    args = parser.parse_args()
    server = OpenAIServer(key=args.key, port=args.port)
    print(f"OpenAI-compatible test server on {server.base_url}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
