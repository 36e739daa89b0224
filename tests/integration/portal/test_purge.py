"""WorkspacePurgeFunction: a deleted workspace's objects, records and keys go; nothing else; resumable, idempotent."""

from __future__ import annotations

import itertools
import logging
import time
from typing import Any

import pytest

from core.platform import main_table, usage_counters
from core.platform.rate_shards import shard_subject
from core.platform.settings import get_settings
from core.purge import store as purge_store
from tests.support.lambdas import handler_module
from tests.support.portal import Portal, Session, WorkerContext, sqs_event, take_purge_messages
from tests.support.seed import Seeder

# The purge deletes a page of versions a request (DeleteObjects' limit, 1,000); here a page is made 100 so that the
# same shapes (two and a half pages, a pass short of time after one page) take a tenth of the objects: putting 2,500
# objects one by one through moto took about 20 s of each of three tests.
BATCH = 100
OBJECTS = 2 * BATCH + BATCH // 2


@pytest.fixture(autouse=True)
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(purge_store, "DELETE_BATCH", BATCH)


def put_objects(portal: Portal, workspace_id: str, count: int) -> None:
    for n in range(count):
        folder = ("projects/prj_1/media", "assets", "conversations/t1", "private")[n % 4]
        portal.aws.s3.put_object(Bucket=get_settings().content_bucket, Key=f"workspaces/{workspace_id}/{folder}/{n}",
                                 Body=b"x")  # fmt: skip


def objects_under(portal: Portal, prefix: str) -> int:
    pages = portal.aws.s3.get_paginator("list_objects_v2").paginate(Bucket=get_settings().content_bucket, Prefix=prefix)
    return sum(page.get("KeyCount", 0) for page in pages)


def partition(portal: Portal, pk: str) -> list[dict[str, Any]]:
    query = {"TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
             "ExpressionAttributeValues": {":pk": {"S": pk}}}  # fmt: skip
    return portal.aws.dynamodb.query(**query)["Items"]


def key_rows(portal: Portal, workspace_id: str) -> list[dict[str, Any]]:
    rows = portal.aws.dynamodb.scan(TableName=get_settings().api_keys_table)["Items"]
    return [r for r in rows if r["workspaceId"]["S"] == workspace_id]


def run_worker(messages: list[dict[str, Any]], context: WorkerContext | None = None) -> dict[str, Any]:
    return handler_module("WorkspacePurgeFunction").lambda_handler(sqs_event(messages), context or WorkerContext())


def seeded_workspace(portal: Portal, owner: Session, name: str, objects: int) -> dict[str, Any]:
    """A workspace with a key, an agent with posts and items, a spare workflow and ``objects`` objects."""
    ws = portal.create_workspace(owner, name)
    portal.mint_key(owner, ws["id"])
    seed, record = Seeder(portal.aws.dynamodb), portal.workspace_record(ws["id"])
    agent = seed.agent(record, slug=f"agent-{name.lower()}")
    seed.posts(agent.id, 30)
    seed.items(agent.id, [{} for _ in range(5)])
    seed.workflow(record)
    put_objects(portal, ws["id"], objects)
    return ws | {"agentId": agent.id}


@pytest.fixture
def doomed_and_kept(portal: Portal) -> tuple[Session, dict[str, Any], dict[str, Any]]:
    owner = portal.sign_in("owner@example.com", plan="pro")
    kept = seeded_workspace(portal, owner, "Kept", 40)
    doomed = seeded_workspace(portal, owner, "Doomed", OBJECTS)
    portal.aws.s3.put_object(Bucket=get_settings().content_bucket, Key=f"workspaces/{doomed['id']}x/edge", Body=b"")
    deleted = portal.call("PortalWorkspaceDeleteFunction", token=owner.token, params={"workspaceId": doomed["id"]})
    assert deleted.json() == {"deleted": True}
    return owner, doomed, kept


