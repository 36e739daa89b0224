"""A workspace's storage counter through the local runner (issue 43): the browser's upload goes straight to S3 by a
presigned POST; S3's "Object Created" goes through EventBridge (StorageObjectEventsRule) to the purge queue, whose
worker moves the counter. A replacement moves it by the difference, the API's deletion lets go at once, and once real
uploads have filled the free plan's 500 MiB, the next signing is refused (402).

The runner's moto sends S3's events to EventBridge as S3 does for a created object (every event one sequencer: the
version tells them apart); a delete in the versioned bucket (a delete marker) sends none there, which is why the
deletion's own write of the counter is what this checks.

Its runner starts without the demo (``--no-demo``): nothing here reads the demo, and a first publish of it (once per
version of the code) takes minutes on a loaded machine."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.platform.settings import MIB, PLAN_LIMITS
from stack.process import RunnerProcess
from stack.template import Stack, load
from tests.support import iam_plugin
from tests.support.runner import GENEROUS_MAIL, LocalService, portal, sign_in

FREE = PLAN_LIMITS["free"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    """A runner of this module's own, without the demo; its functions' calls judged against their IAM policies."""
    state_dir = tmp_path_factory.mktemp("storage-runner")
    judged = iam_plugin.runner_environment(state_dir / "iam-check")
    runner = RunnerProcess(state_dir, function_env=GENEROUS_MAIL | judged, demo=False)
    try:
        yield LocalService(runner.start(), state_dir)
    finally:
        runner.stop()
    denied = iam_plugin.collect_runner(state_dir / "iam-check", "tests/e2e/test_storage_http.py")
    assert not denied, "the runner's functions made calls outside their IAM policy:\n" + "\n".join(denied[:20])


def stored(service: LocalService, workspace: str) -> int:
    """The workspace's counter: its ``STORAGE`` item's bytes (0 before anything was counted)."""
    found = service.aws("dynamodb").get_item(
        TableName=Stack(load()).physical_name("MainTable"), ConsistentRead=True,
        Key={"pk": {"S": f"WS#{workspace}"}, "sk": {"S": "STORAGE"}},
    ).get("Item", {})  # fmt: skip
    return int(found.get("bytes", {}).get("N", "0"))


def counted_once(service: LocalService, workspace: str, expected: int, seconds: float = 60) -> None:
    """Wait until the worker has applied S3's notifications and the counter says ``expected``."""
    deadline = time.monotonic() + seconds
    while (now := stored(service, workspace)) != expected:
        assert time.monotonic() < deadline, f"the counter says {now}, not {expected}"
        time.sleep(0.1)


def sign(service: LocalService, jwt: str, workspace: str, path: str, size: int) -> Any:
    body = {"path": path, "contentType": "image/png", "size": size}
    return portal(service, "POST", f"/api/workspaces/{workspace}/uploads", jwt, body)


def upload(service: LocalService, jwt: str, workspace: str, path: str, body: bytes) -> None:
    """Signed by the portal, then posted straight to the runner's S3, as the console does."""
    signed = sign(service, jwt, workspace, path, len(body))
    assert signed.status == 201, signed.body
    form = signed.json()
    sent = httpx.post(form["url"], data=form["fields"], files={"file": ("f.png", body, "image/png")}, timeout=60)
    assert sent.status_code in (200, 201, 204), sent.text


def workspace_of(service: LocalService, email: str) -> tuple[str, str]:
    """A new free user's workspace: (its id, the user's portal JWT)."""
    _, jwt = sign_in(service, email)
    created = portal(service, "POST", "/api/workspaces", jwt, {"name": "Storage counter"})
    assert created.status == 201, created.body
    return created.json()["workspace"]["id"], jwt


def test_an_upload_a_replacement_and_a_deletion_move_the_counter(service: LocalService) -> None:
    ws, jwt = workspace_of(service, "storage.counter@e2e.example")
    assert stored(service, ws) == 0

    upload(service, jwt, ws, "public/a.png", b"a" * 1_234)
    counted_once(service, ws, 1_234)
    upload(service, jwt, ws, "public/a.png", b"a" * 200)  # a replacement: by the difference
    counted_once(service, ws, 200)
    deleted = portal(service, "DELETE", f"/api/workspaces/{ws}/objects/public/a.png", jwt)
    assert deleted.status == 200, deleted.body
    assert stored(service, ws) == 0  # at once, by the deletion itself
    upload(service, jwt, ws, "public/b.png", b"b" * 77)
    counted_once(service, ws, 77)


def test_once_real_uploads_fill_the_plan_the_next_signing_is_refused(service: LocalService) -> None:
    ws, jwt = workspace_of(service, "storage.full@e2e.example")
    # Fill the plan with real uploads: 20 objects of 25 MiB (the free plan's largest object) are its 500 MiB.
    per, count = FREE.object_bytes, FREE.storage_bytes // FREE.object_bytes
    assert per * count == FREE.storage_bytes == 500 * MIB
    for n in range(count):
        upload(service, jwt, ws, f"public/fill-{n:02d}.png", bytes([n]) * per)
    counted_once(service, ws, FREE.storage_bytes)
    refused = sign(service, jwt, ws, "public/one-more.png", 1)
    assert (refused.status, refused.json()["code"]) == (402, "STORAGE_LIMIT_REACHED"), refused.body

    # A deletion lets go of its bytes in the counter at once; its ticket, which could store them again until it
    # expires, still holds them for the signings (docs/decisions.md: every ticket counts until it expires or lands).
    assert portal(service, "DELETE", f"/api/workspaces/{ws}/objects/public/fill-00.png", jwt).status == 200
    assert stored(service, ws) == FREE.storage_bytes - per
    assert sign(service, jwt, ws, "public/one-more.png", 1).status == 402
