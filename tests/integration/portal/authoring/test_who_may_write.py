"""Who may write (authoring.md): owners and admins write, members read (a write is 403, and so is the audit log),
anyone else gets 404 on every route of the writer, before any word on what it sent; another workspace's resources
are 404 like unknown ones. Table-driven over all 43 functions, so a route added without a row here fails the
completeness test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.authoring import Studio
from tests.support.lambdas import stack
from tests.support.members import invite, joined
from tests.support.portal import Portal

World = dict[str, str]  # the ids a route names: agent, post, item, brand, workflow, path, invitation, user, thread, key
VISITOR = "visitor-of-the-table-0001"  # a chat visitor's ``client``


@dataclass(frozen=True)
class Route:
    write: bool
    ids: tuple[str, ...] = ()  # which of the world's ids the path names
    body: Callable[[World], Any] | None = None
    managers_only: bool = False  # a read a member is refused (the audit log, stored conversations)
    query: dict[str, str] | None = None


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


def build_world(studio: Studio) -> World:
    """An agent with a draft post and an item, a spare brand and workflow, an object, a pending invitation and an
    admin who joined by one."""
    agent = studio.agent("Barista")
    studio.media(agent["id"], "media/a.jpg")
    studio.put_object("assets/logo.png")
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
    }


@pytest.fixture
def owner(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def world(owner: Studio) -> World:
    return build_world(owner)


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
        result = studio.call(function, **request(ROUTES[function], world, body=body))
        found[function] = (result.status, result.json().get("code", "") if result.status >= 400 else "")
    return found


def test_the_table_covers_every_function_of_the_writer() -> None:
    portal_functions = {name for name in stack().functions() if name.startswith("Portal")}
    assert set(ROUTES) == portal_functions - BEFORE_THE_WRITER
    assert (len(ROUTES), len(WRITES), len(READS), len(REFUSED_TO_MEMBERS)) == (43, 28, 9, 34)


def test_a_stranger_gets_404_on_every_route_and_changes_nothing(owner: Studio, world: World) -> None:
    stranger = owner.stranger()
    entries = owner.audit()
    assert answers(stranger, world, list(ROUTES)) == dict.fromkeys(ROUTES, (404, "NOT_FOUND"))
    # A body that would be refused: still 404, with no word on the body (membership comes first).
    assert answers(stranger, world, WITH_BODY, body={"unknown": 1}) == dict.fromkeys(WITH_BODY, (404, "NOT_FOUND"))
    assert owner.audit() == entries


def test_a_member_may_not_write(owner: Studio, world: World) -> None:
    member = owner.member()
    entries = owner.audit()
    assert answers(member, world, REFUSED_TO_MEMBERS) == dict.fromkeys(REFUSED_TO_MEMBERS, (403, "FORBIDDEN"))
    # The role is checked before the body.
    assert answers(member, world, WITH_BODY, body={"unknown": 1}) == dict.fromkeys(WITH_BODY, (403, "FORBIDDEN"))
    assert owner.audit() == entries


def test_a_member_reads_what_the_owner_reads(owner: Studio, world: World) -> None:
    member = owner.member()
    for function in READS:
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


NAMING = [name for name, route in ROUTES.items() if set(route.ids) - {"path"}]


def test_another_workspaces_resources_are_not_found(owner: Studio, world: World) -> None:
    """The owner of both workspaces, naming in one workspace's routes the other's agent, post, item, brand or
    workflow: 404, as for an unknown id; nothing is written in either workspace."""
    rival = Studio(owner.portal, owner.who, owner.portal.create_workspace(owner.who, "Rival")["id"])
    theirs = build_world(rival)
    before = (owner.audit(), rival.audit())
    for swapped in ("agent", "post", "item", "brand", "workflow"):
        functions = [name for name in NAMING if swapped in ROUTES[name].ids]
        mixed = world | {swapped: theirs[swapped]}
        assert answers(owner, mixed, functions) == dict.fromkeys(functions, (404, "NOT_FOUND")), swapped
        unknown = world | {swapped: f"{swapped}_01NOSUCH"}
        assert answers(owner, unknown, functions) == dict.fromkeys(functions, (404, "NOT_FOUND")), swapped
    assert (owner.audit(), rival.audit()) == before


def test_a_post_or_item_of_another_agent_of_the_workspace_is_not_found(owner: Studio, world: World) -> None:
    other = owner.agent("Other")
    functions = [name for name in NAMING if {"post", "item"} & set(ROUTES[name].ids)]
    found = answers(owner, world | {"agent": other["id"]}, functions)
    assert found == dict.fromkeys(functions, (404, "NOT_FOUND"))
