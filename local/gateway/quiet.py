"""The runner's HTTP servers: a client that went away is a line of the log, not a traceback.

Browsers close connections whenever they like (a tab closed, a reload during a stream, a kept-alive connection
dropped while an answer is written). socketserver's ``handle_error`` prints the whole traceback of the
``ConnectionResetError`` or ``BrokenPipeError`` to stderr, between the access log's lines, as if the runner had
failed (issue 41). A disconnect is logged in one line at INFO; any other error keeps its traceback.
"""

from __future__ import annotations

import logging
import sys
from http.server import ThreadingHTTPServer
from typing import Any

logger = logging.getLogger("local.http")
# ConnectionResetError, BrokenPipeError, ConnectionAbortedError; a socket timed out on a silent client too.
DISCONNECTS = (ConnectionError, TimeoutError)


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, DISCONNECTS):
            host, port = (client_address or ("?", "?"))[:2]
            logger.info("%s:%s closed its connection (%s)", host, port, type(error).__name__)
            return
        super().handle_error(request, client_address)
