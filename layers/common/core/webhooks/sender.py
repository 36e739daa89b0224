"""One delivery attempt on the wire: a POST to the vetted address (``addresses.Target``), nothing else.

- The connection goes to ``target.address`` (resolved and checked just before), never to the name again; TLS sends the
  name as SNI and checks the certificate against the name, and the ``Host`` header is the name: to the receiver it is
  an ordinary request to its URL.
- A bare urllib3 connection, not a pool's ``urlopen``: no redirect is ever followed (a 3xx is the attempt's answer,
  a failure) and nothing is retried here (the delivery's schedule retries).
- The whole attempt is bounded (``timeout``, 15 s): every socket operation waits at most what remains of it, and a
  watchdog shuts the socket at the deadline, so a receiver dribbling a byte at a time cannot stretch it.
- At most ``max_body`` (1 KB) of the answer's body is read, then the connection is closed: a receiver answering
  megabytes costs nothing more.
"""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.webhooks.addresses import Target

TIMEOUT_SECONDS = 15.0  # authoring.md: a 2xx answer within 15 seconds delivers
MAX_BODY = 1024

# Starts a timer calling ``callback`` after ``seconds``; returns what cancels it. Injected by tests to fire the
# deadline on an event instead of on the wall clock.
type StartTimer = Callable[[float, Callable[[], None]], Callable[[], None]]


def thread_timer(seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
    timer = threading.Timer(seconds, callback)
    timer.daemon = True
    timer.start()
    return timer.cancel


@dataclass(frozen=True)
class Answer:
    """What an attempt got: the receiver's HTTP status, or (``status`` None) why there was no answer."""

    status: int | None
    error: str | None = None
    body_read: int = 0  # bytes of the answer's body read (at most ``max_body``)

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class HttpSender:
    def __init__(
        self,
        *,
        timeout: float = TIMEOUT_SECONDS,
        max_body: int = MAX_BODY,
        ca_certs: str | None = None,
        start_timer: StartTimer = thread_timer,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._timeout = timeout
        self._max_body = max_body
        self._ca_certs = ca_certs
        self._start_timer = start_timer
        self._clock = clock

    def post(self, target: Target, headers: Mapping[str, str], body: bytes) -> Answer:
        from urllib3.connection import HTTPConnection, HTTPSConnection  # the worker's alone: botocore ships it

        deadline = self._clock() + self._timeout
        conn: Any
        if target.scheme == "https":
            conn = HTTPSConnection(
                target.address, target.port, timeout=self._timeout, server_hostname=target.host,
                assert_hostname=target.host, cert_reqs="CERT_REQUIRED", ca_certs=self._ca_certs or _ca_bundle(),
            )  # fmt: skip
        else:  # only with WEBHOOK_ALLOW_LOCAL (addresses.target refuses http:// otherwise)
            conn = HTTPConnection(target.address, target.port, timeout=self._timeout)
        expired = threading.Event()

        def cut() -> None:  # the deadline: whatever the connection is doing now fails at once
            expired.set()
            sock = conn.sock
            if sock is not None:
                with contextlib.suppress(OSError):  # already closed: nothing left to cut
                    sock.shutdown(socket.SHUT_RDWR)

        cancel = self._start_timer(self._timeout, cut)
        try:
            default_port = 443 if target.scheme == "https" else 80
            host = target.host if target.port == default_port else f"{target.host}:{target.port}"
            if ":" in target.host and not host.startswith("["):  # an IPv6 literal as the URL's host
                host = f"[{target.host}]" + ("" if target.port == default_port else f":{target.port}")
            conn.connect()
            if expired.is_set():  # the deadline came while connecting, before there was a socket to cut
                raise TimeoutError
            conn.request("POST", target.path, body=body, headers={"host": host, **headers}, preload_content=False,
                         decode_content=False)  # fmt: skip
            response = conn.getresponse()
            if conn.sock is not None:  # the answer's first line came; the rest waits at most what is left
                conn.sock.settimeout(max(deadline - self._clock(), 0.001))
            return Answer(status=int(response.status), body_read=self._drain(response, expired))
        except Exception as exc:  # any failure of the wire is the attempt's answer, never the worker's
            if expired.is_set():
                return Answer(status=None, error=f"timed out after {self._timeout:g} s")
            return Answer(status=None, error=describe(exc))
        finally:
            cancel()
            conn.close()

    def _drain(self, response: Any, expired: threading.Event) -> int:
        """Read at most ``max_body`` of the answer's body (the rest is dropped with the connection). The status came
        in time, so it stands: a body cut by the deadline or the receiver is no failure of the attempt."""
        read = 0
        try:
            while read < self._max_body and not expired.is_set():
                chunk = response.read(self._max_body - read)
                if not chunk:
                    break
                read += len(chunk)
        except Exception:  # noqa: S110 - the status decides; what the body did after it does not
            pass
        return read


def describe(exc: BaseException) -> str:
    """A short reason for ``lastError`` (the owner reads it): the kind of failure, never a header or a secret."""
    import ssl

    from urllib3.exceptions import ConnectTimeoutError, NewConnectionError, ReadTimeoutError
    from urllib3.util.ssl_match_hostname import CertificateError

    if isinstance(exc, CertificateError):  # urllib3's own match against the URL's host (assert_hostname)
        return "TLS certificate not accepted: it does not name the URL's host"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not accepted: {exc.verify_message or exc.reason}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed: {exc.reason or type(exc).__name__}"
    if isinstance(exc, ConnectionRefusedError) or (
        isinstance(exc, NewConnectionError) and isinstance(exc.__cause__ or exc.__context__, ConnectionRefusedError)
    ):
        return "connection refused"
    if isinstance(exc, NewConnectionError):  # before the timeouts: urllib3 makes it a ConnectTimeoutError too
        cause = exc.__cause__ or exc.__context__
        return "timed out" if isinstance(cause, TimeoutError) else "could not connect"
    if isinstance(exc, ConnectTimeoutError | ReadTimeoutError | TimeoutError | socket.timeout):
        return "timed out"
    if isinstance(exc, ConnectionError):
        return "connection closed by the receiver"
    return f"no HTTP answer ({type(exc).__name__})"


def _ca_bundle() -> str:
    """The certificate authorities botocore ships (``botocore/cacert.pem``, in the layer with it): the trust boto3 has
    in AWS's endpoints, read as a file (the sender holds no AWS client)."""
    spec = importlib.util.find_spec("botocore")
    assert spec is not None and spec.origin is not None
    return str(Path(spec.origin).parent / "cacert.pem")
