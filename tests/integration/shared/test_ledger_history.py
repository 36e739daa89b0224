"""The numbered credit history against moto (docs/ledger.md, "The numbered history"): a page's cost is the page's
whatever the ledger's size, its answer is the old reader's, and the numberer numbers each entry exactly once
(concurrent numberers, retried batches, a sharded account's books, an entry committed late).
"""

from __future__ import annotations

import threading
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

from bench.dynamo_meter import Meter
from core.credits import history
from core.credits.history_store import HistoryStore
from core.credits.models import CreditHistoryQuery
from core.credits.reader import CreditReader
from core.credits.store import LedgerStore
from core.platform.dynamo import to_item
from core.platform.settings import get_settings
from tests.support.ledger_checks import assert_consistent
from tests.support.ledger_history import (
    TYPES,
    assert_numbered_once,
    every_entry,
    number_all,
    old_page,
    seed_numbered,
    table_state,
    write_old_ledger,
)
from tests.support.streams import drain_events, invoke_events, pending

ACCOUNT = "usr_01JDHISTORYTEST00000000000"
NUMBERER = "LedgerHistoryFunction"


@pytest.fixture
def numberer(aws: Any) -> HistoryStore:
    return HistoryStore(aws.dynamodb, get_settings().ledger_table)


@pytest.fixture
def reader(ledger: LedgerStore) -> CreditReader:
    return CreditReader(ledger, usd_cents_per_credit=1, hold_seconds=900)


def page_ids(reader: CreditReader, ref_type: str | None, offset: int, limit: int) -> tuple[list[str], int]:
    query = CreditHistoryQuery.model_validate({"limit": limit, "offset": offset, "refType": ref_type})
    answer = reader.history(ACCOUNT, query)
    return [e.id for e in answer.entries], answer.total


PAGES = [(None, 0, 50), (None, 7, 1), (None, 99, 3), (None, 100, 200), (None, 230, 50), (None, 249, 5),
         (None, 250, 10), ("refund", 0, 10), ("refund", 20, 200), ("llm", 90, 17), ("render", 31, 2)]  # fmt: skip


def assert_pages_as_before(aws: Any, reader: CreditReader, shards: int = 0) -> None:
    entries = every_entry(aws.dynamodb, ACCOUNT, shards)
    for ref_type, offset, limit in PAGES:
        ids, total = page_ids(reader, ref_type, offset, limit)
        assert ids == old_page(entries, ref_type, offset, limit), (ref_type, offset, limit)
        assert total == sum(ref_type is None or e["refType"] == ref_type for e in entries)


def test_pages_are_the_old_readers_before_during_and_after_numbering(
    aws: Any, reader: CreditReader, numberer: HistoryStore
) -> None:
    write_old_ledger(aws.dynamodb, ACCOUNT, 250)
    assert_pages_as_before(aws, reader)  # nothing numbered: every entry is tail, read from the book
    numberer.number(ACCOUNT, chunks=2)  # 66 numbered: the oldest; the rest is tail
    assert numberer.head(ACCOUNT).numbered == 66
    assert_pages_as_before(aws, reader)
    number_all(numberer, ACCOUNT)
    assert_pages_as_before(aws, reader)
    assert_numbered_once(aws.dynamodb, ACCOUNT)
    assert numberer.number(ACCOUNT).numbered == 0  # caught up: nothing twice


def items_read(meter: Meter, read: Any) -> tuple[int, int]:
    """(DynamoDB items read, calls) of ``read()``, by the bench's meter (Query: items evaluated)."""
    meter.reset()
    read()
    usage = meter.reset()
    return usage.items_read, sum(usage.calls.values())


def test_the_seed_is_what_the_numberer_writes(aws: Any, numberer: HistoryStore) -> None:
    """The two-size test seeds its large ledger with ``seed_numbered`` (moto takes a second a transaction): the
    same items, to the attribute, as the numberer writes."""
    entries = write_old_ledger(aws.dynamodb, ACCOUNT, 120)
    number_all(numberer, ACCOUNT)
    write_old_ledger(aws.dynamodb, ACCOUNT + "S", 120)
    seed_numbered(aws.dynamodb, ACCOUNT + "S", [e | {"pk": history.account_pk(ACCOUNT + "S"),
                                                     "accountId": ACCOUNT + "S"} for e in entries])  # fmt: skip
    ours, seeded = table_state(aws.dynamodb, ACCOUNT), table_state(aws.dynamodb, ACCOUNT + "S")
    assert [(i["pk"].replace(ACCOUNT, "A"), i["sk"]) for i in ours] == [
        (i["pk"].replace(ACCOUNT + "S", "A"), i["sk"]) for i in seeded]  # fmt: skip
    assert [{k: v for k, v in i.items() if k not in ("pk", "accountId")} for i in ours] == [
        {k: v for k, v in i.items() if k not in ("pk", "accountId")} for i in seeded]  # fmt: skip


