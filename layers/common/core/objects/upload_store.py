"""Uploads signed and not yet known to have landed, and the counter that puts a workspace's signings in a line.

A signing counts what the workspace stores (the counter's ``bytes``, kept by S3's notifications:
``storage_store``) plus what it has signed and not yet seen land (these
records), then adds its own record while moving the workspace's ``STORAGE`` counter from the value it read: of
two signings that read the same state, only one writes, and the other counts again. So no two uploads can both
take the last bytes of a plan's storage. Each signing has a record of its own (a ticket stays valid until its URL
expires, whatever was signed after it), and records expire (TTL) with their URL.
"""

from __future__ import annotations

from typing import Any

from core.objects.records import UploadRecord
from core.platform import main_table as keys
from core.platform.dynamo import StorageUnavailable, get_item, query_all, to_item
from core.platform.errors import Conflict
from core.platform.idempotency_store import known_not_applied
from core.platform.transactions import IN_PROGRESS, Also, Transaction


class UploadStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def pending(self, workspace_id: str) -> tuple[int, int, list[UploadRecord]]:
        """(the signings' counter, the bytes stored, every signed upload still recorded): one consistent Query,
        since ``STORAGE`` and the ``UPLOAD#`` records are neighbours in the workspace's partition (nothing else
        sorts between them). Bounded by the signings outstanding (their records expire), never by the objects."""
        partition = keys.workspace(workspace_id)["pk"]
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lock AND :last",
            "ExpressionAttributeValues": to_item({":pk": partition, ":lock": keys.storage_lock(workspace_id)["sk"],
                                                  ":last": keys.UPLOAD + chr(0x10FFFF)}),
        })  # fmt: skip
        counter = next((r for r in rows if r["sk"] == keys.storage_lock(workspace_id)["sk"]), {})
        signed = [UploadRecord.model_validate(r) for r in rows if r["sk"].startswith(keys.UPLOAD)]
        return int(counter.get("seq", 0)), int(counter.get("bytes", 0)), signed

    def reserve(self, workspace_id: str, seen: int, upload: UploadRecord, *, also: Also) -> bool:
        """Record ``upload`` if no other signing wrote since the counter was ``seen``; False when one did."""
        tx = Transaction(self._table)
        lock = keys.storage_lock(workspace_id)
        tx.update(lock, "SET seq = :next", condition="attribute_not_exists(seq) OR seq = :seen" if seen == 0
                  else "seq = :seen", values={":seen": seen, ":next": seen + 1}, name="moved")  # fmt: skip
        reservation = keys.upload_reservation(workspace_id, upload.signing)
        tx.put(reservation | upload.attributes())
        try:
            failed = tx.carry(also).commit(self._db)
        except StorageUnavailable as error:
            # A lost reply may hide an applied write (a read timeout): the record is this signing's own (its
            # signing time and expiry are to the millisecond), so finding it says the transaction happened, and
            # the caller answers the ticket it stands for instead of leaving bytes counted for no ticket.
            if known_not_applied(error) or self._stored(reservation) != upload:
                raise
            return True
        if failed == "completion":
            raise Conflict(IN_PROGRESS)
        return failed is None

    def _stored(self, key: dict[str, str]) -> UploadRecord | None:
        found = get_item(self._db, self._table, key, consistent=True)
        return UploadRecord.model_validate(found) if found else None