def assert_purged(portal: Portal, ws: dict[str, Any]) -> None:
    assert objects_under(portal, f"workspaces/{ws['id']}/") == 0
    assert partition(portal, f"WS#{ws['id']}") == []
    assert partition(portal, main_table.posts_partition(ws["agentId"])) == []
    assert partition(portal, main_table.items_partition(ws["agentId"])) == []
    assert partition(portal, f"PURGE#{ws['id']}") == []
    assert key_rows(portal, ws["id"]) == []


def assert_intact(portal: Portal, owner: Session, ws: dict[str, Any]) -> None:
    assert objects_under(portal, f"workspaces/{ws['id']}/") == 40
    assert objects_under(portal, f"workspaces/{ws['id']}x/") == 0
    # A post is its canonical item (ID#) and its row (POST# or DRAFT#); its filter copies are another partition.
    assert len(partition(portal, main_table.posts_partition(ws["agentId"]))) == 2 * 30
    assert len(partition(portal, main_table.items_partition(ws["agentId"]))) == 5
    assert len(key_rows(portal, ws["id"])) == 1
    fetched = portal.call("PortalWorkspaceGetFunction", token=owner.token, params={"workspaceId": ws["id"]})
    assert fetched.status == 200


def test_purge_deletes_everything_of_the_workspace_and_nothing_else(portal: Portal, doomed_and_kept: Any) -> None:
    owner, doomed, kept = doomed_and_kept
    assert len(key_rows(portal, doomed["id"])) == 1 and objects_under(portal, f"workspaces/{doomed['id']}/") == OBJECTS
    assert run_worker(take_purge_messages(portal.aws.sqs)) == {"batchItemFailures": []}
    assert_purged(portal, doomed)
    assert_intact(portal, owner, kept)
    assert objects_under(portal, f"workspaces/{doomed['id']}x/") == 1  # a sibling prefix is not "under" it
    assert take_purge_messages(portal.aws.sqs) == []
    # twice is harmless, and the owner's DELETE now finds nothing
    assert run_worker([{"MessageId": "m2", "ReceiptHandle": "r2", "Body": f'{{"workspaceId": "{doomed["id"]}"}}',
                        "MD5OfBody": ""}]) == {"batchItemFailures": []}  # fmt: skip
    assert take_purge_messages(portal.aws.sqs) == []
    assert_intact(portal, owner, kept)
    again = portal.call("PortalWorkspaceDeleteFunction", token=owner.token, params={"workspaceId": doomed["id"]})
    assert again.status == 404


def usage_rows(portal: Portal, workspace_id: str, key_ids: list[str]) -> list[dict[str, Any]]:
    """The workspace's usage days (ledger table) and its keys' window items (rate-limits table, every shard)."""
    settings = get_settings()
    query = {"TableName": settings.ledger_table, "KeyConditionExpression": "pk = :pk",
             "ExpressionAttributeValues": {":pk": {"S": f"USAGE#{workspace_id}"}}}  # fmt: skip
    windows = portal.aws.dynamodb.scan(TableName=settings.rate_limits_table)["Items"]
    mine = [w for w in windows if any(w["pk"]["S"].startswith(f"key#{key_id}") for key_id in key_ids)]
    return portal.aws.dynamodb.query(**query)["Items"] + mine


def test_a_deleted_workspaces_usage_goes_with_it_and_anothers_stays(portal: Portal, doomed_and_kept: Any) -> None:
    """A key's requests and an agent's chat turns are counted on the key's window items and the workspace's usage
    days; after the purge none of the deleted workspace's is left, and the kept one's is all there."""
    _, doomed, kept = doomed_and_kept
    keys = {ws["id"]: [r["id"]["S"] for r in key_rows(portal, ws["id"])] for ws in (doomed, kept)}
    for ws in (doomed, kept):
        for key_id in keys[ws["id"]]:
            seed_usage(portal, ws["id"], key_id, ws["agentId"])
        assert len(usage_rows(portal, ws["id"], keys[ws["id"]])) == 2 + 2 * len(keys[ws["id"]])
    assert run_worker(take_purge_messages(portal.aws.sqs)) == {"batchItemFailures": []}
    assert usage_rows(portal, doomed["id"], keys[doomed["id"]]) == []
    assert len(usage_rows(portal, kept["id"], keys[kept["id"]])) == 2 + 2 * len(keys[kept["id"]])


