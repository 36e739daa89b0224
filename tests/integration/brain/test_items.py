"""GET /v1/agent/{agentId}/items: the agent's active items, ordered by folder then order."""

from __future__ import annotations

from local.gateway.events import SAMPLE_AGENT_ID
from tests.support.brain import AGENT_NOT_FOUND, RFC3339_MS, call, error_of, ok_json
from tests.support.lambdas import invoke, sample_event
from tests.support.seed import Seeder, stamp

ITEMS = "BrainItemsFunction"
ITEM_FIELDS = {
    "id": str,
    "name": str,
    "kind": str,
    "r2Key": str,
    "mimeType": str,
    "size": int,
    "folder": str,
    "order": int,
    "updatedAt": str,
    "origin": str,
}


def test_sample_event_returns_the_exact_item(tenant, seed: Seeder) -> None:
    seeded = {
        "name": "Brand book",
        "kind": "document",
        "r2Key": "assets/brand-book.pdf",
        "mimeType": "application/pdf",
        "size": 48213,
        "folder": "guides",
        "order": 2,
        "origin": "import",
        "updatedAt": stamp(42),
    }
    seed.items(SAMPLE_AGENT_ID, [seeded])
    # Exactly the seeded fields, under the id the seeder gave it: nothing added, renamed or dropped.
    assert ok_json(invoke(ITEMS, sample_event(ITEMS))) == [{"id": "item_000"} | seeded]


def test_defaults_of_folder_order_and_origin(tenant, seed: Seeder) -> None:
    seed.items(SAMPLE_AGENT_ID, [{}])
    (item,) = ok_json(call(ITEMS))
    assert (item["folder"], item["order"], item["origin"]) == ("", 0, "upload")


def test_only_active_items_ordered_by_folder_then_order(tenant, seed: Seeder) -> None:
    layout = [
        ("b", 1, True),
        ("a", 2, True),
        ("", 5, True),
        ("a", 1, False),
        ("b", 0, True),
        ("a", 10, True),
        ("", 0, False),
        ("a", 3, True),
    ]
    seed.items(SAMPLE_AGENT_ID, [{"folder": f, "order": o, "active": a} for f, o, a in layout])
    items = ok_json(call(ITEMS))
    assert [(i["folder"], i["order"]) for i in items] == [("", 5), ("a", 2), ("a", 3), ("a", 10), ("b", 0), ("b", 1)]
    assert [i["id"] for i in items] == ["item_002", "item_001", "item_007", "item_005", "item_004", "item_000"]


def test_order_is_numeric_not_lexical(tenant, seed: Seeder) -> None:
    seed.items(SAMPLE_AGENT_ID, [{"order": n} for n in (10, 9, 100, 1)])
    assert [i["order"] for i in ok_json(call(ITEMS))] == [1, 9, 10, 100]


def test_every_kind_and_origin_with_exact_field_set(tenant, seed: Seeder) -> None:
    kinds = ["document", "image", "video", "audio", "link", "text"]
    origins = ["upload", "generated", "import"]
    seed.items(SAMPLE_AGENT_ID, [{"kind": k, "origin": origins[n % 3], "order": n} for n, k in enumerate(kinds)])
    items = ok_json(call(ITEMS))
    assert [i["kind"] for i in items] == kinds
    assert [i["origin"] for i in items] == origins * 2
    for item in items:
        assert list(item) == list(ITEM_FIELDS)  # no agentId, no active, nothing internal
        assert all(isinstance(item[name], kind) for name, kind in ITEM_FIELDS.items()), item
        assert RFC3339_MS.match(item["updatedAt"])


def test_no_items_and_only_inactive_items_are_empty_arrays(tenant, seed: Seeder) -> None:
    assert ok_json(call(ITEMS)) == []
    seed.items(SAMPLE_AGENT_ID, [{"active": False}, {"active": False}])
    assert ok_json(call(ITEMS)) == []


def test_items_of_other_agents_never_appear(tenant, seed: Seeder) -> None:
    other = seed.agent(tenant.ws, slug="other")
    seed.items(other.id, [{"name": "Theirs"}])
    seed.items(SAMPLE_AGENT_ID, [{"name": "Mine"}])
    assert [i["name"] for i in ok_json(call(ITEMS))] == ["Mine"]
    assert [i["name"] for i in ok_json(call(ITEMS, agent_id=other.id))] == ["Theirs"]


def test_many_items_are_all_returned(tenant, seed: Seeder) -> None:
    seed.items(SAMPLE_AGENT_ID, [{"order": n, "folder": f"f{n % 3}"} for n in range(150)])
    items = ok_json(call(ITEMS))
    assert len(items) == 150
    assert [(i["folder"], i["order"]) for i in items] == sorted((f"f{n % 3}", n) for n in range(150))


def test_unknown_agent_slug_and_other_workspace_are_404(tenant, rival, seed: Seeder) -> None:
    seed.items(rival.agent.id, [{}])
    for agent_id in ("prj_unknown", tenant.agent.slug, rival.agent.id):
        assert error_of(call(ITEMS, agent_id=agent_id)) == (404, AGENT_NOT_FOUND)
