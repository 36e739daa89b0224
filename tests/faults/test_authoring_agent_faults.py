"""An agent's deletion and purge, and an upload's signing, failed at every AWS call (the helpers and the post
scenarios are in ``test_authoring_faults.py``).

Deleting: the DELETE is failed at each of its calls, then retried; then the purge worker runs to completion as SQS
would drive it (its first pass cut short, between the posts partition and the copies, so it queues the rest).
Purging: one whole worker pass is failed at each of its calls, then SQS redelivers what it was asked to (a pass cut
short makes a prefix of these calls). Afterwards the deleted agent's posts, copies, items, objects, stored
conversations and tombstone are gone; its neighbour agent, its workspace's and its brand's agent counts, and the
audit log (one entry for the one deletion that happened) are as they should be. Signing: the reservation is there
exactly when a signing was written, and after the retry it is the one the client's answer names; with an
``Idempotency-Key``, exactly one was written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import count
from typing import Any

from core.platform import main_table
from core.platform.dynamo import get_item, query_all, to_item
from core.platform.ids import new_id
from core.platform.settings import get_settings
from tests.faults.test_authoring_faults import (
    MEDIA,
    Answer,
    Desk,
    audited,
    observed,
    open_desk,
    refused,
    retried,
    send,
)
from tests.support.fault_harness import World, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.feed_checks import agent_problems, assert_agent_content, describe, read_agent
from tests.support.lambdas import handler_module
from tests.support.portal import WorkerContext, sqs_event, take_purge_messages
from tests.support.seed import Seeder

DELETE = "PortalAgentDeleteFunction"
REDELIVERIES = 6
CUT_AFTER = 7  # time checks of a pass before it runs short: after the posts partition, before the copies


@dataclass(frozen=True)
class Doomed:
    desk: Desk  # the agent to delete
    kept: str  # its neighbour in the same workspace


def arranged(world: World) -> Doomed:
    """The desk's agent with media and a stored conversation, and a neighbour agent with a post, an item, a file."""
    desk = open_desk(world, post="published", media=MEDIA)
    seed = Seeder(world.aws.dynamodb)
    kept = seed.agent(world.portal.workspace_record(desk.workspace_id), slug="kept")
    seed.posts(kept.id, 1, category="launch")
    seed.items(kept.id, [{}])
    for folder, agent in (("conversations", desk.agent_id), ("projects", kept.id)):
        world.aws.s3.put_object(Bucket=get_settings().content_bucket, Body=b"{}",
                                Key=f"workspaces/{desk.workspace_id}/{folder}/{agent}/thread.json")  # fmt: skip
    return Doomed(desk, kept.id)


def table_item(world: World, key: dict[str, str]) -> dict[str, Any] | None:
    return get_item(world.aws.dynamodb, get_settings().main_table, key, consistent=True)


def objects_under(world: World, prefix: str) -> int:
    found = world.aws.s3.list_object_versions(Bucket=get_settings().content_bucket, Prefix=prefix)
    return len(found.get("Versions", [])) + len(found.get("DeleteMarkers", []))


def run_pass(state: Doomed, *, cut: bool = False) -> dict[str, Any]:
    """One worker pass over the agent's message; ``cut``: its time runs short after ``CUT_AFTER`` checks."""
    context = WorkerContext()
    if cut:
        checks = count()
        context = WorkerContext(remaining=lambda: 0 if next(checks) >= CUT_AFTER else 900_000)
    body = json.dumps({"workspaceId": state.desk.workspace_id, "agentId": state.desk.agent_id})
    message = {"MessageId": new_id("msg"), "ReceiptHandle": new_id("rh"), "Body": body, "MD5OfBody": ""}
    return handler_module("WorkspacePurgeFunction").lambda_handler(sqs_event([message]), context)


def queued(world: World, state: Doomed) -> bool:
    """Whether a purge of this agent is queued (taken off the queue; other cases' leftovers are dropped)."""
    bodies = [json.loads(m["Body"]) for m in take_purge_messages(world.aws.sqs)]
    return any(b.get("agentId") == state.desk.agent_id for b in bodies)


def purged_to_completion(world: World, state: Doomed, failures: list[Any], again: bool) -> None:
    """SQS at work: a reported failure is redelivered and a queued follow-up delivered, until neither is left."""
    for _ in range(REDELIVERIES):
        if not (failures or again):
            return
        failures = run_pass(state)["batchItemFailures"]
        again = queued(world, state)
    assert not (failures or again), "the purge never finished"