def seed_usage(portal: Portal, workspace_id: str, key_id: str, agent_id: str) -> None:
    """Two days of a key's requests (its window item and a second shard's) and of the workspace's chat usage."""
    settings, today = get_settings(), usage_counters.day_of(time.time())
    counted = {usage_counters.name(usage_counters.COUNTED, day, tag): {"N": "3"}
               for day in (today - 1, today) for tag in ("", usage_counters.tag_of(agent_id))}  # fmt: skip
    for shard in range(2):
        subject = shard_subject(f"key#{key_id}", shard)
        portal.aws.dynamodb.put_item(TableName=settings.rate_limits_table, Item={"pk": {"S": subject}} | counted)
    for day in ("2026-11-26", "2026-11-27"):
        portal.aws.dynamodb.put_item(TableName=settings.ledger_table, Item={
            "pk": {"S": usage_counters.usage_partition(workspace_id)}, "sk": {"S": day},
            usage_counters.chat_name(usage_counters.TURNS, "key", key_id): {"N": "2"},
        })  # fmt: skip


def test_a_pass_short_of_time_requeues_and_a_later_pass_finishes(
    portal: Portal, doomed_and_kept: Any, caplog: pytest.LogCaptureFixture
) -> None:
    owner, doomed, kept = doomed_and_kept
    calls = itertools.count()
    short = WorkerContext(remaining=lambda: 900_000 if next(calls) < 1 else 0)
    with caplog.at_level(logging.INFO, logger="purge"):
        assert run_worker(take_purge_messages(portal.aws.sqs), short) == {"batchItemFailures": []}
    (passed,) = [r for r in caplog.records if r.getMessage() == "purge pass"]
    assert (passed.finished, passed.objects_deleted) == (False, BATCH)  # type: ignore[attr-defined]
    assert objects_under(portal, f"workspaces/{doomed['id']}/") == OBJECTS - BATCH
    assert len(partition(portal, f"PURGE#{doomed['id']}")) == 1
    (requeued,) = take_purge_messages(portal.aws.sqs)
    assert run_worker([requeued]) == {"batchItemFailures": []}
    assert_purged(portal, doomed)
    assert_intact(portal, owner, kept)
    assert take_purge_messages(portal.aws.sqs) == []


