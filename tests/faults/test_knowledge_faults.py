"""The knowledge worker (``KnowledgeIndexFunction``, core.knowledge.worker) failed at every AWS call of a rebuild.

The rebuild under test meets every call the worker makes: the agent, its items and published posts, the owner's
plan, the agent folder's listing, a document remembered (its kept passages read back), one replaced (kept passages
stale: read again and kept anew), one new (none kept), the new index written, the pointer moved from version 2 to
3, the index before the previous removed (listed and deleted), and each changed item's state set.

After the faulted attempt, and after every redelivery: (c) the agent's pointer names an index object that exists,
loads (``KnowledgeIndex.load``) and holds exactly the documents of version 2 or exactly those of version 3, never a
mix nor a gap. (a) The attempt either finished (version 3 current, every item settled) or reported its message in
``batchItemFailures`` so that SQS delivers it again: never a message acknowledged with work left undone. (b) Once the
fault is gone and SQS redelivered what was reported, the index holds version 3's documents and every item is
``indexed`` or ``skipped``, none ``pending``. (d) A fault that never clears: after the queue's ``maxReceiveCount``
deliveries the message is in the dead-letter queue, the item it left ``pending`` is shown ``failed`` once that is
stale (``core.items.writer.index_view``), and saving again after the fault cleared indexes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import pytest

from core.agents.records import KnowledgePointer
from core.items.records import IndexState
from core.items.writer import STALE, STALE_PENDING_SECONDS, index_view
from core.knowledge.index import build
from core.knowledge.write_store import knowledge_prefix
from core.platform.ids import new_id, now_iso
from core.platform.settings import get_settings
from tests.support.fault_harness import World, arranged, probe, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.knowledge import (
    Indexed,
    Stuck,
    current_index,
    deliver,
    index_objects,
    item_states,
    message,
    run_worker,
    stick,
    store,
)
from tests.support.lambdas import handler_module, stack
from tests.support.portal import take_messages
from tests.support.seed import Seeder

REDELIVERIES = 4
MAX_RECEIVES = stack().of_type("AWS::SQS::Queue")["KnowledgeQueue"]["Properties"]["RedrivePolicy"]["maxReceiveCount"]
TEXT = "text/plain"
KEPT, REPLACED, ADDED, MEDIA = "item_kept", "item_replaced", "item_added", "item_media"
POST_TEXT = "Spring menu\nWild garlic soup every Friday."


def fact(name: str, edition: int) -> str:
    return f"The {name} shelf, edition {edition}, holds jar number {edition}{len(name)}."


@dataclass(frozen=True)
class Shelf:
    """An agent at index version 2 whose next rebuild (version 3) reads one document again and one new."""

    workspace_id: str
    agent_id: str
    old: frozenset[str]  # the passages version 2 holds
    new: frozenset[str]  # the passages version 3 must hold
    previous_key: str  # version 2's object
    replaced_read: str  # the replaced item's ``index.updatedAt`` once its second edition was read


def worker(workspace_id: str, agent_id: str) -> list[str]:
    """One delivery of the agent's message to the (one warm) worker container; the ids it reported failed."""
    return run_worker([message(workspace_id, agent_id)], handler_module("KnowledgeIndexFunction"))


def put(world: World, workspace_id: str, path: str, body: bytes, content_type: str = TEXT) -> None:
    world.aws.s3.put_object(Bucket=get_settings().content_bucket, Key=f"workspaces/{workspace_id}/{path}",
                            Body=body, ContentType=content_type)  # fmt: skip


