"""Issue 43: a workspace's storage is a kept counter, never a listing. An upload's signing asks nothing of S3 however
many objects the workspace holds; S3's notifications (at least once, in no set order) keep the counter exact across
uploads, replacements and deletions; an agent's purge lets go of its bytes, in bounded passes that resume."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from core.objects import providers as objects
from core.platform import aws
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.portal import Portal
from tests.support.storage import counted, deliver, event, landed, sequencer

SIGN = "PortalUploadCreateFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def s3_calls() -> Iterator[list[str]]:
    made: list[str] = []
    aws.s3().meta.events.register("before-call.s3", lambda model, **_: made.append(model.name))
    return iter([made])


def put(studio: Studio, path: str, body: bytes) -> None:
    studio.put_object(path, body, "image/png")
    landed(studio.portal.aws.s3, studio.workspace_id, path)


@pytest.mark.parametrize("stored", [1, 60])
def test_an_upload_signing_asks_nothing_of_s3_however_many_objects_there_are(studio: Studio, stored: int) -> None:
    """Before: one ListObjectsV2 per thousand objects on every signing (and per retry of its line)."""
    for n in range(stored):
        put(studio, f"assets/{n}.png", b"x" * 3)
    assert counted(studio.workspace_id) == 3 * stored
    made = next(s3_calls())
    studio.ok(SIGN, 201, body={"path": "assets/new.png", "contentType": "image/png", "size": 5})
    # Only the presigned POST, which boto3 signs locally: no request reaches S3
    assert [name for name in made if name != "PutObject"] == [], made


def test_notifications_keep_the_counter_exact_whatever_their_order_or_repetition(studio: Studio) -> None:
    ws = studio.workspace_id
    studio.put_object("assets/a.png", b"a" * 10, "image/png")
    one, two, three, four = (sequencer() for _ in range(4))
    created = event(ws, "assets/a.png", 10, one, version="v1")
    replaced = event(ws, "assets/a.png", 40, two, version="v2")
    assert deliver(created) and counted(ws) == 10
    assert not deliver(created) and counted(ws) == 10  # delivered twice: counted once
    assert deliver(replaced) and counted(ws) == 40  # a replacement moves by the difference
    assert not deliver(created) and counted(ws) == 40  # the older one, arriving late, moves nothing
    marker = event(ws, "assets/a.png", None, four, version="m1", deleted="Delete Marker Created")
    late = event(ws, "assets/a.png", 70, three, version="v3")
    assert deliver(marker) and counted(ws) == 0  # the delete, before the upload it followed
    assert not deliver(late) and counted(ws) == 0  # the upload it followed, late: the key stays empty
    # A version deleted for good: the notification cannot say what the key holds now, so the worker looks.
    studio.put_object("assets/b.png", b"b" * 7, "image/png")
    assert deliver(event(ws, "assets/b.png", None, sequencer(), version="x", deleted="Permanently Deleted"))
    assert counted(ws) == 7


def test_the_apis_deletion_lets_go_at_once_and_its_notification_moves_nothing(studio: Studio) -> None:
    ws = studio.workspace_id
    put(studio, "assets/a.png", b"a" * 30)
    put(studio, "assets/b.png", b"b" * 12)
    assert counted(ws) == 42
    studio.ok("PortalObjectDeleteFunction", path="assets/a.png")
    assert counted(ws) == 12
    deliver(event(ws, "assets/a.png", None, sequencer(), version="m", deleted="Delete Marker Created"))
    assert counted(ws) == 12  # the record takes the notification's sequencer; the counter does not move again


def test_a_deleted_workspaces_late_notifications_write_nothing_back(portal: Portal, studio: Studio) -> None:
    ws = studio.workspace_id
    portal.aws.dynamodb.delete_item(TableName=get_settings().main_table, Key={"pk": {"S": f"WS#{ws}"},
                                                                              "sk": {"S": "WS"}})  # fmt: skip
    assert not deliver(event(ws, "assets/a.png", 10, sequencer()))
    assert objects.storage().record(ws, "assets/a.png") is None


def test_a_purge_clears_an_agents_bytes_in_pages_and_resumes_after_a_fault(studio: Studio) -> None:
    """199 records under the agent's folder (three pages of 99): a pass that fails after the first page leaves the
    counter moved by exactly that page; the next pass finishes; nothing is taken off twice."""
    ws, store = studio.workspace_id, objects.storage()
    for n in range(199):
        assert deliver(event(ws, f"projects/prj_x/{n:04d}.bin", 2, sequencer()))
    put(studio, "assets/kept.png", b"k" * 5)
    assert counted(ws) == 2 * 199 + 5
    calls = iter(range(100))

    def one_page() -> bool:
        return next(calls) < 1  # the pass is cut off after its first page

    assert store.clear_prefix(ws, "projects/prj_x/", one_page) == 2 * 99
    assert counted(ws) == 2 * 100 + 5
    assert store.clear_prefix(ws, "projects/prj_x/", lambda: True) == 2 * 100
    assert counted(ws) == 5
    assert store.clear_prefix(ws, "projects/prj_x/", lambda: True) == 0  # run again: nothing left, nothing twice
    assert counted(ws) == 5


def test_a_purge_query_reads_at_most_a_page(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: ``_keys_of`` sent no Limit, so each Query read up to 1 MB of a big partition to delete 500 items.
    (A page of 50 here, the purge's own is 500: the same partition of more than two pages in a tenth of the posts.)"""
    from core.purge import store as purge_store
    from core.purge.store import PurgeStore
    from tests.support.seed import Seeder

    monkeypatch.setattr(purge_store, "PAGE", 50)
    seed = Seeder(portal.aws.dynamodb)
    owner = seed.user("purge-pages@example.com", plan="pro")
    agent = seed.agent(seed.workspace(owner, "Pages"))
    seed.posts(agent.id, 120)
    client = aws.dynamodb()
    read: list[int] = []
    client.meta.events.register("after-call.dynamodb.Query", lambda parsed, **_: read.append(parsed.get("Count", 0)))
    PurgeStore(client, get_settings().main_table).delete_agent_records(agent.id, lambda: True)
    assert len(read) > 2 and max(read) <= purge_store.PAGE, read


