"""Who may write (authoring.md): owners and admins write, members read (a write is 403, and so is the audit log),
anyone else gets 404 on every route of the writer, before any word on what it sent; another workspace's resources
are 404 like unknown ones. Table-driven over all 60 functions, so a route added without a row here fails the
completeness test. The knowledge search and the preview are reads (owners, admins and members; neither writes the
agent): the preview, a streamed turn, is billed to the workspace's owner whoever asks, and a refused one charges
nobody."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from core.platform import providers as platform_providers
from tests.support.authoring import Studio
from tests.support.chat import balance, grant
from tests.support.lambdas import invoke_streamed, stack
from tests.support.members import invite, joined
from tests.support.portal import Portal

World = dict[str, str]  # the ids a route names: agent, post, item, brand, workflow, path, invitation, user, thread,
# key, answer, webhook, delivery
VISITOR = "visitor-of-the-table-0001"  # a chat visitor's ``client``


@dataclass(frozen=True)
class Route:
    write: bool
    ids: tuple[str, ...] = ()  # which of the world's ids the path names
    body: Callable[[World], Any] | None = None
    managers_only: bool = False  # a read a member is refused (the audit log, stored conversations)
    query: dict[str, str] | None = None
    streamed: bool = False  # answers NDJSON as a stream when it succeeds (the preview); a refusal is plain JSON


ROUTES: dict[str, Route] = {
    "PortalWorkspaceUpdateFunction": Route(True, body=lambda w: {"name": "Renamed"}),
    "PortalBrandCreateFunction": Route(True, body=lambda w: {"name": "Other"}),
    "PortalBrandUpdateFunction": Route(True, ("brand",), lambda w: {"name": "Other"}),
    "PortalBrandDeleteFunction": Route(True, ("brand",)),
    "PortalWorkflowsListFunction": Route(False),
    "PortalWorkflowCreateFunction": Route(True, body=lambda w: {"name": "Flow"}),
    "PortalWorkflowUpdateFunction": Route(True, ("workflow",), lambda w: {"name": "Flow"}),
    "PortalWorkflowDeleteFunction": Route(True, ("workflow",)),
    "PortalAgentsListFunction": Route(False),
    "PortalAgentCreateFunction": Route(True, body=lambda w: {"name": "Second"}),
    "PortalAgentGetFunction": Route(False, ("agent",)),
    "PortalAgentUpdateFunction": Route(True, ("agent",), lambda w: {"name": "Renamed"}),
    "PortalAgentDeleteFunction": Route(True, ("agent",)),
    "PortalAgentWrapPutFunction": Route(True, ("agent",), lambda w: {"layout": "chat"}),
    "PortalAgentWrapGetFunction": Route(False, ("agent",)),
    "PortalAgentSitePutFunction": Route(True, ("agent",), lambda w: {"pages": []}),
    "PortalAgentSiteGetFunction": Route(False, ("agent",)),
    "PortalPostsListFunction": Route(False, ("agent",)),
    "PortalPostCreateFunction": Route(True, ("agent",), lambda w: {"key": "media/a.jpg", "kind": "image"}),
    "PortalPostUpdateFunction": Route(True, ("agent", "post"), lambda w: {"title": "New"}),
    "PortalPostPublishFunction": Route(True, ("agent", "post")),
    "PortalPostUnpublishFunction": Route(True, ("agent", "post")),
    "PortalPostDeleteFunction": Route(True, ("agent", "post")),
    "PortalItemsListFunction": Route(False, ("agent",)),
    "PortalItemCreateFunction": Route(True, ("agent",), lambda w: {
        "name": "Card", "kind": "document", "r2Key": f"projects/{w['agent']}/docs/menu.pdf"}),
    "PortalItemUpdateFunction": Route(True, ("agent", "item"), lambda w: {"name": "Card"}),
    "PortalItemDeleteFunction": Route(True, ("agent", "item")),
    "PortalUploadCreateFunction": Route(True, body=lambda w: {
        "path": "assets/new.png", "contentType": "image/png", "size": 10}),
    "PortalObjectsListFunction": Route(False),
    "PortalObjectGetFunction": Route(False, ("path",)),
    "PortalObjectDeleteFunction": Route(True, ("path",)),
    "PortalAuditListFunction": Route(False, managers_only=True),
    "PortalInvitationCreateFunction": Route(True, body=lambda w: {"email": "someone@example.com", "role": "member"}),
    "PortalInvitationsListFunction": Route(False, managers_only=True),
    "PortalInvitationRevokeFunction": Route(True, ("invitation",)),
    "PortalMemberUpdateFunction": Route(True, ("user",), lambda w: {"role": "admin"}),
    "PortalMemberRemoveFunction": Route(True, ("user",)),
    "PortalWorkspaceTransferFunction": Route(True, body=lambda w: {"userId": w["user"]}),
    "PortalConversationsListFunction": Route(False, ("agent",), managers_only=True),
    "PortalConversationGetFunction": Route(False, ("agent", "thread"), managers_only=True, query={"client": VISITOR}),
    "PortalConversationsEraseFunction": Route(True, ("agent",), query={"client": VISITOR}),
    "PortalKeyUsageFunction": Route(False, ("key",), managers_only=True),
    "PortalAgentUsageFunction": Route(False, ("agent",), managers_only=True),
    # Reads of the agent (they never write its content): the search is unbilled, the preview bills the owner.
    "PortalKnowledgeSearchFunction": Route(False, ("agent",), lambda w: {"query": "opening hours"}),
    "PortalAgentPreviewFunction": Route(False, ("agent",), lambda w: {"prompt": "When are you open?"}, streamed=True),
    # What visitors said back (issue 40): read by owners and admins, as the conversations are.
    "PortalInsightsGetFunction": Route(False, ("agent",), managers_only=True),
    "PortalFeedbackListFunction": Route(False, ("agent",), managers_only=True),
    "PortalUnansweredListFunction": Route(False, ("agent",), managers_only=True),
    # The owner's answers: part of the agent's knowledge, written as its items are.
    "PortalAnswersListFunction": Route(False, ("agent",)),
    "PortalAnswerCreateFunction": Route(True, ("agent",), lambda w: {"question": "Wifi?", "answer": "Ask at the bar."}),
    "PortalAnswerUpdateFunction": Route(True, ("agent", "answer"), lambda w: {"answer": "Ask Ines at the bar."}),
    "PortalAnswerDeleteFunction": Route(True, ("agent", "answer")),
    # Webhooks (issue 42): the owner's systems, so a member reads none of it either.
    "PortalWebhooksListFunction": Route(False, managers_only=True),
    "PortalWebhookCreateFunction": Route(True, body=lambda w: {"url": "https://93.184.215.14/in", "events": ["*"]}),
    "PortalWebhookUpdateFunction": Route(True, ("webhook",), lambda w: {"description": "CRM"}),
    "PortalWebhookDeleteFunction": Route(True, ("webhook",)),
    "PortalWebhookRotateFunction": Route(True, ("webhook",)),
    "PortalWebhookTestFunction": Route(True, ("webhook",)),
    "PortalWebhookDeliveriesFunction": Route(False, ("webhook",), managers_only=True),
    "PortalWebhookRetryFunction": Route(True, ("webhook", "delivery")),
}  # fmt: skip
BEFORE_THE_WRITER = {
    "PortalFallbackFunction", "PortalMagicLinkFunction", "PortalMagicLinkVerifyFunction", "PortalOAuthFunction",
    "PortalApiTokenFunction", "PortalRefreshFunction", "PortalLogoutFunction", "PortalWorkspacesListFunction",
    "PortalWorkspacesCreateFunction", "PortalWorkspaceGetFunction", "PortalWorkspaceDeleteFunction",
    "PortalMembersListFunction", "PortalBrandsListFunction", "PortalKeysListFunction", "PortalKeysMintFunction",
    "PortalKeyRevokeFunction", "PortalAccountFunction", "PortalCreditsBalanceFunction", "PortalCreditsHistoryFunction",
    "PortalInvitationAcceptFunction",  # names no workspace: its caller is whoever the invitation's address is
    "PortalModelsListFunction",  # names no workspace: the deployment's models, for any signed-in user
}  # fmt: skip
WRITES = [name for name, route in ROUTES.items() if route.write]
READS = [name for name, route in ROUTES.items() if not route.write and not route.managers_only]
REFUSED_TO_MEMBERS = [name for name, route in ROUTES.items() if route.write or route.managers_only]
WITH_BODY = [name for name, route in ROUTES.items() if route.body is not None]
READS_WITH_BODY = [name for name in WITH_BODY if name in READS]  # a member's bad body is a 400, not a 403
PREVIEW = "PortalAgentPreviewFunction"
CREDITS = 50  # the owner's, so that a preview could be billed: a refused one must leave them all


def build_world(studio: Studio) -> World:
    """An agent with a draft post and an item, a spare brand and workflow, an object, a pending invitation and an
    admin who joined by one."""
    agent = studio.agent("Barista")
    studio.media(agent["id"], "media/a.jpg")
    studio.put_object("assets/logo.png")
    webhook = studio.ok("PortalWebhookCreateFunction", 201, body={"url": "https://93.184.215.14/in", "events": ["*"]})[
        "webhook"]["id"]  # fmt: skip
    return {
        "agent": agent["id"],
        "post": studio.post(agent["id"])["id"],
        "item": studio.item(agent["id"])["id"],
        "brand": studio.brand()["id"],
        "workflow": studio.workflow()["id"],
        "path": "assets/logo.png",
        "invitation": invite(studio, "invited@example.com")["id"],
        "user": joined(studio, "joined@example.com", "admin").who.user_id,
        "thread": "thr_table",
        "key": studio.portal.mint_key(studio.who, studio.workspace_id)["id"],
        "answer": studio.ok("PortalAnswerCreateFunction", 201, agent_id=agent["id"],
                            body={"question": "Do you have oat milk?", "answer": "Yes, always."})["answer"]["id"],
        "webhook": webhook,
        "delivery": studio.ok("PortalWebhookTestFunction", 202, webhook_id=webhook)["deliveryId"],
    }  # fmt: skip


@pytest.fixture(autouse=True)
def offline_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The preview answered by the offline model, as the local runner answers it, without delay."""
    monkeypatch.setenv("CHAT_MODEL", "offline")
    monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
    platform_providers.reset()


