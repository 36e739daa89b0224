"""Every write of the writer (authoring.md, "Who may write", "Audit"): with an ``Idempotency-Key`` a retry replays
the first answer (status and body) and writes nothing again, the same key with another body is 409; each write
leaves exactly one audit entry (action, actor, target, API Gateway's request id, time) and a refused one none."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from core.platform.ids import iso
from core.platform.settings import PLAN_LIMITS, get_settings
from tests.integration.portal.authoring.test_who_may_write import WRITES as EVERY_WRITE
from tests.support.authoring import Studio, at_once
from tests.support.brain import RFC3339_MS
from tests.support.conversations import VISITOR
from tests.support.portal import Portal, assert_error

State = dict[str, Any]  # the ids the writes name, and what earlier writes answered


@dataclass(frozen=True)
class Write:
    function: str
    action: str
    target: Callable[[State, Any], str]  # the audit entry's target, from the state and the answer
    ids: Callable[[State], dict[str, Any]] = lambda s: {}
    body: Callable[[State], Any] | None = None
    other_body: Callable[[State], Any] | None = None  # a different body for the same key: 409


def new(kind: str, envelope: str) -> Callable[[State, Any], str]:
    return lambda s, answer: f"{kind}:{answer[envelope]['id']}"


def named(kind: str, name: str) -> Callable[[State, Any], str]:
    return lambda s, answer: f"{kind}:{s[name]}"


def ids(**names: str) -> Callable[[State], dict[str, str]]:
    return lambda s: {param: s[name] for param, name in names.items()}


WRITES = [  # in an order each can succeed in: updates before deletes, a write's target made by an earlier one
    Write("PortalWorkspaceUpdateFunction", "workspace.update", named("workspace", "workspace"),
          body=lambda s: {"name": "Renamed"}, other_body=lambda s: {"name": "Other"}),
    Write("PortalBrandCreateFunction", "brand.create", new("brand", "brand"),
          body=lambda s: {"name": "Second"}, other_body=lambda s: {"name": "Third"}),
    Write("PortalBrandUpdateFunction", "brand.update", named("brand", "brand"), ids(brand_id="brand"),
          body=lambda s: {"name": "B2"}, other_body=lambda s: {"name": "B3"}),
    Write("PortalWorkflowCreateFunction", "workflow.create", new("workflow", "workflow"),
          body=lambda s: {"name": "Flow"}, other_body=lambda s: {"name": "Flow", "suggestions": []}),
    Write("PortalWorkflowUpdateFunction", "workflow.update", named("workflow", "workflow"), ids(workflow_id="workflow"),
          body=lambda s: {"suggestions": ["a"]}, other_body=lambda s: {"suggestions": ["b"]}),
    Write("PortalAgentCreateFunction", "agent.create", new("agent", "agent"),
          body=lambda s: {"name": "Second"}, other_body=lambda s: {"name": "Second", "slug": "other"}),
    Write("PortalAgentUpdateFunction", "agent.update", named("agent", "agent"), ids(agent_id="agent"),
          body=lambda s: {"name": "Renamed"}, other_body=lambda s: {"slug": "renamed"}),
    Write("PortalAgentWrapPutFunction", "agent.wrap.put", named("agent", "agent"), ids(agent_id="agent"),
          body=lambda s: {"layout": "chat"}, other_body=lambda s: {"layout": "grid"}),
    Write("PortalAgentSitePutFunction", "agent.site.put", named("agent", "agent"), ids(agent_id="agent"),
          body=lambda s: {"pages": []}, other_body=lambda s: {"pages": [{}]}),
    Write("PortalPostCreateFunction", "post.create", new("post", "post"), ids(agent_id="agent"),
          body=lambda s: {"key": "media/a.jpg", "kind": "image"},
          other_body=lambda s: {"key": "media/a.jpg", "kind": "image", "title": "x"}),
    Write("PortalPostUpdateFunction", "post.update", named("post", "post"), ids(agent_id="agent", post_id="post"),
          body=lambda s: {"title": "T"}, other_body=lambda s: {"title": "U"}),
    Write("PortalPostPublishFunction", "post.publish", named("post", "post"), ids(agent_id="agent", post_id="post")),
    Write("PortalPostUnpublishFunction", "post.unpublish", named("post", "post"),
          ids(agent_id="agent", post_id="post")),
    Write("PortalItemCreateFunction", "item.create", new("item", "item"), ids(agent_id="agent"),
          body=lambda s: {"name": "Menu", "kind": "document", "r2Key": s["r2Key"]},
          other_body=lambda s: {"name": "Card", "kind": "document", "r2Key": s["r2Key"]}),
    Write("PortalItemUpdateFunction", "item.update", named("item", "item"), ids(agent_id="agent", item_id="item"),
          body=lambda s: {"order": 2}, other_body=lambda s: {"order": 3}),
    Write("PortalAnswerCreateFunction", "answer.create", new("answer", "answer"), ids(agent_id="agent"),
          body=lambda s: {"question": "Wifi?", "answer": "Yes."},
          other_body=lambda s: {"question": "Wifi?", "answer": "No."}),
    Write("PortalAnswerUpdateFunction", "answer.update", named("answer", "answer"),
          ids(agent_id="agent", answer_id="answer"),
          body=lambda s: {"answer": "Ask at the bar."}, other_body=lambda s: {"answer": "Ask Ines."}),
    Write("PortalUploadCreateFunction", "object.upload", lambda s, a: "object:assets/new.png",
          body=lambda s: {"path": "assets/new.png", "contentType": "image/png", "size": 5},
          other_body=lambda s: {"path": "assets/new.png", "contentType": "image/png", "size": 6}),
    Write("PortalAnswerDeleteFunction", "answer.delete", named("answer", "answer"),
          ids(agent_id="agent", answer_id="answer")),
    Write("PortalItemDeleteFunction", "item.delete", named("item", "item"), ids(agent_id="agent", item_id="item")),
    Write("PortalPostDeleteFunction", "post.delete", named("post", "post"), ids(agent_id="agent", post_id="post")),
    Write("PortalObjectDeleteFunction", "object.delete", lambda s, a: "object:assets/logo.png",
          lambda s: {"path": "assets/logo.png"}),
    Write("PortalBrandDeleteFunction", "brand.delete", named("brand", "brand"), ids(brand_id="brand")),
    Write("PortalWorkflowDeleteFunction", "workflow.delete", named("workflow", "workflow"),
          ids(workflow_id="workflow")),
    Write("PortalWebhookCreateFunction", "webhook.create", new("webhook", "webhook"),
          body=lambda s: {"url": "https://93.184.215.14/in", "events": ["*"]},
          other_body=lambda s: {"url": "https://93.184.215.14/in", "events": ["member.joined"]}),
    Write("PortalWebhookUpdateFunction", "webhook.update", named("webhook", "webhook"), ids(webhook_id="webhook"),
          body=lambda s: {"description": "CRM"}, other_body=lambda s: {"description": "ERP"}),
    Write("PortalWebhookRotateFunction", "webhook.rotate", named("webhook", "webhook"), ids(webhook_id="webhook")),
    Write("PortalWebhookTestFunction", "webhook.test", named("webhook", "webhook"), ids(webhook_id="webhook")),
    Write("PortalWebhookRetryFunction", "webhook.retry", lambda s, a: f"delivery:{s['delivery']}",
          ids(webhook_id="webhook", delivery_id="delivery")),
    Write("PortalWebhookDeleteFunction", "webhook.delete", named("webhook", "webhook"), ids(webhook_id="webhook")),
    Write("PortalConversationsEraseFunction", "conversation.erase",
          lambda s, a: f"conversations:{s['agent']}/{VISITOR}",
          lambda s: {"agent_id": s["agent"], "query": {"client": VISITOR}}),
    Write("PortalAgentDeleteFunction", "agent.delete", named("agent", "agent"), ids(agent_id="agent")),
]  # fmt: skip
# The membership writes change who is in the workspace, so they cannot run in this one caller's sequence; their
# replays, conflicts and audit entries are tested where their several people are (tests/integration/portal/
# test_members.py, test_invitations.py).
MEMBERSHIP_WRITES = {
    "PortalInvitationCreateFunction", "PortalInvitationRevokeFunction", "PortalMemberUpdateFunction",
    "PortalMemberRemoveFunction", "PortalWorkspaceTransferFunction",
}  # fmt: skip
REMEMBERED = {
    "brand": "brand",
    "workflow": "workflow",
    "agent": "agent",
    "post": "post",
    "item": "item",
    "answer": "answer",
    "webhook": "webhook",
}


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def prepared(studio: Studio) -> State:
    """What WRITES need before the first: an agent with media and a document, an object to delete."""
    first = studio.agent("First")
    studio.media(first["id"], "media/a.jpg")
    studio.put_object(f"projects/{first['id']}/docs/menu.pdf", b"%PDF", "application/pdf")
    studio.put_object("assets/logo.png")
    assert sorted(w.function for w in WRITES) == sorted(set(EVERY_WRITE) - MEMBERSHIP_WRITES)
    return {"workspace": studio.workspace_id, "agent": first["id"], "first agent": first["id"],
            "r2Key": f"projects/{first['id']}/docs/menu.pdf"}  # fmt: skip


def request_of(write: Write, state: State) -> dict[str, Any]:
    if write.function == "PortalAgentDeleteFunction":
        state["agent"] = state["second agent"]  # the one the create made: the first keeps its posts
    return write.ids(state) | ({"body": write.body(state)} if write.body else {})


def remember(state: State, write: Write, answer: Any) -> None:
    """The ids a create answered, for the writes after it."""
    for name, envelope in REMEMBERED.items():
        if write.action == f"{name}.create":
            state[name] = answer[envelope]["id"]
    if write.function == "PortalAgentCreateFunction":
        state["second agent"], state["agent"] = answer["agent"]["id"], state["first agent"]
    if write.action == "webhook.test":  # the delivery the retry names
        state["delivery"] = answer["deliveryId"]


def snapshot(studio: Studio) -> Any:
    """Everything stored: every item of the main table (idempotency records and the audit log included) and every
    object version of the bucket, read straight from storage."""
    db, settings = studio.portal.aws.dynamodb, get_settings()
    items = [item for page in db.get_paginator("scan").paginate(TableName=settings.main_table)
             for item in page["Items"]]  # fmt: skip
    versions = studio.portal.aws.s3.list_object_versions(Bucket=settings.content_bucket)
    return (sorted(json.dumps(item, sort_keys=True) for item in items),
            [v["VersionId"] for v in versions.get("Versions", []) + versions.get("DeleteMarkers", [])])  # fmt: skip


def test_every_write_replays_once_conflicts_on_another_body_and_leaves_one_audit_entry(studio: Studio) -> None:
    state = prepared(studio)
    for n, write in enumerate(WRITES):
        request = request_of(write, state)
        before, entries = datetime.now(UTC), studio.audit(50)
        answer = studio.call(write.function, key=f"key-{n}", **request)
        assert answer.status in (200, 201, 202), (write.function, answer.body)
        entry, *rest = studio.audit(50)
        assert rest == entries, write.function  # exactly one new entry
        body = answer.json()
        expected = (write.action, studio.who.user_id, write.target(state, body), studio.last_request_id)
        assert (entry.action, entry.actor_id, entry.target, entry.request_id) == expected, write.function
        assert RFC3339_MS.fullmatch(entry.created_at) and iso(before) <= entry.created_at <= iso(datetime.now(UTC))
        assert entry.workspace_id == studio.workspace_id and entry.id.startswith("aud_")
        remember(state, write, body)

        written = snapshot(studio)
        replayed = studio.call(write.function, key=f"key-{n}", **request)
        assert (replayed.status, replayed.json()) == (answer.status, body), write.function
        if write.other_body is not None:
            other = studio.call(write.function, key=f"key-{n}", **write.ids(state), body=write.other_body(state))
            assert_error(other, 409, "CONFLICT")
        # Neither the replay nor the refusal wrote anything.
        assert studio.audit(50)[0] == entry and snapshot(studio) == written, write.function
    assert len(studio.audit(100)) == len(WRITES) + 1  # and the first agent's creation


def test_a_refused_write_leaves_no_entry_and_its_key_is_forgotten(studio: Studio) -> None:
    entries = studio.audit()
    taken = studio.brands()[0]["slug"]
    for _ in range(2):  # a refusal wrote nothing: the retry runs again (and is refused again)
        assert_error(studio.call("PortalBrandCreateFunction", key="k", body={"name": "X", "slug": taken}), 409,
                     "CONFLICT")  # fmt: skip
    assert studio.audit() == entries
    made = studio.ok("PortalBrandCreateFunction", 201, key="k", body={"name": "X", "slug": "x"})  # not "another body"
    assert studio.audit()[0].target == f"brand:{made['brand']['id']}"
    for bad in ("", "x" * 256, "tab\there"):
        assert_error(studio.call("PortalBrandCreateFunction", key=None, body={"name": "Y"},
                                 headers={"Idempotency-Key": bad}), 400, "VALIDATION_ERROR")  # fmt: skip
    assert len(studio.audit()) == len(entries) + 1


def test_a_key_is_the_callers_and_the_targets(studio: Studio) -> None:
    """The same key on another target, or from another writer, is another write."""
    agent = studio.agent("Helper")
    studio.media(agent["id"], "media/a.jpg")
    one = studio.post(agent["id"])
    two = studio.post(agent["id"])
    for post in (one, two):
        studio.ok("PortalPostPublishFunction", key="same", agent_id=agent["id"], post_id=post["id"])
    assert [p["status"] for p in studio.all_posts(agent["id"])] == ["published", "published"]
    admin = studio.member("admin@example.com", role="admin")
    mine = studio.ok("PortalBrandCreateFunction", 201, key="b", body={"name": "Mine"})["brand"]
    theirs = admin.ok("PortalBrandCreateFunction", 201, key="b", body={"name": "Theirs"})["brand"]
    assert mine["id"] != theirs["id"] and studio.audit(1)[0].actor_id == admin.who.user_id


def test_a_write_that_changes_nothing_still_appends_its_entry(studio: Studio) -> None:
    """authoring.md: "every write appends an audit entry", a PATCH of equal values and publishing a published post
    included (writes.py: the entry is written alone, nothing else moves)."""
    agent = studio.agent("Helper")
    studio.media(agent["id"], "media/a.jpg")
    post = studio.post(agent["id"], publish=True)
    before = studio.audit()
    assert studio.ok("PortalPostPublishFunction", agent_id=agent["id"], post_id=post["id"])["post"] == post
    assert studio.ok("PortalAgentUpdateFunction", agent_id=agent["id"], body={"name": "Helper"})["agent"] == agent | {
        "postCount": 1}  # fmt: skip
    assert studio.ok("PortalWorkspaceUpdateFunction", body={"listed": False})["workspace"] == studio.workspace()
    assert [(e.action, e.target, e.actor_id) for e in studio.audit()[:3]] == [
        ("workspace.update", f"workspace:{studio.workspace_id}", studio.who.user_id),
        ("agent.update", f"agent:{agent['id']}", studio.who.user_id),
        ("post.publish", f"post:{post['id']}", studio.who.user_id),
    ]
    assert studio.audit(len(before) + 3)[3:] == before


def test_a_retry_replays_even_when_what_the_first_attempt_checked_has_changed(
    studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retry answers what the first attempt answered: the media a published post named, the object an item was
    made from or the plan an upload was signed within may have changed since; the retry is not a new request."""
    agent = studio.agent("Helper")
    studio.media(agent["id"], "media/a.jpg")
    menu = f"projects/{agent['id']}/docs/menu.pdf"
    studio.put_object(menu, b"%PDF", "application/pdf")
    writes = [
        ("PortalPostCreateFunction", {"agent_id": agent["id"], "body": {"key": "media/a.jpg", "kind": "image",
                                                                          "publish": True}}),
        ("PortalItemCreateFunction", {"agent_id": agent["id"], "body": {"name": "Menu", "kind": "document",
                                                                          "r2Key": menu}}),
        ("PortalUploadCreateFunction", {"body": {"path": "assets/a.png", "contentType": "image/png", "size": 50}}),
    ]  # fmt: skip
    first = [studio.call(function, key=f"retry-{n}", **request) for n, (function, request) in enumerate(writes)]
    assert [a.status for a in first] == [201, 201, 201]
    entries = studio.audit()
    for path in (f"projects/{agent['id']}/media/a.jpg", menu):
        studio.ok("PortalObjectDeleteFunction", path=path)
    limits = PLAN_LIMITS["pro"].model_copy(update={"object_bytes": 10})
    monkeypatch.setitem(PLAN_LIMITS, "pro", limits)
    again = [studio.call(function, key=f"retry-{n}", **request) for n, (function, request) in enumerate(writes)]
    assert [(a.status, a.json()) for a in again] == [(a.status, a.json()) for a in first]
    assert studio.audit()[2:] == entries  # the two deletions only


