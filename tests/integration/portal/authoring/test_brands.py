"""Brands (authoring.md, "Brands and workflows"): slugs unique in their workspace, exactly one default (the
workspace's ``defaultBrandId`` agreeing) after any sequence of writes, and neither the default nor a brand an
agent uses is deleted."""

from __future__ import annotations

from typing import Any

import pytest

from core.brands.write_store import BrandStore
from tests.support.authoring import Studio, at_once, fields_named_by_refusals
from tests.support.portal import Portal, assert_error

CREATE, UPDATE, DELETE = "PortalBrandCreateFunction", "PortalBrandUpdateFunction", "PortalBrandDeleteFunction"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal, name="Acme")


def assert_one_default(studio: Studio) -> str:
    """Exactly one brand is flagged the default, it is the workspace's defaultBrandId, and the list starts with it."""
    brands = studio.brands()
    flagged = [b["id"] for b in brands if b["isDefault"]]
    assert flagged == [studio.workspace()["defaultBrandId"]] == [brands[0]["id"]], brands
    return flagged[0]


def test_every_field_of_a_brand(studio: Studio) -> None:
    bare = studio.ok(CREATE, 201, body={"name": "Café Zoë"})["brand"]
    assert bare == {
        "id": bare["id"], "slug": "cafe-zoe", "name": "Café Zoë", "isDefault": False, "palette": [],
        "fontFamily": "", "createdAt": bare["createdAt"], "updatedAt": bare["createdAt"],
    }  # fmt: skip
    full = studio.ok(CREATE, 201, body={"name": "<b>Bold</b>", "slug": "bold", "palette": ["#fff", "#A0B1C2D3"],
                                         "fontFamily": "'Inter', sans-serif"})["brand"]  # fmt: skip
    assert full | {"id": "", "createdAt": "", "updatedAt": ""} == {
        "id": "", "slug": "bold", "name": "<b>Bold</b>", "isDefault": False, "palette": ["#fff", "#A0B1C2D3"],
        "fontFamily": "'Inter', sans-serif", "createdAt": "", "updatedAt": "",
    }  # fmt: skip
    assert studio.brands()[1:] == [bare, full]  # default first, then by creation
    changed = studio.ok(UPDATE, brand_id=full["id"], body={"name": "Bolder", "palette": [], "fontFamily": "serif"})
    assert changed["brand"] == full | {"name": "Bolder", "palette": [], "fontFamily": "serif",
                                       "updatedAt": changed["brand"]["updatedAt"]}  # fmt: skip
    assert changed["brand"]["updatedAt"] >= full["updatedAt"]


def test_slugs_are_unique_in_the_workspace(studio: Studio) -> None:
    default = assert_one_default(studio)
    taken = studio.brands()[0]["slug"]  # the default brand's, from the workspace's name
    assert_error(studio.call(CREATE, body={"name": "Other", "slug": taken}), 409, "CONFLICT")
    assert_error(studio.call(CREATE, body={"name": "Acme"}), 409, "CONFLICT")  # the same slug, derived
    second = studio.brand("Second")
    assert_error(studio.call(UPDATE, brand_id=second["id"], body={"slug": taken}), 409, "CONFLICT")
    studio.ok(UPDATE, brand_id=default, body={"slug": "renamed"})  # frees its old slug
    assert studio.ok(UPDATE, brand_id=second["id"], body={"slug": taken})["brand"]["slug"] == taken
    assert studio.brand("Freed", slug="second")["slug"] == "second"
    # Another workspace may use any of them.
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    assert rival.brand("Mine", slug=taken)["slug"] == taken


def test_the_default_moves_and_exactly_one_brand_is_the_default(studio: Studio) -> None:
    first = assert_one_default(studio)
    second = studio.brand("Second", isDefault=True)
    assert second["isDefault"] is True and assert_one_default(studio) == second["id"]
    third = studio.brand("Third")
    studio.ok(UPDATE, brand_id=third["id"], body={"isDefault": True})
    assert assert_one_default(studio) == third["id"]
    studio.ok("PortalWorkspaceUpdateFunction", body={"defaultBrandId": first})
    assert assert_one_default(studio) == first
    studio.ok(UPDATE, brand_id=second["id"], body={"isDefault": False})  # not the default: nothing to do
    studio.ok(UPDATE, brand_id=first, body={"isDefault": True, "name": "Still"})  # already the default
    refused = studio.call(UPDATE, brand_id=first, body={"isDefault": False})  # would leave none
    assert_error(refused, 409, "CONFLICT")
    assert refused.json()["error"].startswith("isDefault: ")
    assert assert_one_default(studio) == first


def test_concurrent_default_moves_leave_exactly_one_default(studio: Studio) -> None:
    brands = [studio.brand(f"Brand {n}")["id"] for n in range(4)]
    workflows_and_brands = [("brand", b) for b in brands] + [("workspace", b) for b in brands]

    def move(n: int) -> int:
        how, brand_id = workflows_and_brands[n % len(workflows_and_brands)]
        if how == "brand":
            return studio.call_in_container(UPDATE, brand_id=brand_id, body={"isDefault": True}).status
        return studio.call_in_container("PortalWorkspaceUpdateFunction", body={"defaultBrandId": brand_id}).status

    statuses = at_once(8, move)
    assert set(statuses) <= {200, 409} and 200 in statuses, statuses
    assert_one_default(studio)
    winner = studio.brand("Late", isDefault=True)
    assert assert_one_default(studio) == winner["id"]


