"""PATCH /api/workspaces/{id} (authoring.md, "Workspace settings"): name, listing, stored conversations, the wrap
config and the default brand and workflow (each this workspace's); the slug never changes."""

from __future__ import annotations

from typing import Any

import pytest

from core.platform.settings import PLAN_LIMITS
from tests.support.authoring import Studio
from tests.support.members import joined
from tests.support.portal import Portal, assert_error

UPDATE = "PortalWorkspaceUpdateFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal, name="Acme Coffee")


def patch(studio: Studio, body: Any) -> dict[str, Any]:
    workspace: dict[str, Any] = studio.ok(UPDATE, body=body)["workspace"]
    return workspace


def defaults(studio: Studio) -> tuple[str, list[str]]:
    """(the workspace's defaultBrandId, the ids of the brands flagged isDefault)."""
    return studio.workspace()["defaultBrandId"], [b["id"] for b in studio.brands() if b["isDefault"]]


def test_every_setting_changes_and_the_answer_has_every_field(studio: Studio) -> None:
    before = studio.workspace()
    wrap = {"layout": "grid", "theme": {"accent": "#123456"}, "nested": [1, None, "x"]}
    body = {"name": "<b>Renamed</b> & Co", "listed": True, "storeConversations": True, "wrapConfig": wrap}
    after = patch(studio, body)
    assert after == before | {
        "name": "<b>Renamed</b> & Co", "listed": True, "storeConversations": True, "wrapConfig": wrap,
        "updatedAt": after["updatedAt"],
    }  # fmt: skip
    assert set(after) == {"id", "name", "slug", "type", "origin", "ownerId", "createdAt", "storageConfig",
                          "wrapConfig", "defaultWorkflowId", "defaultBrandId", "listed", "storeConversations",
                          "conversationRetentionDays", "lowCreditsThreshold", "plan", "updatedAt"}  # fmt: skip
    assert after["slug"] == before["slug"] == "acme-coffee" and after["updatedAt"] > before["updatedAt"]
    assert studio.workspace() == after
    assert patch(studio, {"listed": False})["listed"] is False and studio.workspace()["storeConversations"] is True


def test_the_default_brand_and_workflow_move_to_this_workspaces_own(studio: Studio) -> None:
    first, _ = defaults(studio)
    second = studio.brand("Second")
    flow = studio.workflow("Flow")
    after = patch(studio, {"defaultBrandId": second["id"], "defaultWorkflowId": flow["id"]})
    assert (after["defaultBrandId"], after["defaultWorkflowId"]) == (second["id"], flow["id"])
    assert defaults(studio) == (second["id"], [second["id"]])
    patch(studio, {"defaultBrandId": first})
    assert defaults(studio) == (first, [first])
    # The default workflow cannot be deleted while it is the default.
    assert_error(studio.call("PortalWorkflowDeleteFunction", workflow_id=flow["id"]), 409, "CONFLICT")


def test_another_workspaces_brand_or_workflow_is_refused(studio: Studio) -> None:
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    theirs = {"defaultBrandId": rival.brand("Theirs")["id"], "defaultWorkflowId": rival.workflow("Theirs")["id"]}
    before, entries = studio.workspace(), studio.audit()
    for field, value in theirs.items():
        for wrong in (value, "brd_01NOSUCH"):
            refused = studio.call(UPDATE, body={field: wrong})
            assert_error(refused, 400, "VALIDATION_ERROR")
            assert refused.json()["error"].startswith(f"{field}: ")
    assert studio.workspace() == before and studio.audit() == entries
    assert defaults(studio) == (before["defaultBrandId"], [before["defaultBrandId"]])


