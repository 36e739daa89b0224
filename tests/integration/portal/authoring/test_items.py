"""Items (authoring.md, "Items"): an agent's documents and media, active (on the read plane) or not.

``mimeType`` (without parameters) and ``size`` come from the stored object, never from the caller; ``r2Key`` must
be an object under the agent's own folder. The read plane's items are exactly the active ones after each write.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.platform import main_table
from tests.support import brain
from tests.support.authoring import Studio
from tests.support.portal import Portal, assert_error

MARKDOWN = b"# Menu\n\nOat milk latte\n"


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def agent(studio: Studio) -> dict[str, Any]:
    agent = studio.agent("Barista")
    studio.put_object(f"projects/{agent['id']}/docs/menu.md", MARKDOWN, "text/markdown; charset=utf-8")
    return agent


def listed(studio: Studio, agent_id: str, **query: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = studio.ok("PortalItemsListFunction", agent_id=agent_id, query=query)["items"]
    return items


def served(studio: Studio, agent_id: str, key: str) -> list[str]:
    """The ids of the items the read plane serves for the agent."""
    return [i["id"] for i in brain.ok_json(brain.call("BrainItemsFunction", agent_id=agent_id, key=key))]


def test_every_field_of_an_item_with_type_and_size_from_the_object(studio: Studio, agent: dict[str, Any]) -> None:
    key = f"projects/{agent['id']}/docs/menu.md"
    item = studio.ok("PortalItemCreateFunction", 201, agent_id=agent["id"],
                     body={"name": "Menu", "kind": "document", "r2Key": key})["item"]  # fmt: skip
    assert item == {
        "id": item["id"], "name": "Menu", "kind": "document", "r2Key": key, "mimeType": "text/markdown",
        "size": len(MARKDOWN), "folder": "", "order": 0, "updatedAt": item["updatedAt"], "origin": "upload",
        "active": True,
        # Every write leaves its item to the knowledge worker (tests/integration/shared/test_knowledge.py)
        "index": {"status": "pending", "passages": 0, "error": None, "updatedAt": item["updatedAt"], "etag": None},
    }  # fmt: skip
    assert item["id"].startswith("item_")
    full = studio.item(agent["id"], "Card", folder="menus", order=3, origin="import", active=False)
    assert full | {"id": "", "updatedAt": "", "index": {}} == {
        "id": "", "name": "Card", "kind": "document", "r2Key": f"projects/{agent['id']}/docs/card.pdf",
        "mimeType": "application/pdf", "size": len(b"%PDF-1.7 menu"), "folder": "menus", "order": 3,
        "updatedAt": "", "origin": "import", "active": False, "index": {},
    }  # fmt: skip
    assert studio.ok("PortalAgentGetFunction", agent_id=agent["id"])["agent"]["itemCount"] == 2


def test_items_are_listed_by_folder_then_order_with_or_without_the_active_filter(
    studio: Studio, agent: dict[str, Any]
) -> None:
    made = [
        studio.item(agent["id"], "C", folder="b", order=1),
        studio.item(agent["id"], "A", folder="a", order=2, active=False),
        studio.item(agent["id"], "B", folder="b", order=0),
        studio.item(agent["id"], "D", folder="a", order=1),
    ]
    by_name = {i["name"]: i for i in made}
    assert [i["name"] for i in listed(studio, agent["id"])] == ["D", "A", "B", "C"]
    assert listed(studio, agent["id"]) == [by_name[n] for n in "DABC"]
    assert [i["name"] for i in listed(studio, agent["id"], active="true")] == ["D", "B", "C"]
    assert [i["name"] for i in listed(studio, agent["id"], active="false")] == ["A"]
    assert_error(studio.call("PortalItemsListFunction", agent_id=agent["id"], query={"active": "yes"}), 400,
                 "VALIDATION_ERROR")  # fmt: skip


def test_the_read_plane_serves_exactly_the_active_items(studio: Studio, agent: dict[str, Any]) -> None:
    key = studio.portal.mint_key(studio.who, studio.workspace_id)["key"]
    on = studio.item(agent["id"], "On")
    off = studio.item(agent["id"], "Off", active=False)
    assert served(studio, agent["id"], key) == [on["id"]]
    studio.ok("PortalItemUpdateFunction", agent_id=agent["id"], item_id=off["id"], body={"active": True})
    studio.ok("PortalItemUpdateFunction", agent_id=agent["id"], item_id=on["id"], body={"active": False})
    assert served(studio, agent["id"], key) == [off["id"]]
    assert studio.partition(main_table.items_partition(agent["id"])) == [f"INACTIVE#{on['id']}", f"ITEM#{off['id']}"]
    studio.ok("PortalItemDeleteFunction", agent_id=agent["id"], item_id=off["id"])
    assert served(studio, agent["id"], key) == []
    assert studio.partition(main_table.items_partition(agent["id"])) == [f"INACTIVE#{on['id']}"]


def test_an_edit_changes_what_it_names_and_reads_a_new_object(studio: Studio, agent: dict[str, Any]) -> None:
    item = studio.item(agent["id"], "Menu")
    change = {"name": "<b>Menu</b>", "folder": "x", "order": 7, "origin": "generated"}
    renamed = studio.ok("PortalItemUpdateFunction", agent_id=agent["id"], item_id=item["id"], body=change)["item"]
    assert renamed | {"updatedAt": "", "index": {}} == item | change | {"updatedAt": "", "index": {}}
    assert renamed["updatedAt"] >= item["updatedAt"]
    assert renamed["index"] == item["index"] | {"updatedAt": renamed["updatedAt"]}  # read again: the name is a source
    moved = studio.ok("PortalItemUpdateFunction", agent_id=agent["id"], item_id=item["id"],
                      body={"r2Key": f"projects/{agent['id']}/docs/menu.md", "kind": "text"})["item"]  # fmt: skip
    assert (moved["mimeType"], moved["size"], moved["kind"]) == ("text/markdown", len(MARKDOWN), "text")
    assert listed(studio, agent["id"]) == [moved]


def test_naming_the_same_object_again_reads_it_again(studio: Studio, agent: dict[str, Any]) -> None:
    """An object replaced at its path (a new upload of the menu) is read again when an edit names its key."""
    key = f"projects/{agent['id']}/docs/menu.md"
    item = studio.item(agent["id"], "Menu", r2Key=key, kind="text")
    studio.put_object(key, b"%PDF-1.7 a new menu", "application/pdf")
    renamed = studio.ok("PortalItemUpdateFunction", agent_id=agent["id"], item_id=item["id"], body={"name": "Menu"})
    assert (renamed["item"]["mimeType"], renamed["item"]["size"]) == ("text/markdown", len(MARKDOWN))  # not named
    again = studio.ok("PortalItemUpdateFunction", agent_id=agent["id"], item_id=item["id"], body={"r2Key": key})
    assert (again["item"]["mimeType"], again["item"]["size"]) == ("application/pdf", len(b"%PDF-1.7 a new menu"))
    assert listed(studio, agent["id"]) == [again["item"]]


def test_the_object_must_be_in_the_agents_folder_and_exist(studio: Studio, agent: dict[str, Any]) -> None:
    other = studio.agent("Other")
    studio.put_object(f"projects/{other['id']}/docs/theirs.pdf")
    studio.put_object("assets/logo.png")
    refusals = {
        "assets/logo.png": "r2Key",  # outside projects/<agentId>/
        f"projects/{other['id']}/docs/theirs.pdf": "r2Key",  # another agent's folder
        f"projects/{agent['id']}/docs/none.pdf": "r2Key",  # no object
        f"projects/{agent['id']}x/docs/menu.md": "r2Key",  # a folder that only starts like the agent's
        f"projects/{agent['id']}/../x.pdf": "r2Key",  # not a key at all
    }
    item = studio.item(agent["id"])
    for r2_key, field in refusals.items():
        for function, ids in (("PortalItemCreateFunction", {}), ("PortalItemUpdateFunction", {"item_id": item["id"]})):
            body = {"r2Key": r2_key} | ({"name": "X", "kind": "document"} if not ids else {})
            refused = studio.call(function, agent_id=agent["id"], body=body, **ids)
            assert_error(refused, 400, "VALIDATION_ERROR")
            assert refused.json()["error"].startswith(f"{field}: "), (r2_key, refused.json())
    assert listed(studio, agent["id"]) == [item]


# (what the body changes in a valid create, the field the 400 names)
REFUSED_ITEMS: list[tuple[dict[str, Any], str]] = [
    ({"mimeType": "text/html"}, "mimeType"),
    ({"size": 1}, "size"),
    ({"name": ""}, "name"),
    ({"name": "x" * 201}, "name"),
    ({"name": "a\x00b"}, "name"),
    ({"kind": "spreadsheet"}, "kind"),
    ({"origin": "stolen"}, "origin"),
    ({"folder": "x" * 101}, "folder"),
    ({"folder": "a\x7fb"}, "folder"),
    ({"order": -1}, "order"),
    ({"order": "1"}, "order"),
    ({"active": "true"}, "active"),
    ({"r2Key": 5}, "r2Key"),
]


def test_a_bad_item_is_refused_naming_the_field(studio: Studio, agent: dict[str, Any]) -> None:
    valid = {"name": "Menu", "kind": "document", "r2Key": f"projects/{agent['id']}/docs/menu.md"}
    named = {}
    for change, field in REFUSED_ITEMS:
        refused = studio.call("PortalItemCreateFunction", agent_id=agent["id"], body=valid | change)
        assert_error(refused, 400, "VALIDATION_ERROR")
        named[field] = refused.json()["error"].split(": ", 1)[0]
    for required in ("name", "kind", "r2Key"):
        refused = studio.call("PortalItemCreateFunction", agent_id=agent["id"],
                              body={k: v for k, v in valid.items() if k != required})  # fmt: skip
        named[f"{required} (missing)"] = refused.json()["error"].split(": ", 1)[0] + " (missing)"
    assert named == {field: field for field in named}
    assert listed(studio, agent["id"]) == []


def test_deleting_an_item(studio: Studio, agent: dict[str, Any]) -> None:
    item = studio.item(agent["id"])
    assert studio.ok("PortalItemDeleteFunction", agent_id=agent["id"], item_id=item["id"]) == {}
    assert listed(studio, agent["id"]) == []
    assert studio.ok("PortalAgentGetFunction", agent_id=agent["id"])["agent"]["itemCount"] == 0
    assert_error(studio.call("PortalItemDeleteFunction", agent_id=agent["id"], item_id=item["id"]), 404, "NOT_FOUND")
    assert_error(studio.call("PortalItemUpdateFunction", agent_id=agent["id"], item_id=item["id"],
                             body={"name": "Back"}), 404, "NOT_FOUND")  # fmt: skip
