"""moto's TransactWriteItems without its whole-table copies: a failed transaction puts back only what it touched.

moto makes a transaction all-or-nothing by deep-copying every table the transaction names before
applying it, and putting the copies back if an operation fails. The ledger table grows by an entry
and a marker per chat turn, so every turn copied more: a local chat turn went from 130 ms to 270 ms
after 250 turns. A transaction touches at most 100 distinct items, so a copy of each of them (or the
fact that it was absent), taken before and put back after a failure, restores the same state at a
cost that does not grow with the table.

moto's own code still runs every operation, evaluates every condition and builds the cancellation
reasons; only its table copy is skipped (during our transaction it "copies" a table as the table
itself, so putting that back is a no-op). Secondary indexes are computed from the items at query
time in moto, so restoring items restores them; stream records a failed transaction added are
dropped, as moto's table copy dropped them.
"""

from __future__ import annotations

import copy
import functools
import threading
from dataclasses import dataclass
from typing import Any

_in_transaction = threading.local()  # set while our transact_write_items runs on this thread


@dataclass
class _SavedItem:
    table: Any  # moto.dynamodb.models.table.Table
    hash_key: Any  # DynamoType
    range_key: Any  # DynamoType | None
    item: Any  # a copy of the moto Item before the transaction, or None if there was none

    def put_back(self) -> None:
        if self.range_key is None:
            items = self.table.items
            key = self.hash_key
        else:
            items = self.table.items[self.hash_key]
            key = self.range_key
        if self.item is None:
            items.pop(key, None)
        else:
            items[key] = self.item


class _CopyKeepingTables:
    """Stands in for ``copy`` inside ``moto.dynamodb.models``: within our transaction a table is not copied."""

    def __init__(self, table_type: type):
        self._table_type = table_type
        self.copy = copy.copy

    def deepcopy(self, value: Any, memo: dict[int, Any] | None = None) -> Any:
        if getattr(_in_transaction, "active", False) and isinstance(value, self._table_type):
            return value
        return copy.deepcopy(value, memo)


def _item_key(table: Any, op_type: str, op: dict[str, Any]) -> dict[str, Any]:
    """The key of the item an operation writes, as moto derives it (a Put's key comes from its item)."""
    if op_type != "Put":
        return op.get("Key") or {}
    attrs = op.get("Item") or {}
    return {name: attrs[name] for name in (table.hash_key_attr, table.range_key_attr) if name and name in attrs}


def _save_touched(backend: Any, transact_items: list[dict[str, Any]]) -> list[_SavedItem]:
    saved = []
    for entry in transact_items:
        for op_type, op in entry.items():
            table = backend.tables.get(op.get("TableName")) if isinstance(op, dict) else None
            if table is None:
                continue
            try:
                hash_key, range_key = backend.get_keys_value(table, _item_key(table, op_type, op))
            except Exception:  # noqa: S112 - moto fails this operation on the same key before it writes anything
                continue
            current = table.get_item(hash_key, range_key)
            saved.append(_SavedItem(table, hash_key, range_key, copy.deepcopy(current)))
    return saved


def _stream_lengths(saved: list[_SavedItem]) -> dict[int, tuple[Any, int]]:
    shards = {id(s.table): s.table.stream_shard for s in saved if s.table.stream_shard is not None}
    return {key: (shard, len(shard.items)) for key, shard in shards.items()}


def make_transactions_roll_back_items() -> None:
    """Patch moto (once per process): TransactWriteItems saves and restores the items it touches, not whole tables."""
    from moto.dynamodb import models
    from moto.dynamodb.models.table import Table

    backend_type = models.DynamoDBBackend
    if getattr(backend_type.transact_write_items, "item_level", False):
        return
    original = backend_type.transact_write_items

    @functools.wraps(original)
    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> Any:
        saved = _save_touched(self, transact_items)
        streams = _stream_lengths(saved)
        _in_transaction.active = True
        try:
            return original(self, transact_items)
        except BaseException:  # all or nothing, whatever moto raised (cancellation, validation, ...)
            for item in reversed(saved):  # the first copy of an item named twice is the one left
                item.put_back()
            for shard, length in streams.values():
                del shard.items[length:]
            raise
        finally:
            _in_transaction.active = False

    transact_write_items.item_level = True  # type: ignore[attr-defined]
    # moto's module-level ``import copy``, replaced by an object with the one function moto calls on it
    models.copy = _CopyKeepingTables(Table)  # type: ignore[attr-defined,assignment]
    backend_type.transact_write_items = transact_write_items  # type: ignore[method-assign]
