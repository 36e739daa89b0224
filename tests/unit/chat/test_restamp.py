"""``RetentionStamper`` (core/chat/restamp.py) on a fake store: what it writes, what it leaves, when it stops."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.chat.restamp import SAFETY_MS, Retention, RetentionStamper
from core.platform.retention import day_counted_until, expires_at, receipt_expires_at

TURN = {"pk": "AGENT#a1#CONVERSATIONS", "sk": "VISITOR#c#TURN#t#1", "createdAt": "2026-03-01T10:00:00.000Z"}
THREAD = {"pk": "AGENT#a1#CONVERSATIONS", "sk": "VISITOR#c#THREAD#t", "lastAt": "2026-03-04T10:00:00.000Z"}


class FakeStamps:
    def __init__(
        self, rows: dict[str, list[dict[str, Any]]], moved: frozenset[str] = frozenset(),
        trail: dict[str, list[dict[str, Any]]] | None = None,
    ):  # fmt: skip
        self.rows = rows
        self.trail = trail or {}
        self.moved = moved  # threads a new turn moved between the read and the write
        self.written: list[tuple[str, int | None, str | None]] = []

    def stamps(self, agent_id: str) -> list[dict[str, Any]]:
        return self.rows.get(agent_id, [])

    def trail_stamps(self, agent_id: str) -> Iterable[dict[str, Any]]:
        return self.trail.get(agent_id, [])

    def stamp(self, key: dict[str, Any], expires_at: int | None, *, last_at: str | None) -> bool:
        self.written.append((key["sk"], expires_at, last_at))
        return key["sk"] not in self.moved


def stamper(
    days: int | None, stamps: FakeStamps, agents: tuple[str, ...] = ("a1",), exists: bool = True, stores: bool = True,
    *, applied: list[tuple[str, int | None, int]] | None = None,
) -> RetentionStamper:  # fmt: skip
    retention = Retention(days, stores) if exists else None
    noted = applied if applied is not None else []

    def note(workspace_id: str, applied_days: int | None, at: str) -> bool:
        noted.append((workspace_id, applied_days, len(stamps.written)))  # how many stamps were written before it
        return True

    return RetentionStamper(lambda ws: retention, lambda ws: list(agents), stamps, note)


def test_a_finished_pass_notes_the_retention_it_applied_last_and_an_unfinished_one_does_not() -> None:
    """``conversations.retention.applied`` streams from that note: written once every TTL is right, never before."""
    applied: list[tuple[str, int | None, int]] = []
    assert (
        stamper(30, FakeStamps({"a1": [TURN, THREAD]}), applied=applied).restamp("ws", lambda: SAFETY_MS * 10).finished
    )
    assert applied == [("ws", 30, 2)]  # after both stamps
    left = iter([SAFETY_MS + 1, SAFETY_MS])
    unfinished: list[tuple[str, int | None, int]] = []
    pass_ = stamper(7, FakeStamps({"a1": [TURN, THREAD]}), applied=unfinished).restamp("ws", lambda: next(left))
    assert not pass_.finished and unfinished == []
    gone: list[tuple[str, int | None, int]] = []
    stamper(30, FakeStamps({}), exists=False, applied=gone).restamp("ws", lambda: SAFETY_MS * 10)
    assert gone == []


def test_only_what_differs_is_written_and_a_thread_is_conditioned_on_its_last_turn() -> None:
    right = TURN | {"sk": "VISITOR#c#TURN#t#2", "expiresAt": expires_at(TURN["createdAt"], 30)}
    stamps = FakeStamps({"a1": [TURN, THREAD, right]}, moved=frozenset({THREAD["sk"]}))
    done = stamper(30, stamps).restamp("ws", lambda: SAFETY_MS * 10)
    assert stamps.written == [
        (TURN["sk"], expires_at(TURN["createdAt"], 30), None),
        (THREAD["sk"], expires_at(THREAD["lastAt"], 30), THREAD["lastAt"]),  # a turn since: left to its write
    ]
    assert (done.checked, done.stamped, done.finished) == (3, 1, True)


def test_a_cleared_retention_removes_the_ttls() -> None:
    stamps = FakeStamps({"a1": [TURN | {"expiresAt": 1}, THREAD]})
    stamper(None, stamps).restamp("ws", lambda: SAFETY_MS * 10)
    assert stamps.written == [(TURN["sk"], None, None)]  # the thread had none


def test_short_of_time_it_stops_and_says_so() -> None:
    """Checked before each item: one agent with a great many turns cannot outlast the worker's timeout."""
    stamps = FakeStamps({"a1": [TURN, TURN | {"sk": "VISITOR#c#TURN#t#2"}], "a2": [TURN]})
    left = iter([SAFETY_MS + 1, SAFETY_MS])
    done = stamper(30, stamps, agents=("a1", "a2")).restamp("ws", lambda: next(left))
    assert not done.finished and (done.checked, len(stamps.written)) == (1, 1)


