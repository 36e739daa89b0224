"""The credit ledger: per account, a balance item, immutable entries and outstanding holds. See docs/ledger.md.

Every change of a balance is one DynamoDB transaction that also writes what justifies
it (an entry, a hold, or a reference marker), so balance, holds and entries always
agree. Conditions keep ``available`` from going below zero and make every write
happen at most once per reference id: a retried call changes nothing.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from core.credits.history_store import HistoryPage, HistoryStore
from core.credits.ledger_items import HOLD_SHARDS, LedgerItems, balance_sk, hold_sk, key, marker_sk
from core.credits.records import BalanceRecord, HoldRecord, LedgerEntryRecord, Outcome
from core.platform.dynamo import StorageUnavailable, from_item, query_all, to_item, translate_errors
from core.platform.errors import InsufficientCredits
from core.platform.ids import new_id, now_iso
from core.platform.kinds import RefType

EXPIRING_HOLDS_INDEX = "expiringHolds"
CONFLICT_ATTEMPTS = 6
FAILED = "ConditionalCheckFailed"


class LedgerStore:
    def __init__(self, client: Any, table: str, sleep: Callable[[float], None] = time.sleep):
        self._db = client
        self._table = table
        self._sleep = sleep
        self._items = LedgerItems(table)

    # --- reads

    def balance(self, account_id: str) -> BalanceRecord:
        item = self._get(account_id, balance_sk()) or {}
        by_type = {k.split(":", 1)[1]: v for k, v in item.items() if k.startswith("entries:")}
        return BalanceRecord.model_validate(item | {"entriesByType": by_type})

    def get_hold(self, account_id: str, ref_id: str) -> HoldRecord | None:
        item = self._get(account_id, hold_sk(ref_id))
        return HoldRecord.model_validate(item) if item else None

    def history(self, account_id: str, *, ref_type: RefType | None, skip: int, take: int) -> HistoryPage:
        """A page of the account's history, newest first, and ``total`` (the numbered history: history_store.py).
        Its cost is the page's, whatever the ledger's size, once the history numberer has caught up."""
        return HistoryStore(self._db, self._table).page(account_id, ref_type=ref_type, skip=skip, take=take)

    def entries(self, account_id: str, *, ref_type: RefType | None, skip: int, take: int) -> list[LedgerEntryRecord]:
        """Entries newest first, the ``take`` after the first ``skip`` (of ``ref_type`` only, if given)."""
        return self.history(account_id, ref_type=ref_type, skip=skip, take=take).entries

    def expired_holds(self, now: str, limit: int = 100) -> list[HoldRecord]:
        """Holds whose ``expiresAt`` has passed (the index is eventually consistent: callers re-check)."""
        found: list[HoldRecord] = []
        for shard in range(HOLD_SHARDS):
            request = {
                "TableName": self._table,
                "IndexName": EXPIRING_HOLDS_INDEX,
                "KeyConditionExpression": "holdShard = :shard AND expiresAt <= :now",
                "ExpressionAttributeValues": to_item({":shard": f"HOLDS#{shard}", ":now": now}),
            }
            found += [HoldRecord.model_validate(i) for i in query_all(self._db, request, limit=limit - len(found))]
            if len(found) >= limit:
                break
        return found

    # --- writes

    def grant(self, account_id: str, amount: int, ref_type: RefType, ref_id: str, description: str) -> Outcome:
        """Add ``amount`` credits with one entry, at most once per (``ref_type``, ``ref_id``)."""
        if amount <= 0:
            raise ValueError("a grant adds a positive amount")
        entry = _entry(account_id, amount, ref_type, ref_id, description)
        codes = self._transact([
            self._items.put_marker(account_id, ref_type, ref_id, outcome="granted", at=entry.created_at),
            self._items.put_entry(entry),
            self._items.update_balance(account_id, entry.created_at, available=amount, entry_type=ref_type, rearm=True),
        ])  # fmt: skip
        return Outcome.APPLIED if codes is None else Outcome.ALREADY_DONE

    def reserve(self, hold: HoldRecord) -> Outcome:
        """Move ``hold.amount`` from available to held; ``InsufficientCredits`` if available cannot cover it."""
        if hold.amount <= 0:
            raise ValueError("a hold reserves a positive amount")
        codes = self._transact([
            self._items.put_hold(hold),
            self._items.unused_reference(hold.account_id, hold.ref_type, hold.ref_id),
            self._items.update_balance(
                hold.account_id, hold.created_at, available=-hold.amount, held=hold.amount, cover=hold.amount
            ),
        ])  # fmt: skip
        if codes is None:
            return Outcome.APPLIED
        if FAILED in codes[:2]:  # this reference is held, or was settled or released, already
            return Outcome.ALREADY_DONE
        raise InsufficientCredits()

    def settle(self, hold: HoldRecord, charge: int | None = None, description: str | None = None) -> Outcome:
        """Charge ``hold`` (all of it, or ``charge`` ≤ its amount) as one entry; the rest goes back to available.
        A hold that carries ``usage`` also counts one turn and ``charge`` on its workspace's day (the same transaction).

        No read first: the transaction's condition (the hold still exists, with that amount) is the check.
        """
        charge = hold.amount if charge is None else charge
        if not 0 < charge <= hold.amount:
            raise ValueError("a settlement charges between 1 and the held amount")
        entry = _entry(hold.account_id, -charge, hold.ref_type, hold.ref_id, description or hold.description)
        steps = [
            self._items.delete_hold(hold),
            self._items.put_marker(hold.account_id, hold.ref_type, hold.ref_id, outcome="settled", at=entry.created_at),
            self._items.put_entry(entry),
            self._items.update_balance(
                hold.account_id, entry.created_at, available=hold.amount - charge, held=-hold.amount,
                entry_type=hold.ref_type,
            ),
        ]  # fmt: skip
        # The usage's count goes in the same transaction: counted exactly when the charge is, never twice.
        counted = self._items.count_usage(hold.usage, charge) if hold.usage else None
        codes = self._transact(steps + ([counted] if counted else []))
        return Outcome.APPLIED if codes is None else self._absent(hold)

    def release(self, hold: HoldRecord) -> Outcome:
        """Return ``hold`` to available, with no entry (nothing was charged).

        Only while its work has delivered nothing: a hold marked delivered is never released
        (``NOTHING_HELD`` then, with the hold still there to settle).
        """
        at = now_iso()
        codes = self._transact([
            self._items.delete_hold(hold, undelivered=True),
            self._items.put_marker(hold.account_id, hold.ref_type, hold.ref_id, outcome="released", at=at),
            self._items.update_balance(hold.account_id, at, available=hold.amount, held=-hold.amount),
        ])  # fmt: skip
        return Outcome.APPLIED if codes is None else self._absent(hold)

    def mark_streamed(self, account_id: str, ref_id: str) -> bool:
        """Record that the held work delivered something (so an abandoned hold is charged, not released)."""
        with translate_errors("UpdateItem"):
            try:
                self._db.update_item(
                    TableName=self._table,
                    Key=key(account_id, hold_sk(ref_id)),
                    UpdateExpression="SET streamed = :yes",
                    ConditionExpression="attribute_exists(pk)",
                    ExpressionAttributeValues=to_item({":yes": True}),
                )
            except self._db.exceptions.ConditionalCheckFailedException:
                return False
        return True

    def mark_exhausted(self, account_id: str, workspace_id: str, agent_id: str) -> bool:
        """Note that a chat of ``workspace_id`` was refused for lack of credits: SET the balance's ``exhausted``
        unless it is set (the first refusal since the last grant). True if this call set it."""
        with translate_errors("UpdateItem"):
            try:
                self._db.update_item(**self._items.mark_exhausted(account_id, workspace_id, agent_id, now_iso()))
            except self._db.exceptions.ConditionalCheckFailedException:
                return False
        return True

    # --- plumbing

    def _get(self, account_id: str, sk: str) -> dict[str, Any] | None:
        with translate_errors("GetItem"):
            item = self._db.get_item(TableName=self._table, Key=key(account_id, sk), ConsistentRead=True).get("Item")
        return from_item(item) if item else None

    def _absent(self, hold: HoldRecord) -> Outcome:
        """Why a hold could not be finished: it was settled or released before (a retry), or it never existed."""
        marker = self._get(hold.account_id, marker_sk(hold.ref_type, hold.ref_id))
        return Outcome.ALREADY_DONE if marker else Outcome.NOTHING_HELD

    def _transact(self, items: list[dict[str, Any]]) -> list[str] | None:
        """Commit ``items`` atomically: ``None``, or each item's cancellation code if a condition failed.

        A conflict with a concurrent transaction on the same items is retried, with jittered backoff.
        """
        for attempt in range(CONFLICT_ATTEMPTS):
            with translate_errors("TransactWriteItems"):
                try:
                    self._db.transact_write_items(TransactItems=items)
                    return None
                except self._db.exceptions.TransactionCanceledException as exc:
                    codes = [r.get("Code") or "None" for r in exc.response.get("CancellationReasons", [])]
            if FAILED in codes:
                return codes
            self._sleep(random.uniform(0, 0.02 * 2**attempt))  # noqa: S311 - jitter, not a secret
        raise StorageUnavailable("The ledger is busy; try again")


def _entry(account_id: str, amount: int, ref_type: RefType, ref_id: str, description: str) -> LedgerEntryRecord:
    return LedgerEntryRecord(
        id=new_id("led"), account_id=account_id, amount_credits=amount, ref_type=ref_type, ref_id=ref_id,
        description=description, created_at=now_iso(),
    )  # fmt: skip
