"""Issue 43: a whole workspace's purge, and an agent's (its objects and its posts), killed midway and run again,
leaves nothing and every counter exact; and no call of a purge reads or holds more than a bounded page.

The purge runs as the worker runs it (``core.purge.providers.worker()``, its clients ``core.platform.aws``'s). A
kill is an exception raised right AFTER the n-th call of an operation returned (what it wrote is written, as when
Lambda stops a container between two calls): nothing in the purge catches it. A pass that runs out of time is one
whose ``remaining_ms`` says so after a number of looks (no wall clock). Thousands of objects and posts are seeded
fast (``tests/support/purge_seed.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from core.objects import providers as objects
from core.platform import aws
from core.platform import main_table as keys
from core.platform.settings import get_settings
from core.purge import providers as purge
from core.purge.worker import SAFETY_MS, PurgeResult
from tests.support.portal import Portal
from tests.support.purge_seed import Seeded, delete_agent, delete_workspace, workspace_with

OBJECTS, POSTS = 2_000, 1_000
PLENTY = 900_000


class Killed(BaseException):
    """The container stopped: not an error any code of the purge handles."""


@contextmanager
def killed_after(operation: str, nth: int) -> Iterator[None]:
    """Kill the pass right after the ``nth`` call of ``operation`` (DynamoDB or S3) returned."""
    seen = [0]

    def after(model: Any, **_: Any) -> None:
        if model.name == operation:
            seen[0] += 1
            if seen[0] == nth:
                raise Killed(f"after {operation} #{nth}")

    clients = (aws.dynamodb(), aws.s3())
    for client in clients:
        client.meta.events.register("after-call.*.*", after, unique_id="purge-kill")
    try:
        yield
    finally:
        for client in clients:
            client.meta.events.unregister("after-call.*.*", unique_id="purge-kill")


def budget(looks: int) -> Callable[[], int]:
    """A pass's remaining time: plenty for ``looks`` looks, then below the purge's safety margin."""
    left = iter(range(looks))
    return lambda: PLENTY if next(left, None) is not None else SAFETY_MS - 1


def run(pass_: Callable[[Callable[[], int]], PurgeResult], kills: list[tuple[str, int]], looks: int) -> int:
    """Each kill in turn (each must cut a pass short), one pass that runs out of time, then passes until finished;
    returns how many passes ran."""
    passes = 0
    for operation, nth in kills:
        passes += 1
        with pytest.raises(Killed), killed_after(operation, nth):
            pass_(lambda: PLENTY)
    passes += 1
    assert not pass_(budget(looks)).finished  # out of time: it stops cleanly and asks to run again
    for _ in range(5):
        passes += 1
        if pass_(lambda: PLENTY).finished:
            return passes
    raise AssertionError("the purge never finished")


def count(db: Any, pk: str) -> int:
    query = {"TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
             "ExpressionAttributeValues": {":pk": {"S": pk}}, "Select": "COUNT"}  # fmt: skip
    return sum(page["Count"] for page in db.get_paginator("query").paginate(**query))


def versions(s3: Any, prefix: str) -> dict[str, int]:
    """Every version's and delete marker's size under ``prefix`` (a marker: 0), by key and version."""
    pages = s3.get_paginator("list_object_versions").paginate(Bucket=get_settings().content_bucket, Prefix=prefix)
    found: dict[str, int] = {}
    for page in pages:
        found |= {f"{v['Key']}@{v['VersionId']}": v["Size"] for v in page.get("Versions", [])}
        found |= {f"{m['Key']}@{m['VersionId']}": 0 for m in page.get("DeleteMarkers", [])}
    return found


def current_bytes(s3: Any, prefix: str) -> int:
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=get_settings().content_bucket, Prefix=prefix)
    return sum(o["Size"] for page in pages for o in page.get("Contents", []))


def records(db: Any, workspace_id: str) -> dict[str, int]:
    query = {"TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
             "ExpressionAttributeValues": {":pk": {"S": keys.objects_partition(workspace_id)}}}  # fmt: skip
    pages = db.get_paginator("query").paginate(**query)
    return {i["sk"]["S"]: int(i["size"]["N"]) for page in pages for i in page["Items"]}


def agent_left(db: Any, s3: Any, world: Seeded) -> dict[str, int]:
    agent, ws = world.agent_id, world.workspace.id
    return {
        "objects": len(versions(s3, f"workspaces/{ws}/projects/{agent}/")),
        "posts": count(db, keys.posts_partition(agent)),
        "post copies": count(db, keys.feed_filters_partition(agent)),
        "tombstone": count(db, keys.agent_purge(ws, agent)["pk"]),
    }


@pytest.fixture
def big(portal: Portal) -> Seeded:
    return workspace_with(portal.aws.dynamodb, "purge-resume@example.com", objects=OBJECTS, posts=POSTS)


@pytest.fixture
def neighbour(portal: Portal) -> Seeded:
    return workspace_with(portal.aws.dynamodb, "neighbour@example.com", objects=7, posts=3)


def test_a_workspace_purge_killed_midway_then_run_again_leaves_nothing(
    portal: Portal, big: Seeded, neighbour: Seeded
) -> None:
    db, s3, ws = portal.aws.dynamodb, portal.aws.s3, big.workspace.id
    assert count(db, keys.posts_partition(big.agent_id)) == 2 * POSTS  # a post is its canonical item and its row
    before = (versions(s3, f"workspaces/{neighbour.workspace.id}/"), records(db, neighbour.workspace.id),
              objects.storage().counted(neighbour.workspace.id))  # fmt: skip
    delete_workspace(db, big.workspace)
    worker = purge.worker()
    # Killed among the object versions, the storage records, the posts, and the partitions that go last.
    kills = [("DeleteObjects", 1), ("Query", 2), ("BatchWriteItem", 70), ("BatchWriteItem", 60)]
    passes = run(lambda left: worker.purge(ws, left), kills, looks=3)
    assert passes >= len(kills) + 2
    left = {
        "objects": len(versions(s3, f"workspaces/{ws}/")),
        "workspace": count(db, f"WS#{ws}"),
        "storage records": count(db, keys.objects_partition(ws)),
        "posts": count(db, keys.posts_partition(big.agent_id)),
        "post copies": count(db, keys.feed_filters_partition(big.agent_id)),
        "tombstone": count(db, f"PURGE#{ws}"),
    }
    assert left == dict.fromkeys(left, 0), left
    # The neighbour: every version, record and its counter as they were; the counter still their sum.
    after = (versions(s3, f"workspaces/{neighbour.workspace.id}/"), records(db, neighbour.workspace.id),
             objects.storage().counted(neighbour.workspace.id))  # fmt: skip
    assert after == before
    assert after[2][0] == sum(after[1].values()) == current_bytes(s3, f"workspaces/{neighbour.workspace.id}/")
    assert worker.purge(ws, lambda: PLENTY).finished  # run once more: nothing to do


def test_an_agent_purge_killed_midway_then_run_again_leaves_nothing_and_the_counter_exact(
    portal: Portal, big: Seeded
) -> None:
    db, s3, ws = portal.aws.dynamodb, portal.aws.s3, big.workspace.id
    store = objects.storage()
    assert store.counted(ws)[0] == 3 * OBJECTS + big.kept_bytes
    delete_agent(db, big.workspace, big.agent_id)
    worker = purge.worker()
    # Killed among the objects, the posts, and the storage records' transactions (one killed right after it
    # committed: the next pass must not take those bytes off again).
    kills = [("DeleteObjects", 1), ("BatchWriteItem", 60), ("TransactWriteItems", 3), ("TransactWriteItems", 9)]
    run(lambda left: worker.purge_agent(ws, big.agent_id, left), kills, looks=4)
    assert agent_left(db, s3, big) == {"objects": 0, "posts": 0, "post copies": 0, "tombstone": 0}
    kept = records(db, ws)
    assert {path: size for path, size in kept.items() if size} == {f"assets/{n:07d}.bin": 2 for n in range(5)}
    # Exact: the counter is what S3 holds and the sum of the records, not a byte taken off twice.
    assert store.counted(ws)[0] == sum(kept.values()) == current_bytes(s3, f"workspaces/{ws}/") == big.kept_bytes
    assert worker.purge_agent(ws, big.agent_id, lambda: PLENTY).finished
    assert store.counted(ws)[0] == big.kept_bytes


# What one call may read or hold: DynamoDB's Query page (the purge's PAGE), a BatchWriteItem's 25, a transaction's
# 100, S3's 1,000 a listing page and a DeleteObjects. A Scan would read the table: none.
BOUNDS = {"Query": 500, "BatchWriteItem": 25, "TransactWriteItems": 100, "BatchGetItem": 100,
          "ListObjectVersions": 1_000, "ListObjectsV2": 1_000, "DeleteObjects": 1_000}  # fmt: skip


@contextmanager
def items_per_call() -> Iterator[dict[str, list[int]]]:
    """The items each call of the purge's clients sent or got back, by operation."""
    made: dict[str, list[int]] = {}

    def before(model: Any, params: dict[str, Any], **_: Any) -> None:  # the call's parameters, as the code passed them
        sent = {"BatchWriteItem": lambda: sum(len(v) for v in params["RequestItems"].values()),
                "TransactWriteItems": lambda: len(params["TransactItems"]),
                "BatchGetItem": lambda: sum(len(v["Keys"]) for v in params["RequestItems"].values()),
                "DeleteObjects": lambda: len(params["Delete"]["Objects"])}.get(model.name)  # fmt: skip
        if sent is not None:
            made.setdefault(model.name, []).append(sent())

    def after(model: Any, parsed: dict[str, Any], **_: Any) -> None:
        if model.name in ("Query", "Scan"):
            made.setdefault(model.name, []).append(len(parsed.get("Items", [])))
        elif model.name == "ListObjectVersions":
            listed = len(parsed.get("Versions", [])) + len(parsed.get("DeleteMarkers", []))
            made.setdefault(model.name, []).append(listed)
        elif model.name == "ListObjectsV2":
            made.setdefault(model.name, []).append(len(parsed.get("Contents", [])))

    clients = (aws.dynamodb(), aws.s3())
    for client in clients:
        client.meta.events.register("before-parameter-build.*.*", before, unique_id="purge-items-before")
        client.meta.events.register("after-call.*.*", after, unique_id="purge-items-after")
    try:
        yield made
    finally:
        for client in clients:
            client.meta.events.unregister("before-parameter-build.*.*", unique_id="purge-items-before")
            client.meta.events.unregister("after-call.*.*", unique_id="purge-items-after")