@pytest.fixture
def owner(portal: Portal) -> Studio:
    studio = Studio.open(portal)
    grant(portal.aws, studio.who.user_id, CREDITS)
    return studio


@pytest.fixture
def world(owner: Studio) -> World:
    return build_world(owner)


def credits(studio: Studio) -> tuple[int, int]:
    """``studio``'s caller's (available, held) credits."""
    return balance(studio.portal.aws, studio.who.user_id)


def request(route: Route, world: World, *, body: Any = None) -> dict[str, Any]:
    """The keyword arguments of ``Studio.call`` for ``route`` in ``world`` (``body`` instead of the route's)."""
    ids = {name if name == "path" else "thread_key" if name == "thread" else f"{name}_id": world[name]
           for name in route.ids}  # fmt: skip
    sent = body if body is not None else (route.body(world) if route.body else None)
    return ids | ({"body": sent} if sent is not None else {}) | ({"query": route.query} if route.query else {})


def answers(studio: Studio, world: World, functions: list[str], *, body: Any = None) -> dict[str, tuple[int, str]]:
    """Each function's (status, code) for ``studio``: one loop, so a failure lists every route that misbehaved."""
    found = {}
    for function in functions:
        sent = request(ROUTES[function], world, body=body)
        if ROUTES[function].streamed:
            result: Any = invoke_streamed(function, studio.event(function, **sent))
        else:
            result = studio.call(function, **sent)
        found[function] = (result.status, result.json().get("code", "") if result.status >= 400 else "")
    return found


