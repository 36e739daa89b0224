"""The turn log's parts: question keys, when a turn is unanswered, the day's firsts from the visitor's count, the
visitor item's short keep, and the actions a turn writes (issue 40)."""

from __future__ import annotations

from typing import Any

import pytest

from core.chat.service import firsts
from core.insights.questions import question_key
from core.insights.records import source_key
from core.insights.turn_log import DeliveredTurn, TurnLog, is_unanswered
from core.platform import usage_counters
from core.platform.errors import RateLimited
from core.platform.rate_limit import RateStatus, SlidingWindowLimiter
from tests.support.fake_rate_limits import FakeLimits

DAY = 20_000  # days since the epoch
NOON = DAY * 86_400 + 43_200.0


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("What does a cortado cost?", "what does a CORTADO cost"),
        ("Opening hours?", "opening hour"),
        ("Do you sell snowboards", "Do you sell snowboards!!"),
        ("How are you?", "how are YOU"),  # only stop words: their casefolded words
    ],
)
def test_the_same_question_asked_differently_has_one_key(first: str, second: str) -> None:
    assert question_key(first) == question_key(second)
    assert len(question_key(first)) == 32 and int(question_key(first), 16) >= 0


def test_different_questions_have_different_keys() -> None:
    assert question_key("What does a cortado cost?") != question_key("What does a flat white cost?")
    assert question_key("How are you?") != question_key("Who are you?")


def test_unanswered_is_no_passage_or_the_fallback_said() -> None:
    fallback = "Ask Ines at the counter."
    assert is_unanswered(False, "", "Here is what I found")
    assert is_unanswered(True, fallback, "  ask ines AT the\ncounter. ")
    assert is_unanswered(True, fallback, "That goes beyond our material. Ask Ines at the counter.")
    assert not is_unanswered(True, fallback, "A cortado costs 2.85 EUR.")
    assert not is_unanswered(True, "", "")  # no fallback set: only the passages decide


def test_source_keys() -> None:
    assert source_key({"itemId": "itm_1", "postId": None, "name": "Prices"}) == "item:itm_1"
    assert source_key({"itemId": None, "postId": "pst_1", "name": "News"}) == "post:pst_1"
    assert source_key({"itemId": None, "postId": None, "answerId": "ans_1", "name": "Q"}) == "answer:ans_1"
    assert source_key({"itemId": None, "postId": None, "name": "About"}) == "site:About"


def take(limiter: SlidingWindowLimiter, thread: str) -> RateStatus:
    return limiter.take("visitor#ws#agt#client", 5, tags=("", usage_counters.tag_of(thread)), keep_days=2)


def test_the_day_s_firsts_come_from_the_visitor_s_counted_write() -> None:
    limiter = SlidingWindowLimiter(FakeLimits(), clock=lambda: NOON)
    assert firsts(take(limiter, "thr_a"), "thr_a", started=False) == (True, True)
    assert firsts(take(limiter, "thr_a"), "thr_a", started=False) == (False, False)
    assert firsts(take(limiter, "thr_b"), "thr_b", started=False) == (False, True)


def test_a_thread_started_without_a_key_is_not_counted_again_by_its_next_turn() -> None:
    """The key made for a new thread is counted by its first turn, so the next turn, which names it, is no first."""
    limiter = SlidingWindowLimiter(FakeLimits(), clock=lambda: NOON)
    assert firsts(take(limiter, "thr_new"), "thr_new", started=True) == (True, True)
    assert firsts(take(limiter, "thr_new"), "thr_new", started=False) == (False, False)


def test_a_visitor_s_17th_thread_of_the_day_is_not_counted_as_new() -> None:
    now = [NOON]
    limiter = SlidingWindowLimiter(FakeLimits(), clock=lambda: now[0])
    found = []
    for n in range(usage_counters.MAX_AGENTS_A_DAY + 1):
        now[0] += 61  # a minute apart: never limited
        found.append(firsts(take(limiter, f"thr_{n}"), f"thr_{n}", started=False)[1])
    assert found == [True] * usage_counters.MAX_AGENTS_A_DAY + [False]


def test_the_visitor_item_keeps_two_days_and_counts_no_refusal() -> None:
    counters = FakeLimits()
    now = [NOON]
    limiter = SlidingWindowLimiter(counters, clock=lambda: now[0])
    expiries: list[int] = []
    original = counters.add

    def add(*args: Any, **kwargs: Any) -> Any:
        expiries.append(kwargs["expires_at"])
        return original(*args, **kwargs)

    counters.add = add  # type: ignore[method-assign]
    for _ in range(5):
        take(limiter, "thr_a")
    with pytest.raises(RateLimited):
        take(limiter, "thr_a")
    usage = counters.read("visitor#ws#agt#client").usage
    assert usage == {f"u{DAY}": 5, f"u{DAY}~thr_a": 5}  # no x<day>: refusals are not tallied
    assert max(expiries) == int(NOON) + 2 * 86_400
    now[0] += 2 * 86_400  # two days later: the old day's counters are dropped by the next write
    assert take(limiter, "thr_a").usage == {f"u{DAY + 2}": 1, f"u{DAY + 2}~thr_a": 1}
    assert set(counters.read("visitor#ws#agt#client").usage) == {f"u{DAY + 2}", f"u{DAY + 2}~thr_a"}


def turn(**changes: Any) -> DeliveredTurn:
    base: dict[str, Any] = {"workspace_id": "ws_1", "agent_id": "agt_1", "turn_id": "turn_1", "thread_key": "thr_1",
            "client": "v1_client_0123456789", "key_id": "key_1", "created_at": "2026-11-22T05:23:35.123Z",
            "prompt": "What does a cortado cost?", "reply": "2.85 EUR", "credits": 3,
            "sources": [{"itemId": "itm_1", "name": "Prices"}, {"itemId": "itm_1", "name": "Prices"}]}  # fmt: skip
    return DeliveredTurn(**(base | changes))


def test_a_turn_not_stored_writes_its_receipt_without_words_and_one_day_shard() -> None:
    items = TurnLog("main").actions(turn(first_visit=True)).items
    assert [next(iter(i)) for i in items] == ["Put", "Update"]
    put = items[0]["Put"]["Item"]
    assert "prompt" not in put and "reply" not in put and put["day"] == {"S": "2026-11-22"}
    assert put["credits"] == {"N": "3"}  # what the turn was charged: conversation.turn.completed says it
    update = items[1]["Update"]
    assert update["UpdateExpression"].startswith("ADD turns :one, visitors :one, #s0 :one SET")  # a source once
    assert update["ExpressionAttributeNames"] == {"#s0": "src:item:itm_1", "#n0": "name:item:itm_1"}


def test_a_stored_unanswered_turn_also_writes_its_question_and_row() -> None:
    items = TurnLog("main").actions(turn(stored=True, unanswered=True, retention_days=30)).items
    assert [next(iter(i)) for i in items] == ["Put", "Update", "Update", "Put"]
    question = items[2]["Update"]
    assert question["Key"]["sk"] == {"S": f"2026-11-22#{question_key('What does a cortado cost?')}"}
    assert question["UpdateExpression"].endswith("ADD gsi2sk :one")
    assert items[3]["Put"]["Item"]["prompt"] == {"S": "What does a cortado cost?"}
