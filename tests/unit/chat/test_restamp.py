"""``RetentionStamper`` (core/chat/restamp.py) on a fake store: what it writes, what it leaves, when it stops."""

from __future__ import annotations

from typing import Any

from core.chat.restamp import SAFETY_MS, RetentionStamper
from core.chat.retention import expires_at

TURN = {"pk": "AGENT#a1#CONVERSATIONS", "sk": "VISITOR#c#TURN#t#1", "createdAt": "2026-03-01T10:00:00.000Z"}
THREAD = {"pk": "AGENT#a1#CONVERSATIONS", "sk": "VISITOR#c#THREAD#t", "lastAt": "2026-03-04T10:00:00.000Z"}


class FakeStamps:
    def __init__(self, rows: dict[str, list[dict[str, Any]]], moved: frozenset[str] = frozenset()):
        self.rows = rows
        self.moved = moved  # threads a new turn moved between the read and the write
        self.written: list[tuple[str, int | None, str | None]] = []

    def stamps(self, agent_id: str) -> list[dict[str, Any]]:
        return self.rows.get(agent_id, [])

    def stamp(self, key: dict[str, Any], expires_at: int | None, *, last_at: str | None) -> bool:
        self.written.append((key["sk"], expires_at, last_at))
        return key["sk"] not in self.moved


def stamper(days: int | None, stamps: FakeStamps, agents: tuple[str, ...] = ("a1",), exists: bool = True):
    return RetentionStamper(lambda ws: (exists, days), lambda ws: list(agents), stamps)


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
