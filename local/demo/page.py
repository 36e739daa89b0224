"""A static page server for the brand widget: ``clients/web/*`` and a demo page that embeds it with one tag.

The page is what a brand would host: another origin than the read plane, so the browser sends
``Origin`` and the read plane's CORS and the key's allowed origins are exercised as deployed. The
page carries a strict Content-Security-Policy (no inline script or style; fetches and media only
from the brain) to prove the widget needs nothing more (``clients/web/README.md``).

The page holds a raw workspace key in a data attribute, as every embed does; nothing here logs it
(the access log names the path only).
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from local.gateway.quiet import QuietServer
from local.stopping import STOP_POLL
from stack.template import ROOT

logger = logging.getLogger("local.page")
WEB_DIR = ROOT / "clients" / "web"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Brand page demo</title>
</head>
<body>
<h1>Brand page demo</h1>
<p>The widget below is embedded with one script tag.</p>
<script src="/brand-widget.js" async data-brain-url="{brain}" data-key="{key}" data-agent="{agent}"></script>
</body>
</html>
"""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def page_html(*, brain_url: str, key: str, agent_id: str) -> str:
    """The demo page: one ``<script>`` tag, its attributes escaped."""
    return _PAGE.format(brain=html.escape(brain_url.rstrip("/")), key=html.escape(key), agent=html.escape(agent_id))


def content_security_policy(brain_url: str) -> str:
    """What the widget needs and no more: its own script and stylesheet, the brain for API calls and media."""
    brain = origin_of(brain_url)
    return (
        f"default-src 'none'; script-src 'self'; style-src 'self'; connect-src {brain}; "
        f"img-src {brain}; media-src {brain}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


class _Server(QuietServer):
    daemon_threads = True
    request_queue_size = 64


class PageHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    page: bytes
    csp: str

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            return self._send(200, "text/html; charset=utf-8", self.page, {"Content-Security-Policy": self.csp})
        name = path.removeprefix("/")
        served = WEB_DIR / name
        # Only the files directly in clients/web with a known type: no directory walk, no traversal.
        if "/" in name or served.suffix not in _TYPES or not served.is_file():
            return self._send(404, "text/plain; charset=utf-8", b"Not found\n")
        return self._send(200, _TYPES[served.suffix], served.read_bytes())

    def do_HEAD(self) -> None:
        self.do_GET()

    def _send(self, status: int, content_type: str, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")  # edits to the widget show on reload
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        logger.info('page "%s %s" %s', self.command, self.path.split("?", 1)[0][:256], code)

    def log_message(self, format: str, *args: Any) -> None:
        logger.info("page %s", format % args)


def serve_page(
    host: str, port: int, *, brain_url: str, key: str | Callable[[str], str], agent_id: str
) -> tuple[ThreadingHTTPServer, str]:
    """Serve the demo page on a background thread (``port`` 0: a free one); returns the server and the page URL.

    ``key`` may be a function of the page's origin (``http://host:port``), called once the port is bound:
    a key restricted to that origin can then be made for a page on a free port.
    Stop it with ``server.shutdown(); server.server_close()``.
    """
    server = _Server((host, port), PageHandler)
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host  # a browser cannot open the wildcard address
    url = f"http://{shown}:{server.server_address[1]}/"
    raw_key = key(origin_of(url)) if callable(key) else key

    class Handler(PageHandler):
        page = page_html(brain_url=brain_url, key=raw_key, agent_id=agent_id).encode()
        csp = content_security_policy(brain_url)

    server.RequestHandlerClass = Handler
    threading.Thread(target=server.serve_forever, kwargs=STOP_POLL, name="http-page", daemon=True).start()
    return server, url