def test_the_audit_log_outlives_an_agent_and_goes_with_its_workspace(studio: Studio) -> None:
    agent = studio.agent("Doomed")
    studio.ok("PortalAgentDeleteFunction", agent_id=agent["id"])
    studio.purge()
    assert [(e.action, e.target) for e in studio.audit()] == [("agent.delete", f"agent:{agent['id']}"),
                                                              ("agent.create", f"agent:{agent['id']}")]  # fmt: skip
    deleted = studio.call("PortalWorkspaceDeleteFunction")
    assert deleted.json() == {"deleted": True}
    studio.purge()
    assert studio.audit() == [] and studio.partition(f"WS#{studio.workspace_id}") == []


def test_concurrent_retries_with_one_key_write_once(studio: Studio) -> None:
    agent = studio.agent("Helper")
    studio.media(agent["id"], "media/a.jpg")
    entries = studio.audit()

    def create(n: int) -> tuple[int, Any]:
        answer = studio.call_in_container("PortalPostCreateFunction", key="once", agent_id=agent["id"],
                                          body={"key": "media/a.jpg", "kind": "image", "publish": True})  # fmt: skip
        return answer.status, answer.json()

    answers = at_once(6, create)
    made = [body for status, body in answers if status == 201]
    assert {status for status, _ in answers} <= {201, 409} and made, answers
    assert all(body == made[0] for body in made)  # the first answer, replayed
    assert [p["id"] for p in studio.all_posts(agent["id"])] == [made[0]["post"]["id"]]
    assert len(studio.audit()) == len(entries) + 1