def test_no_time_at_all_still_makes_a_clean_requeue(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com", plan="pro")
    ws = seeded_workspace(portal, owner, "Tiny", 3)
    portal.call("PortalWorkspaceDeleteFunction", token=owner.token, params={"workspaceId": ws["id"]})
    assert run_worker(take_purge_messages(portal.aws.sqs), WorkerContext(remaining=lambda: 0)) == {
        "batchItemFailures": []}  # fmt: skip
    assert objects_under(portal, f"workspaces/{ws['id']}/") == 3
    assert run_worker(take_purge_messages(portal.aws.sqs)) == {"batchItemFailures": []}
    assert_purged(portal, ws)


def test_a_message_for_a_live_workspace_purges_nothing(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com", plan="pro")
    ws = seeded_workspace(portal, owner, "Alive", 40)
    body = f'{{"workspaceId": "{ws["id"]}"}}'
    assert run_worker([{"MessageId": "m", "ReceiptHandle": "r", "Body": body, "MD5OfBody": ""}]) == {
        "batchItemFailures": []}  # fmt: skip
    assert_intact(portal, owner, ws)


def test_an_unreadable_message_is_reported_for_redelivery(portal: Portal) -> None:
    messages = [{"MessageId": "bad-1", "ReceiptHandle": "r", "Body": "not json", "MD5OfBody": ""}]
    assert run_worker(messages) == {"batchItemFailures": [{"itemIdentifier": "bad-1"}]}


def versions_under(portal: Portal, prefix: str) -> list[tuple[str, str, bool]]:
    """Every (key, version id, is a delete marker) under ``prefix``: what a plain listing no longer shows."""
    pages = portal.aws.s3.get_paginator("list_object_versions").paginate(Bucket=get_settings().content_bucket,
                                                                        Prefix=prefix)  # fmt: skip
    return [(v["Key"], v["VersionId"], marker) for page in pages
            for marker, found in ((False, page.get("Versions", [])), (True, page.get("DeleteMarkers", [])))
            for v in found]  # fmt: skip


def overwrite_and_delete(portal: Portal, workspace_id: str) -> None:
    """Old versions (objects written twice) and delete markers (objects deleted) under a workspace."""
    bucket = get_settings().content_bucket
    for n in range(3):
        key = f"workspaces/{workspace_id}/assets/v{n}"
        portal.aws.s3.put_object(Bucket=bucket, Key=key, Body=b"old")
        portal.aws.s3.put_object(Bucket=bucket, Key=key, Body=b"new")
    for n in range(2):
        portal.aws.s3.delete_object(Bucket=bucket, Key=f"workspaces/{workspace_id}/assets/v{n}")


def test_the_bucket_is_versioned_as_the_template_says(portal: Portal) -> None:
    versioning = portal.aws.s3.get_bucket_versioning(Bucket=get_settings().content_bucket)
    assert versioning.get("Status") == "Enabled"


def test_purge_deletes_every_version_and_delete_marker_and_leaves_a_neighbours(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com", plan="pro")
    kept = seeded_workspace(portal, owner, "Kept", 40)
    doomed = seeded_workspace(portal, owner, "Doomed", BATCH)  # with the versions below: two pages
    for ws in (kept, doomed):
        overwrite_and_delete(portal, ws["id"])
    kept_versions = versions_under(portal, f"workspaces/{kept['id']}/")
    doomed_versions = versions_under(portal, f"workspaces/{doomed['id']}/")
    # a page of objects + 3 written twice (6 versions) + 2 delete markers
    assert len(doomed_versions) == BATCH + 6 + 2
    assert sum(marker for *_, marker in doomed_versions) == 2
    portal.call("PortalWorkspaceDeleteFunction", token=owner.token, params={"workspaceId": doomed["id"]})
    assert run_worker(take_purge_messages(portal.aws.sqs)) == {"batchItemFailures": []}
    assert versions_under(portal, f"workspaces/{doomed['id']}/") == []
    assert_purged(portal, doomed)
    assert sorted(versions_under(portal, f"workspaces/{kept['id']}/")) == sorted(kept_versions)
    assert take_purge_messages(portal.aws.sqs) == []


def test_a_pass_that_finds_only_old_versions_is_not_finished_until_they_are_gone(portal: Portal) -> None:
    """A workspace whose every object is deleted (only noncurrent versions and markers left) still gets purged."""
    owner = portal.sign_in("owner@example.com", plan="pro")
    ws = seeded_workspace(portal, owner, "Ghost", 0)
    overwrite_and_delete(portal, ws["id"])
    bucket = get_settings().content_bucket
    portal.aws.s3.delete_object(Bucket=bucket, Key=f"workspaces/{ws['id']}/assets/v2")
    assert objects_under(portal, f"workspaces/{ws['id']}/") == 0 and versions_under(portal, f"workspaces/{ws['id']}/")
    portal.call("PortalWorkspaceDeleteFunction", token=owner.token, params={"workspaceId": ws["id"]})
    assert run_worker(take_purge_messages(portal.aws.sqs)) == {"batchItemFailures": []}
    assert versions_under(portal, f"workspaces/{ws['id']}/") == []
    assert_purged(portal, ws)