def arrange_shelf(world: World) -> Shelf:
    """Version 2 (kept and replaced documents, a media item, a published post; version 1 before it), then the
    replaced document's third edition and a new item, for the rebuild under test."""
    seed = Seeder(world.aws.dynamodb)
    owner = seed.user(f"{new_id('o').lower()}@example.com", plan="pro")
    ws = seed.workspace(owner, "Library")
    agent = seed.agent(ws, slug="librarian")
    folder = f"projects/{agent.id}"
    put(world, ws.id, f"{folder}/kept.txt", fact("kept", 1).encode())
    put(world, ws.id, f"{folder}/replaced.txt", fact("replaced", 1).encode())
    put(world, ws.id, f"{folder}/photo.jpg", b"\xff\xd8\xff\xd9", "image/jpeg")
    seed.items(agent.id, [
        {"id": KEPT, "r2Key": f"{folder}/kept.txt", "mimeType": TEXT},
        {"id": REPLACED, "r2Key": f"{folder}/replaced.txt", "mimeType": TEXT},
        {"id": MEDIA, "kind": "image", "r2Key": f"{folder}/photo.jpg", "mimeType": "image/jpeg"},
    ])  # fmt: skip
    seed.posts(agent.id, 1, title="Spring menu", caption="Wild garlic soup every Friday.", published=True)
    first = store(world.aws)  # version 1 as an earlier worker left it (one rebuild fewer per case: the suite's time)
    first.write(f"{knowledge_prefix(ws.id, agent.id)}index-1.seeded.json.gz", build([])[0], "application/gzip")
    seeded = KnowledgePointer(version=1, key=f"{knowledge_prefix(ws.id, agent.id)}index-1.seeded.json.gz",
                              fingerprint="seeded")  # fmt: skip
    assert first.move_pointer(ws.id, agent.id, None, seeded)
    put(world, ws.id, f"{folder}/replaced.txt", fact("replaced", 2).encode())
    assert worker(ws.id, agent.id) == []
    before = current_index(world.aws, ws.id, agent.id)
    assert before is not None and before.pointer.version == 2
    put(world, ws.id, f"{folder}/replaced.txt", fact("replaced", 3).encode())
    put(world, ws.id, f"{folder}/added.txt", fact("added", 1).encode())
    pending = IndexState(updated_at=now_iso())  # as the writer stores a new item: to be read
    seed.items(agent.id, [{"id": ADDED, "r2Key": f"{folder}/added.txt", "mimeType": TEXT, "index": pending}])
    new = {fact("kept", 1), fact("replaced", 3), fact("added", 1), POST_TEXT}
    assert before.texts == {fact("kept", 1), fact("replaced", 2), POST_TEXT}
    replaced = item_states(world.aws, agent.id)[REPLACED]
    assert replaced is not None and replaced.status == "indexed"
    return Shelf(ws.id, agent.id, before.texts, frozenset(new), before.pointer.key, replaced.updated_at)


def whole(world: World, shelf: Shelf) -> Indexed:
    """(c): the pointer names an index that exists, loads, and is version 2 or version 3, each as a whole."""
    held = current_index(world.aws, shelf.workspace_id, shelf.agent_id)
    assert held is not None
    expected = {2: shelf.old, 3: shelf.new}
    assert held.pointer.version in expected and held.texts == expected[held.pointer.version], held
    if held.pointer.version == 2:
        assert held.pointer.key == shelf.previous_key
    return held


def settled(world: World, shelf: Shelf) -> dict[str, str]:
    states = item_states(world.aws, shelf.agent_id)
    return {item: state.status if state else "never read" for item, state in states.items()}


DONE = {KEPT: "indexed", REPLACED: "indexed", ADDED: "indexed", MEDIA: "skipped"}


@dataclass
class RebuildScenario:
    name: str

    def arrange(self, world: World) -> Shelf:
        return arrange_shelf(world)

    def act(self, world: World, shelf: Shelf) -> list[str]:
        return worker(shelf.workspace_id, shelf.agent_id)

    def verify(self, world: World, shelf: Shelf, failed: list[str], fault: Fault | None) -> None:
        held = whole(world, shelf)
        finished = held.pointer.version == 3 and settled(world, shelf) == DONE
        if fault is None:
            assert failed == [] and finished, settled(world, shelf)
            assert shelf.previous_key in index_objects(world.aws, shelf.workspace_id, shelf.agent_id)
            assert len(index_objects(world.aws, shelf.workspace_id, shelf.agent_id)) == 2  # version 1 removed
        if not failed and not finished:  # acknowledged with work left: only where DynamoDB said a race was lost
            assert fault is not None and fault.conditional, (fault, settled(world, shelf))
        if fault is not None and fault.conditional and not failed:
            # DynamoDB answers a lost race only when another write got there first: at the pointer another worker's
            # (the attempt builds again at once), at an item's state an author's write of the item, whose ``notify``
            # queued the agent. That message, delivered here:
            failed = worker(shelf.workspace_id, shelf.agent_id)
            whole(world, shelf)
        for _ in range(REDELIVERIES):  # SQS delivers a reported message again; the fault is gone
            if not failed:
                break
            failed = worker(shelf.workspace_id, shelf.agent_id)
            whole(world, shelf)
        assert not failed, "the rebuild never finished"
        held = whole(world, shelf)
        assert held.pointer.version == 3 and held.item_ids == {KEPT, REPLACED, ADDED}
        assert settled(world, shelf) == DONE
        states = item_states(world.aws, shelf.agent_id)
        assert all(state is not None and state.passages == 1 for item, state in states.items() if item != MEDIA)
        # Its third edition was read: a publisher that replaced the file waits for a newer ``updatedAt`` (its status,
        # "indexed", is the one the second edition had).
        replaced = states[REPLACED]
        assert replaced is not None and replaced.updated_at > shelf.replaced_read, "the new edition's read not told"
        objects = index_objects(world.aws, shelf.workspace_id, shelf.agent_id)
        assert held.pointer.key in objects and shelf.previous_key in objects  # the previous stays for readers

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


