"""The numbered history (pure: no I/O): which entries get which numbers, where their rows live, and which keys a
history page reads. See docs/ledger.md, "The numbered history".

An account's entries are written by the chat path into its **books** (the main book ``ACCT#<id>``; a sharded
account also has ``ACCT#<id>#S<k>``) under ``ENTRY#<createdAt>#<id>``, as they always were. Off the request path
the **history numberer** gives each entry its position ``n`` (1, 2, ... in the account's history) and ``m`` (its
position among its ``refType``) and copies it to a **history row** at a key computed from the number, so a page
at any offset is a key range: its cost is the page, whatever the ledger's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from core.platform.ids import iso

BLOCK = 100  # consecutive numbers share a row partition: a page of ≤ 100 spans at most two partitions
SPREAD = 16  # row partitions an account's (or a type's) rows rotate through: no one partition takes every write
CHUNK = 33  # entries per transaction: 1 HISTORY update + 3 items an entry = 100, TransactWriteItems' limit
# An entry is committed a moment after its ``createdAt`` (the transaction's retries): the numberer's sweep reads a
# book from this long before its newest numbered entry, so one committed late is still found.
MARGIN = timedelta(seconds=10)
MAIN_BOOK = ""  # the main book's name in the HISTORY item's marks; a shard book is "S<k>"
ENTRY_PREFIX = "ENTRY#"
HISTORY_SK = "HISTORY"
PUBLIC_FIELDS = ("id", "accountId", "amountCredits", "refType", "refId", "description", "createdAt")


def account_pk(account_id: str) -> str:
    return f"ACCT#{account_id}"


def book_pk(account_id: str, book: str) -> str:
    return account_pk(account_id) + (f"#{book}" if book else "")


def book_of(pk: str) -> tuple[str, str] | None:
    """``ACCT#<id>`` -> (id, main book), ``ACCT#<id>#S<k>`` -> (id, "S<k>"); None for any other partition (a
    history row's, a usage day's)."""
    if not pk.startswith("ACCT#"):
        return None
    account, _, book = pk[len("ACCT#") :].partition("#")
    if book and not (book[0] == "S" and book[1:].isdigit()):
        return None
    return account, book


def books(shards: int) -> list[str]:
    return [MAIN_BOOK] + [f"S{k}" for k in range(1, shards + 1)]


def row_key(account_id: str, n: int, ref_type: str | None = None) -> dict[str, str]:
    """Where history row ``n`` lives (``ref_type``: the typed row ``m = n`` of that type)."""
    spread = f"{(n // BLOCK) % SPREAD}"
    pk = f"{account_pk(account_id)}#T#{ref_type}#{spread}" if ref_type else f"{account_pk(account_id)}#H{spread}"
    return {"pk": pk, "sk": number_sk(n)}


def number_sk(n: int) -> str:
    return f"N#{n:012d}"


def window_start(mark: str | None) -> str:
    """The lowest entry key a sweep of a book reads: ``MARGIN`` before its newest numbered entry (all of it: none)."""
    if not mark:
        return ENTRY_PREFIX
    created = mark[len(ENTRY_PREFIX) :].split("#", 1)[0]
    try:
        moment = datetime.strptime(created, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:  # not a key this module wrote: read the whole book rather than guess
        return ENTRY_PREFIX
    return ENTRY_PREFIX + iso(moment - MARGIN)


@dataclass(frozen=True)
class Head:
    """What a history read or the numberer starts from: the ``HISTORY`` item and the books' counters."""

    numbered: int = 0
    numbered_by_type: Mapping[str, int] = field(default_factory=dict)
    marks: Mapping[str, str] = field(default_factory=dict)  # book -> the key of its newest numbered entry
    backfilled: bool = False  # a sweep found every entry written before the stream's numbering numbered
    shards: int = 0
    total: int = 0  # Σ the books' ``entries``
    total_by_type: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, history: Mapping[str, Any] | None, balances: Iterable[Mapping[str, Any]], shards: int) -> Head:
        history = history or {}
        total, by_type = 0, dict[str, int]()
        for balance in balances:
            total += int(balance.get("entries", 0))
            for name, value in balance.items():
                if name.startswith("entries:"):
                    by_type[name[len("entries:") :]] = by_type.get(name[len("entries:") :], 0) + int(value)
        return cls(
            numbered=int(history.get("numbered", 0)),
            numbered_by_type={k[len("numbered:") :]: int(v) for k, v in history.items() if k.startswith("numbered:")},
            marks={k[len("mark:") :]: str(v) for k, v in history.items() if k.startswith("mark:")},
            backfilled=bool(history.get("backfilled", False)),
            shards=shards,
            total=total,
            total_by_type=by_type,
        )

    def count(self, ref_type: str | None) -> tuple[int, int]:
        """(entries, numbered entries) of ``ref_type`` (None: all). Read apart, the counters can disagree for a
        moment (an entry numbered after its balance was read): never less numbered than total, then."""
        total = self.total if ref_type is None else self.total_by_type.get(ref_type, 0)
        numbered = self.numbered if ref_type is None else self.numbered_by_type.get(ref_type, 0)
        return max(total, numbered), numbered