def test_a_deleted_workspace_is_left_to_its_purge() -> None:
    stamps = FakeStamps({"a1": [TURN]})
    assert stamper(30, stamps, exists=False).restamp("ws", lambda: SAFETY_MS * 10).finished
    assert stamps.written == []


# What the turns left besides (issue 40), as ``ThreadStore.trail_stamps`` yields it: partition by partition, in key
# order. The turn of 2026-03-01T10:00 with a 30-day retention is removed at the start of 2026-04-01.
AT, RATED = "2026-03-01T10:00:00.000Z", "2026-03-02T08:00:00.000Z"
STORED_RECEIPT = {"pk": "AGENT#a1#TURNS", "sk": "TURN#t1", "createdAt": AT, "prompt": "Where is my order?"}
BARE_RECEIPT = {"pk": "AGENT#a1#TURNS", "sk": "TURN#t2", "createdAt": AT}  # conversations not stored then
UNANSWERED = {"pk": "AGENT#a1#UNANSWERED", "sk": f"{AT}#t1", "createdAt": AT}
QUESTION = {"pk": "AGENT#a1#QUESTIONS", "sk": "2026-03-01#abc", "lastAt": AT}
FEEDBACK_WITH_TEXT = [
    {"pk": "AGENT#a1#FEEDBACK", "sk": f"ALL#{RATED}#t1", "createdAt": RATED, "prompt": "Where is my order?"},
    {"pk": "AGENT#a1#FEEDBACK", "sk": f"DOWN#{RATED}#t1", "createdAt": RATED, "prompt": "Where is my order?"},
    {"pk": "AGENT#a1#FEEDBACK", "sk": f"VISITOR#c#{RATED}#t1", "createdAt": RATED},
]
FEEDBACK_BARE = [
    {"pk": "AGENT#a1#FEEDBACK", "sk": f"ALL#{RATED}#t2", "createdAt": RATED, "expiresAt": 5},
    {"pk": "AGENT#a1#FEEDBACK", "sk": f"UP#{RATED}#t2", "createdAt": RATED, "expiresAt": 5},
    {"pk": "AGENT#a1#FEEDBACK", "sk": f"VISITOR#c#{RATED}#t2", "createdAt": RATED, "expiresAt": 5},
]
TRAIL: list[dict[str, Any]] = [STORED_RECEIPT, BARE_RECEIPT, UNANSWERED, QUESTION, *FEEDBACK_WITH_TEXT, *FEEDBACK_BARE]


def test_the_turns_trail_is_stamped_as_its_writers_stamp_it() -> None:
    """Receipts: 8 days, or the retention if sooner when they hold the text; unanswered rows: the retention; a
    question item: its day's 100 days or the retention of its latest asking (conditioned on it); ratings: the
    retention of the rating where conversations are stored."""
    stamps = FakeStamps({}, trail={"a1": TRAIL})
    stamper(3, stamps).restamp("ws", lambda: SAFETY_MS * 10)
    retained, rated = expires_at(AT, 3), expires_at(RATED, 3)
    assert stamps.written == [
        ("TURN#t1", retained, None),  # 3 days is sooner than 8
        ("TURN#t2", receipt_expires_at(AT, None), None),  # no text: 8 days, whatever the retention
        (UNANSWERED["sk"], retained, None),
        (QUESTION["sk"], retained, AT),
        *[(row["sk"], rated, None) for row in FEEDBACK_WITH_TEXT + FEEDBACK_BARE],
    ]
    assert receipt_expires_at(AT, None) < (expires_at(AT, 30) or 0)  # 8 days: sooner than 30 days' retention
    stamps = FakeStamps({}, trail={"a1": [row | {"expiresAt": 1} for row in TRAIL]})
    stamper(None, stamps).restamp("ws", lambda: SAFETY_MS * 10)  # cleared: no row keeps a retention's TTL
    assert (QUESTION["sk"], day_counted_until("2026-03-01"), AT) in stamps.written
    assert ("TURN#t1", receipt_expires_at(AT, None), None) in stamps.written
    assert {sk for sk, expiry, _ in stamps.written if expiry is None} == {
        UNANSWERED["sk"], *(row["sk"] for row in FEEDBACK_WITH_TEXT + FEEDBACK_BARE)}  # fmt: skip


def test_without_stored_conversations_only_ratings_holding_text_follow_the_retention() -> None:
    """A rating made while conversations were stored holds the turn's text and follows the retention as the turn
    does; one made without keeps no TTL, as its writer gave it none."""
    stamps = FakeStamps({}, trail={"a1": [*FEEDBACK_WITH_TEXT, *FEEDBACK_BARE]})
    stamper(30, stamps, stores=False).restamp("ws", lambda: SAFETY_MS * 10)
    assert stamps.written == [
        *[(row["sk"], expires_at(RATED, 30), None) for row in FEEDBACK_WITH_TEXT],
        *[(row["sk"], None, None) for row in FEEDBACK_BARE],
    ]
