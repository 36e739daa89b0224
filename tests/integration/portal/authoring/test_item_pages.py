"""The items listing in pages (issue 43): one page of places and their items, in the order it always had (folder,
then order, then id), whatever the agent holds; each item's place kept exact by every write, under races too; an
agent made before the places listed whole until ``python -m ops order-items`` places its items.

The two-size count (items read equal at 205 and 2,050 items) is in
tests/integration/shared/calls_per_request/test_lists_at_two_sizes.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.items.write_store import ItemStore
from core.platform import main_table as keys
from core.platform.dynamo import batch_delete
from core.platform.settings import get_settings
from ops import order_items
from tests.support.authoring import Studio, at_once
from tests.support.item_places import assert_places_exact, items_of, old_order
from tests.support.portal import Portal

LIST, UPDATE, DELETE = "PortalItemsListFunction", "PortalItemUpdateFunction", "PortalItemDeleteFunction"
# Folders Python orders differently from a plain "<folder>#" key: a folder, one it begins ("a" < "a!" although
# "!" sorts before "#"), one with "#" in it, letters beyond ASCII.
FOLDERS = ["", "a", "a!", "a#b", "b", "B", "é", "日本", "a "]
ORDERS = [0, 3, 1_000_000, 3, 12]


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def agent(studio: Studio) -> dict[str, Any]:
    return studio.agent("Shelves")


def stock(studio: Studio, agent_id: str, count: int) -> list[dict[str, Any]]:
    made = []
    for n in range(count):
        made.append(studio.item(agent_id, f"Doc{n}", folder=FOLDERS[n % len(FOLDERS)],
                                order=ORDERS[n % len(ORDERS)], active=n % 3 != 0))  # fmt: skip
    return made


def walked(studio: Studio, agent_id: str, limit: int, **query: str) -> tuple[list[str], int]:
    """Every page at ``limit``: the ids shown in order, and how many pages."""
    seen, cursor, pages = [], None, 0
    while True:
        page = studio.ok(LIST, agent_id=agent_id, query=query | {"limit": str(limit)} | ({"cursor": cursor} if cursor
                                                                                              else {}))  # fmt: skip
        seen += [i["id"] for i in page["items"]]
        pages += 1
        assert len(page["items"]) <= limit
        if (cursor := page["nextCursor"]) is None:
            return seen, pages


def assert_listed_in_old_order(studio: Studio, agent_id: str) -> None:
    items = items_of(studio.portal.aws.dynamodb, agent_id)
    for active in (None, True, False):
        query = {} if active is None else {"active": str(active).lower()}
        expected = old_order(items, active)
        whole = studio.ok(LIST, agent_id=agent_id, query=query)
        assert ([i["id"] for i in whole["items"]], whole["nextCursor"]) == (expected, None), active
        seen, pages = walked(studio, agent_id, 2, **query)
        assert seen == expected, active
        assert pages == max(1, -(-len(expected) // 2)), active  # a full last page names no next


def test_pages_at_two_keep_the_old_order(studio: Studio, agent: dict[str, Any]) -> None:
    stock(studio, agent["id"], 23)
    assert_listed_in_old_order(studio, agent["id"])
    assert_places_exact(studio.portal.aws.dynamodb, agent["id"])


def test_every_write_keeps_the_places_exact(studio: Studio, agent: dict[str, Any]) -> None:
    made = stock(studio, agent["id"], 9)
    db, agent_id = studio.portal.aws.dynamodb, agent["id"]
    changes: list[dict[str, Any]] = [{"folder": "z"}, {"order": 7}, {"active": False}, {"active": True},
                                     {"name": "Renamed"}, {"folder": "", "order": 0, "active": False}]  # fmt: skip
    for n, body in enumerate(changes):
        studio.ok(UPDATE, agent_id=agent_id, item_id=made[n]["id"], body=body)
        assert_places_exact(db, agent_id)
    studio.ok(DELETE, agent_id=agent_id, item_id=made[7]["id"])
    studio.ok(DELETE, agent_id=agent_id, item_id=made[0]["id"])
    assert_places_exact(db, agent_id)
    assert_listed_in_old_order(studio, agent_id)


def test_concurrent_moves_keep_the_places_exact(studio: Studio, agent: dict[str, Any]) -> None:
    """Sixteen moves at once, two to four on each item (they race on its version and retry): each item placed once,
    where it ends up."""
    made = stock(studio, agent["id"], 5)
    moves = [(made[n % 5]["id"], {"folder": FOLDERS[n * 5 % len(FOLDERS)], "order": ORDERS[n * 3 % len(ORDERS)],
                                  "active": n % 2 == 0}) for n in range(16)]  # fmt: skip

    def move(n: int) -> int:
        item_id, body = moves[n]
        return studio.call_in_container(UPDATE, agent_id=agent["id"], item_id=item_id, body=body).status

    assert at_once(16, move) == [200] * 16
    assert_places_exact(studio.portal.aws.dynamodb, agent["id"])
    assert_listed_in_old_order(studio, agent["id"])


def test_a_cursor_the_listing_did_not_make_is_400(studio: Studio, agent: dict[str, Any]) -> None:
    from core.platform import cursors

    stock(studio, agent["id"], 3)
    for cursor in ("not base64!", cursors.encode("WORKFLOW#wf_1"), cursors.encode("61#12#item_1")):
        refused = studio.call(LIST, agent_id=agent["id"], query={"cursor": cursor})
        assert (refused.status, refused.json()["code"]) == (400, "VALIDATION_ERROR"), (cursor, refused.body)
    outsider = studio.stranger("outsider@example.com")  # a stranger learns nothing: 404 before the cursor
    assert outsider.call(LIST, agent_id=agent["id"], query={"cursor": "not base64!"}).status == 404


# ------------------------------------------------------------------ agents made before the places


def as_made_before(studio: Studio, agent_id: str) -> None:
    """The agent as issue 43 found it: its items, no place and no mark."""
    db, table = studio.portal.aws.dynamodb, get_settings().main_table
    placed = studio.partition(keys.item_order_partition(agent_id))
    batch_delete(db, table, [{"pk": keys.item_order_partition(agent_id), "sk": sk} for sk in placed])


def test_an_agent_made_before_is_listed_whole_then_ordered(studio: Studio, agent: dict[str, Any]) -> None:
    made = stock(studio, agent["id"], 11)
    db, agent_id = studio.portal.aws.dynamodb, agent["id"]
    as_made_before(studio, agent_id)
    assert_listed_in_old_order(studio, agent_id)  # read whole: the old path
    studio.ok(UPDATE, agent_id=agent_id, item_id=made[1]["id"], body={"folder": "moved"})  # writes place their item
    studio.ok(DELETE, agent_id=agent_id, item_id=made[2]["id"])
    assert_places_exact(db, agent_id)  # no orphan; the rest are missing, which an unmarked agent may be
    assert_listed_in_old_order(studio, agent_id)
    store = ItemStore(db, get_settings().main_table)
    lines: list[str] = []
    report = order_items.run(store, db, get_settings().main_table, say=lines.append)
    assert (report.agents, report.placed) == (1, 10), lines  # every item (the moved one's place put again)
    assert studio.partition(keys.item_order_partition(agent_id))[-1] == keys.ITEMS_ORDERED
    assert_places_exact(db, agent_id)
    assert_listed_in_old_order(studio, agent_id)  # now from the places
    again = order_items.run(store, db, get_settings().main_table, agent=agent_id, say=lines.append)
    assert (again.agents, again.placed) == (1, 0)  # marked: left as it is


def test_ordering_an_item_written_meanwhile_places_it_where_it_is(
    studio: Studio, agent: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The migration read an item, then its author moved it: the place goes where the item is now, never where it
    was (the put is conditioned on the version read)."""
    made = stock(studio, agent["id"], 4)
    db, agent_id = studio.portal.aws.dynamodb, agent["id"]
    as_made_before(studio, agent_id)
    store = ItemStore(db, get_settings().main_table)
    stale = store.list(agent_id, active=None)
    studio.ok(UPDATE, agent_id=agent_id, item_id=made[0]["id"], body={"folder": "elsewhere", "order": 9})
    studio.ok(DELETE, agent_id=agent_id, item_id=made[1]["id"])
    monkeypatch.setattr(store, "list", lambda *_a, **_k: stale)
    assert store.place_all(agent_id) == 3  # the two untouched, the moved one read again; the deleted one not
    assert_places_exact(db, agent_id)
    assert_listed_in_old_order(studio, agent_id)
