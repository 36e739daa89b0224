"""Every path that writes emits (issue 42): with a webhook subscribed to ``*``, each committed change a path makes
(the operator's grant, a chat turn and its settlement, a refused chat, an erasure, a retention pass, the knowledge
worker, members, an agent's deletion) streams, and the events function writes its delivery with the contract's
data; a change that did not commit (its transaction cancelled, its write failed) emits nothing, and what a failure
held back is emitted once the path is retried. Streams are read in process (``tests/support/streams.py``)."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.credits.billing import Billing
from core.credits.store import LedgerStore
from core.platform import main_table
from core.platform import providers as platform_providers
from core.platform.dynamo import query_all, to_item
from core.platform.settings import get_settings
from ops.__main__ import _operate
from tests.support import documents
from tests.support.authoring import Studio
from tests.support.chat import CLIENT, chat, refused, streamed
from tests.support.fault_injection import (
    CONDITIONAL,
    INTERNAL,
    Call,
    Injector,
    Plan,
    attach_to_core_clients,
    faults_for,
)
from tests.support.knowledge import index_queued
from tests.support.lambdas import handler_module
from tests.support.members import REMOVE, joined, member_ids
from tests.support.portal import Portal, WorkerContext, sqs_event, take_purge_messages
from tests.support.streams import drain_events
from tests.support.webhooks import create

pytestmark = pytest.mark.usefixtures("chat_environment")
ERASE = "PortalConversationsEraseFunction"
UPDATE = "PortalWorkspaceUpdateFunction"


@dataclass
class Owner:
    """A workspace with an agent, a key and a webhook on ``*``; ``emitted()`` the events delivered since last asked."""

    studio: Studio
    agent_id: str
    key: str
    hook_id: str
    seen: set[str] = field(default_factory=set)

    def emitted(self) -> list[tuple[str, dict[str, Any]]]:
        drained = drain_events()
        assert not drained.failed, drained.failed
        rows = query_all(self.studio.portal.aws.dynamodb, {
            "TableName": get_settings().main_table, "ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_item({":pk": main_table.deliveries_partition(self.hook_id)}),
        })  # fmt: skip
        new = [row for row in rows if row["id"] not in self.seen]
        self.seen |= {row["id"] for row in new}
        bodies = [json.loads(row["body"]) for row in sorted(new, key=lambda r: r["id"])]
        for body in bodies:
            assert body["data"]["workspaceId"] == self.studio.workspace_id
        return [(body["type"], body["data"]) for body in bodies]

    def ask(self, prompt: str = "What does a cortado cost?", client: str = CLIENT) -> list[dict[str, Any]]:
        lines, _ = streamed(chat({"prompt": prompt, "client": client}, agent_id=self.agent_id, key=self.key))
        return lines

    def ask_refused(self) -> None:
        refused(chat({"prompt": "Hello?", "client": CLIENT}, agent_id=self.agent_id, key=self.key), 402,
                "INSUFFICIENT_CREDITS")  # fmt: skip

    def grant(self, credits: int, ref_id: str | None = None) -> None:
        """``make ops ARGS="grant --email … --credits …"`` as ops/__main__.py runs it, on this test's moto."""
        settings = get_settings()
        args = argparse.Namespace(command="grant", email="owner@example.com", credits=credits, type="topup",
                                  ref_id=ref_id, description="Operator top-up")  # fmt: skip
        tables = {"main": settings.main_table, "ledger": settings.ledger_table}
        assert _operate(args, self.studio.portal.aws.dynamodb, tables) == 0

    def settings(self, **fields: Any) -> None:
        self.studio.ok(UPDATE, body=fields)