def test_the_table_covers_every_function_of_the_writer() -> None:
    portal_functions = {name for name in stack().functions() if name.startswith("Portal")}
    assert set(ROUTES) == portal_functions - BEFORE_THE_WRITER
    assert (len(ROUTES), len(WRITES), len(READS), len(REFUSED_TO_MEMBERS)) == (60, 37, 12, 48)


def test_a_stranger_gets_404_on_every_route_and_changes_nothing(owner: Studio, world: World) -> None:
    stranger = owner.stranger()
    entries = owner.audit()
    assert answers(stranger, world, list(ROUTES)) == dict.fromkeys(ROUTES, (404, "NOT_FOUND"))
    # A body that would be refused: still 404, with no word on the body (membership comes first).
    assert answers(stranger, world, WITH_BODY, body={"unknown": 1}) == dict.fromkeys(WITH_BODY, (404, "NOT_FOUND"))
    assert owner.audit() == entries
    assert (credits(owner), credits(stranger)) == ((CREDITS, 0), (0, 0))  # no preview held nor billed


def test_a_member_may_not_write(owner: Studio, world: World) -> None:
    member = owner.member()
    entries = owner.audit()
    assert answers(member, world, REFUSED_TO_MEMBERS) == dict.fromkeys(REFUSED_TO_MEMBERS, (403, "FORBIDDEN"))
    # The role is checked before the body; a read with a body (the search, the preview) gets to the body's check.
    refused = [name for name in WITH_BODY if name not in READS_WITH_BODY]
    assert answers(member, world, refused, body={"unknown": 1}) == dict.fromkeys(refused, (403, "FORBIDDEN"))
    assert READS_WITH_BODY == ["PortalKnowledgeSearchFunction", PREVIEW]
    found = answers(member, world, READS_WITH_BODY, body={"unknown": 1})
    assert found == dict.fromkeys(READS_WITH_BODY, (400, "VALIDATION_ERROR"))
    assert owner.audit() == entries
    assert (credits(owner), credits(member)) == ((CREDITS, 0), (0, 0))


