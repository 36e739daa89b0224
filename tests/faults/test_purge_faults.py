"""(a) A workspace purge (the SQS worker, ``WorkspacePurgeFunction``), failed at every AWS call of a pass.

Afterwards: the worker either finished, or said so to SQS (``batchItemFailures``, or a fresh
message when it stopped early); redelivering what it asked for, as SQS would, finishes the purge:
no object, object version, record, key or tombstone of the workspace is left, and its neighbour
(same owner, an id that shares the prefix) is untouched. A pass that failed without telling SQS
would lose the purge for good: that is what this suite is for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.platform import main_table
from core.platform.ids import new_id, now_iso
from core.platform.settings import get_settings
from core.workspaces.records import WorkspaceRecord
from core.workspaces.store import WorkspaceStore
from tests.support.fault_harness import World, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.lambdas import handler_module
from tests.support.portal import WorkerContext, sqs_event, take_purge_messages
from tests.support.seed import Seeder

OBJECTS, POSTS, ITEMS = 3, 3, 2
REDELIVERIES = 5


@dataclass(frozen=True)
class Doomed:
    doomed: str
    doomed_agent: str
    kept: str
    kept_agent: str


def message(workspace_id: str) -> dict[str, Any]:
    return {"MessageId": new_id("msg"), "ReceiptHandle": new_id("rh"),
            "Body": json.dumps({"workspaceId": workspace_id}), "MD5OfBody": ""}  # fmt: skip


def run_worker(workspace_id: str) -> dict[str, Any]:
    event = sqs_event([message(workspace_id)])
    return handler_module("WorkspacePurgeFunction").lambda_handler(event, WorkerContext())


def requeued(world: World, workspace_id: str) -> bool:
    """Whether a pass queued a follow-up for this workspace (other cases' leftovers are dropped)."""
    return any(json.loads(m["Body"])["workspaceId"] == workspace_id for m in take_purge_messages(world.aws.sqs))


def versions_under(world: World, prefix: str) -> int:
    pages = world.aws.s3.get_paginator("list_object_versions").paginate(
        Bucket=get_settings().content_bucket, Prefix=prefix
    )
    return sum(len(p.get("Versions", [])) + len(p.get("DeleteMarkers", [])) for p in pages)


def partition(world: World, pk: str) -> int:
    query = {"TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
             "ExpressionAttributeValues": {":pk": {"S": pk}}, "Select": "COUNT"}  # fmt: skip
    return world.aws.dynamodb.query(**query)["Count"]


def keys_of(world: World, workspace_id: str) -> int:
    query = {"TableName": get_settings().api_keys_table, "IndexName": "byWorkspace",
             "KeyConditionExpression": "workspaceId = :ws",
             "ExpressionAttributeValues": {":ws": {"S": workspace_id}}, "Select": "COUNT"}  # fmt: skip
    return world.aws.dynamodb.query(**query)["Count"]


def populated(world: World, seed: Seeder, ws: WorkspaceRecord) -> str:
    agent = seed.agent(ws, slug=f"agent-{ws.id[-6:].lower()}")
    seed.posts(agent.id, POSTS)
    seed.items(agent.id, [{} for _ in range(ITEMS)])
    seed.workflow(ws)
    seed.api_key(ws.id)
    for n in range(OBJECTS):
        world.aws.s3.put_object(Bucket=get_settings().content_bucket, Key=f"workspaces/{ws.id}/media/{n}", Body=b"x")
    return agent.id


@dataclass(frozen=True)
class PurgeScenario:
    name: str

    def arrange(self, world: World) -> Doomed:
        seed = Seeder(world.aws.dynamodb)
        owner = seed.user(f"{new_id('o').lower()}@example.com", plan="pro")
        doomed = seed.workspace(owner, "Doomed")
        kept = seed.workspace(owner, "Kept", workspace_id=f"{doomed.id}x")  # shares the doomed id as a prefix
        state = Doomed(doomed.id, populated(world, seed, doomed), kept.id, populated(world, seed, kept))
        assert WorkspaceStore(world.aws.dynamodb, get_settings().main_table).delete(doomed, now_iso())
        return state

    def act(self, world: World, state: Doomed) -> dict[str, Any]:
        return run_worker(state.doomed)

    def verify(self, world: World, state: Doomed, result: dict[str, Any], fault: Fault | None) -> None:
        failures = result["batchItemFailures"]
        assert fault is not None or failures == []
        again = bool(failures) | requeued(world, state.doomed)
        for _ in range(REDELIVERIES):  # SQS redelivers a reported failure, and delivers a follow-up
            if not again:
                break
            failures = run_worker(state.doomed)["batchItemFailures"]
            again = bool(failures) | requeued(world, state.doomed)
        assert not again, "the purge never finished"
        ws, agent = state.doomed, state.doomed_agent
        left = {
            "objects": versions_under(world, f"workspaces/{ws}/"),
            "workspace": partition(world, f"WS#{ws}"),
            "posts": partition(world, main_table.posts_partition(agent)),
            "post copies": partition(world, main_table.feed_filters_partition(agent)),
            "items": partition(world, main_table.items_partition(agent)),
            "keys": keys_of(world, ws),
            "tombstone": partition(world, f"PURGE#{ws}"),
        }
        assert left == dict.fromkeys(left, 0), f"left behind: {left}"
        kept = {
            "objects": versions_under(world, f"workspaces/{state.kept}/"),
            "posts": partition(world, main_table.posts_partition(state.kept_agent)),
            "post copies": partition(world, main_table.feed_filters_partition(state.kept_agent)),
            "items": partition(world, main_table.items_partition(state.kept_agent)),
            "keys": keys_of(world, state.kept),
            "workspace": partition(world, f"WS#{state.kept}") > 0,
        }
        # A post is its canonical item and its row in the posts partition (docs/data-model.md); one copy here.
        expected = {"objects": OBJECTS, "posts": 2 * POSTS, "post copies": POSTS, "items": ITEMS, "keys": 1}
        assert kept == expected | {"workspace": True}, kept

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [PurgeScenario("purge")]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
