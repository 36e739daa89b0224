"""An agent's items and their places in the items listing (issue 43): each item has exactly one place, the one its
folder, order, id and ``active`` name, and no place names an item that is not there (an orphan).

Used by tests/integration/portal/authoring/test_item_pages.py and tests/faults/test_item_place_faults.py.
"""

from __future__ import annotations

from typing import Any

from core.items.records import ItemRecord
from core.items.write_store import place_key
from core.platform import main_table as keys
from core.platform.dynamo import query_all, to_item
from core.platform.settings import get_settings


def _partition(dynamodb: Any, pk: str) -> list[dict[str, Any]]:
    return query_all(dynamodb, {
        "TableName": get_settings().main_table, "ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": to_item({":pk": pk}),
    })  # fmt: skip


def items_of(dynamodb: Any, agent_id: str) -> list[ItemRecord]:
    return [ItemRecord.model_validate(row) for row in _partition(dynamodb, keys.items_partition(agent_id))]


def old_order(items: list[ItemRecord], active: bool | None = None) -> list[str]:
    """The ids in the listing's order before issue 43: folder, then order, then id (Python's ``<``)."""
    kept = [i for i in items if active is None or i.active == active]
    return [i.id for i in sorted(kept, key=lambda i: (i.folder, i.order, i.id))]


def place_problems(dynamodb: Any, agent_id: str) -> list[str]:
    """What is wrong with the agent's places (empty: each item placed once, where it stands, and nothing else)."""
    items = items_of(dynamodb, agent_id)
    rows = {row["sk"]: row for row in _partition(dynamodb, keys.item_order_partition(agent_id))}
    marked = rows.pop(keys.ITEMS_ORDERED, None) is not None
    wanted = {place_key(i)["sk"]: i.id for i in items}
    problems = [f"orphan place {sk}" for sk in rows.keys() - wanted.keys()]
    problems += [f"place {sk} names {rows[sk].get('itemId')}" for sk in rows.keys() & wanted.keys()
                 if rows[sk].get("itemId") != wanted[sk]]  # fmt: skip
    if marked:
        problems += [f"item {wanted[sk]} has no place {sk}" for sk in wanted.keys() - rows.keys()]
    return problems


def assert_places_exact(dynamodb: Any, agent_id: str) -> None:
    problems = place_problems(dynamodb, agent_id)
    assert not problems, problems
