"""An item's create, move (folder, order and ``active`` at once) and delete, failed at every AWS call (issue 43):
its place in the items listing is written in the item's own transaction, so whatever failed, each item has exactly
one place, where it stands, and no place names an item that is not there (``tests/support/item_places.py``).

After the fault: the answer is the write's success or a framed error; the places are exact; the listing (one page
of places and their items) is the old order of the items stored. Then the client's retry: a success (a delete
whose first attempt was applied finds no item: 404), and the places exact again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.platform.settings import get_settings
from tests.faults.test_authoring_faults import Desk, open_desk, send
from tests.support.fault_harness import World, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.item_places import assert_places_exact, items_of, old_order
from tests.support.lambdas import invoke
from tests.support.portal import event_for

ITEM = "item_001"  # the desk's inactive item (``Seeder.items``: item_000 active, item_001 not)
MOVE = {"folder": "menus", "order": 7, "active": True}


@dataclass
class PlaceScenario:
    name: str
    function: str
    status: int
    body: dict[str, Any] | None = None
    item: str | None = ITEM  # the item named in the path (None: a create)

    def arrange(self, world: World) -> Desk:
        desk = open_desk(world)
        key = f"workspaces/{desk.workspace_id}/projects/{desk.agent_id}/docs/new.pdf"
        world.aws.s3.put_object(Bucket=get_settings().content_bucket, Body=b"%PDF-1.7", Key=key)
        assert_places_exact(world.aws.dynamodb, desk.agent_id)
        return desk

    def act(self, world: World, state: Desk) -> Any:
        body = None if self.body is None else {k: v.format(agent=state.agent_id) if isinstance(v, str) else v
                                               for k, v in self.body.items()}  # fmt: skip
        return send(world, state, self.function, body=body, agentId=state.agent_id,
                    **({"itemId": self.item} if self.item else {}))  # fmt: skip

    def verify(self, world: World, state: Desk, result: Any, fault: Fault | None) -> None:
        answer = result.result
        if answer.status != self.status:
            framed_error(answer)
            assert fault is not None, answer.body
        self.check(world, state)
        again = self.act(world, state).result
        gone = self.item is not None and self.body is None  # a delete applied before its answer was lost
        assert again.status == self.status or (gone and again.status == 404), again.body
        self.check(world, state)

    def check(self, world: World, state: Desk) -> None:
        db = world.aws.dynamodb
        assert_places_exact(db, state.agent_id)
        event = event_for("PortalItemsListFunction", token=state.owner.token,
                          params={"workspaceId": state.workspace_id, "agentId": state.agent_id},
                          query={"limit": "1"})  # fmt: skip
        seen, cursor = [], None
        while True:  # every page of one: the places' order is the items' order
            event["queryStringParameters"] = {"limit": "1"} | ({"cursor": cursor} if cursor else {})
            page = invoke("PortalItemsListFunction", event)
            assert page.status == 200, page.body
            seen += [i["id"] for i in page.json()["items"]]
            if (cursor := page.json()["nextCursor"]) is None:
                break
        assert seen == old_order(items_of(db, state.agent_id))

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


ITEMS = "PortalItem{}Function"
NEW = {"name": "New", "kind": "document", "folder": "a", "order": 2, "r2Key": "projects/{agent}/docs/new.pdf"}
SCENARIOS = [
    PlaceScenario("item-create", ITEMS.format("Create"), 201, NEW, item=None),
    PlaceScenario("item-move", ITEMS.format("Update"), 200, MOVE),
    PlaceScenario("item-delete", ITEMS.format("Delete"), 200),
]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)
