"""Items as their authors write them: active ones under ``ITEM#``, the rest under ``INACTIVE#``, so the read plane
reads only the active range; (de)activating moves the item between them in one transaction."""

from __future__ import annotations

from typing import Any

from core.items.records import ItemRecord
from core.platform import agent_counts_store as counts
from core.platform import main_table as keys
from core.platform.dynamo import batch_get, query_all, to_item
from core.platform.errors import NotFound
from core.platform.transactions import NEW, Also, Changed, Transaction
from core.platform.versions import unchanged_since, versioned

AGENT_GONE = NotFound("Agent not found")
CHANGED = Changed("The item changed while this request was applied; read it again")


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

    def create(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.put(keys.item(item.agent_id, item.id, active=item.active) | item.attributes(), condition=NEW)
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
        counts.check(tx, workspace_id, old.agent_id)
        self._commit(tx.carry(also), workspace_id, old.agent_id)
        return stored

    def delete(self, workspace_id: str, item: ItemRecord, *, also: Also) -> None:
        tx = Transaction(self._table)
        tx.delete(keys.item(item.agent_id, item.id, active=item.active), condition=unchanged_since(item.version),
                  values={":seen": item.version}, name="changed")  # fmt: skip
        counts.count(tx, workspace_id, item.agent_id, "itemCount", -1)
        self._commit(tx.carry(also), workspace_id, item.agent_id)

    def _commit(self, tx: Transaction, workspace_id: str, agent_id: str) -> None:
        """Every item write moves or checks the agent's counters item, never the agent's item (its documents)."""
        counts.commit_counted(self._db, self._table, tx, workspace_id=workspace_id, agent_id=agent_id,
                              refusals={"changed": CHANGED, "agent": AGENT_GONE})  # fmt: skip