@dataclass(frozen=True)
class Numbered:
    """One entry given its numbers: ``n`` in the account's history, ``m`` among its ``refType``."""

    entry: Mapping[str, Any]  # the entry as stored (its ``pk``, ``sk`` and public fields)
    book: str
    n: int
    m: int


def assign(head: Head, entries: Sequence[Mapping[str, Any]]) -> list[Numbered]:
    """Number ``entries`` (not yet numbered, any order, any books) after what ``head`` numbered: oldest first (by
    key: ``createdAt`` then id, as the old reader ordered them), densely."""
    n = head.numbered
    by_type = dict(head.numbered_by_type)
    done: list[Numbered] = []
    for entry in sorted(entries, key=lambda e: (str(e["sk"]), str(e["pk"]))):
        located = book_of(str(entry["pk"]))
        assert located is not None, entry["pk"]  # callers pass only entries of books
        n += 1
        ref_type = str(entry["refType"])
        by_type[ref_type] = by_type.get(ref_type, 0) + 1
        done.append(Numbered(entry, located[1], n, by_type[ref_type]))
    return done


def chunks(numbered: Sequence[Numbered]) -> list[list[Numbered]]:
    return [list(numbered[i : i + CHUNK]) for i in range(0, len(numbered), CHUNK)]


def advanced(head: Head, chunk: Sequence[Numbered]) -> Head:
    """``head`` once ``chunk`` is committed."""
    by_type = dict(head.numbered_by_type)
    marks = dict(head.marks)
    for done in chunk:
        by_type[str(done.entry["refType"])] = done.m
        marks[done.book] = max(marks.get(done.book, ""), str(done.entry["sk"]))
    return Head(
        numbered=chunk[-1].n if chunk else head.numbered, numbered_by_type=by_type, marks=marks,
        backfilled=head.backfilled, shards=head.shards, total=head.total, total_by_type=head.total_by_type,
    )  # fmt: skip


def public(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {name: entry[name] for name in PUBLIC_FIELDS if name in entry}


# ------------------------------------------------------------------------------------------------ a page


@dataclass(frozen=True)
class RowRange:
    """One Query of a page: row partition ``pk``, numbers ``low``..``high`` (inclusive)."""

    pk: str
    low: int
    high: int


@dataclass(frozen=True)
class PagePlan:
    """Which of a page's positions (0 = newest) are in the tail (entries not yet numbered: the newest, read from
    the books) and which numbered rows hold the rest (newest first)."""

    tail: int  # how many entries are not yet numbered
    tail_slice: tuple[int, int]  # the page's positions in the tail: [start, stop)
    rows: tuple[RowRange, ...]  # the numbered part's Queries (at most 3 for a page of 200, 2 for 100)


def plan_page(account_id: str, head: Head, ref_type: str | None, offset: int, limit: int) -> PagePlan:
    total, numbered = head.count(ref_type)
    tail = total - numbered
    stop = min(offset + limit, total)
    tail_slice = (min(offset, tail), min(stop, tail))
    # positions p ≥ tail are numbered rows: p -> n = numbered - (p - tail)
    first, last = max(offset, tail), stop - 1
    rows: list[RowRange] = []
    if first <= last:
        high, low = numbered - (first - tail), numbered - (last - tail)
        block = low // BLOCK
        while block * BLOCK <= high:
            lo, hi = max(low, block * BLOCK), min(high, block * BLOCK + BLOCK - 1)
            rows.append(RowRange(row_key(account_id, lo, ref_type)["pk"], lo, hi))
            block += 1
    return PagePlan(tail, tail_slice, tuple(rows))