def test_the_default_and_a_brand_in_use_are_not_deleted(studio: Studio) -> None:
    default = assert_one_default(studio)
    used, spare = studio.brand("Used"), studio.brand("Spare")
    agent = studio.agent("Helper", brandId=used["id"])
    entries = studio.audit()
    assert_error(studio.call(DELETE, brand_id=default), 409, "CONFLICT")
    assert_error(studio.call(DELETE, brand_id=used["id"]), 409, "CONFLICT")
    assert studio.audit() == entries
    assert studio.ok(DELETE, brand_id=spare["id"]) == {}
    assert_error(studio.call(DELETE, brand_id=spare["id"]), 404, "NOT_FOUND")
    assert_error(studio.call(UPDATE, brand_id=spare["id"], body={"name": "Back"}), 404, "NOT_FOUND")
    studio.ok("PortalAgentUpdateFunction", agent_id=agent["id"], body={"brandId": default})
    assert studio.ok(DELETE, brand_id=used["id"]) == {}
    assert [b["id"] for b in studio.brands()] == [default]
    assert studio.brand("Used again", slug=used["slug"])["slug"] == used["slug"]  # its slug went with it
    other = studio.agent("Second")  # on the default brand: deleting the agent frees a brand again
    studio.ok("PortalAgentDeleteFunction", agent_id=other["id"])
    assert studio.ok(DELETE, brand_id=studio.brand("Spare again")["id"]) == {}


REFUSED: list[tuple[dict[str, Any], str]] = [  # (body, the field the 400 names)
    ({}, "name"),
    ({"name": ""}, "name"),
    ({"name": "x" * 81}, "name"),
    ({"name": "a\x1fb"}, "name"),
    ({"name": "Ok", "slug": "Bad Slug"}, "slug"),
    ({"name": "Ok", "slug": "-lead"}, "slug"),
    ({"name": "Ok", "slug": "double--hyphen"}, "slug"),
    ({"name": "Ok", "slug": "UPPER"}, "slug"),
    ({"name": "Ok", "slug": "x" * 49}, "slug"),
    ({"name": "Ok", "slug": "ünï"}, "slug"),
    ({"name": "Ok", "palette": ["red"]}, "palette.0"),
    ({"name": "Ok", "palette": ["#12345"]}, "palette.0"),
    ({"name": "Ok", "palette": ["#ggg"]}, "palette.0"),
    ({"name": "Ok", "palette": ["#fff", "url(x)"]}, "palette.1"),
    ({"name": "Ok", "palette": ["#fff"] * 17}, "palette"),
    ({"name": "Ok", "palette": "#fff"}, "palette"),
    ({"name": "Ok", "fontFamily": "x" * 101}, "fontFamily"),
    ({"name": "Ok", "fontFamily": "a\x00"}, "fontFamily"),
    ({"name": "Ok", "isDefault": "true"}, "isDefault"),
    ({"name": "Ok", "id": "brd_1"}, "id"),
    ({"name": "Ok", "agentCount": 0}, "agentCount"),
]


def test_a_bad_brand_is_refused_naming_the_field(studio: Studio) -> None:
    brand, entries = studio.brand("Target"), studio.audit()
    named = fields_named_by_refusals(studio, CREATE, UPDATE, REFUSED, brand_id=brand["id"])
    assert named == {name: name for name in named}
    assert studio.audit() == entries and studio.brands()[1:] == [brand]


def test_the_brand_of_an_agent_must_be_this_workspaces(studio: Studio) -> None:
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    theirs = rival.brand("Theirs")
    refused = studio.call("PortalAgentCreateFunction", body={"name": "A", "brandId": theirs["id"]})
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith("brandId: ")
    agent: dict[str, Any] = studio.agent("A")
    refused = studio.call("PortalAgentUpdateFunction", agent_id=agent["id"], body={"brandId": theirs["id"]})
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith("brandId: ")


@pytest.mark.parametrize("edited", ["old default", "new default"])
def test_an_edit_racing_a_default_move_keeps_exactly_one_default(
    studio: Studio, monkeypatch: pytest.MonkeyPatch, edited: str
) -> None:
    """A brand's edit read before the default moved and written after (the move made in between, deterministically)
    must not write back the flag it read: one brand flagged again (or none), against the workspace's word."""
    first, second = assert_one_default(studio), studio.brand("Second")["id"]
    real, raced = BrandStore.update, list[Any]()

    def racing(store: BrandStore, old: Any, new: Any, **kwargs: Any) -> Any:
        if not raced:  # another request moves the default between this edit's read and its write
            raced.append(studio.ok("PortalWorkspaceUpdateFunction", body={"defaultBrandId": second}))
        return real(store, old, new, **kwargs)

    monkeypatch.setattr(BrandStore, "update", racing)
    target = first if edited == "old default" else second
    renamed = studio.ok(UPDATE, brand_id=target, body={"name": "Renamed"})["brand"]
    assert raced and assert_one_default(studio) == second
    assert renamed == next(b for b in studio.brands() if b["id"] == target)  # the answer is what was stored
