"""The owner's reads of what visitors said back (authoring.md, "Feedback, unanswered questions and the owner's
answers", issue 40): an agent's insights per UTC day (oldest first, zeros included), its top questions and sources;
its ratings and its unanswered questions, newest first, a page at a time. Owners and admins only. Every read costs
the same whatever the number of turns behind it: counted in DynamoDB calls and items read, never in seconds.

The data is seeded in the documented layout (``tests.support.insights_seed``: what the turns and ratings write,
added up), so a test can hold 10^4 turns; ``test_real_turns_and_ratings_are_read_back`` goes through the chat and
the feedback route themselves."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.insights import reader as insights_reader
from core.platform import main_table as keys
from core.platform import providers as platform_providers
from core.platform.cursors import encode
from core.platform.dynamo import to_item
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.chat import chat, streamed
from tests.support.conversations import OTHER_VISITOR, VISITOR
from tests.support.core_clients import wrap_core_clients
from tests.support.feedback import rate
from tests.support.insights_seed import ItemsRead, SeedTurn, seed, source
from tests.support.ledger_checks import ledger_repository
from tests.support.portal import Portal, assert_error
from tests.support.seed import Seeder

INSIGHTS, FEEDBACK, UNANSWERED = (
    "PortalInsightsGetFunction",
    "PortalFeedbackListFunction",
    "PortalUnansweredListFunction",
)
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)  # the readers' clock in these tests
VISITORS = [f"visitor-{n:016d}" for n in range(8)]


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(insights_reader, "now", lambda: NOW)


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def agent(studio: Studio) -> str:
    return str(studio.agent("Barista")["id"])


@pytest.fixture
def reads(aws: Any, monkeypatch: pytest.MonkeyPatch) -> ItemsRead:
    settings = get_settings()
    found = ItemsRead({settings.main_table: "main"})
    wrap_core_clients(found.attach, monkeypatch)
    platform_providers.reset()
    return found


def at(days_ago: float, minutes: int = 0, *, seconds: int = 0) -> datetime:
    return NOW - timedelta(days=days_ago) + timedelta(minutes=minutes, seconds=seconds)


def day(days_ago: int) -> str:
    return (NOW - timedelta(days=days_ago)).date().isoformat()


def store_conversations(studio: Studio, retention: int | None = None) -> None:
    body: dict[str, Any] = {"storeConversations": True}
    if retention is not None:
        body["conversationRetentionDays"] = retention
    studio.ok("PortalWorkspaceUpdateFunction", body=body)


def put(studio: Studio, agent: str, turns: list[SeedTurn], *, stored: bool, retention: int | None = None) -> None:
    seed(studio.portal.aws.dynamodb, studio.workspace_id, agent, turns, stored=stored, retention_days=retention)


def insights(studio: Studio, agent: str, **query: str) -> dict[str, Any]:
    return dict(studio.ok(INSIGHTS, agent_id=agent, query=query or None))


def zero(date: str) -> dict[str, Any]:
    return {"date": date, "turns": 0, "threads": 0, "visitors": 0, "up": 0, "down": 0, "unanswered": 0}


# --- who may read


def test_owners_and_admins_only(studio: Studio, agent: str) -> None:
    put(studio, agent, [SeedTurn(at(0), VISITORS[0], "thr_1", "Any jackets?", rating="down")], stored=False)
    admin, member, stranger = studio.member("admin@example.com", "admin"), studio.member(), studio.stranger()
    for reader in (studio, admin):
        assert reader.ok(INSIGHTS, agent_id=agent, query={"days": "1"})["days"][0]["turns"] == 1
        assert len(reader.ok(FEEDBACK, agent_id=agent)["feedback"]) == 1
        assert reader.ok(UNANSWERED, agent_id=agent) == {"questions": [], "nextCursor": None}
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    for function in (INSIGHTS, FEEDBACK, UNANSWERED):
        assert_error(member.call(function, agent_id=agent), 403, "FORBIDDEN")
        assert_error(stranger.call(function, agent_id=agent), 404, "NOT_FOUND")
        # Who before what: a bad query is still 403 / 404.
        assert_error(member.call(function, agent_id=agent, query={"days": "0", "limit": "0"}), 403, "FORBIDDEN")
        assert_error(stranger.call(function, agent_id=agent, query={"cursor": "!!"}), 404, "NOT_FOUND")
        # Another workspace's agent (its owner is the same person), and an unknown one: as unknown.
        assert_error(rival.call(function, agent_id=agent), 404, "NOT_FOUND")
        assert_error(studio.call(function, agent_id="prj_01NOSUCHAGENT0000000000000"), 404, "NOT_FOUND")


@pytest.mark.parametrize(("function", "query", "field"), [
    (INSIGHTS, {"days": "0"}, "days"), (INSIGHTS, {"days": "91"}, "days"), (INSIGHTS, {"days": "ten"}, "days"),
    (FEEDBACK, {"rating": "meh"}, "rating"), (FEEDBACK, {"limit": "0"}, "limit"), (FEEDBACK, {"limit": "101"}, "limit"),
    (FEEDBACK, {"cursor": "!!"}, "cursor"), (FEEDBACK, {"cursor": encode("2026-03-01T10:00:00.000Z")}, "cursor"),
    (UNANSWERED, {"limit": "0"}, "limit"), (UNANSWERED, {"cursor": encode("not a position")}, "cursor"),
])  # fmt: skip
def test_a_bad_query_is_a_400_naming_it(studio: Studio, agent: str, function: str, query: dict[str, str],
                                        field: str) -> None:  # fmt: skip
    refused = studio.call(function, agent_id=agent, query=query)
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].split(":")[0] == field


# --- insights


def test_days_oldest_first_zeros_included_and_summed_over_shards(studio: Studio, agent: str) -> None:
    one, two = VISITORS[:2]
    put(studio, agent, [
        SeedTurn(at(2), one, "thr_a", "Rain jacket?", rating="up"),
        SeedTurn(at(2, 1), one, "thr_a", "In green?", rating="down", unanswered=True),
        SeedTurn(at(2, 2), one, "thr_b", "Boots?"),
        SeedTurn(at(2, 3), two, "thr_a", "Umbrella?", rating="up"),  # another visitor's thr_a: another thread
        SeedTurn(at(2, 4), two, "thr_a", "Hats?", unanswered=True),
        SeedTurn(at(0), two, "thr_c", "Open today?"),
    ], stored=False)  # fmt: skip
    page = insights(studio, agent, days="3")
    assert page["days"] == [
        {"date": day(2), "turns": 5, "threads": 3, "visitors": 2, "up": 2, "down": 1, "unanswered": 2},
        zero(day(1)),
        {"date": day(0), "turns": 1, "threads": 1, "visitors": 1, "up": 0, "down": 0, "unanswered": 0},
    ]
    assert page["topQuestions"] == []  # conversations are not stored: no question is kept
    thirty = insights(studio, agent)["days"]  # the default: 30 days ending today
    assert [d["date"] for d in thirty] == [day(n) for n in range(29, -1, -1)]
    assert thirty[-3:] == page["days"]
    assert insights(studio, agent, days="90")["days"][0] == zero(day(89))


def test_top_sources_most_used_first_over_the_days(studio: Studio, agent: str) -> None:
    menu, post, site = source("Menu", item_id="itm_menu"), source("Opening", post_id="pst_open"), source("About us")
    renamed = source("Menu (spring)", item_id="itm_menu")
    put(studio, agent, [
        SeedTurn(at(3), VISITORS[0], "t", "a", sources=[menu, site]),
        SeedTurn(at(1), VISITORS[0], "t", "b", sources=[renamed, post]),
        SeedTurn(at(1, 1), VISITORS[1], "t", "c", sources=[renamed]),
        SeedTurn(at(0), VISITORS[1], "t", "d", sources=[post]),
        SeedTurn(at(40), VISITORS[1], "t", "e", sources=[site] * 1),  # before the days read
    ], stored=False)  # fmt: skip
    assert insights(studio, agent, days="7")["topSources"] == [
        {"itemId": "itm_menu", "postId": None, "answerId": None, "name": "Menu (spring)", "count": 3},  # latest name
        {"itemId": None, "postId": "pst_open", "answerId": None, "name": "Opening", "count": 2},
        {"itemId": None, "postId": None, "answerId": None, "name": "About us", "count": 1},
    ]
    # 25 sources today, the n-th used n + 1 times: the 20 most used, most used first.
    many = [SeedTurn(at(0, seconds=n * 30 + k), VISITORS[0], "t", "x", sources=[source(f"S{n}", item_id=f"itm_{n}")])
            for n in range(25) for k in range(n + 1)]  # fmt: skip
    put(studio, agent, many, stored=False)
    top = insights(studio, agent, days="1")["topSources"]
    assert [(entry["itemId"], entry["count"]) for entry in top] == [(f"itm_{n}", n + 1) for n in range(24, 4, -1)]


def test_top_questions_grouped_counted_and_at_most_20(studio: Studio, agent: str) -> None:
    store_conversations(studio)
    asked = [
        (3, "Do you have rain jackets?", False), (2, "RAIN JACKET!!", False), (2, "do you have a rain jacket", True),
        (1, "When do you open?", False), (0, "when are you open", False), (0, "Opening hours?", True),
    ]  # fmt: skip
    turns = [SeedTurn(at(ago, n), VISITORS[n % 3], f"thr_{n}", text, unanswered=unanswered)
             for n, (ago, text, unanswered) in enumerate(asked)]  # fmt: skip
    put(studio, agent, turns, stored=True)
    top = insights(studio, agent, days="7")["topQuestions"]
    assert top == [  # the words, answered and lastAt of the latest asking
        {"question": "do you have a rain jacket", "count": 3, "answered": False, "lastAt": turns[2].at},
        {"question": "when are you open", "count": 2, "answered": True, "lastAt": turns[4].at},
        {"question": "Opening hours?", "count": 1, "answered": False, "lastAt": turns[5].at},
    ]
    # Only the days read count: the rain jacket asked 3 days ago is outside 3 days.
    assert insights(studio, agent, days="3")["topQuestions"][0]["count"] == 2
    # 30 questions today, the n-th asked n + 1 times: the 20 most asked, most asked first.
    many = [SeedTurn(at(0, 100, seconds=n * 40 + k), VISITORS[0], "thr_many", f"Question about widget{n}")
            for n in range(30) for k in range(n + 1)]  # fmt: skip
    put(studio, agent, many, stored=True)
    top = insights(studio, agent, days="1")["topQuestions"]
    assert [q["count"] for q in top] == list(range(30, 10, -1))
    assert top[0]["question"] == many[-1].prompt


def test_top_questions_leave_out_erased_examples_and_days_past_retention(studio: Studio, agent: str) -> None:
    store_conversations(studio, retention=5)
    turns = [SeedTurn(at(1), VISITORS[0], "thr_1", "Do you deliver?"),
             SeedTurn(at(1, 1), VISITORS[1], "t", "Gift cards?"), SeedTurn(at(1, 2), VISITORS[1], "t", "gift card"),
             SeedTurn(at(8), VISITORS[1], "thr_2", "Parking nearby?"),
             SeedTurn(at(8, 1), VISITORS[1], "thr_2", "Parking nearby?")]  # fmt: skip
    put(studio, agent, turns, stored=True, retention=5)  # parking, asked 8 days ago, is past the 5 days kept
    assert [(q["question"], q["count"]) for q in insights(studio, agent, days="30")["topQuestions"]] == [
        ("gift card", 2), ("Do you deliver?", 1)]  # fmt: skip
    # The erasure of the asker removes the example's words (the count stays): the entry is left out.
    from core.insights.questions import question_key

    key = keys.question(agent, day(1), question_key("Do you deliver?"))
    studio.portal.aws.dynamodb.update_item(TableName=get_settings().main_table, Key=to_item(key),
                                           UpdateExpression="REMOVE question, client, turnId")  # fmt: skip
    assert [q["question"] for q in insights(studio, agent, days="30")["topQuestions"]] == ["gift card"]
    assert insights(studio, agent, days="2")["days"][0]["turns"] == 3  # the counts stay
    assert insights(studio, agent, days="9")["days"][0]["turns"] == 2  # past retention: counted all the same


# --- feedback


def rated(n: int, rating: str, **more: Any) -> SeedTurn:
    return SeedTurn(at(1, n), VISITORS[n % 4], f"thr_{n}", f"Question {n}", reply=f"Reply {n}", rating=rating,
                    sources=[source("Menu", item_id="itm_menu")], **more)  # fmt: skip


def every_page(studio: Studio, function: str, agent: str, field: str, **query: str) -> list[dict[str, Any]]:
    found, cursor = [], None
    while True:
        page = studio.ok(function, agent_id=agent, query=query | ({"cursor": cursor} if cursor else {}))
        found += page[field]
        cursor = page["nextCursor"]
        if cursor is None:
            return found
        assert len(page[field]) == int(query["limit"])


def test_feedback_newest_first_with_its_rating_and_pages(studio: Studio, agent: str) -> None:
    store_conversations(studio)
    turns = [rated(n, "down" if n % 3 == 0 else "up", comment="Wrong size" if n % 3 == 0 else None) for n in range(7)]
    put(studio, agent, turns, stored=True)
    listed = studio.ok(FEEDBACK, agent_id=agent)
    assert listed["nextCursor"] is None
    assert [f["turnId"] for f in listed["feedback"]] == [t.turn_id for t in reversed(turns)]
    newest = turns[6]
    assert listed["feedback"][0] == {
        "turnId": newest.turn_id, "threadKey": "thr_6", "client": VISITORS[2], "rating": "down",
        "comment": "Wrong size", "prompt": "Question 6", "reply": "Reply 6", "createdAt": newest.rated_at,
        "sources": [{"itemId": "itm_menu", "postId": None, "answerId": None, "name": "Menu", "r2Key": None,
                     "where": ""}],
    }  # fmt: skip
    downs = studio.ok(FEEDBACK, agent_id=agent, query={"rating": "down"})["feedback"]
    assert [f["turnId"] for f in downs] == [turns[n].turn_id for n in (6, 3, 0)]
    ups = studio.ok(FEEDBACK, agent_id=agent, query={"rating": "up"})["feedback"]
    assert {f["rating"] for f in ups} == {"up"} and len(ups) == 4
    for limit in (1, 2, 3, 7):
        assert every_page(studio, FEEDBACK, agent, "feedback", limit=str(limit)) == listed["feedback"], limit
        assert every_page(studio, FEEDBACK, agent, "feedback", limit=str(limit), rating="down") == downs, limit
    page = studio.ok(FEEDBACK, agent_id=agent, query={"limit": "2"})
    assert page["nextCursor"] == encode(f"{turns[5].rated_at}#{turns[5].turn_id}")


def test_feedback_without_stored_conversations_has_no_prompt_or_reply(studio: Studio, agent: str) -> None:
    put(studio, agent, [rated(0, "down", comment="No")], stored=False)
    (entry,) = studio.ok(FEEDBACK, agent_id=agent)["feedback"]
    assert (entry["prompt"], entry["reply"], entry["comment"]) == (None, None, "No")


def test_feedback_past_retention_is_hidden(studio: Studio, agent: str) -> None:
    store_conversations(studio, retention=3)
    old = SeedTurn(at(6), VISITORS[0], "thr_old", "Old?", rating="down")
    recent = SeedTurn(at(1), VISITORS[0], "thr_new", "New?", rating="up")
    put(studio, agent, [old, recent], stored=True)  # stored before the setting: no TTL says so
    listed = studio.ok(FEEDBACK, agent_id=agent, query={"limit": "1"})
    assert [f["turnId"] for f in listed["feedback"]] == [recent.turn_id] and listed["nextCursor"] is None


# --- unanswered


def test_unanswered_newest_first_page_by_page_and_hidden_past_retention(studio: Studio, agent: str) -> None:
    store_conversations(studio)
    turns = [SeedTurn(at(n % 5, n), VISITORS[n % 2], f"thr_{n}", f"Odd question {n}", unanswered=n != 3)
             for n in range(9)]  # fmt: skip
    put(studio, agent, turns, stored=True)
    expected = sorted((t for t in turns if t.unanswered), key=lambda t: t.at, reverse=True)
    listed = studio.ok(UNANSWERED, agent_id=agent)
    assert listed["nextCursor"] is None
    assert listed["questions"] == [{"turnId": t.turn_id, "threadKey": t.thread, "client": t.client,
                                    "prompt": t.prompt, "createdAt": t.at} for t in expected]  # fmt: skip
    for limit in (1, 3, 8):
        assert every_page(studio, UNANSWERED, agent, "questions", limit=str(limit)) == listed["questions"], limit
    # A retention of 2 days: what is older vanishes at once, whatever its TTL says; a cursor past it ends the list.
    last = studio.ok(UNANSWERED, agent_id=agent, query={"limit": "7"})["nextCursor"]
    store_conversations(studio, retention=2)
    kept = [q for q in listed["questions"] if q["createdAt"][:10] >= day(2)]
    assert 0 < len(kept) < len(expected)
    assert studio.ok(UNANSWERED, agent_id=agent)["questions"] == kept
    assert every_page(studio, UNANSWERED, agent, "questions", limit="1") == kept
    assert studio.ok(UNANSWERED, agent_id=agent, query={"cursor": last}) == {"questions": [], "nextCursor": None}


def test_unanswered_is_empty_and_unread_when_conversations_are_not_stored(
    studio: Studio, agent: str, reads: ItemsRead
) -> None:
    turns = [SeedTurn(at(0, n), VISITORS[0], "thr_1", f"Odd {n}", unanswered=True) for n in range(3)]
    put(studio, agent, turns, stored=True)  # rows kept while it stored them
    studio.ok(UNANSWERED, agent_id=agent)  # a warm container: the signing secret is cached by then
    with reads.record():
        assert studio.ok(UNANSWERED, agent_id=agent) == {"questions": [], "nextCursor": None}
    assert Counter(str(c) for c in reads.calls) == Counter({"GetItem:main": 1, "BatchGetItem:main": 1})  # no Query
    assert insights(studio, agent, days="1")["days"][0]["unanswered"] == 3  # counted all the same
    store_conversations(studio)
    assert len(studio.ok(UNANSWERED, agent_id=agent)["questions"]) == 3


# --- constant cost


def turns_of(count: int, days: int = 4) -> list[SeedTurn]:
    """``count`` turns over ``days`` days: visitors, threads, five popular questions (a third of the turns) and at
    least 25 others a day, 1 in 7 unanswered, 1 in 7 rated down (with a comment), 1 in 7 up, sources."""
    others = max(25, count // 40)
    menu, post = source("Menu", item_id="itm_menu"), source("News", post_id="pst_news")
    return [
        SeedTurn(
            NOW - timedelta(days=n % days, minutes=n // days % 600), f"visitor-{n % 97:016d}", f"thr_{n % 211}",
            f"Popular question {n % 5}" if n % 3 == 0 else f"Question number {n % others} please",
            unanswered=n % 7 == 0, sources=[menu] if n % 2 else [menu, post],
            rating={1: "down", 2: "up"}.get(n % 7), comment="Hm" if n % 7 == 1 else None,
        )
        for n in range(count)
    ]  # fmt: skip


def test_insights_read_the_same_items_at_100_and_10000_turns(
    studio: Studio, agent: str, portal: Portal, reads: ItemsRead
) -> None:
    """The counts equal the turns and ratings made; the reads are the same calls and items at both sizes. (Receipts
    are left out of the seed: they sit in a partition of their own that no read here touches, and 10^4 of them
    would only slow moto down.)"""
    store_conversations(studio)
    other = str(studio.agent("Second")["id"])
    studio.ok(FEEDBACK, agent_id=agent)  # after the providers' reset: the signing secret read again, then cached
    costs = []
    for target, count in ((agent, 100), (other, 10_000)):
        turns = turns_of(count)
        seed(portal.aws.dynamodb, studio.workspace_id, target, turns, stored=True, receipts=False)
        with reads.record():
            page = studio.ok(INSIGHTS, agent_id=target, query={"days": "7"})
            first_feedback = studio.ok(FEEDBACK, agent_id=target, query={"rating": "down", "limit": "10"})
            first_unanswered = studio.ok(UNANSWERED, agent_id=target, query={"limit": "10"})
        costs.append((Counter(str(c) for c in reads.calls), reads.items))
        days = {d["date"]: d for d in page["days"]}
        for ago in range(4):
            made = [t for t in turns if t.day == day(ago)]
            assert days[day(ago)] == {
                "date": day(ago), "turns": len(made), "visitors": len({t.client for t in made}),
                "threads": len({(t.client, t.thread) for t in made}), "up": sum(t.rating == "up" for t in made),
                "down": sum(t.rating == "down" for t in made), "unanswered": sum(t.unanswered for t in made),
            }  # fmt: skip
        assert sum(d["turns"] for d in page["days"]) == count
        assert sum(d["up"] + d["down"] for d in page["days"]) == sum(t.rating is not None for t in turns)
        asked = Counter(t.prompt for t in turns)
        popular = {(q, n) for q, n in asked.items() if q.startswith("Popular")}
        top = [(q["question"], q["count"]) for q in page["topQuestions"]]
        assert len(top) == 20 and set(top[:5]) == popular  # in every day's 20: counted exactly
        assert [n for _, n in top] == sorted((n for _, n in top), reverse=True)
        assert all(n <= asked[q] for q, n in top[5:])  # each day's top 20 merged: a lower bound of the rest
        assert page["topSources"][0] == {"itemId": "itm_menu", "postId": None, "answerId": None, "name": "Menu",
                                         "count": count}  # fmt: skip
        downs = sorted((t for t in turns if t.rating == "down"), key=lambda t: t.rated_at, reverse=True)
        assert [f["turnId"] for f in first_feedback["feedback"]] == [t.turn_id for t in downs[:10]]
        assert len(first_unanswered["questions"]) == 10
    (small_calls, small_items), (large_calls, large_items) = costs
    assert small_calls == large_calls and small_items == large_items, costs
    # Each request's session (GetItem) and check (BatchGetItem); the 7 days' shards (one BatchGetItem) and their
    # 7 gsi2 Queries; a Query for each page.
    assert small_calls == Counter({"GetItem:main": 3, "BatchGetItem:main": 4, "Query:main": 9})
    # The 4 days' 16 shards and 4 x 20 questions; each page and one more; the checks' 4 items each (member,
    # workspace, agent and its counters item).
    assert small_items == 16 + 4 * 20 + 11 + 11 + 3 * 4


# --- through the chat and the feedback route themselves


def test_real_turns_and_ratings_are_read_back(
    studio: Studio, agent: str, chat_environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turns the chat delivered (an agent with no knowledge: every one unanswered) and ratings the feedback route
    took, read back: the day's counts, the questions grouped, the ratings and the unanswered questions."""
    monkeypatch.setattr(insights_reader, "now", lambda: datetime.now(UTC))  # the chat's own clock: the real one
    store_conversations(studio)
    key = Seeder(studio.portal.aws.dynamodb).api_key(studio.workspace_id)
    ledger_repository(studio.portal.aws.dynamodb).grant(studio.who.user_id, 20, "topup", "top_insights", "Top-up")
    asked = [
        (VISITOR, "thr_a", "Do you have rain jackets?"),
        (VISITOR, "thr_a", "RAIN JACKET!!"),
        (OTHER_VISITOR, "thr_b", "do you have a rain jacket"),
        (OTHER_VISITOR, "thr_c", "When do you open?"),
    ]
    made = []
    for client, thread, prompt in asked:
        lines, reply = streamed(chat(agent_id=agent, key=key, client=client, threadKey=thread, prompt=prompt))
        made.append((lines[0]["turnId"], client, thread, prompt, reply))
    for (turn_id, client, *_), body in ((made[0], {"rating": "up"}), (made[3], {"rating": "down", "comment": "Hm"})):
        rated = rate(agent, turn_id, {"client": client} | body, key=key)
        assert (rated.status, rated.json()) == (200, {}), rated.body
    page = insights(studio, agent, days="1")
    (today,) = page["days"]
    assert today | {"date": ""} == {"date": "", "turns": 4, "threads": 3, "visitors": 2, "up": 1, "down": 1,
                                    "unanswered": 4}  # fmt: skip
    assert [(q["question"], q["count"], q["answered"]) for q in page["topQuestions"]] == [
        ("do you have a rain jacket", 3, False), ("When do you open?", 1, False)]  # fmt: skip
    listed = studio.ok(FEEDBACK, agent_id=agent)["feedback"]
    assert [(f["turnId"], f["rating"], f["comment"], f["prompt"], f["reply"]) for f in listed] == [
        (made[3][0], "down", "Hm", made[3][3], made[3][4]),
        (made[0][0], "up", None, made[0][3], made[0][4]),
    ]
    questions = studio.ok(UNANSWERED, agent_id=agent)["questions"]
    assert [(q["turnId"], q["client"], q["threadKey"], q["prompt"]) for q in questions] == [
        (turn_id, client, thread, prompt) for turn_id, client, thread, prompt, _ in reversed(made)
    ]
