"""The numbered history's pure part (core.credits.history): numbers, row keys, windows and a page's plan."""

from __future__ import annotations

import pytest

from core.credits import history
from core.credits.history import Head, plan_page


def entry(sk: str, ref_type: str = "llm", pk: str = "ACCT#u1") -> dict[str, str]:
    return {"pk": pk, "sk": sk, "refType": ref_type}


def test_books_and_their_partitions() -> None:
    assert history.book_of("ACCT#u1") == ("u1", "")
    assert history.book_of("ACCT#u1#S12") == ("u1", "S12")
    assert [history.book_of(pk) for pk in ("ACCT#u1#H3", "ACCT#u1#T#llm#0", "USAGE#w1", "ACCT#u1#Sx")] == [None] * 4
    assert history.books(2) == ["", "S1", "S2"]
    assert history.book_pk("u1", "S2") == "ACCT#u1#S2"


def test_rows_spread_over_sixteen_partitions_in_blocks_of_a_hundred() -> None:
    assert history.row_key("u1", 1) == {"pk": "ACCT#u1#H0", "sk": "N#000000000001"}
    assert history.row_key("u1", 199)["pk"] == "ACCT#u1#H1"
    assert history.row_key("u1", 1_600)["pk"] == "ACCT#u1#H0"  # the 17th block comes round again
    assert history.row_key("u1", 250, "refund") == {"pk": "ACCT#u1#T#refund#2", "sk": "N#000000000250"}


def test_a_window_starts_the_margin_before_the_mark() -> None:
    assert history.window_start(None) == "ENTRY#"
    assert history.window_start("ENTRY#2026-01-01T00:00:10.500Z#led_1") == "ENTRY#2026-01-01T00:00:00.500Z"
    assert history.window_start("ENTRY#garbage") == "ENTRY#"  # not a key it wrote: the whole book


def test_entries_are_numbered_oldest_first_across_books_after_the_head() -> None:
    head = Head(numbered=10, numbered_by_type={"llm": 7, "topup": 3})
    done = history.assign(head, [
        entry("ENTRY#2026-01-01T00:00:03.000Z#c", "topup", "ACCT#u1#S1"), entry("ENTRY#2026-01-01T00:00:01.000Z#a"),
        entry("ENTRY#2026-01-01T00:00:02.000Z#b"),
    ])  # fmt: skip
    assert [(d.entry["sk"][-1], d.book, d.n, d.m) for d in done] == [("a", "", 11, 8), ("b", "", 12, 9),
                                                                      ("c", "S1", 13, 4)]  # fmt: skip
    after = history.advanced(head, done)
    assert (after.numbered, dict(after.numbered_by_type)) == (13, {"llm": 9, "topup": 4})
    assert dict(after.marks) == {"": "ENTRY#2026-01-01T00:00:02.000Z#b", "S1": "ENTRY#2026-01-01T00:00:03.000Z#c"}


def test_a_transaction_holds_thirty_three_entries() -> None:
    done = history.assign(Head(), [entry(f"ENTRY#{i:04d}") for i in range(70)])
    assert [len(c) for c in history.chunks(done)] == [33, 33, 4]
    assert 1 + 3 * history.CHUNK == 100  # TransactWriteItems' limit


def test_the_head_sums_the_books_counters() -> None:
    head = Head.of({"numbered": 5, "numbered:llm": 4, "mark:": "ENTRY#x", "backfilled": True},
                   [{"entries": 6, "entries:llm": 5}, {"entries": 3, "entries:llm": 3}], shards=1)  # fmt: skip
    assert (head.total, dict(head.total_by_type), head.marks[""], head.backfilled) == (9, {"llm": 8}, "ENTRY#x", True)
    assert head.count(None) == (9, 5) and head.count("llm") == (8, 4) and head.count("refund") == (0, 0)
    # read apart, numbered may run ahead of a balance read a moment earlier: total is never below it
    assert Head(numbered=7, total=6).count(None) == (7, 7)


@pytest.mark.parametrize(("offset", "limit", "tail_slice", "rows"), [
    (0, 50, (0, 0), [("ACCT#u1#H2", 251, 299), ("ACCT#u1#H3", 300, 300)]),  # the newest 50 of 300: two blocks
    (0, 200, (0, 0), [("ACCT#u1#H1", 101, 199), ("ACCT#u1#H2", 200, 299), ("ACCT#u1#H3", 300, 300)]),
    (299, 5, (0, 0), [("ACCT#u1#H0", 1, 1)]),  # the oldest, past the end clipped
    (150, 100, (0, 0), [("ACCT#u1#H0", 51, 99), ("ACCT#u1#H1", 100, 150)]),
])  # fmt: skip
def test_a_page_of_numbered_rows_is_a_key_range(
    offset: int, limit: int, tail_slice: tuple[int, int], rows: list[tuple[str, int, int]]
) -> None:
    plan = plan_page("u1", Head(numbered=300, total=300), None, offset, limit)
    assert plan.tail == 0 and plan.tail_slice == tail_slice
    assert [(r.pk, r.low, r.high) for r in plan.rows] == rows


def test_a_page_reaching_into_the_tail_reads_the_books_for_that_part_only() -> None:
    head = Head(numbered=100, total=104, numbered_by_type={"refund": 9}, total_by_type={"refund": 10})
    plan = plan_page("u1", head, None, 2, 5)  # positions 2..6: tail 2, 3; numbered n = 100, 99, 98
    assert (plan.tail, plan.tail_slice) == (4, (2, 4))
    assert [(r.pk, r.low, r.high) for r in plan.rows] == [("ACCT#u1#H0", 98, 99), ("ACCT#u1#H1", 100, 100)]
    typed = plan_page("u1", head, "refund", 0, 3)
    assert (typed.tail_slice, [(r.pk, r.low, r.high) for r in typed.rows]) == ((0, 1), [("ACCT#u1#T#refund#0", 8, 9)])
    never = plan_page("u1", Head(total=30), None, 10, 5)  # never numbered: all tail, as the old reader
    assert (never.tail_slice, never.rows) == ((10, 15), ())