def test_a_member_reads_what_the_owner_reads(owner: Studio, world: World) -> None:
    member = owner.member()
    for function in READS:
        if ROUTES[function].streamed:
            continue  # a billed turn of its own each time: test_members_and_admins_preview_billed_to_the_owner
        theirs, mine = (s.ok(function, **request(ROUTES[function], world)) for s in (member, owner))
        if function == "PortalObjectGetFunction":  # a fresh presigned URL each time
            theirs, mine = theirs["object"], mine["object"]
        assert theirs == mine, function


def test_an_admin_writes(owner: Studio, world: World) -> None:
    admin = owner.member("admin@example.com", role="admin")
    agent = admin.agent("By the admin")
    admin.ok("PortalPostPublishFunction", agent_id=world["agent"], post_id=world["post"])
    admin.ok("PortalBrandDeleteFunction", brand_id=world["brand"])
    admin.ok("PortalAgentDeleteFunction", agent_id=agent["id"])
    assert [e.actor_id for e in owner.audit(4)] == [admin.who.user_id] * 4


def preview(studio: Studio, world: World) -> list[dict[str, Any]]:
    """``studio``'s caller's preview of the world's agent: its NDJSON events, the ids each turn mints left out."""
    result = invoke_streamed(PREVIEW, studio.event(PREVIEW, **request(ROUTES[PREVIEW], world)))
    assert (result.status, result.header("Content-Type")) == (200, "application/x-ndjson"), result.body
    lines = result.lines()
    assert [lines[0]["type"], lines[-1]["type"]] == ["start", "done"], lines
    return [{k: v for k, v in line.items() if k not in {"turnId", "threadKey"}} for line in lines]


def test_members_and_admins_preview_billed_to_the_owner(owner: Studio, world: World) -> None:
    """A member's and an admin's preview: the owner's own reply, each turn billed to the workspace's owner (the
    caller pays nothing), and nothing written to the audit log."""
    member, admin = owner.member(), owner.member("admin@example.com", role="admin")
    entries = owner.audit()
    mine = preview(owner, world)
    spent = CREDITS - credits(owner)[0]
    assert spent > 0 and credits(owner)[1] == 0
    assert preview(member, world) == mine and preview(admin, world) == mine
    assert (credits(owner), credits(member), credits(admin)) == ((CREDITS - 3 * spent, 0), (0, 0), (0, 0))
    assert owner.audit() == entries


NAMING = [name for name, route in ROUTES.items() if set(route.ids) - {"path"}]


def test_another_workspaces_resources_are_not_found(owner: Studio, world: World) -> None:
    """The owner of both workspaces, naming in one workspace's routes the other's agent, post, item, brand or
    workflow: 404, as for an unknown id; nothing is written in either workspace."""
    rival = Studio(owner.portal, owner.who, owner.portal.create_workspace(owner.who, "Rival")["id"])
    theirs = build_world(rival)
    before = (owner.audit(), rival.audit(), credits(owner))
    for swapped in ("agent", "post", "item", "brand", "workflow", "answer", "webhook", "delivery"):
        functions = [name for name in NAMING if swapped in ROUTES[name].ids]
        mixed = world | {swapped: theirs[swapped]}
        assert answers(owner, mixed, functions) == dict.fromkeys(functions, (404, "NOT_FOUND")), swapped
        unknown = world | {swapped: f"{swapped}_01NOSUCH"}
        assert answers(owner, unknown, functions) == dict.fromkeys(functions, (404, "NOT_FOUND")), swapped
    assert (owner.audit(), rival.audit(), credits(owner)) == before  # no preview of the rival's agent billed


def test_a_post_or_item_of_another_agent_of_the_workspace_is_not_found(owner: Studio, world: World) -> None:
    other = owner.agent("Other")
    functions = [name for name in NAMING if {"post", "item", "answer"} & set(ROUTES[name].ids)]
    found = answers(owner, world | {"agent": other["id"]}, functions)
    assert found == dict.fromkeys(functions, (404, "NOT_FOUND"))
