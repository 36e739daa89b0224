"""The load suite's own client (``tests/support/load.py``): what it counts as a refusal, and what fails the test.

A load test may count a connection refused at connect as a request that changed nothing (``REFUSED``); the
runner's back-pressure is an answer (429/503 with ``Retry-After``). Anything else that goes wrong after the
connection was made (a hang, a reset mid-response, a malformed or cut-short answer) must fail the test, never be
set aside: these servers on loopback do each once, and ``shoot`` must raise ``BrokenExchange`` for all but the
refusal. No runner is started.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial

import pytest

from tests.support.load import REFUSED, BrokenExchange, burst, received, shed, shoot

pytestmark = pytest.mark.load

Serve = Callable[[socket.socket], None]
ANSWER_SECONDS = 30  # how long a test server waits for its one client (a hang of the test, not a measure)


@contextmanager
def server(serve: Serve) -> Iterator[str]:
    """A loopback server that accepts one connection and does ``serve`` with it; its base URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(ANSWER_SECONDS)
    done = threading.Event()

    def run() -> None:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        with connection:
            connection.settimeout(ANSWER_SECONDS)
            serve(connection)
            done.wait(ANSWER_SECONDS)  # the connection stays open until the client is done with it

    thread = threading.Thread(target=run, name="shots-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        listener.close()
        thread.join(ANSWER_SECONDS)


def read_request(connection: socket.socket) -> None:
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(4096)
        if not chunk:
            return
        received += chunk


def reset(connection: socket.socket) -> None:
    """Close with an RST (SO_LINGER 0), as a crashed or overloaded peer does."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def answers(payload: bytes, *, then: Callable[[socket.socket], None] | None = None) -> Serve:
    def serve(connection: socket.socket) -> None:
        read_request(connection)
        connection.sendall(payload)
        if then is not None:
            then(connection)

    return serve


def never_answers(connection: socket.socket) -> None:
    read_request(connection)  # and then nothing: the client's read times out


def resets_at_once(connection: socket.socket) -> None:
    read_request(connection)
    reset(connection)


OK = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"ok": true}'
BROKEN: dict[str, Serve] = {
    "read timeout (a hang)": never_answers,
    "reset before the status line": resets_at_once,
    "reset mid-body": answers(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial', then=reset),
    "closed mid-body": answers(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial', then=socket.socket.close),
    "malformed status line": answers(b"garbage\r\n\r\n"),
    "cut-short chunked body": answers(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", then=socket.socket.close
    ),
}


@pytest.mark.parametrize("how", BROKEN)
def test_a_broken_exchange_fails_the_test(how: str) -> None:
    with server(BROKEN[how]) as url, pytest.raises(BrokenExchange) as failed:
        shoot(url, "GET", "/anything", timeout=0.5)  # the hang's server never answers: any timeout ends it
    assert "GET /anything" in str(failed.value)


def test_a_broken_exchange_in_a_burst_fails_the_burst() -> None:
    with server(resets_at_once) as broken, server(answers(OK)) as fine:
        calls = [partial(shoot, fine, "GET", "/"), partial(shoot, broken, "GET", "/")]
        with pytest.raises(BrokenExchange):
            burst(calls, workers=2, deadline_seconds=ANSWER_SECONDS)


def test_a_connection_refused_at_connect_is_a_refusal() -> None:
    # A port bound but not listening refuses connections (and stays ours while the test runs).
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        shot = shoot(f"http://127.0.0.1:{closed.getsockname()[1]}", "GET", "/")
    assert (shot.status, shot.body) == (REFUSED, b"")
    assert shot.error.startswith("connect: ConnectionRefusedError"), shot.error
    assert received([shot]) == []


def test_an_answer_is_a_shot_and_the_runners_shedding_is_an_answer() -> None:
    with server(answers(OK)) as url:
        shot = shoot(url, "GET", "/")
    assert (shot.status, shot.json(), shot.error, received([shot])) == (200, {"ok": True}, "", [shot])
    busy = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}"
    with server(answers(busy)) as url:
        shot = shoot(url, "GET", "/")
    assert (shot.status, shed(shot)) == (503, True)
