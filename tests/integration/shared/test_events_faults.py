"""Faults at each AWS call of the fan-out (issue 42): the batch reports its record failed, Lambda hands it over again,
and in the end every (event, webhook) has exactly one delivery and its message: nothing lost, nothing doubled but a
message whose send's reply was lost (at least once; the worker attempts a delivery once however many messages name
it). A member joins a workspace with two webhooks: one event, two deliveries.

Arranged once per process (moto's state kept with ``tests/support/moto_state.py``, the stream's position with it),
put back for each case."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from core.platform import main_table
from core.platform import providers as platform_providers
from core.platform.dynamo import query_all, to_item
from core.platform.settings import get_settings
from tests.support import moto_state
from tests.support.authoring import Studio
from tests.support.fault_injection import Call, Injector, Plan, attach_to_core_clients, faults_for
from tests.support.members import joined
from tests.support.portal import Portal
from tests.support.streams import drain_events
from tests.support.webhooks import create, queued

# The fan-out's calls for one event to two webhooks: the workspace (once a batch), its webhooks (one Query), then per
# webhook the conditional Put, the message, the mark.
CALLS = [Call("dynamodb", "GetItem"), Call("dynamodb", "Query")] + [
    Call("dynamodb", "PutItem", conditional=True), Call("sqs", "SendMessage"),
    Call("dynamodb", "UpdateItem", conditional=True)] * 2  # fmt: skip
CASES = [(i, fault) for i, call in enumerate(CALLS) for fault in faults_for(call, i)]

_kept: dict[str, Any] = {}


def arranged(portal: Portal) -> tuple[str, list[str]]:
    """A workspace with two webhooks (every type) whose second member just joined, the join not yet streamed."""
    if not _kept:
        studio = Studio.open(portal)
        drain_events()  # the workspace's creation: before any webhook
        hooks = [create(studio, events=["*"])["webhook"]["id"] for _ in range(2)]
        joined(studio, "m@example.com")
        queued(studio)  # nothing the fan-out sent: the queue starts empty
        _kept.update(state=moto_state.taken(), ids=(studio.workspace_id, hooks))
    else:
        moto_state.put_back(_kept["state"])
    return _kept["ids"]


def deliveries(aws: Any, webhook_id: str) -> list[dict[str, Any]]:
    return query_all(aws.dynamodb, {
        "TableName": get_settings().main_table, "ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": to_item({":pk": main_table.deliveries_partition(webhook_id)}),
    })  # fmt: skip


def messages(aws: Any) -> list[str]:
    import json

    from tests.support.portal import take_messages

    return [
        json.loads(m["Body"])["deliveryId"] for m in take_messages(aws.sqs, get_settings().webhook_delivery_queue_url)
    ]


def test_the_fan_outs_calls_are_the_ones_the_faults_are_injected_at(portal: Portal, monkeypatch) -> None:
    arranged(portal)
    injector = Injector()
    attach_to_core_clients(injector, monkeypatch)
    platform_providers.reset()
    with injector.armed() as calls:
        assert not drain_events().failed
    assert calls == CALLS


@pytest.mark.parametrize(("position", "fault"), CASES, ids=[f"{i}-{CALLS[i].label}-{f.name}" for i, f in CASES])
def test_a_fault_at_each_call_loses_nothing_and_a_retry_doubles_nothing(portal: Portal, monkeypatch, position, fault):
    workspace_id, hooks = arranged(portal)
    injector = Injector()
    attach_to_core_clients(injector, monkeypatch)
    platform_providers.reset()
    with injector.armed(Plan(position, fault)):
        first = drain_events()
    assert injector.fired
    marking = CALLS[position].operation == "UpdateItem"
    # A failed call fails the record (Lambda hands it over again), but the mark's: its message went already.
    assert bool(first.failed) is not marking, first
    assert not drain_events().failed  # the hand-over again succeeds
    assert drain_events().records == 0  # and the stream is done

    sent = Counter(messages(portal.aws))
    for hook in hooks:
        [delivery] = deliveries(portal.aws, hook)  # exactly one, whatever failed where
        assert (delivery["type"], delivery["status"], delivery["workspaceId"]) == ("member.joined", "pending",
                                                                                   workspace_id)  # fmt: skip
        lost_reply = CALLS[position].operation == "SendMessage" and fault.name == "read-timeout-applied"
        # its message at least once; twice only when SQS took the first and its answer was lost
        expected = {1, 2} if lost_reply and position in (3, 6) and hook == hooks[(position - 3) // 3] else {1}
        assert sent[delivery["id"]] in expected, (delivery["id"], sent)
    assert set(sent) == {d["id"] for h in hooks for d in deliveries(portal.aws, h)}  # no message of nothing
