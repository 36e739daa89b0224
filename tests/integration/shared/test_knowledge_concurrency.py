"""Knowledge rebuilt by workers at once (core.knowledge.worker): however their reads and pointer moves interleave,
the agent's pointer ends on one index that holds every item, every item ends ``indexed``, and the pointer never
names an index that is gone or not what it holds (checked while the losing worker is held, and after).

Writers run each in a container of its own (``Studio.call_in_container``); each worker is a fresh import of the
knowledge handler given some of the queue's messages, as Lambda's SQS event source hands batches to several
containers at once. Where an interleaving matters it is made certain (``tests/support/knowledge.py``: a barrier or
a hold at the pointer move) rather than left to the scheduler.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from core.platform import aws as core_aws
from core.platform.settings import get_settings
from tests.support.authoring import Studio, at_once
from tests.support.knowledge import (
    container,
    current_index,
    held_before_move,
    index_objects,
    item_states,
    rendezvous,
    requests_one_at_a_time,
    run_worker,
)
from tests.support.portal import Portal, take_messages

ITEMS = 8
WORKERS = 4


def queued(portal: Portal) -> list[dict[str, Any]]:
    return take_messages(portal.aws.sqs, get_settings().knowledge_queue_url)


def fact(n: int) -> bytes:
    return f"Shelf {n} holds the jar of spice number {n}0{n}.".encode()


def create_items(studio: Studio, agent_id: str, numbers: range) -> list[str]:
    """An item on its own text document for each number, all created at once, each from a container of its own."""
    for n in numbers:
        studio.put_object(f"projects/{agent_id}/docs/{n}.txt", fact(n), "text/plain")

    def create(at: int) -> str:
        n = numbers[at]
        body = {"name": f"Shelf {n}", "kind": "document", "r2Key": f"projects/{agent_id}/docs/{n}.txt"}
        made = studio.call_in_container("PortalItemCreateFunction", agent_id=agent_id, body=body)
        assert made.status == 201, made.body
        item_id: str = made.json()["item"]["id"]
        return item_id

    return at_once(len(numbers), create)


def warm() -> None:
    """The service's clients made before threads use them (boto3 makes clients safely from one thread only)."""
    core_aws.s3()
    core_aws.dynamodb()


def assert_all_indexed(portal: Portal, studio: Studio, agent_id: str, item_ids: set[str]) -> None:
    held = current_index(portal.aws, studio.workspace_id, agent_id)
    assert held is not None
    assert held.item_ids == item_ids, f"missing {item_ids - held.item_ids}"
    states = item_states(portal.aws, agent_id)
    assert set(states) == item_ids
    assert {i: s.status if s else None for i, s in states.items()} == dict.fromkeys(item_ids, "indexed")


@pytest.fixture
def studio(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> Studio:
    requests_one_at_a_time(monkeypatch)
    opened = Studio.open(portal)
    warm()
    return opened


def test_eight_items_changed_at_once_leave_one_index_that_holds_all_eight(
    portal: Portal, studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_id = studio.agent("Pantry")["id"]
    item_ids = set(create_items(studio, agent_id, range(ITEMS)))
    messages = queued(portal)
    assert len(messages) == ITEMS  # one per write
    batches = [messages[n::WORKERS] for n in range(WORKERS)]
    handlers = [container() for _ in batches]
    failed: list[list[str]] = []
    with rendezvous(monkeypatch, WORKERS):  # every worker read the agent before any moves the pointer
        threads = [
            threading.Thread(target=lambda b=batch, h=handler: failed.append(run_worker(b, h)), name=f"worker-{n}")
            for n, (batch, handler) in enumerate(zip(batches, handlers, strict=True))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert failed == [[]] * WORKERS  # the losers built again and found the winner's index already theirs
    assert_all_indexed(portal, studio, agent_id, item_ids)
    held = current_index(portal.aws, studio.workspace_id, agent_id)
    assert held is not None and held.texts == {fact(n).decode() for n in range(ITEMS)}
    assert index_objects(portal.aws, studio.workspace_id, agent_id) == [held.pointer.key]  # each loser removed its own
    assert run_worker(messages[:1]) == []  # nothing left to do: no new version
    again = current_index(portal.aws, studio.workspace_id, agent_id)
    assert again is not None and again.pointer == held.pointer


def test_a_ninth_item_written_while_two_workers_race_ends_in_the_index(
    portal: Portal, studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker B reads the agent (a renamed item) and writes its index; the 9th item is written; worker A reads
    that, writes and moves the pointer; only then B tries its move. B lost: it must leave A's index alone and build
    again from what is there (the 9th item included)."""
    agent_id = studio.agent("Pantry")["id"]
    item_ids = set(create_items(studio, agent_id, range(ITEMS)))
    assert run_worker(queued(portal)) == []
    previous = current_index(portal.aws, studio.workspace_id, agent_id)
    assert previous is not None
    first = sorted(item_ids)[0]
    renamed = studio.call_in_container("PortalItemUpdateFunction", agent_id=agent_id, item_id=first,
                                       body={"name": "Spice drawer"})  # fmt: skip
    assert renamed.status == 200, renamed.body
    (b_message,) = queued(portal)
    b_failed: list[list[str]] = []
    with held_before_move(monkeypatch, "worker-b") as b_held:
        b = threading.Thread(target=lambda: b_failed.append(run_worker([b_message], container())), name="worker-b")
        b.start()
        b_held.wait()  # B has read 8 items and written its index
        (ninth,) = create_items(studio, agent_id, range(ITEMS, ITEMS + 1))
        (a_message,) = queued(portal)
        assert run_worker([a_message], container()) == []  # A: 9 items, its pointer moved first
        during = current_index(portal.aws, studio.workspace_id, agent_id)
        assert during is not None and ninth in during.item_ids
        b_held.release()
        b.join(60)
    assert b_failed == [[]]
    assert_all_indexed(portal, studio, agent_id, item_ids | {ninth})
    held = current_index(portal.aws, studio.workspace_id, agent_id)
    assert held is not None and fact(ITEMS).decode() in held.texts and "Spice drawer" in held.names
    assert held.pointer.version == previous.pointer.version + 1  # A's: B found it already held what B read
    assert set(index_objects(portal.aws, studio.workspace_id, agent_id)) == {previous.pointer.key, held.pointer.key}