def assert_purged(world: World, state: Doomed) -> None:
    """Nothing of the deleted agent is left; its neighbour is whole and the counts name it alone."""
    desk, db = state.desk, world.aws.dynamodb
    content = read_agent(db, desk.agent_id, workspace_id=desk.workspace_id)
    problems = agent_problems(content) + ["the agent still exists"] * (content.agent is not None)
    assert not problems, describe(content, problems)
    left = {
        "objects": sum(objects_under(world, f"workspaces/{desk.workspace_id}/{f}/{desk.agent_id}/")
                       for f in ("projects", "conversations")),
        "tombstone": table_item(world, main_table.agent_purge(desk.workspace_id, desk.agent_id)) is not None,
    }  # fmt: skip
    assert left == {"objects": 0, "tombstone": False}, f"left behind: {left}"
    kept = assert_agent_content(db, state.kept, workspace_id=desk.workspace_id)
    assert (len(kept.canonical), len(kept.copies), len(kept.items)) == (1, 3, 1), describe(kept, [])
    assert objects_under(world, f"workspaces/{desk.workspace_id}/projects/{state.kept}/") == 1
    workspace = table_item(world, main_table.workspace(desk.workspace_id))
    assert workspace is not None and workspace["agentCount"] == 1
    brand = table_item(world, main_table.brand(desk.workspace_id, workspace["defaultBrandId"]))
    assert brand is not None and brand["agentCount"] == 1


def deletion_audit(world: World, desk: Desk, request_id: str, deleted: bool) -> None:
    expected = {("agent.delete", f"agent:{desk.agent_id}"): 1} if deleted else {}
    assert audited(world, desk, request_id) == expected, f"audit of {request_id}"


@dataclass(frozen=True)
class DeleteScenario:
    name: str = "agent-delete"
    idempotent: bool = False  # with an Idempotency-Key: the retry replays the first answer

    def arrange(self, world: World) -> Doomed:
        state = arranged(world)
        if self.idempotent:
            return Doomed(replace(state.desk, idempotency_key=f"idem-{state.desk.agent_id}"), state.kept)
        return state

    def act(self, world: World, state: Doomed) -> Answer:
        return send(world, state.desk, DELETE, agentId=state.desk.agent_id)

    def verify(self, world: World, state: Doomed, first: Answer, fault: Fault | None) -> None:
        desk = state.desk
        exists = table_item(world, main_table.agent(desk.workspace_id, desk.agent_id)) is not None
        if first.result.status == 200:
            assert first.result.json() == {"deleted": True} and not exists, "a deletion that did not happen"
        else:  # a lost race on the agent's condition may mean another request deleted it: 404
            refused(first.result, fault, also=(404,) if fault and fault.conditional else ())
        if exists:
            observed(world, desk)
        deletion_audit(world, desk, first.request_id, deleted=not exists)
        retry = retried(world, lambda: send(world, desk, DELETE, agentId=desk.agent_id))
        assert (retry.result.status, retry.result.json()) == (200, {"deleted": True}), retry.result.body
        deletion_audit(world, desk, retry.request_id, deleted=exists)
        # The deletions' messages (the passes below are their deliveries): after the answered retry, one is queued
        # whatever the first attempt lost, or the purge never starts (the tombstone and the objects stay for good).
        assert queued(world, state), "the agent is deleted and no purge of it is queued"
        cut = run_pass(state, cut=True)
        purged_to_completion(world, state, cut["batchItemFailures"], queued(world, state))
        assert_purged(world, state)

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


@dataclass(frozen=True)
class PurgeScenario:
    name: str
    cut: bool

    def arrange(self, world: World) -> tuple[Doomed, str]:
        state = arranged(world)
        deleted = send(world, state.desk, DELETE, agentId=state.desk.agent_id)
        assert deleted.result.status == 200, deleted.result.body
        queued(world, state)
        return state, deleted.request_id

    def act(self, world: World, arranged_state: tuple[Doomed, str]) -> dict[str, Any]:
        return run_pass(arranged_state[0], cut=self.cut)

    def verify(self, world: World, arranged_state: tuple[Doomed, str], result: dict[str, Any],
               fault: Fault | None) -> None:  # fmt: skip
        state, request_id = arranged_state
        failures, again = result["batchItemFailures"], queued(world, state)
        if fault is None:
            assert failures == [] and again == self.cut
            if self.cut:  # cut where it was meant to be: the posts partition drained, the copies not yet
                content = read_agent(world.aws.dynamodb, state.desk.agent_id, workspace_id=state.desk.workspace_id)
                assert not content.posts and content.copies, describe(content, [])
        purged_to_completion(world, state, failures, again)
        assert_purged(world, state)
        deletion_audit(world, state.desk, request_id, deleted=True)

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


