"""The runner as a person reads its output (issue 41, "the terminal keeps up"): a browser that closed its connection
is one line of the log, not a traceback; a stop ends with the line "stopped", after "stopping…"."""

from __future__ import annotations

import logging
import signal
import socket
import socketserver
import threading
from collections.abc import Callable
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from local.console import ConsoleServer
from local.demo.page import _Server as PageServer
from local.gateway.http_server import GatewayServer
from stack.process import RunnerProcess


class _Gone(BaseHTTPRequestHandler):
    """A handler meeting what a browser that went away leaves: the write fails with ``error``."""

    error: type[OSError] = ConnectionResetError

    def do_GET(self) -> None:
        raise self.error(104, "Connection reset by peer")

    def log_message(self, format: str, *args: object) -> None:
        pass


def _console(handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    server = ConsoleServer(("127.0.0.1", 0))
    server.RequestHandlerClass = handler
    return server


SERVERS: dict[str, Callable[[type[BaseHTTPRequestHandler]], ThreadingHTTPServer]] = {
    "gateway": lambda handler: GatewayServer(("127.0.0.1", 0), handler),
    "page": lambda handler: PageServer(("127.0.0.1", 0), handler),
    "console": _console,
}


def _one_request(server: ThreadingHTTPServer) -> threading.Thread:
    """The server takes one request and handles it in the same thread (not a thread of its own), its error handling
    included: once the returned thread has ended, whatever the server printed or logged is there."""
    server.process_request = partial(socketserver.TCPServer.process_request, server)  # type: ignore[method-assign]
    thread = threading.Thread(target=server.handle_request)
    thread.start()
    return thread


@pytest.mark.parametrize("error", [ConnectionResetError, BrokenPipeError, ConnectionAbortedError])
@pytest.mark.parametrize("kind", sorted(SERVERS))
def test_a_closed_connection_is_one_line_of_the_log_not_a_traceback(
    kind: str, error: type[OSError], capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    handler = type("Gone", (_Gone,), {"error": error})
    server = SERVERS[kind](handler)
    thread = _one_request(server)
    port = server.server_address[1]
    with caplog.at_level(logging.INFO, logger="local.http"), socket.create_connection(("127.0.0.1", port)) as c:
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        thread.join(timeout=30)
    server.server_close()
    assert not thread.is_alive()
    printed = capfd.readouterr().err
    assert "Traceback" not in printed and error.__name__ not in printed, printed
    lines = [r.getMessage() for r in caplog.records if r.name == "local.http"]
    assert len(lines) == 1 and f"closed its connection ({error.__name__})" in lines[0], lines


def test_another_error_keeps_its_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    """Only a disconnect is quietened: a fault of the runner itself is still shown whole."""
    handler = type("Broken", (_Gone,), {"do_GET": lambda self: 1 / 0})
    server = GatewayServer(("127.0.0.1", 0), handler)
    thread = _one_request(server)
    with socket.create_connection(("127.0.0.1", server.server_address[1])) as c:
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        thread.join(timeout=30)
    server.server_close()
    printed = capfd.readouterr().err
    assert "Traceback" in printed and "ZeroDivisionError" in printed


def test_the_last_line_of_a_stop_is_stopped(tmp_path: Path) -> None:
    runner = RunnerProcess(tmp_path / "state", log=tmp_path / "runner.log", demo=False)
    runner.start()
    assert runner.stop(signal.SIGTERM) == 0
    lines = [line for line in (tmp_path / "runner.log").read_text().splitlines() if line.strip()]
    stopping = next(i for i, line in enumerate(lines) if line.startswith("stopping (SIGTERM)"))
    assert lines[-1] == "stopped", lines[stopping:]