PAGED_OBJECTS, PAGED_POSTS = 1_200, 600  # past a page of each: 1,000 versions, 500 items (1,200 post items)


@pytest.mark.parametrize("whole", [True, False], ids=["workspace", "agent"])
def test_no_call_of_a_purge_reads_or_holds_more_than_a_page(portal: Portal, whole: bool) -> None:
    """Before (issue 43): a Query of a partition had no Limit (up to 1 MB: all 1,200 items of 600 posts at once)
    and a workspace's agents were read whole."""
    db = portal.aws.dynamodb
    big = workspace_with(db, "purge-pages@example.com", objects=PAGED_OBJECTS, posts=PAGED_POSTS)
    ws = big.workspace.id
    if whole:
        delete_workspace(db, big.workspace)
    else:
        delete_agent(db, big.workspace, big.agent_id)
    worker = purge.worker()
    with items_per_call() as made:
        result = worker.purge(ws, lambda: PLENTY) if whole else worker.purge_agent(ws, big.agent_id, lambda: PLENTY)
    assert result.finished
    assert "Scan" not in made, made["Scan"]
    largest = {operation: max(sizes) for operation, sizes in made.items()}
    assert set(largest) <= set(BOUNDS), largest
    assert {op: n for op, n in largest.items() if n > BOUNDS[op]} == {}, json.dumps(largest)
    # Everything was read: the pages were many, none of them more than a page.
    assert sum(made["Query"]) >= 2 * PAGED_POSTS and len(made["Query"]) > 2 * PAGED_POSTS // BOUNDS["Query"]
    deleted = PAGED_OBJECTS + (big.kept_bytes // 2 if whole else 0)  # the workspace's assets too (2 bytes each)
    assert sum(made["DeleteObjects"]) == deleted and len(made["DeleteObjects"]) == 2
