"""Seeded data is production data: a workspace the test seed makes counts against its owner's plan exactly as
one created through the portal does (the seed takes the portal's create path, never puts of its own)."""

from __future__ import annotations

from core.identity.store import UserStore
from core.platform.settings import get_settings
from tests.support.portal import Portal, assert_error
from tests.support.seed import Seeder


def test_a_seeded_owner_at_the_plan_limit_is_refused_like_a_signed_up_one(portal: Portal, seed: Seeder) -> None:
    seeded = seed.user("seeded@example.com")  # free: one workspace
    seed.workspace(seeded, "Seeded")
    signed_up = portal.sign_in("signed-up@example.com")
    portal.create_workspace(signed_up, "Signed up")
    for who in (portal.sign_in("seeded@example.com"), signed_up):
        refused = portal.call("PortalWorkspacesCreateFunction", token=who.token, body={"name": "Second"})
        assert_error(refused, 402, "PLAN_LIMIT_REACHED")


def test_the_owner_count_is_the_number_of_owned_workspaces(portal: Portal, seed: Seeder) -> None:
    owner = seed.user("owner@example.com", plan="pro")
    made = [seed.workspace(owner, name) for name in ("One", "Two", "Three")]
    stored = UserStore(portal.aws.dynamodb, get_settings().main_table).get(owner.id)
    assert stored is not None
    assert (stored.owned_workspaces, stored.active_workspace_id) == (3, made[-1].id)
    session = portal.sign_in("owner@example.com")
    listed = portal.call("PortalWorkspacesListFunction", token=session.token).json()
    assert [(w["id"], w["role"]) for w in listed] == [(w.id, "owner") for w in made]


def test_a_deleted_seeded_workspace_gives_its_place_back(portal: Portal, seed: Seeder) -> None:
    owner = seed.user("owner@example.com")
    doomed = seed.workspace(owner, "Doomed")
    session = portal.sign_in("owner@example.com")
    deleted = portal.call("PortalWorkspaceDeleteFunction", token=session.token, params={"workspaceId": doomed.id})
    assert (deleted.status, deleted.json()) == (200, {"deleted": True}), deleted.body
    stored = UserStore(portal.aws.dynamodb, get_settings().main_table).get(owner.id)
    assert stored is not None and stored.owned_workspaces == 0
    assert portal.create_workspace(session, "Again")["slug"] == "again"