def test_a_deep_page_reads_the_same_items_at_two_sizes(aws: Any) -> None:
    """300 entries, then 3,000 (another account), numbered: a page half way down reads as many items at both
    sizes, the page's and the first round trip's two (the balance and ``HISTORY``), with or without a type. Before
    the numbered history the reader read ``offset + limit`` entries (with a type: every entry down to the page)."""
    metered = boto3.Session(region_name="us-east-1").client("dynamodb")  # the reader's own: only its calls count
    meter = Meter(boto3.Session(region_name="us-east-1").client("dynamodb"))
    meter.attach(SimpleNamespace(events=metered.meta.events))
    reader = CreditReader(LedgerStore(metered, get_settings().ledger_table), usd_cents_per_credit=1, hold_seconds=900)
    measured: dict[str | None, list[tuple[int, int]]] = {None: [], "refund": []}
    for size, account in ((300, ACCOUNT), (3_000, ACCOUNT + "X")):
        seed_numbered(aws.dynamodb, account, write_old_ledger(aws.dynamodb, account, size))
        for ref_type, sizes in measured.items():  # both read off the one ledger of each size
            total = sum(ref_type in (None, TYPES[i % len(TYPES)]) for i in range(size))
            query = CreditHistoryQuery.model_validate({"limit": 15, "offset": total // 2, "refType": ref_type})
            answers: list[Any] = []
            sizes.append(items_read(meter, lambda a=account, q=query, kept=answers: kept.append(reader.history(a, q))))
            assert len(answers[0].entries) == 15 and answers[0].total == total
    for (small, small_calls), (large, large_calls) in measured.values():
        assert small == large == 15 + 2
        # the BatchGetItem, then one Query per row partition the page spans (≤ 2 for a page of ≤ 100: where the
        # block boundaries fall, not the ledger's size, decides between 1 and 2)
        assert small_calls <= 3 and large_calls <= 3


def test_concurrent_numberers_number_each_entry_once(aws: Any, reader: CreditReader) -> None:
    write_old_ledger(aws.dynamodb, ACCOUNT, 150)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            number_all(HistoryStore(aws.dynamodb, get_settings().ledger_table), ACCOUNT)
        except BaseException as exc:  # kept for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert_numbered_once(aws.dynamodb, ACCOUNT)
    assert_pages_as_before(aws, reader)


class Overtaken:
    """A DynamoDB client whose first TransactWriteItems lets ``rival()`` run to the end before it is sent: the
    numberer it serves read the head and the entries, then lost the race to a numberer that numbered everything."""

    def __init__(self, client: Any, rival: Any):
        self._client, self._rival = client, rival
        self.exceptions = client.exceptions

    def transact_write_items(self, **kwargs: Any) -> Any:
        rival, self._rival = self._rival, None
        if rival is not None:
            rival()
        return self._client.transact_write_items(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@pytest.mark.parametrize("backfilled", [False, True])
def test_a_numberer_that_lost_the_race_numbers_nothing_twice(
    aws: Any, reader: CreditReader, numberer: HistoryStore, backfilled: bool
) -> None:
    """Deterministic interleaving: numberer A reads, B numbers every entry, A commits what it read: A's
    transaction must change nothing (its ``HISTORY`` count and each entry's ``n`` are conditions), and A, reading
    again, finds nothing left. With the stream's entries (``backfilled``) as with a sweep."""
    old = write_old_ledger(aws.dynamodb, ACCOUNT, 50)
    hinted: list[dict[str, Any]] = []
    if backfilled:
        number_all(numberer, ACCOUNT)
        hinted = write_old_ledger(aws.dynamodb, ACCOUNT, 40, first=50)
    table = get_settings().ledger_table
    overtaken = HistoryStore(Overtaken(aws.dynamodb, lambda: numberer.number(ACCOUNT, hinted)), table)
    assert overtaken.number(ACCOUNT, hinted).numbered == 0
    assert_numbered_once(aws.dynamodb, ACCOUNT)
    assert len(every_entry(aws.dynamodb, ACCOUNT)) == len(old) + len(hinted)
    assert_pages_as_before(aws, reader)


def test_a_sharded_accounts_books_make_one_history(aws: Any, reader: CreditReader, numberer: HistoryStore) -> None:
    """Entries in the main book and two shard books (written straight into ``ACCT#<id>#S<k>``, interleaved in
    time): one history, totals summed over the books' counters."""
    write_old_ledger(aws.dynamodb, ACCOUNT, 90, shards=2, spacing=timedelta(seconds=3))
    write_old_ledger(aws.dynamodb, ACCOUNT, 90, book="S1", first=0, spacing=timedelta(seconds=3, milliseconds=1))
    write_old_ledger(aws.dynamodb, ACCOUNT, 70, book="S2", first=0, spacing=timedelta(seconds=3, milliseconds=2))
    assert numberer.head(ACCOUNT).total == 250
    assert_pages_as_before(aws, reader, shards=2)
    numberer.number(ACCOUNT, chunks=3)
    assert_pages_as_before(aws, reader, shards=2)
    number_all(numberer, ACCOUNT)
    assert_numbered_once(aws.dynamodb, ACCOUNT, shards=2)
    assert_pages_as_before(aws, reader, shards=2)


def test_the_stream_numbers_new_entries_once_even_when_handed_over_again(
    aws: Any, ledger: LedgerStore, reader: CreditReader
) -> None:
    """Grants and charges through the ledger, the stream handed to ``LedgerHistoryFunction``: every entry numbered;
    the same batch again (Lambda's retry) numbers nothing twice."""
    ledger.grant(ACCOUNT, 100, "topup", "t1", "Top-up")
    for turn in range(12):
        hold = reader.hold(ACCOUNT, "llm", f"turn_{turn}", 2, "Chat turn")
        reader.settle(hold, charge=1)
    ledger.grant(ACCOUNT, 5, "refund", "r1", "Refund")
    records = [r for r in pending("LedgerTable") if r["dynamodb"]["Keys"]["sk"]["S"].startswith("ENTRY#")]
    drained = drain_events(NUMBERER)
    assert drained.failed == [] and drained.records == len(records) == 14
    assert_numbered_once(aws.dynamodb, ACCOUNT)
    assert invoke_events(records, NUMBERER) == {"batchItemFailures": []}
    assert_numbered_once(aws.dynamodb, ACCOUNT)
    assert_consistent(aws.dynamodb, ACCOUNT)
    ledger.grant(ACCOUNT, 1, "adjustment", "a1", "Adjustment")  # not handed over yet: the tail
    entries = every_entry(aws.dynamodb, ACCOUNT)
    assert page_ids(reader, None, 0, 3)[0] == old_page(entries, None, 0, 3)
    drain_events(NUMBERER)
    assert_numbered_once(aws.dynamodb, ACCOUNT)


def test_an_entry_committed_late_is_numbered_from_the_stream(
    aws: Any, ledger: LedgerStore, numberer: HistoryStore
) -> None:
    """An entry whose ``createdAt`` is older than the book's mark less the margin (committed late): no sweep finds
    it, the stream names it, and it is numbered (after the others: the history's order is the numbering's)."""
    write_old_ledger(aws.dynamodb, ACCOUNT, 40)
    number_all(numberer, ACCOUNT)
    created = "2026-01-01T00:00:03.500Z"  # 36.5 s before the newest numbered entry: below the 10 s margin
    late = {"pk": history.account_pk(ACCOUNT), "sk": f"ENTRY#{created}#led_late", "id": "led_late",
            "accountId": ACCOUNT, "amountCredits": -1, "refType": "llm", "refId": "late", "description": "late",
            "createdAt": created}  # fmt: skip
    table = get_settings().ledger_table
    aws.dynamodb.put_item(TableName=table, Item=to_item(late))
    aws.dynamodb.update_item(
        TableName=table, Key=to_item({"pk": history.account_pk(ACCOUNT), "sk": "BALANCE"}),
        UpdateExpression="ADD available :minus, entries :one, #llm :one",
        ExpressionAttributeNames={"#llm": "entries:llm"}, ExpressionAttributeValues=to_item({":minus": -1, ":one": 1}),
    )  # fmt: skip
    assert numberer.number(ACCOUNT).numbered == 0  # below the window: a sweep does not see it
    assert numberer.number(ACCOUNT, [late]).numbered == 1
    assert_numbered_once(aws.dynamodb, ACCOUNT)
    assert numberer.number(ACCOUNT, [late]).numbered == 0  # handed over again: nothing twice


def test_an_account_deleted_before_its_entries_were_numbered_is_left_empty(aws: Any, numberer: HistoryStore) -> None:
    """The smoke's cleanup deletes its account's partitions while the stream still holds its entries: the numberer,
    handed them afterwards, writes nothing (no ``HISTORY`` item, no row) rather than leave a stray item behind."""
    entries = write_old_ledger(aws.dynamodb, ACCOUNT, 3)
    table = get_settings().ledger_table
    for key in [{"pk": e["pk"], "sk": e["sk"]} for e in entries] + [{"pk": entries[0]["pk"], "sk": "BALANCE"}]:
        aws.dynamodb.delete_item(TableName=table, Key=to_item(key))
    assert numberer.number(ACCOUNT, entries).numbered == 0
    assert table_state(aws.dynamodb, ACCOUNT) == []
