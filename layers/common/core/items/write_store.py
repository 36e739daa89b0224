"""Items as their authors write them: active ones under ``ITEM#``, the rest under ``INACTIVE#``, so the read plane
reads only the active range; (de)activating moves the item between them in one transaction.

Each item's place in its listing (folder, order, id) is a copy of its key in ``AGENT#<a>#ITEMORDER``
(``keys.item_order``), written, moved and deleted in the transaction of each write of the item, so a page of the
listing is a Query of places and a BatchGetItem of their items, whatever the agent holds (issue 43)."""

from __future__ import annotations

import builtins
from typing import Any

from core.items.records import ItemPage, ItemRecord
from core.platform import agent_counts_store as counts
from core.platform import main_table as keys
from core.platform import together
from core.platform.dynamo import batch_get, query_all, to_item
from core.platform.errors import NotFound
from core.platform.transactions import NEW, Also, Changed, Transaction
from core.platform.versions import unchanged_since, versioned

AGENT_GONE = NotFound("Agent not found")
CHANGED = Changed("The item changed while this request was applied; read it again")


def place(item: ItemRecord) -> str:
    """Where the item stands in its listing: folder, then order, then id (``keys.item_place``)."""
    return keys.item_place(item.folder, item.order, item.id)


def place_key(item: ItemRecord) -> dict[str, str]:
    return keys.item_order(item.agent_id, place(item), active=item.active)


class ItemStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def get(self, agent_id: str, item_id: str) -> ItemRecord | None:
        """The item in whichever range it is (both keys in one consistent BatchGetItem)."""
        found = batch_get(self._db, self._table, [keys.item(agent_id, item_id, active=a) for a in (True, False)])
        return ItemRecord.model_validate(found[0]) if found else None

    def list(self, agent_id: str, *, active: bool | None) -> list[ItemRecord]:
        """One range (``active``), or the whole partition (None: it holds only items). DynamoDB refuses an empty
        string in a key condition, so "every item" is the partition alone, not ``begins_with(sk, "")``."""
        values = {":pk": keys.items_partition(agent_id)}
        condition = "pk = :pk"
        if active is not None:
            values[":prefix"] = keys.ACTIVE_ITEM if active else keys.INACTIVE_ITEM
            condition += " AND begins_with(sk, :prefix)"
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": condition, "ExpressionAttributeValues": to_item(values),
        })  # fmt: skip
        return [ItemRecord.model_validate(r) for r in rows]

    def page(self, agent_id: str, *, active: bool | None, limit: int, after: str | None) -> ItemPage:
        """``limit`` items by place after the place ``after``: the places of each range asked (``limit`` + 1 each,
        with the agent's ``ITEMS_ORDERED`` mark, at once), then their items (one BatchGetItem). An agent whose
        items are not all placed yet (made before issue 43, until ``python -m ops order-items``) is read whole."""
        ranges = [r for r in (True, False) if active is None or active == r]
        marked, *found = (f.result() for f in together.run(
            lambda: batch_get(self._db, self._table, [keys.items_ordered(agent_id)]),
            *[lambda r=r: self._places(agent_id, r, limit + 1, after) for r in ranges],
        ))  # fmt: skip
        if not marked:
            return self._page_of_all(agent_id, active, limit, after)
        places = sorted((p for ps in found for p in ps), key=lambda p: p[0])[: limit + 1]
        shown = places[:limit]
        rows = batch_get(self._db, self._table, [keys.item(agent_id, p[0].rsplit("#", 1)[1], active=p[1])
                                                 for p in shown])  # fmt: skip
        by_key = {(row["sk"]): ItemRecord.model_validate(row) for row in rows}
        items = []
        for at, is_active in shown:
            item = by_key.get(keys.item(agent_id, at.rsplit("#", 1)[1], active=is_active)["sk"])
            if item is not None and place(item) == at and item.active == is_active:
                items.append(item)
        return ItemPage(items, shown[-1][0] if len(places) > limit and shown else None)

    def _places(self, agent_id: str, active: bool, limit: int, after: str | None) -> builtins.list[tuple[str, bool]]:
        prefix = keys.ACTIVE_PLACE if active else keys.INACTIVE_PLACE
        request: dict[str, Any] = {
            "TableName": self._table, "ConsistentRead": True, "Limit": limit,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.item_order_partition(agent_id), ":prefix": prefix}),
            "ProjectionExpression": "sk",
        }  # fmt: skip
        if after is not None:  # a place need not exist to start after it: both ranges start at the same place
            request["ExclusiveStartKey"] = to_item(keys.item_order(agent_id, after, active=active))
        return [(row["sk"].removeprefix(prefix), active) for row in query_all(self._db, request, limit)]

    def _page_of_all(self, agent_id: str, active: bool | None, limit: int, after: str | None) -> ItemPage:
        """The listing of an agent whose items are not all placed: every item read, the page cut in memory (the
        cost before issue 43, until the agent is ordered)."""
        every = sorted(((place(i), i) for i in self.list(agent_id, active=active)), key=lambda p: p[0])
        behind = [(at, i) for at, i in every if after is None or at > after]
        shown = behind[:limit]
        return ItemPage([i for _, i in shown], shown[-1][0] if len(behind) > limit and shown else None)

    def place_all(self, agent_id: str) -> int:
        """Give every item of an agent made before issue 43 its place, then mark the agent ordered (idempotent;
        ``python -m ops order-items``); the places put. Each place goes in a transaction conditioned on its item's
        version as read: an item written meanwhile was placed (or moved, or deleted with its place) by that write,
        so it is read again rather than placed where it was. Items written after the read are placed by their own
        writes. The mark comes last: until it is there, the listing reads every item (``_page_of_all``)."""
        if batch_get(self._db, self._table, [keys.items_ordered(agent_id)]):
            return 0  # marked: every item has its place (made ordered, or placed by an earlier run)
        placed = 0
        for item in self.list(agent_id, active=None):
            current: ItemRecord | None = item
            while current is not None:
                tx = Transaction(self._table)
                tx.check(keys.item(agent_id, current.id, active=current.active), unchanged_since(current.version),
                         values={":seen": current.version}, name="changed")  # fmt: skip
                tx.put(place_key(current) | {"itemId": current.id})
                if tx.commit(self._db) is None:
                    placed += 1
                    break
                current = self.get(agent_id, current.id)  # written since: as it is now (None: deleted)
        Transaction(self._table).put(keys.items_ordered(agent_id)).commit(self._db)
        return placed

    def create(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.put(keys.item(item.agent_id, item.id, active=item.active) | item.attributes(), condition=NEW)
        tx.put(place_key(item) | {"itemId": item.id})
        counts.count(tx, workspace_id, item.agent_id, "itemCount", +1)
        self._commit(tx.carry(also), workspace_id, item.agent_id)

    def replace(self, workspace_id: str, old: ItemRecord, new: ItemRecord, *, also: Also) -> ItemRecord:
        stored = versioned(old.version, new)
        seen = {":seen": old.version}
        tx = Transaction(self._table)
        row = keys.item(old.agent_id, old.id, active=stored.active) | stored.attributes()
        if old.active == stored.active:
            tx.put(row, condition=unchanged_since(old.version), values=seen, name="changed")
        else:  # a move between the active and inactive ranges
            tx.delete(keys.item(old.agent_id, old.id, active=old.active), condition=unchanged_since(old.version),
                      values=seen, name="changed")  # fmt: skip
            tx.put(row, condition=NEW)
        if place_key(old) != place_key(stored):  # moved: its place too
            tx.delete(place_key(old))
        tx.put(place_key(stored) | {"itemId": stored.id})  # put even when unmoved: an item placed by no write yet
        counts.check(tx, workspace_id, old.agent_id)
        self._commit(tx.carry(also), workspace_id, old.agent_id)
        return stored

    def delete(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.delete(keys.item(item.agent_id, item.id, active=item.active), condition=unchanged_since(item.version),
                  values={":seen": item.version}, name="changed")  # fmt: skip
        tx.delete(place_key(item))
        counts.count(tx, workspace_id, item.agent_id, "itemCount", -1)
        self._commit(tx.carry(also), workspace_id, item.agent_id)

    def _commit(self, tx: Transaction, workspace_id: str, agent_id: str) -> None:
        """Every item write moves or checks the agent's counters item, never the agent's item (its documents)."""
        counts.commit_counted(self._db, self._table, tx, workspace_id=workspace_id, agent_id=agent_id,
                              refusals={"changed": CHANGED, "agent": AGENT_GONE})  # fmt: skip
