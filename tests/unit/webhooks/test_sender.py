"""The delivery's POST on the wire (core.webhooks.sender), against receivers on loopback: no redirect followed (the
metadata address a 302 names is never connected to), at most 1 KB of an endless answer read, the deadline cut by its
watchdog, TLS to the vetted address with the name as SNI, Host and the certificate's subject.
"""

from __future__ import annotations

import datetime as dt
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import urllib3.util.connection

from core.webhooks.addresses import Target
from core.webhooks.sender import HttpSender
from tests.support.deliveries import Receiver, receiving

HEADERS = {"content-type": "application/json", "webhook-id": "evt_1"}


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every address the sender connects to (urllib3's own connect, which its connections call)."""
    made: list[tuple[str, int]] = []
    connect = urllib3.util.connection.create_connection

    def recorded(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        made.append(address)
        return connect(address, *args, **kwargs)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", recorded)
    return made


def local(port: int, path: str = "/hook", scheme: str = "http", host: str = "127.0.0.1") -> Target:
    return Target(scheme=scheme, host=host, port=port, path=path, address="127.0.0.1")


def test_a_redirect_to_the_metadata_address_is_not_followed(connections: list[tuple[str, int]]) -> None:
    metadata = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
    with receiving(Receiver(answer=lambda n, path: (302, {"location": metadata}, b""))) as receiver:
        answer = HttpSender().post(local(receiver.port), HEADERS, b"{}")
    assert answer.status == 302 and not answer.delivered
    assert len(receiver.hits) == 1
    assert connections == [("127.0.0.1", receiver.port)]  # the receiver only: 169.254.169.254 never reached


@contextmanager
def endless_answer(total: int) -> Iterator[dict[str, Any]]:
    """A raw receiver answering 200 with a body of ``total`` bytes, written as fast as the peer takes them; ``sent``
    counts what it managed to write before the peer closed."""
    listener = socket.create_server(("127.0.0.1", 0))
    seen: dict[str, Any] = {"port": listener.getsockname()[1], "sent": 0, "error": None}

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                request += conn.recv(65536)
            conn.sendall(f"HTTP/1.1 200 OK\r\ncontent-length: {total}\r\n\r\n".encode())
            chunk = b"x" * 65536
            try:
                while seen["sent"] < total:
                    seen["sent"] += conn.send(chunk)
            except OSError as exc:  # the sender closed after its kilobyte
                seen["error"] = type(exc).__name__

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        thread.join(30)
        listener.close()


def test_an_answer_of_megabytes_is_read_to_one_kilobyte_and_the_attempt_finishes() -> None:
    total = 64 * 1024 * 1024
    with endless_answer(total) as seen:
        answer = HttpSender().post(local(seen["port"]), HEADERS, b"{}")
    print(f"body bytes read by the sender: {answer.body_read}; written by the receiver before the close: "
          f"{seen['sent']} of {total}")  # fmt: skip
    assert answer.status == 200 and answer.delivered
    assert answer.body_read == 1024
    assert seen["sent"] < total and seen["error"] is not None  # the rest was refused: the connection was closed


class Fired:
    """A timer the test fires: ``fire()`` runs the deadline's callback of every POST still under way."""

    def __init__(self) -> None:
        self.started: list[tuple[float, Callable[[], None]]] = []
        self.cancelled = 0

    def __call__(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        self.started.append((seconds, callback))

        def cancel() -> None:
            self.cancelled += 1

        return cancel

    def fire(self) -> None:
        for _, callback in self.started:
            callback()


def test_a_receiver_that_hangs_is_cut_at_the_deadline() -> None:
    timer = Fired()
    hit = threading.Event()
    receiver = Receiver(hang=lambda path: True, on_hit=lambda h: hit.set())
    with receiving(receiver):
        sender = HttpSender(start_timer=timer)
        result: list[Any] = []
        worker = threading.Thread(target=lambda: result.append(sender.post(local(receiver.port), HEADERS, b"{}")))
        worker.start()
        assert hit.wait(30), "the receiver never got the POST"
        assert [seconds for seconds, _ in timer.started] == [15.0]  # the whole attempt's bound
        timer.fire()
        worker.join(30)
    assert result and result[0].status is None and result[0].error == "timed out after 15 s"


def test_a_refused_connection_is_the_attempts_error() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    answer = HttpSender().post(local(port), HEADERS, b"{}")
    assert answer.status is None and answer.error == "connection refused"


# --- TLS: the vetted address, the name as SNI, Host and certificate subject


def certificates(tmp: Path, name: str) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for ``name`` signed by it: (ca, cert, key) files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(1).not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    cert = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(2)
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    files = tmp / "ca.pem", tmp / "cert.pem", tmp / "key.pem"
    files[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))  # fmt: skip
    return files


@contextmanager
def tls_receiver(cert: Path, key: Path) -> Iterator[dict[str, Any]]:
    """An HTTPS receiver on 127.0.0.1 answering 204, keeping the SNI and Host of each request."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    seen: dict[str, Any] = {"sni": [], "host": []}
    context.sni_callback = lambda sock, server_name, ctx: seen["sni"].append(server_name)
    listener = socket.create_server(("127.0.0.1", 0))
    seen["port"] = listener.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(raw, server_side=True) as conn:
                    request = b""
                    while b"\r\n\r\n" not in request and (chunk := conn.recv(65536)):
                        request += chunk
                    head, _, body = request.partition(b"\r\n\r\n")
                    length = 0
                    for line in head.decode().split("\r\n"):
                        if line.lower().startswith("host:"):
                            seen["host"].append(line.split(":", 1)[1].strip())
                        if line.lower().startswith("content-length:"):
                            length = int(line.split(":", 1)[1])
                    # Read the body before answering: closing with unread bytes makes the kernel send a reset,
                    # which can reach the sender before the answer does ("connection closed by the receiver").
                    while len(body) < length and (chunk := conn.recv(65536)):
                        body += chunk
                    conn.sendall(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
            except (ssl.SSLError, OSError):
                continue  # a client that refused our certificate

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        listener.close()


def test_tls_goes_to_the_vetted_address_with_the_name_as_sni_host_and_certificate(tmp_path: Path) -> None:
    ca, cert, key = certificates(tmp_path, "hooks.example.test")
    with tls_receiver(cert, key) as seen:
        sender = HttpSender(ca_certs=str(ca))
        answer = sender.post(local(seen["port"], scheme="https", host="hooks.example.test"), HEADERS, b"{}")
        assert answer.status == 204 and answer.delivered, answer
        assert seen["sni"] == ["hooks.example.test"], seen
        assert seen["host"] == [f"hooks.example.test:{seen['port']}"]
        # The same address for another name: its certificate does not name it, so nothing is sent.
        refused = sender.post(local(seen["port"], scheme="https", host="other.example.test"), HEADERS, b"{}")
    assert refused.status is None and refused.error is not None and refused.error.startswith("TLS"), refused
    assert seen["host"] == [f"hooks.example.test:{seen['port']}"], seen


def test_certificates_are_checked_against_the_bundle_botocore_ships() -> None:
    from core.webhooks.sender import _ca_bundle

    bundle = Path(_ca_bundle())
    assert bundle.name == "cacert.pem" and b"BEGIN CERTIFICATE" in bundle.read_bytes()
