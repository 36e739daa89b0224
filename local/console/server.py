"""The owner's console on ``make serve``: console/dist served as CloudFront serves it, ``/api/*`` on the same origin.

Deployed, one CloudFront distribution serves the console's static files from S3 and routes ``/api/*`` to the portal
API, so the sign-in's session cookie is first-party to the console and no CORS is needed (docs/decisions.md, "The
console's session"). Here the same: files from ``console/dist``, any path without a file extension answered with
``index.html`` (the CloudFront Function's rewrite: the console's routes are real paths), ``/api/*`` of every method
proxied to the runner's portal API with its body streamed both ways and its cookies passed through. Every answer,
proxied ones included, carries the distribution's security headers and Content-Security-Policy.

The console is read from disk at each request: ``make console`` while the runner runs shows on reload, and a runner
started before any build answers a page saying to run it (the rest of the runner is unaffected).
"""

from __future__ import annotations

import http.client
import logging
import mimetypes
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from local.gateway.quiet import QuietServer
from local.stopping import STOP_POLL
from stack.template import ROOT

logger = logging.getLogger("local.console")
DIST = ROOT / "console" / "dist"
NOT_BUILT = "The console is not built: run `make console` (or `make serve`, which builds it), then reload.\n"
PROXY_TIMEOUT = 120  # seconds a proxied call may stay silent (a preview turn streams; CloudFront's origin limit)
CHUNK = 64 * 1024
# Hop-by-hop headers (RFC 9110 §7.6.1) are the connection's, not the message's: never forwarded either way.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".woff2": "font/woff2",
}


def content_security_policy(upload_origin: str) -> str:
    """The console's policy: the same string as template.yaml's ConsoleHeadersPolicy but for the upload origin (S3
    there, the runner's moto here: a presigned POST goes straight to storage, so the page must be allowed to reach
    it). Nothing inline, nothing from a third party; Preact and uPlot set styles through CSSOM, which 'self' allows."""
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; "
        f"connect-src 'self' {upload_origin}; manifest-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'; object-src 'none'"
    )


def security_headers(upload_origin: str) -> dict[str, str]:
    """Every answer's headers (CloudFront's response headers policy adds HSTS too: it is served over https there)."""
    return {
        "Content-Security-Policy": content_security_policy(upload_origin),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    }


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class ConsoleServer(QuietServer):
    """The console's server; ``portal_url`` and ``upload_origin`` are set once the runner knows them (the console's
    port is bound first, so that the functions' PORTAL_APP_URL can name it before they start)."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], dist: Path = DIST):
        super().__init__(address, ConsoleHandler)
        self.dist = dist
        self.portal_url = ""
        self.upload_origin = ""

    @property
    def url(self) -> str:
        host = str(self.server_address[0])
        shown = "127.0.0.1" if host in ("", "0.0.0.0") else host  # a browser cannot open the wildcard address
        return f"http://{shown}:{self.server_address[1]}"


class ConsoleHandler(BaseHTTPRequestHandler):
    server: ConsoleServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # a streamed chunk of a proxied answer leaves at once

    def _route(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/api" or path.startswith("/api/"):
            return self._proxy()
        if self.command not in ("GET", "HEAD"):
            return self._send(405, "text/plain; charset=utf-8", b"Method not allowed\n", {"Allow": "GET, HEAD"})
        return self._static(path)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _route

    # --- static files -------------------------------------------------------------------------------------------
    def _static(self, path: str) -> None:
        dist = self.server.dist
        index = dist / "index.html"
        if not index.is_file():
            return self._send(503, "text/plain; charset=utf-8", NOT_BUILT.encode(), {"Cache-Control": "no-store"})
        name = unquote(path).lstrip("/")
        if not Path(name).suffix:  # a route of the console (/w/ws_1/keys), never a file: the app decides
            return self._file(index, "no-cache")
        served = (dist / name).resolve()
        if not served.is_relative_to(dist.resolve()) or not served.is_file():
            return self._send(404, "text/plain; charset=utf-8", b"Not found\n", {"Cache-Control": "no-store"})
        # Vite's hashed assets never change under one name; index.html (which names them) is checked at every load.
        cache = "public, max-age=31536000, immutable" if name.startswith("assets/") else "no-cache"
        return self._file(served, cache)

    def _file(self, path: Path, cache: str) -> None:
        kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        self._send(200, kind, path.read_bytes(), {"Cache-Control": cache})

    def _send(self, status: int, content_type: str, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers | security_headers(self.server.upload_origin)).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # --- /api/* to the portal -------------------------------------------------------------------------------------
    def _proxy(self) -> None:
        """The request to the portal as it came (method, path and query, headers, body), the answer back as it comes:
        headers first, then each piece of the body as the portal writes it (a preview's NDJSON lines arrive one by
        one). The Host header is the portal's, as CloudFront's AllViewerExceptHostHeader policy sends it."""
        target = urlsplit(self.server.portal_url)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | {"host", "content-length"}]
        upstream = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port, timeout=PROXY_TIMEOUT)
        try:
            upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            upstream.putheader("Host", target.netloc)
            for name, value in headers:
                upstream.putheader(name, value)
            if body is not None or self.command in ("POST", "PUT", "PATCH"):
                upstream.putheader("Content-Length", str(len(body or b"")))
            upstream.endheaders(body)
            answer = upstream.getresponse()
        except OSError as exc:
            upstream.close()
            logger.warning("console: the portal did not answer %s %s: %s", self.command, self.path.split("?")[0], exc)
            message = b'{"error": "The portal API did not answer.", "code": "BAD_GATEWAY"}'
            return self._send(502, "application/json", message, {"Cache-Control": "no-store"})
        try:
            self._relay(answer)
        finally:
            upstream.close()

    def _relay(self, answer: http.client.HTTPResponse) -> None:
        self.send_response(answer.status)
        ours = security_headers(self.server.upload_origin)
        length = answer.getheader("Content-Length")
        for name, value in answer.getheaders():  # a list: every Set-Cookie kept
            # send_response wrote its own Server and Date: the portal's would make them twice.
            if name.lower() not in HOP_BY_HOP | {"content-length", "server", "date"} | {k.lower() for k in ours}:
                self.send_header(name, value)
        for name, value in ours.items():
            self.send_header(name, value)
        has_body = self.command != "HEAD" and answer.status not in (204, 304)
        chunked = has_body and length is None
        if length is not None:
            self.send_header("Content-Length", length)
        elif chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if not has_body:
            return
        while piece := answer.read1(CHUNK):  # what has arrived, without waiting for a full buffer
            self.wfile.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
            self.wfile.flush()
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        if answer.will_close:
            self.close_connection = True

    # --- the access log: the path only (a sign-in link's ?token= must never reach a log) ------------------------
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        path = getattr(self, "path", "") or ""
        logger.info('console "%s %s" %s', self.command or "-", path.split("?", 1)[0][:256], code)

    def log_message(self, format: str, *args: Any) -> None:
        logger.info("console %s", format % args)


def serve_console(host: str, port: int, dist: Path = DIST) -> ConsoleServer:
    """Bind the console's server (``port`` 0: a free one) and serve on a background thread; set ``portal_url`` and
    ``upload_origin`` before the first request. Stop it with ``shutdown(); server_close()``."""
    server = ConsoleServer((host, port), dist)
    threading.Thread(target=server.serve_forever, kwargs=STOP_POLL, name="http-console", daemon=True).start()
    return server
