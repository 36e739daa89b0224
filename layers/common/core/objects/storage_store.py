"""A workspace's storage counter and its keys' records (``core.objects.storage``), in the main table.

``STORAGE`` (the signings' line, ``upload_store``) also carries ``bytes``, the sum of every record's size, and
``moves``, how many changes were applied. A record (``WS#<id>#OBJECTS``, sk = the path) and the counter move in ONE
transaction, conditioned on the record being as read, so ``bytes`` is always the sum of the records, and a change
applied twice (a redelivery racing itself) is written once. The workspace item is a condition of every change: a
deleted workspace's late notifications write nothing back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from core.objects.storage import ObjectEvent, Tracked, later
from core.platform import main_table as keys
from core.platform.dynamo import batch_delete, batch_get, from_item, get_item, to_item, translate_errors
from core.platform.transactions import EXISTS, MAX_ITEMS, Transaction

ATTEMPTS = 8  # a change lost to another on the same key reads again: two writers of one key rarely collide more
CLEARED_DAYS = 14  # a size-0 record is kept this long: a notification delivered late (SQS keeps 4 days) finds it
PAGE = MAX_ITEMS - 1  # records moved per transaction (the counter is the last item)
_KEYS = {"#size": "size", "#at": "at", "#seq": "sequencer", "#ver": "version"}


def tracked(item: dict[str, Any] | None) -> Tracked | None:
    if item is None:
        return None
    return Tracked(int(item.get("size", 0)), str(item.get("sequencer", "")), str(item.get("version", "")),
                   str(item.get("at", "")), int(item.get("moves", 0)))  # fmt: skip


class StorageStore:
    def __init__(self, client: Any, table: str, *, clock: Callable[[], float] = time.time):
        self._db = client
        self._table = table
        self._clock = clock

    def counted(self, workspace_id: str) -> tuple[int, int]:
        """(bytes, moves) of the counter (0, 0 before anything was counted)."""
        found = get_item(self._db, self._table, keys.storage_lock(workspace_id), consistent=True) or {}
        return int(found.get("bytes", 0)), int(found.get("moves", 0))

    def records(self, workspace_id: str, paths: list[str]) -> dict[str, Tracked]:
        """The records of ``paths`` (none for a key never counted): BatchGetItem, 100 keys a request."""
        found = batch_get(self._db, self._table, [keys.stored_object(workspace_id, p) for p in paths])
        return {item["sk"]: rec for item in found if (rec := tracked(item)) is not None}

    def record(self, workspace_id: str, path: str) -> Tracked | None:
        return tracked(get_item(self._db, self._table, keys.stored_object(workspace_id, path), consistent=True))

    def apply(self, event: ObjectEvent, look: Callable[[], int]) -> bool:
        """Apply one notification: False when it changes nothing (a duplicate, an older one, a deleted workspace).
        ``look`` answers the size the key holds now, for a notification that does not say it."""
        for _ in range(ATTEMPTS):
            current = self.record(event.workspace_id, event.path)
            if not later(event, current):
                return False
            size = look() if event.size is None else event.size
            written = self._move(event.workspace_id, event.path, current, size,
                                 sequencer=event.sequencer, version=event.version, at=event.at)  # fmt: skip
            if written is not None:
                return written
        raise RuntimeError(f"storage: the record of {event.path} kept changing")

    def observe(self, workspace_id: str, path: str, size: int, at: str = "") -> bool:
        """Record the size a key holds now, as its writer saw it (the API's deletion: 0), keeping the record's
        sequencer: a notification of the same change, arriving later, then moves nothing."""
        for _ in range(ATTEMPTS):
            current = self.record(workspace_id, path)
            if current is not None and current.size == size:
                return False
            keep = current or Tracked(0, "", "", "", 0)
            written = self._move(workspace_id, path, current, size, sequencer=keep.sequencer, version=keep.version,
                                 at=at or keep.at)  # fmt: skip
            if written is not None:
                return written
        raise RuntimeError(f"storage: the record of {path} kept changing")

    def _move(
        self, workspace_id: str, path: str, current: Tracked | None, size: int, *, sequencer: str, version: str,
        at: str,
    ) -> bool | None:  # fmt: skip
        """One record to ``size`` and the counter by the difference, if the record is as read. True: written;
        False: the workspace is gone; None: the record changed meanwhile (read again)."""
        tx = Transaction(self._table)
        tx.check(keys.workspace(workspace_id), EXISTS, name="workspace")
        values: dict[str, Any] = {":size": size, ":seq": sequencer, ":ver": version, ":at": at, ":one": 1}
        sets, tail = "#size = :size, #seq = :seq, #ver = :ver, #at = :at", " REMOVE expiresAt"
        if size == 0:  # a cleared key's record outlives late notifications, then goes (the table's TTL)
            sets, tail = sets + ", expiresAt = :expires", ""
            values[":expires"] = int(self._clock()) + CLEARED_DAYS * 86_400
        expression = f"SET {sets}{tail} ADD moves :one"
        condition = "attribute_not_exists(pk)" if current is None else "moves = :moves"
        if current is not None:
            values[":moves"] = current.moves
        tx.update(keys.stored_object(workspace_id, path), expression, condition=condition, values=values,
                  names=_KEYS, name="record")  # fmt: skip
        delta = size - (current.size if current else 0)
        tx.update(keys.storage_lock(workspace_id), "ADD #bytes :delta, moves :one",
                  values={":delta": delta, ":one": 1}, names={"#bytes": "bytes"})  # fmt: skip
        failed = tx.commit(self._db)
        if failed == "workspace":
            return False
        return None if failed == "record" else True

    def clear_prefix(self, workspace_id: str, prefix: str, keep_going: Callable[[], bool]) -> int:
        """Every record under ``prefix`` to size 0 and the counter down by their sum, a page of 99 per transaction
        (a purge, once S3 holds nothing there): bounded by the page, resumable (a pass that stops leaves records
        not yet cleared, which the next one finds). Returns the bytes taken off."""
        freed, after = 0, None
        while keep_going():
            page, following = self._counted_page(workspace_id, prefix, after)
            cleared = self._clear(workspace_id, page) if page else 0
            if page and cleared is None:
                continue  # a notification moved one of them meanwhile: the same page again, read afresh
            freed += cleared or 0
            if following is None:
                break
            after = following
        return freed

    def _counted_page(
        self, workspace_id: str, prefix: str, after: dict[str, Any] | None
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        request: dict[str, Any] = {
            "TableName": self._table, "ConsistentRead": True, "Limit": PAGE,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": keys.objects_partition(workspace_id), ":prefix": prefix}),
        }  # fmt: skip
        if after:
            request["ExclusiveStartKey"] = after
        with translate_errors("Query"):
            answer = self._db.query(**request)
        items = [from_item(i) for i in answer.get("Items", [])]
        return [i for i in items if int(i.get("size", 0))], answer.get("LastEvaluatedKey")

    def _clear(self, workspace_id: str, page: list[dict[str, Any]]) -> int | None:
        tx = Transaction(self._table)
        expires = int(self._clock()) + CLEARED_DAYS * 86_400
        for item in page:
            tx.update(keys.stored_object(workspace_id, item["sk"]), "SET #size = :zero, expiresAt = :expires ADD "
                      "moves :one", condition="moves = :moves", values={":zero": 0, ":expires": expires, ":one": 1,
                      ":moves": int(item.get("moves", 0))}, names={"#size": "size"}, name="record")  # fmt: skip
        freed = sum(int(item["size"]) for item in page)
        tx.update(keys.storage_lock(workspace_id), "ADD #bytes :delta, moves :one",
                  values={":delta": -freed, ":one": 1}, names={"#bytes": "bytes"})  # fmt: skip
        return None if tx.commit(self._db) else freed  # None: a record changed since it was read

    def drain(self, workspace_id: str, keep_going: Callable[[], bool]) -> int:
        """A deleted workspace's records, a page at a time (its counter goes with its partition)."""
        deleted = 0
        while keep_going():
            request = {
                "TableName": self._table, "Limit": 500, "ProjectionExpression": "pk, sk",
                "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": to_item({":pk": keys.objects_partition(workspace_id)}),
            }  # fmt: skip
            with translate_errors("Query"):
                found = self._db.query(**request).get("Items", [])
            if not found:
                break
            batch_delete(self._db, self._table, [{"pk": i["pk"]["S"], "sk": i["sk"]["S"]} for i in found])
            deleted += len(found)
        return deleted
