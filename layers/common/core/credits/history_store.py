"""The numbered history in DynamoDB: a page read as a key range, and the numberer that writes the rows.

See docs/ledger.md, "The numbered history"; ``history.py`` holds the pure part (numbers, keys, a page's plan).

Reading a page: round trip 1 reads the account's ``HISTORY`` item and its balance(s) (the entry counters, so
``total`` is exact at once; a sharded account's shard balances are a second round trip), round trip 2 the page:
≤ 3 Queries of history rows and, only when the page reaches into the not-yet-numbered newest entries, a Query of
each book from its numbered mark (bounded by the numberer's lag). A ledger never numbered (no ``HISTORY``) is all
tail: the books read newest first, as before the numbered history.

Numbering: each commit is ONE transaction of ≤ 33 entries — the ``HISTORY`` update conditioned on the count it
read, a row and a typed row per entry (conditioned new) and the entry's ``SET n`` conditioned
``attribute_not_exists(n)`` — so two numberers racing on an account, or a retried one, number nothing twice: the
loser's transaction changes nothing, and it reads again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import Any

from core.credits import history
from core.credits.history import Head, Numbered
from core.credits.records import LedgerEntryRecord
from core.platform import together
from core.platform.dynamo import StorageUnavailable, batch_get, from_item, to_item, translate_errors
from core.platform.ids import now_iso
from core.platform.kinds import RefType

FAILED = "ConditionalCheckFailed"
ATTEMPTS = 6  # reads again after a lost race (or a TransactionConflict) at most this often, then gives up
SWEEP_READ = 330  # unnumbered entries a sweep reads from a book before numbering them (10 transactions' worth)
END = "ENTRY#~"  # above every entry key ("~" sorts after the digits and letters of a createdAt and an id)


@dataclass(frozen=True)
class HistoryPage:
    total: int  # entries matching the filter (exact: the books' counters)
    entries: list[LedgerEntryRecord]


@dataclass(frozen=True)
class Numbering:
    """What one call of the numberer did: entries numbered, and whether none was left behind."""

    numbered: int
    caught_up: bool


class HistoryStore:
    def __init__(self, client: Any, table: str, sleep: Callable[[float], None] = time.sleep):
        self._db = client
        self._table = table
        self._sleep = sleep

    # ------------------------------------------------------------------------------------------- reading

    def head(self, account_id: str) -> Head:
        """The ``HISTORY`` item and the main balance together; a sharded account's shard balances next."""
        main = history.account_pk(account_id)
        found = {i["sk"]: i for i in batch_get(self._db, self._table, [
            {"pk": main, "sk": "BALANCE"}, {"pk": main, "sk": history.HISTORY_SK}])}  # fmt: skip
        balance = found.get("BALANCE") or {}
        shards = int(balance.get("shards", 0))
        balances = [balance]
        if shards:
            keys = [{"pk": history.book_pk(account_id, b), "sk": "BALANCE"} for b in history.books(shards)[1:]]
            balances += batch_get(self._db, self._table, keys)
        return Head.of(found.get(history.HISTORY_SK), balances, shards)

    def page(self, account_id: str, *, ref_type: RefType | None, skip: int, take: int) -> HistoryPage:
        """Entries newest first, the ``take`` after the first ``skip`` (of ``ref_type`` only, if given)."""
        head = self.head(account_id)
        total, _ = head.count(ref_type)
        if skip >= total:
            return HistoryPage(total, [])
        plan = history.plan_page(account_id, head, ref_type, skip, take)
        start, stop = plan.tail_slice
        calls: list[Callable[[], list[dict[str, Any]]]] = [partial(self._rows, r) for r in plan.rows]
        if stop > start:
            marks, books = head.marks, history.books(head.shards)
            seen = head.numbered
            calls += [partial(self._tail, account_id, b, marks.get(b), ref_type, stop, seen=seen) for b in books]
        answers = [f.result() for f in together.run(*calls)] if calls else []
        rows = [row for answer in answers[: len(plan.rows)] for row in answer]
        tail = [entry for answer in answers[len(plan.rows) :] for entry in answer]
        tail.sort(key=lambda e: (e["sk"], e["pk"]), reverse=True)
        order = "m" if ref_type else "n"
        rows.sort(key=lambda r: int(r[order]), reverse=True)
        found = tail[start:stop] + rows
        return HistoryPage(total, [LedgerEntryRecord.model_validate(history.public(e)) for e in found])

    def _rows(self, rows: history.RowRange) -> list[dict[str, Any]]:
        request = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :low AND :high",
            "ExpressionAttributeValues": to_item({
                ":pk": rows.pk, ":low": history.number_sk(rows.low), ":high": history.number_sk(rows.high)}),
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }  # fmt: skip
        return self._query(request, None)

    def _tail(
        self, account_id: str, book: str, mark: str | None, ref_type: str | None, need: int, *, seen: int
    ) -> list[Any]:
        """A book's newest entries not numbered when the head was read (``seen`` numbered then; up to ``need``), from
        its numbered mark (less the margin). An entry the numberer numbers between the two reads is in no row range
        the head gave, so it is still read here (``n > seen``): a page never loses it."""
        values = {
            ":pk": history.book_pk(account_id, book), ":low": history.window_start(mark), ":high": END, ":seen": seen,
        }  # fmt: skip
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :low AND :high",
            "FilterExpression": "(attribute_not_exists(n) OR n > :seen)",
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }
        if ref_type is not None:
            request["FilterExpression"] += " AND refType = :type"
            values[":type"] = ref_type
        request["ExpressionAttributeValues"] = to_item(values)
        # Without a type, read no more than the page needs (numbered entries in between are read and skipped);
        # with one, whole pages (a rare type would take a round trip an item).
        return self._query(request, need, limited=ref_type is None)

    def _query(self, request: dict[str, Any], want: int | None, *, limited: bool = False) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        request = dict(request)
        with translate_errors("Query"):
            while want is None or len(found) < want:
                if limited and want is not None:
                    request["Limit"] = want - len(found)
                page = self._db.query(**request)
                found += [from_item(i) for i in page.get("Items", [])]
                if "LastEvaluatedKey" not in page:
                    break
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return found if want is None else found[:want]

    # ------------------------------------------------------------------------------------------- numbering

    def number(self, account_id: str, hinted: Sequence[Mapping[str, Any]] = (), *, chunks: int = 60) -> Numbering:
        """Number the account's entries not yet numbered, at most ``chunks`` transactions' worth.

        ``hinted``: entries as the stream handed them over (their items, ``pk`` and ``sk`` included). Once the
        account's old entries are all numbered (``backfilled``), the stream's entries are numbered as they come,
        with no read of the books; before, a sweep reads each book from its mark (all of it, the first time).
        """
        hints = {(str(h["pk"]), str(h["sk"])): dict(h) for h in hinted if "n" not in h}
        done = lost = 0
        while True:
            head = self._numbering_head(account_id)
            if head.backfilled and hinted:
                candidates, complete = list(hints.values()), True
            else:
                candidates, complete = self._sweep(account_id, head)
                found = {(str(c["pk"]), str(c["sk"])) for c in candidates}
                # an entry committed later than the margin, below a book's window: the stream named it
                candidates += [h for key, h in hints.items() if key not in found and self._below_window(head, h)]
            won = True
            for chunk in history.chunks(history.assign(head, candidates)):
                if done >= chunks * history.CHUNK:
                    return Numbering(done, False)
                if not self._commit(account_id, head, chunk):
                    won = False
                    break
                head = history.advanced(head, chunk)
                done += len(chunk)
                for numbered in chunk:
                    hints.pop((str(numbered.entry["pk"]), str(numbered.entry["sk"])), None)
            if not won:  # another numberer committed first: read again (what it numbered is no longer a candidate)
                lost += 1
                if lost >= ATTEMPTS:
                    raise StorageUnavailable("The ledger's history is busy; try again")
                hints = self._refreshed(hints)
                continue
            if complete:
                if not head.backfilled:
                    self._mark_backfilled(account_id)  # every book read to its end: the stream numbers the rest
                return Numbering(done, True)
            # a sweep that stopped at SWEEP_READ entries of a book: read on from the new marks

    def _numbering_head(self, account_id: str) -> Head:
        main = history.account_pk(account_id)
        found = {i["sk"]: i for i in batch_get(self._db, self._table, [
            {"pk": main, "sk": "BALANCE"}, {"pk": main, "sk": history.HISTORY_SK}])}  # fmt: skip
        return Head.of(found.get(history.HISTORY_SK), [], int((found.get("BALANCE") or {}).get("shards", 0)))

    @staticmethod
    def _below_window(head: Head, entry: Mapping[str, Any]) -> bool:
        located = history.book_of(str(entry["pk"]))
        return located is not None and str(entry["sk"]) < history.window_start(head.marks.get(located[1]))

    def _sweep(self, account_id: str, head: Head) -> tuple[list[dict[str, Any]], bool]:
        """Each book's unnumbered entries from its window, oldest first, up to ``SWEEP_READ`` a book; only those
        up to the lowest point a book was read to (so the books' entries are numbered in key order). Complete:
        every book was read to its end."""
        books = history.books(head.shards)
        read = together.run(*[partial(self._unnumbered, account_id, b, head.marks.get(b)) for b in books])
        results = [f.result() for f in read]
        cut = min((entries[-1]["sk"] for entries, ended in results if not ended), default=None)
        found = [e for entries, _ in results for e in entries if cut is None or e["sk"] <= cut]
        return found, all(ended for _, ended in results)

    def _unnumbered(self, account_id: str, book: str, mark: str | None) -> tuple[list[dict[str, Any]], bool]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :low AND :high",
            "FilterExpression": "attribute_not_exists(n)",
            "ExpressionAttributeValues": to_item({
                ":pk": history.book_pk(account_id, book), ":low": history.window_start(mark), ":high": END}),
            "ConsistentRead": True,
            "Limit": SWEEP_READ,
        }  # fmt: skip
        found: list[dict[str, Any]] = []
        with translate_errors("Query"):
            while True:
                page = self._db.query(**request)
                found += [from_item(i) for i in page.get("Items", [])]
                if "LastEvaluatedKey" not in page:
                    return found, True
                if len(found) >= SWEEP_READ:
                    return found, False
                request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _refreshed(self, hints: dict[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
        if not hints:
            return hints
        current = batch_get(self._db, self._table, [{"pk": pk, "sk": sk} for pk, sk in hints])
        return {(str(e["pk"]), str(e["sk"])): e for e in current if "n" not in e}

    def _mark_backfilled(self, account_id: str) -> None:
        """Only on a ``HISTORY`` item the numbering made: an account with no entry (or one deleted meanwhile, the
        smoke's cleanup) is left without one, and a later sweep from its start costs what its entries are."""
        with translate_errors("UpdateItem"), suppress(self._db.exceptions.ConditionalCheckFailedException):
            self._db.update_item(
                TableName=self._table,
                Key=to_item({"pk": history.account_pk(account_id), "sk": history.HISTORY_SK}),
                UpdateExpression="SET backfilled = :yes",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues=to_item({":yes": True}),
            )

    def _commit(self, account_id: str, head: Head, chunk: list[Numbered]) -> bool:
        """One transaction: the chunk numbered, or nothing (False: another numberer got there first)."""
        items = [self._history_update(account_id, head, chunk)]
        for done in chunk:
            items += [self._row(account_id, done, None), self._row(account_id, done, str(done.entry["refType"]))]
            items.append({"Update": {
                "TableName": self._table,
                "Key": to_item({"pk": done.entry["pk"], "sk": done.entry["sk"]}),
                "UpdateExpression": "SET n = :n",
                "ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(n)",
                "ExpressionAttributeValues": to_item({":n": done.n}),
            }})  # fmt: skip
        for attempt in range(ATTEMPTS):
            with translate_errors("TransactWriteItems"):
                try:
                    self._db.transact_write_items(TransactItems=items)
                    return True
                except self._db.exceptions.TransactionCanceledException as exc:
                    codes = [r.get("Code") or "None" for r in exc.response.get("CancellationReasons", [])]
            if FAILED in codes:
                return False
            self._sleep(random.uniform(0, 0.02 * 2**attempt))  # noqa: S311 - jitter, not a secret
        raise StorageUnavailable("The ledger's history is busy; try again")

    def _history_update(self, account_id: str, head: Head, chunk: list[Numbered]) -> dict[str, Any]:
        after = history.advanced(head, chunk)
        names: dict[str, str] = {}
        values: dict[str, Any] = {":n": after.numbered, ":at": now_iso()}
        sets = ["numbered = :n", "updatedAt = :at"]
        for i, ref_type in enumerate(sorted({str(d.entry["refType"]) for d in chunk})):
            names[f"#t{i}"], values[f":t{i}"] = f"numbered:{ref_type}", after.numbered_by_type[ref_type]
            sets.append(f"#t{i} = :t{i}")
        for i, book in enumerate(sorted({d.book for d in chunk})):
            names[f"#k{i}"], values[f":k{i}"] = f"mark:{book}", after.marks[book]
            sets.append(f"#k{i} = :k{i}")
        if head.numbered:
            condition, values[":was"] = "numbered = :was", head.numbered
        else:
            condition = "attribute_not_exists(numbered)"
        return {"Update": {
            "TableName": self._table,
            "Key": to_item({"pk": history.account_pk(account_id), "sk": history.HISTORY_SK}),
            "UpdateExpression": "SET " + ", ".join(sets),
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": to_item(values),
        }}  # fmt: skip

    def _row(self, account_id: str, done: Numbered, ref_type: str | None) -> dict[str, Any]:
        number = done.m if ref_type else done.n
        row = history.row_key(account_id, number, ref_type) | history.public(done.entry) | {"n": done.n}
        if ref_type:
            row["m"] = done.m
        new = "attribute_not_exists(pk)"
        return {"Put": {"TableName": self._table, "Item": to_item(row), "ConditionExpression": new}}