SCENARIOS = [RebuildScenario("rebuild")]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)


def test_every_kind_of_call_is_faulted() -> None:
    """The rebuild under test makes each kind of call the worker has, so the cases above fail each of them."""
    labels = {call.label for call in probe(SCENARIOS[0])}
    assert labels >= {"dynamodb.GetItem", "dynamodb.Query", "dynamodb.UpdateItem", "s3.ListObjectsV2",
                      "s3.GetObject", "s3.PutObject", "s3.ListObjectVersions", "s3.DeleteObjects"}  # fmt: skip


# --- (d) a fault that never clears

STUCK = [
    Stuck("dynamodb", "GetItem", "ProvisionedThroughputExceededException", 400),  # the agent, the plan: unread
    Stuck("s3", "GetObject", "InternalError", 500, path_part="/knowledge/"),  # kept passages: unreadable
    Stuck("s3", "PutObject", "SlowDown", 503, path_part="/index-"),  # the new index: never written
    Stuck("dynamodb", "UpdateItem", "InternalServerError", 500),  # the pointer: never moved
]


def dead_letter_url(world: World) -> str:
    name = stack().physical_name("KnowledgeDeadLetterQueue")
    url: str = world.aws.sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return url


@pytest.mark.parametrize("stuck", STUCK, ids=[f"{s.service}.{s.operation}" for s in STUCK])
def test_a_fault_that_never_clears_ends_in_the_dead_letter_queue_and_the_item_shows_failed(
    world: World, stuck: Stuck
) -> None:
    shelf = arranged(world, SCENARIOS[0])
    queue, dead = get_settings().knowledge_queue_url, dead_letter_url(world)
    for url in (queue, dead):
        take_messages(world.aws.sqs, url)  # what other tests left
    world.aws.sqs.send_message(QueueUrl=queue, MessageBody=json.dumps({"workspaceId": shelf.workspace_id,
                                                                       "agentId": shelf.agent_id}))  # fmt: skip
    fault = stick(replace(stuck), world.monkeypatch)
    handler = handler_module("KnowledgeIndexFunction")
    assert deliver(world.aws.sqs, queue, handler, after=lambda: whole(world, shelf)) == MAX_RECEIVES
    assert fault.hits >= MAX_RECEIVES  # it failed every delivery
    (dead_message,) = take_messages(world.aws.sqs, dead)
    assert json.loads(dead_message["Body"]) == {"workspaceId": shelf.workspace_id, "agentId": shelf.agent_id}
    assert whole(world, shelf).pointer.version == 2  # the old index, whole, still answers the chat

    added = next(item for item in store(world.aws).items(shelf.agent_id) if item.id == ADDED)
    assert added.index is not None and added.index.status == "pending"
    written = datetime.fromisoformat(added.index.updated_at).timestamp()
    assert index_view(added, now=written + 60).status == "pending"  # on its way, for a while
    shown = index_view(added, now=written + STALE_PENDING_SECONDS + 1)
    assert (shown.status, shown.error) == ("failed", STALE)  # then its author is told to save it again

    fault.cleared = True  # the author saves again once AWS is back: the writer queues the agent
    world.aws.sqs.send_message(QueueUrl=queue, MessageBody=json.dumps({"workspaceId": shelf.workspace_id,
                                                                       "agentId": shelf.agent_id}))  # fmt: skip
    assert deliver(world.aws.sqs, queue, handler) == 1
    assert whole(world, shelf).pointer.version == 3 and settled(world, shelf) == DONE
    assert take_messages(world.aws.sqs, dead) == []
