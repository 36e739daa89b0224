"""The credit ledger: per account, a balance item, immutable entries and outstanding holds. See docs/ledger.md.

Every change of a balance is one DynamoDB transaction that also writes what justifies
it (an entry, a hold, or a reference marker), so balance, holds and entries always
agree. Conditions keep ``available`` from going below zero and make every write
happen at most once per reference id: a retried call changes nothing.

A sharded account (``core.credits.shards``) has more books than its main one: each reference is held, settled or
released in one book, and credit moves between books only by leases and gathers, each one transaction that keeps
every ``available`` at or above zero.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from core.credits import shards
from core.credits.ledger_items import HOLD_SHARDS, LedgerItems, balance_sk, hold_sk, key, marker_sk
from core.credits.records import BalanceRecord, HoldRecord, LedgerEntryRecord, Outcome
from core.platform.dynamo import StorageUnavailable, from_item, query_all, to_item, translate_errors
from core.platform.errors import InsufficientCredits
from core.platform.ids import new_id, now_iso
from core.platform.kinds import RefType

if TYPE_CHECKING:
    from core.credits.history_store import HistoryPage

EXPIRING_HOLDS_INDEX = "expiringHolds"
CONFLICT_ATTEMPTS = 6
FAILED = "ConditionalCheckFailed"


class LedgerStore:
    def __init__(
        self, client: Any, table: str, sleep: Callable[[float], None] = time.sleep,
        counts: shards.ShardCounts | None = None,
    ):  # fmt: skip
        self._db = client
        self._table = table
        self._sleep = sleep
        self._items = LedgerItems(table)
        self._shards = counts or shards.ShardCounts()

    # --- reads

    def balance(self, account_id: str) -> BalanceRecord:
        """The account's balance: its main book's (one GetItem), or for a sharded account the sum of every book's,
        read in one TransactGetItems (a consistent snapshot: a lease in flight is never counted twice or not at
        all)."""
        main = self._get(account_id, balance_sk()) or {}
        count = int(main.get("shards") or 0)
        self._shards.learn(account_id, count)
        books = [main] if not count else self._balances(account_id, count)
        summed: dict[str, Any] = {"shards": count}
        for item in books:
            for name, value in item.items():
                if name in ("available", "held", "entries") or name.startswith("entries:"):
                    summed[name] = summed.get(name, 0) + int(value)
        by_type = {k.split(":", 1)[1]: v for k, v in summed.items() if k.startswith("entries:")}
        return BalanceRecord.model_validate(summed | {"entriesByType": by_type})

    def get_hold(self, account_id: str, ref_id: str, book: int | None = None) -> HoldRecord | None:
        book = self._book(account_id, ref_id, book)
        item = self._get(account_id, hold_sk(ref_id), book)
        return HoldRecord.model_validate(item | {"book": book}) if item else None

    def history(self, account_id: str, *, ref_type: RefType | None, skip: int, take: int) -> HistoryPage:
        """A page of the account's history, newest first, and ``total`` (the numbered history: history_store.py).
        Its cost is the page's, whatever the ledger's size, once the history numberer has caught up."""
        from core.credits.history_store import HistoryStore  # the portal's history only: the chat never loads it

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
            items = query_all(self._db, request, limit=limit - len(found))
            found += [HoldRecord.model_validate(i | {"book": _book_of(i["pk"])}) for i in items]
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
        """Move ``hold.amount`` from available to held; ``InsufficientCredits`` if available cannot cover it.

        Records on ``hold`` the book it was reserved in (``hold.book``). An account not known to be sharded is
        reserved on its main book with no read first, on condition it has no shards; a sharded account's answer
        names its ``shards``, and the hold goes to its reference's book (``_reserve_in_shard``).
        """
        if hold.amount <= 0:
            raise ValueError("a hold reserves a positive amount")
        known = self._shards.get(hold.account_id) or 0  # unknown: the main book (its condition tells otherwise)
        book = hold.book if hold.book is not None else shards.book_of(hold.ref_id, known)
        if book != shards.MAIN:
            return self._reserve_in_shard(hold, book)
        reasons = self._transact_reasons(self._reserve_items(hold, shards.MAIN, unsharded=True))
        if reasons is None:
            hold.book = shards.MAIN
            return Outcome.APPLIED
        if FAILED in _codes(reasons)[:2]:  # this reference is held, or was settled or released, already
            return Outcome.ALREADY_DONE
        count = int(_old(reasons[2]).get("shards") or 0)
        if count and hold.book is None:  # sharded: the container learns it (no read) and holds in the shard
            self._shards.learn(hold.account_id, count)
            return self._reserve_in_shard(hold, shards.book_of(hold.ref_id, count))
        raise InsufficientCredits()

    def settle(self, hold: HoldRecord, charge: int | None = None, description: str | None = None) -> Outcome:
        """Charge ``hold`` (all of it, or ``charge`` ≤ its amount) as one entry; the rest goes back to available.
        A hold that carries ``usage`` also counts one turn and ``charge`` on its workspace's day (the same transaction).

        No read first: the transaction's condition (the hold still exists, with that amount) is the check.
        """
        charge = hold.amount if charge is None else charge
        if not 0 < charge <= hold.amount:
            raise ValueError("a settlement charges between 1 and the held amount")
        book = self._book(hold.account_id, hold.ref_id, hold.book)
        entry = _entry(hold.account_id, -charge, hold.ref_type, hold.ref_id, description or hold.description)
        steps = [
            self._items.delete_hold(hold, book=book),
            self._items.put_marker(hold.account_id, hold.ref_type, hold.ref_id, outcome="settled", at=entry.created_at,
                                   book=book),
            self._items.put_entry(entry, book),
            self._items.update_balance(
                hold.account_id, entry.created_at, available=hold.amount - charge, held=-hold.amount,
                entry_type=hold.ref_type, book=book,
            ),
        ]  # fmt: skip
        # The usage's count goes in the same transaction: counted exactly when the charge is, never twice.
        counted = self._items.count_usage(hold.usage, charge, book) if hold.usage else None
        codes = self._transact(steps + ([counted] if counted else []))
        return Outcome.APPLIED if codes is None else self._absent(hold, book)

    def release(self, hold: HoldRecord) -> Outcome:
        """Return ``hold`` to available, with no entry (nothing was charged).

        Only while its work has delivered nothing: a hold marked delivered is never released
        (``NOTHING_HELD`` then, with the hold still there to settle).
        """
        at = now_iso()
        book = self._book(hold.account_id, hold.ref_id, hold.book)
        codes = self._transact([
            self._items.delete_hold(hold, undelivered=True, book=book),
            self._items.put_marker(hold.account_id, hold.ref_type, hold.ref_id, outcome="released", at=at, book=book),
            self._items.update_balance(hold.account_id, at, available=hold.amount, held=-hold.amount, book=book),
        ])  # fmt: skip
        return Outcome.APPLIED if codes is None else self._absent(hold, book)

    def mark_streamed(self, account_id: str, ref_id: str, book: int | None = None) -> bool:
        """Record that the held work delivered something (so an abandoned hold is charged, not released)."""
        with translate_errors("UpdateItem"):
            try:
                self._db.update_item(
                    TableName=self._table,
                    Key=key(account_id, hold_sk(ref_id), self._book(account_id, ref_id, book)),
                    UpdateExpression="SET streamed = :yes",
                    ConditionExpression="attribute_exists(pk)",
                    ExpressionAttributeValues=to_item({":yes": True}),
                )
            except self._db.exceptions.ConditionalCheckFailedException:
                return False
        return True

    def set_shards(self, account_id: str, count: int) -> int:
        """Give the account ``count`` shard books (``python -m ops shard-ledger``); the count it had before.

        Shards only grow: a hold names its book and every reader sums books 1..``shards``, so a book once made
        stays counted (``ValueError`` for fewer than the account has). Creates the main balance if it has none.
        """
        if not 1 <= count <= shards.MAX_SHARDS:
            raise ValueError(f"an account has 1 to {shards.MAX_SHARDS} shards")
        with translate_errors("UpdateItem"):
            try:
                found = self._db.update_item(
                    TableName=self._table,
                    Key=key(account_id, balance_sk()),
                    UpdateExpression="SET shards = :count, updatedAt = :at",
                    ConditionExpression="attribute_not_exists(shards) OR shards <= :count",
                    ExpressionAttributeValues=to_item({":count": count, ":at": now_iso()}),
                    ReturnValues="ALL_OLD",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except self._db.exceptions.ConditionalCheckFailedException as exc:
                had = from_item(exc.response.get("Item") or {}).get("shards")
                raise ValueError(f"the account has {had} shards already; shards only grow") from exc
        self._shards.learn(account_id, count)
        return int(from_item(found.get("Attributes") or {}).get("shards") or 0)

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

    def _get(self, account_id: str, sk: str, book: int = shards.MAIN) -> dict[str, Any] | None:
        with translate_errors("GetItem"):
            found = self._db.get_item(TableName=self._table, Key=key(account_id, sk, book), ConsistentRead=True)
        item = found.get("Item")
        return from_item(item) if item else None

    def _absent(self, hold: HoldRecord, book: int) -> Outcome:
        """Why a hold could not be finished: it was settled or released before (a retry), or it never existed."""
        marker = self._get(hold.account_id, marker_sk(hold.ref_type, hold.ref_id), book)
        return Outcome.ALREADY_DONE if marker else Outcome.NOTHING_HELD

    def _book(self, account_id: str, ref_id: str, book: int | None) -> int:
        """The book of reference ``ref_id``: the one a hold names, else the one its id maps to under the account's
        shards (known to this container, or one GetItem of the main balance)."""
        if book is not None:
            return book
        count = self._shards.get(account_id)
        if count is None:
            count = int((self._get(account_id, balance_sk()) or {}).get("shards") or 0)
            self._shards.learn(account_id, count)
        return shards.book_of(ref_id, count)

    def _reserve_items(self, hold: HoldRecord, book: int, *, unsharded: bool = False) -> list[dict[str, Any]]:
        return [
            self._items.put_hold(hold, book),
            self._items.unused_reference(hold.account_id, hold.ref_type, hold.ref_id, book),
            self._items.update_balance(
                hold.account_id, hold.created_at, available=-hold.amount, held=hold.amount, cover=hold.amount,
                book=book, unsharded=unsharded,
            ),
        ]  # fmt: skip

    def _reserve_in_shard(self, hold: HoldRecord, book: int) -> Outcome:
        """Reserve in shard ``book``; when it cannot cover the hold, lease it credit from the main balance; when
        that cannot lend, gather the other shards' credit back to it. 402 only when one consistent read of every
        book says the account's available cannot cover the hold."""
        account = hold.account_id
        for _ in range(shards.RESERVE_ATTEMPTS):
            reasons = self._transact_reasons(self._reserve_items(hold, book))
            if reasons is None:
                hold.book = book
                return Outcome.APPLIED
            if FAILED in _codes(reasons)[:2]:
                return Outcome.ALREADY_DONE
            wanted = hold.amount - int(_old(reasons[2]).get("available") or 0)
            if self._lease(account, book, hold.amount, wanted):
                continue
            # The main balance cannot lend: is the credit elsewhere, or gone?
            books = self._balances(account, None)
            if sum(int(b.get("available") or 0) for b in books) < hold.amount:
                raise InsufficientCredits()
            others = [(k, int(b.get("available") or 0)) for k, b in enumerate(books) if k not in (shards.MAIN, book)]
            self._gather(account, others)
        raise StorageUnavailable("The ledger is busy; try again")

    def _lease(self, account_id: str, book: int, amount: int, wanted: int) -> bool:
        """Lend shard ``book`` a lease (or, if the main balance holds less, all it holds, when that is ``wanted``).
        False if the main balance cannot lend ``wanted``."""
        size = shards.lease_size(amount, wanted)
        while True:
            reasons = self._transact_reasons(self._items.lease(account_id, book, size, now_iso()))
            if reasons is None:
                return True
            lendable = int(_old(reasons[0]).get("available") or 0)
            if lendable < wanted or lendable >= size:  # too little; or it was a conflict's loser: let the caller retry
                return False
            size = lendable

    def _gather(self, account_id: str, found: list[tuple[int, int]]) -> None:
        """Move each other shard's available (as read) back to the main balance, one transaction a shard; one that
        changed meanwhile keeps its credit (its condition fails) and the caller looks again."""
        for book, available in found:
            if available > 0:
                self._transact(self._items.gather(account_id, book, available, now_iso()))

    def _balances(self, account_id: str, count: int | None) -> list[dict[str, Any]]:
        """Every book's balance item (main first, then shard 1..``count``; ``{}`` for one never written), in one
        TransactGetItems: a consistent snapshot. ``count`` None: the main balance's own ``shards``, read first."""
        if count is None:
            count = int((self._get(account_id, balance_sk()) or {}).get("shards") or 0)
        gets = [{"Get": {"TableName": self._table, "Key": key(account_id, balance_sk(), k)}} for k in range(count + 1)]
        for attempt in range(CONFLICT_ATTEMPTS):
            with translate_errors("TransactGetItems"):
                try:
                    found = self._db.transact_get_items(TransactItems=gets)["Responses"]
                    books = [from_item(r.get("Item") or {}) for r in found]
                    if int(books[0].get("shards") or 0) == count:
                        return books
                    count = int(books[0].get("shards") or 0)  # it grew since it was read: read the new books too
                    gets = [{"Get": {"TableName": self._table, "Key": key(account_id, balance_sk(), k)}}
                            for k in range(count + 1)]  # fmt: skip
                    continue
                except self._db.exceptions.TransactionCanceledException:
                    pass  # a transaction in flight on one of them: look again
            self._sleep(random.uniform(0, 0.02 * 2**attempt))  # noqa: S311 - jitter, not a secret
        raise StorageUnavailable("The ledger is busy; try again")

    def _transact(self, items: list[dict[str, Any]]) -> list[str] | None:
        """Commit ``items`` atomically: ``None``, or each item's cancellation code if a condition failed.

        A conflict with a concurrent transaction on the same items is retried, with jittered backoff.
        """
        reasons = self._transact_reasons(items)
        return None if reasons is None else _codes(reasons)

    def _transact_reasons(self, items: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """``_transact``, answering each item's whole cancellation reason (its ``Item`` when it asked for it)."""
        for attempt in range(CONFLICT_ATTEMPTS):
            with translate_errors("TransactWriteItems"):
                try:
                    self._db.transact_write_items(TransactItems=items)
                    return None
                except self._db.exceptions.TransactionCanceledException as exc:
                    reasons: list[dict[str, Any]] = exc.response.get("CancellationReasons", [])
            if FAILED in _codes(reasons):
                return reasons
            self._sleep(random.uniform(0, 0.02 * 2**attempt))  # noqa: S311 - jitter, not a secret
        raise StorageUnavailable("The ledger is busy; try again")


def _book_of(pk: str) -> int:
    """The book a ledger partition key names: ``ACCT#<id>`` the main one (0), ``ACCT#<id>#S<k>`` shard k."""
    _, _, shard = pk.partition("#S")
    return int(shard) if shard else shards.MAIN


def _codes(reasons: list[dict[str, Any]]) -> list[str]:
    return [r.get("Code") or "None" for r in reasons]


def _old(reason: dict[str, Any]) -> dict[str, Any]:
    """The item a failed condition returned (``ReturnValuesOnConditionCheckFailure``), or ``{}``."""
    return from_item(reason["Item"]) if reason.get("Item") else {}


def _entry(account_id: str, amount: int, ref_type: RefType, ref_id: str, description: str) -> LedgerEntryRecord:
    return LedgerEntryRecord(
        id=new_id("led"), account_id=account_id, amount_credits=amount, ref_type=ref_type, ref_id=ref_id,
        description=description, created_at=now_iso(),
    )  # fmt: skip