REFUSED: list[tuple[dict[str, Any], str]] = [  # (body, the field the 400 names)
    ({"slug": "other"}, "slug"),
    ({"surprise": True}, "surprise"),
    ({"name": ""}, "name"),
    ({"name": "   "}, "name"),
    ({"name": "x" * 81}, "name"),
    ({"name": "tab\x0bname"}, "name"),
    ({"name": "line\u2028break"}, "name"),
    ({"name": 5}, "name"),
    ({"listed": "true"}, "listed"),
    ({"listed": 1}, "listed"),
    ({"storeConversations": None, "wrapConfig": []}, "wrapConfig"),
    ({"wrapConfig": "{}"}, "wrapConfig"),
    ({"wrapConfig": {"blob": "x" * (64 * 1024)}}, "wrapConfig"),
    ({"defaultBrandId": ""}, "defaultBrandId"),
    ({"defaultBrandId": "brd/1"}, "defaultBrandId"),
    ({"defaultWorkflowId": 7}, "defaultWorkflowId"),
    ({"lowCreditsThreshold": -1}, "lowCreditsThreshold"),
    ({"lowCreditsThreshold": 2.5}, "lowCreditsThreshold"),
    ({"lowCreditsThreshold": "10"}, "lowCreditsThreshold"),
    ({"lowCreditsThreshold": True}, "lowCreditsThreshold"),
    ({"lowCreditsThreshold": 1_000_000_001}, "lowCreditsThreshold"),
]


def test_a_bad_body_is_refused_naming_the_field(studio: Studio) -> None:
    before, entries = studio.workspace(), studio.audit()
    named = {}
    for body, field in REFUSED:
        refused = studio.call(UPDATE, body=body)
        assert_error(refused, 400, "VALIDATION_ERROR")
        named[field] = refused.json()["error"].split(": ", 1)[0]
    assert named == {field: field for _, field in REFUSED}
    for raw in ("[]", "not json", '{"name": "a", "name": "b"}'):
        assert_error(studio.call(UPDATE, body=raw), 400, "VALIDATION_ERROR")
    assert studio.workspace() == before and studio.audit() == entries


def test_a_wrap_config_of_64_kib_is_taken(studio: Studio) -> None:
    overhead = len('{"blob":""}')
    wrap = {"blob": "x" * (64 * 1024 - overhead)}
    assert patch(studio, {"wrapConfig": wrap})["wrapConfig"] == wrap


def test_the_low_credits_threshold_is_set_kept_audited_and_cleared(studio: Studio) -> None:
    """``lowCreditsThreshold``: credits (0 allowed), or null = never, the default; every answer carries it."""
    assert studio.workspace()["lowCreditsThreshold"] is None
    entries = len(studio.audit())
    assert patch(studio, {"lowCreditsThreshold": 50})["lowCreditsThreshold"] == 50
    assert studio.workspace()["lowCreditsThreshold"] == 50
    assert patch(studio, {"name": "Renamed"})["lowCreditsThreshold"] == 50  # another setting leaves it be
    assert patch(studio, {"lowCreditsThreshold": 0})["lowCreditsThreshold"] == 0
    assert patch(studio, {"lowCreditsThreshold": None})["lowCreditsThreshold"] is None
    assert studio.workspace()["lowCreditsThreshold"] is None
    written = studio.audit()
    assert len(written) == entries + 4 and {e.action for e in written[:4]} == {"workspace.update"}
    assert patch(studio, {"lowCreditsThreshold": 1_000_000_000})["lowCreditsThreshold"] == 1_000_000_000


def test_every_answer_names_the_owners_plan_and_its_limits(studio: Studio) -> None:
    """``plan``: the owner's plan, whose object size and storage bind uploads (a client's dry run checks them); an
    admin or a member is shown the owner's, not their own."""

    def plan(name: str) -> dict[str, Any]:
        limits = PLAN_LIMITS[name]
        return {"name": name, "maxObjectBytes": limits.object_bytes, "maxStorageBytes": limits.storage_bytes}

    assert studio.workspace()["plan"] == plan("pro")  # Studio.open's owner is on pro
    assert patch(studio, {"listed": True})["plan"] == plan("pro")
    admin, member = joined(studio, "a@example.com", "admin"), joined(studio, "m@example.com")
    studio.portal.users.set_plan(admin.who.user_id, "business")
    studio.portal.users.set_plan(studio.who.user_id, "free")
    assert studio.workspace()["plan"] == member.workspace()["plan"] == admin.workspace()["plan"] == plan("free")
    assert admin.ok(UPDATE, body={"listed": False})["workspace"]["plan"] == plan("free")
    assert plan("free")["maxObjectBytes"] == 25 * 1024 * 1024  # what a client's dry run refuses a 31.5 MB file by
