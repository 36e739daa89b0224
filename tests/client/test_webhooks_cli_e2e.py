"""``workspace-client webhooks`` against the runner (issue 42's proof: ``webhook.test`` from the CLI): a webhook added
to a receiver of the test's own on loopback (the runner allows it with ``WEBHOOK_ALLOW_LOCAL``), a test event sent
from the command, received and verified with the published ``standardwebhooks`` library (not our code) with the
secret ``add`` printed; ``deliveries`` lists it delivered; after ``rotate`` the next test carries two signatures,
each verified with its secret; ``rm`` removes it."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook as Verifier
from workspace_client.bundle.session import Session, save
from workspace_client.cli import main

from tests.support import log_scan
from tests.support.bundles import signed_in
from tests.support.runner import LocalService, started_service

pytestmark = pytest.mark.e2e

WAIT = 60.0  # seconds for a delivery through the runner's queue poller: a hang detector, not a measure


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("webhooks-cli"), function_env={"WEBHOOK_ALLOW_LOCAL": "true"})


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[dict[str, str], bytes]]]]:
    received: list[tuple[dict[str, str], bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    server.shutdown()
    server.server_close()


def run(capsys: pytest.CaptureFixture[str], session: Path, *argv: str) -> str:
    capsys.readouterr()
    status = main([*argv, "--session-file", str(session)])
    out, err = capsys.readouterr()
    assert status == 0, (out, err)
    return out


def arrived(received: list[tuple[dict[str, str], bytes]], count: int) -> tuple[dict[str, str], bytes]:
    deadline = time.monotonic() + WAIT
    while len(received) < count:
        assert time.monotonic() < deadline, f"{count} deliveries not received within {WAIT:.0f} s: {len(received)}"
        time.sleep(0.05)
    return received[count - 1]


def test_webhook_test_from_the_cli_is_signed_as_standard_webhooks_verify(
    service: LocalService, receiver: tuple[str, list[tuple[dict[str, str], bytes]]], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    url, received = receiver
    portal = signed_in(service, f"webhooks-cli-{uuid.uuid4().hex[:10]}@example.com")
    workspace = portal.create_workspace(name="Webhooks CLI").workspace.id
    session = tmp_path / "session.json"
    save(session, Session(service.portal, portal.session_cookie, None))

    secret = run(
        capsys, session, "webhooks", "add", url, "--workspace", workspace, "--event", "feedback.created"
    ).strip()
    log_scan.register_secret(secret)
    assert secret.startswith("whsec_")
    (hook,) = json.loads(run(capsys, session, "webhooks", "list", "--workspace", workspace, "--json"))
    assert (hook["url"], hook["events"], hook["enabled"]) == (url, ["feedback.created"], True)

    delivery = run(capsys, session, "webhooks", "test", hook["id"], "--workspace", workspace).strip()
    headers, body = arrived(received, 1)
    payload = Verifier(secret).verify(body, headers)
    assert payload["type"] == "webhook.test" and payload["data"]["webhookId"] == hook["id"]
    deadline = time.monotonic() + WAIT
    while True:  # the worker records the answer after the receiver has it
        listed = json.loads(run(capsys, session, "webhooks", "deliveries", hook["id"], "--workspace", workspace,
                                "--json"))["deliveries"]  # fmt: skip
        if listed[0]["status"] == "delivered" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert (listed[0]["id"], listed[0]["status"], listed[0]["eventId"]) == (
        delivery,
        "delivered",
        headers["webhook-id"],
    )
    table = run(
        capsys, session, "webhooks", "deliveries", hook["id"], "--workspace", workspace, "--status", "delivered"
    )
    assert delivery in table and "webhook.test" in table

    rotated = run(capsys, session, "webhooks", "rotate", hook["id"], "--workspace", workspace).strip()
    log_scan.register_secret(rotated)
    assert rotated.startswith("whsec_") and rotated != secret
    run(capsys, session, "webhooks", "test", hook["id"], "--workspace", workspace)
    headers, body = arrived(received, 2)
    assert len(headers["webhook-signature"].split()) == 2  # both secrets sign for 24 hours
    for each in (secret, rotated):
        assert Verifier(each).verify(body, headers)["type"] == "webhook.test"

    assert run(capsys, session, "webhooks", "rm", hook["id"], "--workspace", workspace) == f"removed {hook['id']}\n"
    assert json.loads(run(capsys, session, "webhooks", "list", "--workspace", workspace, "--json")) == []
    portal.close()