@pytest.fixture
def owner(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> Owner:
    monkeypatch.setenv("RESTAMP_DELAY_SECONDS", "0")  # deployed: after the chat turns in flight; moto would hold it
    platform_providers.reset()
    studio = Studio.open(portal)
    agent_id = studio.agent("Barista")["id"]
    studio.put_object(f"projects/{agent_id}/notes/prices.txt", b"A cortado costs 2.85 EUR.", "text/plain")
    studio.item(agent_id, "Price list", r2Key=f"projects/{agent_id}/notes/prices.txt", kind="document")
    index_queued(portal)
    key = portal.mint_key(studio.who, studio.workspace_id)["key"]
    hook = create(studio, events=["*"])["webhook"]
    made = Owner(studio, agent_id, key, hook["id"])
    made.emitted()  # what the arrangement streamed after the webhook existed (its document's indexing)
    return made


def types(events: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [kind for kind, _ in events]


def test_the_operators_grant_emits_credits_granted_once_per_reference(owner: Owner) -> None:
    owner.grant(50, ref_id="invoice-42")
    assert owner.emitted() == [("credits.granted", {
        "workspaceId": owner.studio.workspace_id, "amount": 50, "refType": "topup", "refId": "invoice-42",
        "description": "Operator top-up",
    })]  # fmt: skip
    owner.grant(50, ref_id="invoice-42")  # re-run after a timeout: nothing granted, nothing emitted
    assert owner.emitted() == []


def test_a_chat_turn_emits_its_completion_with_its_credits_and_its_words_only_when_stored(owner: Owner) -> None:
    owner.grant(20)
    owner.emitted()
    lines = owner.ask()
    (completed,) = [data for kind, data in owner.emitted() if kind == "conversation.turn.completed"]
    assert completed["turnId"] == lines[0]["turnId"] and completed["threadKey"] == lines[0]["threadKey"]
    assert (completed["agentId"], completed["client"]) == (owner.agent_id, CLIENT)
    assert completed["credits"] == lines[-1]["usage"]["credits"] == get_settings().chat_credits_per_turn
    assert completed["unanswered"] is False and "prompt" not in completed and "reply" not in completed
    owner.settings(storeConversations=True)
    lines = owner.ask("Is there oat milk?")
    (stored,) = [data for kind, data in owner.emitted() if kind == "conversation.turn.completed"]
    assert stored["prompt"] == "Is there oat milk?" and stored["reply"] and stored["turnId"] == lines[0]["turnId"]


def test_credits_low_once_when_the_settlements_cross_the_threshold(owner: Owner) -> None:
    owner.settings(lowCreditsThreshold=10)
    owner.grant(12)
    assert types(owner.emitted()) == ["credits.granted"]
    price = get_settings().chat_credits_per_turn
    assert price == 1
    owner.ask()  # 12 -> 11
    owner.ask()  # 11 -> 10: not under the threshold yet
    assert "credits.low" not in types(owner.emitted())
    owner.ask()  # 10 -> 9: crossed
    assert [data for kind, data in owner.emitted() if kind == "credits.low"] == [
        {"workspaceId": owner.studio.workspace_id, "balance": 9, "threshold": 10}]  # fmt: skip
    owner.ask()  # 9 -> 8: still under, no second event
    assert "credits.low" not in types(owner.emitted())
    owner.grant(10)  # 18: above again; the next crossing is a new one
    owner.emitted()
    for _ in range(9):
        owner.ask()
    assert [data["balance"] for kind, data in owner.emitted() if kind == "credits.low"] == [9]


def test_credits_exhausted_once_for_two_refusals_and_again_after_a_grant(owner: Owner) -> None:
    owner.ask_refused()
    owner.ask_refused()
    assert owner.emitted() == [("credits.exhausted", {
        "workspaceId": owner.studio.workspace_id, "agentId": owner.agent_id, "balance": 0})]  # fmt: skip
    owner.grant(1)
    assert types(owner.emitted()) == ["credits.granted"]  # the grant re-arms it, and emits nothing else
    owner.ask()  # the last credit: a successful turn never says exhausted
    assert "credits.exhausted" not in types(owner.emitted())
    owner.ask_refused()
    owner.ask_refused()
    assert [kind for kind in types(owner.emitted()) if kind == "credits.exhausted"] == ["credits.exhausted"]


def test_an_erasure_emits_conversation_erased(owner: Owner) -> None:
    owner.grant(10)
    owner.settings(storeConversations=True)
    owner.ask()
    owner.ask("And a flat white?")
    owner.emitted()
    answer = owner.studio.ok(ERASE, agent_id=owner.agent_id, query={"client": CLIENT})
    assert answer == {"deleted": 2}
    assert owner.emitted() == [("conversation.erased", {
        "workspaceId": owner.studio.workspace_id, "agentId": owner.agent_id, "client": CLIENT, "turns": 2,
    })]  # fmt: skip


def run_restamp(portal: Portal) -> dict[str, Any]:
    messages = take_purge_messages(portal.aws.sqs)
    assert [json.loads(m["Body"]).get("job") for m in messages] == ["restamp"]
    answer: dict[str, Any] = handler_module("WorkspacePurgeFunction").lambda_handler(sqs_event(messages),
                                                                                     WorkerContext())  # fmt: skip
    return answer | {"messages": messages}


def test_a_retention_pass_emits_retention_applied_once_it_finished(owner: Owner) -> None:
    owner.grant(10)
    owner.settings(storeConversations=True)
    owner.ask()
    owner.emitted()
    owner.settings(conversationRetentionDays=30)
    assert owner.emitted() == []  # the setting alone: the TTLs are not applied yet
    assert run_restamp(owner.studio.portal)["batchItemFailures"] == []
    ((kind, data),) = owner.emitted()
    assert (kind, data["retentionDays"], data["workspaceId"]) == ("conversations.retention.applied", 30,
                                                                 owner.studio.workspace_id)  # fmt: skip
    assert data["at"].endswith("Z")
    owner.settings(conversationRetentionDays=None)  # kept for good again
    assert run_restamp(owner.studio.portal)["batchItemFailures"] == []
    assert [(k, d["retentionDays"]) for k, d in owner.emitted()] == [("conversations.retention.applied", None)]


def test_the_knowledge_worker_emits_indexed_and_failed_with_its_error(owner: Owner) -> None:
    studio = owner.studio
    locked = documents.encrypted_pdf(["secret"], user_password="pw")
    studio.put_object(f"projects/{owner.agent_id}/docs/locked.pdf", locked, "application/pdf")
    bad = studio.item(owner.agent_id, "Locked", r2Key=f"projects/{owner.agent_id}/docs/locked.pdf", kind="document")
    studio.put_object(f"projects/{owner.agent_id}/notes/hours.txt", b"Open Mon-Fri 7-18.", "text/plain")
    good = studio.item(owner.agent_id, "Hours", r2Key=f"projects/{owner.agent_id}/notes/hours.txt", kind="document")
    index_queued(studio.portal)
    emitted = {data["itemId"]: (kind, data) for kind, data in owner.emitted()}
    kind, failed = emitted[bad["id"]]
    assert kind == "knowledge.item.failed" and failed["agentId"] == owner.agent_id and "password" in failed["error"]
    kind, indexed = emitted[good["id"]]
    assert kind == "knowledge.item.indexed" and indexed["passages"] >= 1


def test_members_joining_and_leaving_and_an_agent_deleted(owner: Owner) -> None:
    member = joined(owner.studio, "m@example.com")
    assert owner.emitted() == [("member.joined", {
        "workspaceId": owner.studio.workspace_id, "userId": member.who.user_id, "role": "member"})]  # fmt: skip
    assert owner.studio.ok(REMOVE, user_id=member.who.user_id) == {}
    assert owner.emitted() == [("member.removed", {
        "workspaceId": owner.studio.workspace_id, "userId": member.who.user_id, "role": "member"})]  # fmt: skip
    doomed = owner.studio.agent("Doomed")
    owner.studio.ok("PortalAgentDeleteFunction", agent_id=doomed["id"])
    assert owner.emitted() == [("agent.deleted", {
        "workspaceId": owner.studio.workspace_id, "agentId": doomed["id"], "name": "Doomed",
        "slug": doomed["slug"]})]  # fmt: skip


# --- nothing emitted for a change that did not commit; nothing lost once the path is retried


@pytest.fixture
def injector(monkeypatch: pytest.MonkeyPatch) -> Injector:
    made = Injector()
    attach_to_core_clients(made, monkeypatch)
    platform_providers.reset()  # stores built before hold clients without it
    return made


def position_of(injector: Injector, act: Any, wanted: Call, last: bool = False) -> int:
    """Where ``wanted`` falls among the calls of a clean run of ``act`` (its first, or ``last``)."""
    with injector.armed() as calls:
        act()
    found = [i for i, call in enumerate(calls) if call == wanted]
    assert found, calls
    return found[-1] if last else found[0]


def test_a_member_removal_whose_transaction_is_cancelled_emits_nothing(owner: Owner, injector: Injector) -> None:
    first = joined(owner.studio, "first@example.com")
    second = joined(owner.studio, "second@example.com")
    owner.emitted()
    removal = Call("dynamodb", "TransactWriteItems", conditional=True)
    position = position_of(injector, lambda: owner.studio.ok(REMOVE, user_id=first.who.user_id), removal)
    assert owner.emitted() == [("member.removed", {
        "workspaceId": owner.studio.workspace_id, "userId": first.who.user_id,
        "role": "member"})]  # fmt: skip
    # A concurrent change cancels the removal's transaction; the service reads again and commits a second one:
    # two transactions, one committed, one event.
    with injector.armed(Plan(position, CONDITIONAL)) as calls:
        assert owner.studio.ok(REMOVE, user_id=second.who.user_id) == {}
    assert injector.fired and calls.count(removal) == 2
    assert types(owner.emitted()) == ["member.removed"]
    # A removal that fails outright: nothing committed, nothing emitted; its retry commits and says so once.
    third = joined(owner.studio, "third@example.com")
    owner.emitted()
    with injector.armed(Plan(position, INTERNAL)):
        answer = owner.studio.call(REMOVE, user_id=third.who.user_id)
    assert injector.fired and answer.status >= 500
    assert owner.emitted() == []
    assert third.who.user_id in member_ids(owner.studio)
    assert owner.studio.ok(REMOVE, user_id=third.who.user_id) == {}
    assert [d["userId"] for k, d in owner.emitted() if k == "member.removed"] == [third.who.user_id]


def test_a_settlement_whose_transaction_fails_emits_nothing_until_the_sweeper_settles(
    owner: Owner, injector: Injector
) -> None:
    """The turn's settlement cancelled: no credits.low from it; the sweeper's settlement later commits: one."""
    owner.settings(lowCreditsThreshold=10)
    owner.grant(10)
    owner.emitted()
    settle = Call("dynamodb", "TransactWriteItems", conditional=True)
    # A clean turn first (10 -> 9, crossing), to find the settlement's position; then above the threshold again.
    position = position_of(injector, owner.ask, settle, last=False)
    assert [d["balance"] for k, d in owner.emitted() if k == "credits.low"] == [9]
    owner.grant(1)  # 10
    owner.emitted()
    with injector.armed(Plan(position, INTERNAL)):
        lines = owner.ask()  # delivered; its settlement failed: the hold stays, to be settled by the sweeper
    assert injector.fired
    assert "credits.low" not in types(owner.emitted())
    # The sweeper, once the hold expired (its clock past the expiry): the same settlement, now committed.
    settings = get_settings()
    later = time.time() + settings.hold_seconds + 60
    sweeper = Billing(LedgerStore(owner.studio.portal.aws.dynamodb, settings.ledger_table),
                      hold_seconds=settings.hold_seconds, clock=lambda: later)  # fmt: skip
    assert sweeper.sweep().settled == 1
    assert [d["balance"] for k, d in owner.emitted() if k == "credits.low"] == [9]
    assert lines[-1]["type"] == "done"


def test_a_failed_exhaustion_marker_keeps_the_402_emits_nothing_and_the_next_refusal_emits(
    owner: Owner, injector: Injector
) -> None:
    """Every fault at the marker's UpdateItem: still the 402, never a 500; an event exactly when the marker was
    written (a read timeout after DynamoDB applied it), else none and the next refusal writes it: one per exhaustion."""
    owner.ask_refused()
    assert types(owner.emitted()) == ["credits.exhausted"]

    def spend() -> None:  # a grant re-arms the marker; the turn spends the credit
        owner.grant(1)
        owner.ask()
        owner.emitted()

    spend()
    marker = Call("dynamodb", "UpdateItem", conditional=True)
    position = position_of(injector, owner.ask_refused, marker, last=True)  # warm: as every later refusal
    assert types(owner.emitted()) == ["credits.exhausted"]
    for fault in faults_for(marker, position):
        spend()
        with injector.armed(Plan(position, fault)) as calls:
            owner.ask_refused()  # still the 402
        assert injector.fired and calls[position] == marker and len(calls) == position + 1, fault
        applied = fault.name == "read-timeout-applied"
        assert types(owner.emitted()) == (["credits.exhausted"] if applied else []), fault
        owner.ask_refused()  # nothing lost: the next refusal writes it unless it was written
        assert types(owner.emitted()) == ([] if applied else ["credits.exhausted"]), fault


def test_a_failed_finish_of_a_retention_pass_emits_nothing_and_its_retry_emits_once(
    owner: Owner, injector: Injector
) -> None:
    owner.grant(10)
    owner.settings(storeConversations=True)
    owner.ask()
    owner.settings(conversationRetentionDays=30)
    owner.emitted()
    messages = take_purge_messages(owner.studio.portal.aws.sqs)
    worker = handler_module("WorkspacePurgeFunction")
    finish = Call("dynamodb", "UpdateItem", conditional=True)
    with injector.armed() as calls:  # a clean pass, recorded: where its finishing write falls
        assert worker.lambda_handler(sqs_event(messages), WorkerContext()) == {"batchItemFailures": []}
    position = max(i for i, call in enumerate(calls) if call == finish)
    assert types(owner.emitted()) == ["conversations.retention.applied"]
    owner.settings(conversationRetentionDays=7)
    messages = take_purge_messages(owner.studio.portal.aws.sqs)
    with injector.armed(Plan(position, INTERNAL)):
        answer = worker.lambda_handler(sqs_event(messages), WorkerContext())
    assert injector.fired and [f["itemIdentifier"] for f in answer["batchItemFailures"]] == [messages[0]["MessageId"]]
    assert owner.emitted() == []  # not committed: nothing said
    assert worker.lambda_handler(sqs_event(messages), WorkerContext()) == {"batchItemFailures": []}  # SQS redelivers
    assert [(k, d["retentionDays"]) for k, d in owner.emitted()] == [("conversations.retention.applied", 7)]
    assert worker.lambda_handler(sqs_event(messages), WorkerContext()) == {"batchItemFailures": []}  # once more
    assert owner.emitted() == []  # already applied: nothing new to say