def test_the_purge_worker_applies_s3_notifications(studio: Studio) -> None:
    from tests.support.lambdas import handler_module
    from tests.support.portal import WorkerContext, sqs_event

    ws = studio.workspace_id
    body = json.dumps(event(ws, "assets/z.png", 9, sequencer()))
    message: dict[str, Any] = {"MessageId": "m1", "ReceiptHandle": "r", "Body": body, "MD5OfBody": "x"}
    answer = handler_module("WorkspacePurgeFunction").lambda_handler(sqs_event([message]), WorkerContext())
    assert answer == {"batchItemFailures": []} and counted(ws) == 9


def test_reconcile_storage_fixes_drift_resumes_and_then_finds_none(studio: Studio) -> None:
    """Objects stored before the counter was kept (no notification) and a record left by a lost delete: the
    command's pages fix both, a run resumed with ``--after`` picks up there, and a second run finds no drift."""
    from ops.reconcile_storage import reconcile

    ws, store = studio.workspace_id, objects.storage()
    for n in range(5):
        studio.put_object(f"assets/{n}.png", b"x" * (n + 1), "image/png")  # 15 bytes nobody counted
    deliver(event(ws, "assets/gone.png", 50, sequencer()))  # counted, but nothing is there
    assert counted(ws) == 50
    lines: list[dict[str, Any]] = []
    settings = get_settings()
    from core.objects.write_store import ObjectStore

    bucket = ObjectStore(aws.s3(), settings.content_bucket)
    drift = reconcile(ws, bucket, store, aws.dynamodb(), settings.main_table, after="assets/2.png", say=lines.append)
    assert drift == 4 + 5 - 50 and counted(ws) == 9  # from the cursor on: 3.png, 4.png and the ghost
    assert reconcile(ws, bucket, store, aws.dynamodb(), settings.main_table, say=lines.append) == 6
    assert counted(ws) == 15
    assert reconcile(ws, bucket, store, aws.dynamodb(), settings.main_table, say=lines.append) == 0
    assert lines[-1] == {"workspaceId": ws, "listed": 5, "drift": 0, "after": None}
