"""The owner's console on ``make serve``: console/dist and ``/api/*`` on one origin (``server.py`` says how)."""

from local.console.server import (
    DIST,
    ConsoleServer,
    content_security_policy,
    origin_of,
    security_headers,
    serve_console,
)

__all__ = ["DIST", "ConsoleServer", "content_security_policy", "origin_of", "security_headers", "serve_console"]
