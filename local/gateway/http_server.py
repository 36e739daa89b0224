"""The HTTP side of the local API Gateway: framing, API Gateway's request limits, JSON refusals, the access log.

http.server would answer its own errors (a 70 KB header, a malformed request line, TRACE) with an
HTML page and log the full request line, query string included. Here every refusal is the
service's ``{error, code}`` JSON, and the access log names the path only: a token put in a URL
(``?token=…``) must never reach a log.
"""

from __future__ import annotations

import logging
import threading
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from local.containers.streaming import InvocationFailed, StreamedResponse
from local.gateway.quiet import QuietServer
from local.gateway.refusals import Refused, TooLarge, head_size, read_body, refusal
from local.stopping import STOP_POLL
from stack.api_gateway import KNOWN_METHODS, MAX_REQUEST_HEAD, MAX_URL

if TYPE_CHECKING:
    from local.gateway.api import ApiGateway

logger = logging.getLogger("local.gateway")
MAX_PAYLOAD = 10 * 1024 * 1024  # API Gateway's own request limit


DRAIN_SECONDS = 20  # on shutdown, how long requests in flight may take to finish (a chat turn streams)


class GatewayServer(QuietServer):
    # socketserver listens with a backlog of 5: a burst of clients would see connections reset before
    # any HTTP answer. API Gateway never refuses a connection; excess load is a 429/503 answer instead.
    request_queue_size = 512
    daemon_threads = True

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.closing = False
        self._active = 0
        self._idle = threading.Condition()

    def begin_request(self) -> bool:
        """Count a request in; False once the server is closing (it is then refused)."""
        with self._idle:
            if self.closing:
                return False
            self._active += 1
            return True

    def end_request(self) -> None:
        with self._idle:
            self._active -= 1
            self._idle.notify_all()

    def drain(self, timeout: float = DRAIN_SECONDS) -> None:
        """Stop accepting, then wait (bounded) for the requests in flight to be answered."""
        self.shutdown()
        self.server_close()
        with self._idle:
            self.closing = True  # a kept-alive connection's next request is refused, not started
            if not self._idle.wait_for(lambda: self._active == 0, timeout):
                logger.warning("%d requests still in flight after %ss", self._active, timeout)


def drain_together(servers: list[GatewayServer], timeout: float = DRAIN_SECONDS) -> None:
    """Drain every server at once: each stops accepting now, and all share one ``timeout`` for what is in flight
    (one after another, a second API would keep taking requests, and waiting, while the first drains)."""
    threads = [threading.Thread(target=server.drain, args=(timeout,), name="drain") for server in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def serve(gateway: ApiGateway, host: str, port: int) -> GatewayServer:
    """Serve ``gateway`` on a background thread; returns the server (its bound port in ``server_address``)."""

    class Handler(GatewayHandler):
        api = gateway

    server = GatewayServer((host, port), Handler)
    threading.Thread(target=server.serve_forever, kwargs=STOP_POLL, name=f"http-{gateway.name}", daemon=True).start()
    return server


class GatewayHandler(BaseHTTPRequestHandler):
    api: ApiGateway
    server: GatewayServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # a streamed chunk leaves at once, not after the last one's ACK

    def parse_request(self) -> bool:
        """http.server's parsing, then API Gateway's limits and methods, each refused in JSON."""
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":  # no headers to frame a request: API Gateway speaks HTTP/1.x
            self.send_error(400)
            return False
        if len(self.path) > MAX_URL:
            self.send_error(414)
            return False
        if head_size(self.requestline, self.headers) > MAX_REQUEST_HEAD:
            self.send_error(431)
            return False
        if self.command not in KNOWN_METHODS:
            self._reply(*self.api.unknown_method(self.command, self.path), close=True)
            return False
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Every refusal http.server makes itself (400, 414, 431, 501, 505…), as JSON; the connection closes."""
        self._reply(*refusal(code), close=True)

    def _reply(
        self, status: int, headers: dict[str, str] | list[tuple[str, str]], payload: bytes, *, close: bool = False
    ) -> None:
        if self.request_version in ("HTTP/0.9", ""):
            self.request_version = "HTTP/1.0"  # so the status line and headers are written at all
        self.send_response(status)
        names = set()
        for name, value in headers.items() if isinstance(headers, dict) else headers:
            names.add(name.lower())
            self.send_header(name, value)
        if "content-length" not in names:
            self.send_header("Content-Length", str(len(payload)))
        if close:  # the body (if any) was not read: the connection cannot carry another request
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and status not in (204, 304):
            self.wfile.write(payload)

    def _dispatch(self) -> None:
        if not self.server.begin_request():  # shutting down: as API Gateway does while a stage goes away
            return self._reply(*refusal(503, {"Retry-After": "1"}), close=True)
        try:
            self._answer()
        finally:
            self.server.end_request()

    def _answer(self) -> None:
        try:
            body = read_body(self.rfile, self.headers, MAX_PAYLOAD)
        except TooLarge:
            return self._reply(*self.api.too_large(), close=True)
        except Refused as refused:
            return self.send_error(refused.status)
        reply = self.api.handle(self.command, self.path, list(self.headers.items()), body, self.client_address[0])
        if isinstance(reply, StreamedResponse):
            return self._stream(reply)
        return self._reply(*reply)

    def _stream(self, response: StreamedResponse) -> None:
        """Status and headers as soon as the prelude is in, then each chunk as the function produces it."""
        try:
            self.send_response(response.status)
            for name, value in response.headers:
                self.send_header(name, value)
            has_body = self.command != "HEAD" and response.status not in (204, 304)
            # Without the function's own Content-Length, the body is framed by chunked encoding.
            chunked = has_body and all(name.lower() != "content-length" for name, _ in response.headers)
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in response.chunks:  # read to the end even without a body: the function finishes
                if has_body:
                    self.wfile.write(b"%x\r\n%b\r\n" % (len(chunk), chunk) if chunked else chunk)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except InvocationFailed as exc:  # after the prelude: the client sees the body end abruptly
            logger.error("%s failed mid-stream: %s", self.api.name, exc)
            self.close_connection = True
        except OSError:  # the client went away; closing the response aborts the invocation
            logger.info("%s: client disconnected mid-stream", self.api.name)
            self.close_connection = True
        finally:
            response.close()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _dispatch

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """The access log: method, path without its query string (it may carry a token), status."""
        path = getattr(self, "path", "") or ""
        logger.info('%s "%s %s" %s', self.api.name, self.command or "-", path.split("?", 1)[0][:256], code)

    def log_message(self, format: str, *args: Any) -> None:
        # Only http.server's own notes reach here (never the request line: log_request and send_error own that).
        logger.info("%s %s", self.api.name, format % args)