UPLOAD = "PortalUploadCreateFunction"


@dataclass(frozen=True)
class UploadScenario:
    name: str
    idempotent: bool

    def arrange(self, world: World) -> Desk:
        return open_desk(world, idempotent=self.idempotent)

    def path(self, desk: Desk) -> str:
        return f"projects/{desk.agent_id}/media/upload.jpg"

    def request(self, world: World, desk: Desk) -> Answer:
        return send(world, desk, UPLOAD, body={"path": self.path(desk), "contentType": "image/jpeg", "size": 1000})

    def act(self, world: World, desk: Desk) -> Answer:
        return self.request(world, desk)

    def ledger(self, world: World, desk: Desk) -> tuple[int, list[dict[str, Any]]]:
        """(signings written: the workspace's ``STORAGE`` counter, the path's reservations: one per signing)."""
        lock = table_item(world, main_table.storage_lock(desk.workspace_id)) or {}
        partition = main_table.workspace(desk.workspace_id)["pk"]
        rows = query_all(world.aws.dynamodb, {
            "TableName": get_settings().main_table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :upload)",
            "ExpressionAttributeValues": to_item({":pk": partition, ":upload": main_table.UPLOAD}),
        })  # fmt: skip
        return lock.get("seq", 0), [row for row in rows if row["path"] == self.path(desk)]

    def check(self, world: World, desk: Desk, answer: Answer, seen: int, fault: Fault | None) -> tuple[int, bool]:
        """The answer, the reservation and the audit entries after one request: (the signings written so far,
        whether a reservation is held that no valid answer names)."""
        observed(world, desk)
        seq, reservations = self.ledger(world, desk)
        expected = {("object.upload", f"object:{self.path(desk)}"): seq - seen} if seq > seen else {}
        assert audited(world, desk, answer.request_id) == expected, f"audit of {answer.request_id}"
        assert len(reservations) <= seq, "a reservation no signing wrote"
        if answer.result.status != 201:
            refused(answer.result, fault)
            return seq, bool(reservations)
        ticket = answer.result.json()
        expires = int(datetime.fromisoformat(ticket["expiresAt"]).timestamp())
        key = f"workspaces/{desk.workspace_id}/{self.path(desk)}"
        said = (ticket["path"], ticket["fields"]["key"], ticket["fields"]["Content-Type"])
        assert said == (self.path(desk), key, "image/jpeg"), ticket
        held = [(r["size"], r["expiresAt"]) for r in reservations]
        assert (1000, expires) in held, f"answered a signing that holds no reservation: {held}, {ticket}"
        return seq, False

    def verify(self, world: World, desk: Desk, first: Answer, fault: Fault | None) -> None:
        seen, orphaned = self.check(world, desk, first, 0, fault)
        retry = retried(world, lambda: self.request(world, desk))
        assert retry.result.status == 201, retry.result.body
        final, _ = self.check(world, desk, retry, seen, None)
        if self.idempotent:
            assert final == 1, f"{final} signings written for one keyed request"
            if first.result.status == 201:
                assert retry.result.json() == first.result.json(), "the keyed retry answered another signing"
        # Last, so that the retry above is checked in every case: until then, was a reservation held that the
        # client was never given (its storage counted, for as long as the URL would have lived, for no ticket)?
        assert not orphaned, f"the signing answered {first.result.status} and holds a reservation all the same"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None  # a lost reply of the reservation's write is read back and answered (repositories/.../uploads)


SCENARIOS: list[Any] = [
    DeleteScenario(),
    DeleteScenario("agent-delete-idem", idempotent=True),
    PurgeScenario("agent-purge", cut=False),
    PurgeScenario("agent-purge-cut", cut=True),  # its last call queues the rest (SQS), which may fail too
    UploadScenario("upload", idempotent=False),
    UploadScenario("upload-idem", idempotent=True),
]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)


def test_a_pass_cut_short_queues_the_rest(world: World) -> None:
    """The cut pass makes a prefix of a whole pass's calls (so ``agent-purge`` fails each of them): here, unfaulted,
    it stops between the posts and their copies, queues a follow-up, and the follow-up finishes the purge."""
    scenario = PurgeScenario("agent-purge-cut-clean", cut=True)
    state = scenario.arrange(world)
    scenario.verify(world, state, scenario.act(world, state), None)
