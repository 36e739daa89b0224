"""Stored conversations read back and erased (authoring.md, "Conversations", issue 28): an agent's threads most
recent first, every visitor's or one's, bounded by time, a page at a time with an exact ``nextCursor``; a thread's
turns oldest first; a visitor's erasure, in the audit log with its count; owners and admins only; the workspace's
``conversationRetentionDays``; every bad input a 400 naming it."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.chat import erasure
from core.platform.cursors import encode
from core.platform.ids import iso
from core.platform.retention import expires_at, receipt_expires_at
from core.platform.settings import get_settings
from core.purge.store import PurgeStore
from core.workspaces.store import WorkspaceStore
from tests.support import privacy_seed
from tests.support.authoring import Studio
from tests.support.chat import chat, streamed
from tests.support.conversations import OTHER_VISITOR, VISITOR, days_ago, is_turn, partition, store_turn
from tests.support.lambdas import handler_module
from tests.support.ledger_checks import ledger_repository
from tests.support.portal import Portal, WorkerContext, assert_error, sqs_event, take_purge_messages
from tests.support.seed import Seeder

LIST, GET, ERASE = (
    "PortalConversationsListFunction",
    "PortalConversationGetFunction",
    "PortalConversationsEraseFunction",
)


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def agent(studio: Studio) -> str:
    return str(studio.agent("Barista")["id"])


def turn_at(studio: Studio, agent: str, thread: str, at: str, **more: Any) -> dict[str, Any]:
    return store_turn(studio.portal.aws.dynamodb, studio.workspace_id, agent, thread, at, **more)


def threads(studio: Studio, agent: str, **query: str) -> dict[str, Any]:
    return dict(studio.ok(LIST, agent_id=agent, query=query or None))


def every_page(studio: Studio, agent: str, limit: int, **query: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """Every thread, following ``nextCursor``; and the cursors each page answered."""
    found, cursors, cursor = [], [], None
    while True:
        page = threads(studio, agent, limit=str(limit), **query, **({"cursor": cursor} if cursor else {}))
        found += page["threads"]
        cursors.append(page["nextCursor"])
        cursor = page["nextCursor"]
        if cursor is None:
            return found, cursors
        assert len(page["threads"]) == limit


def test_a_chat_turn_is_listed_and_read_back(studio: Studio, agent: str, chat_environment: None) -> None:
    """Through the chat itself: a workspace storing conversations keeps the turn, the listing shows its thread."""
    studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True})
    seed = Seeder(studio.portal.aws.dynamodb)
    key = seed.api_key(studio.workspace_id)
    ledger_repository(studio.portal.aws.dynamodb).grant(studio.who.user_id, 10, "topup", "top_conv", "Top-up")
    lines, reply = streamed(chat(agent_id=agent, key=key, client=VISITOR, threadKey="thr_shop", prompt="Any jackets?"))
    credits = lines[-1]["usage"]["credits"]
    (thread,) = threads(studio, agent)["threads"]
    assert thread["threadKey"] == "thr_shop" and thread["client"] == VISITOR and thread["turns"] == 1
    assert thread["startedAt"] == thread["lastAt"]
    turns = studio.ok(GET, agent_id=agent, thread_key="thr_shop", query={"client": VISITOR})["turns"]
    assert turns == [{"turnId": lines[0]["turnId"], "prompt": "Any jackets?", "reply": reply, "credits": credits,
                      "createdAt": thread["lastAt"]}]  # fmt: skip


def test_threads_most_recent_first_page_by_page(studio: Studio, agent: str) -> None:
    base = datetime(2026, 3, 1, 12, tzinfo=UTC)
    for n, (thread, client) in enumerate([("thr_a", VISITOR), ("thr_b", OTHER_VISITOR), ("thr_c", VISITOR),
                                          ("thr_d", OTHER_VISITOR), ("thr_e", VISITOR)]):  # fmt: skip
        turn_at(studio, agent, thread, days_ago(-n / 24, at=base), client=client)
    turn_at(studio, agent, "thr_a", days_ago(-5 / 24, at=base))  # thr_a's second turn: now the most recent
    listed = threads(studio, agent)
    order = [t["threadKey"] for t in listed["threads"]]
    assert order == ["thr_a", "thr_e", "thr_d", "thr_c", "thr_b"] and listed["nextCursor"] is None
    first = listed["threads"][0]
    assert first == {"threadKey": "thr_a", "client": VISITOR, "turns": 2, "startedAt": iso(base),
                     "lastAt": days_ago(-5 / 24, at=base)}  # fmt: skip
    for limit in (1, 2, 4, 5):
        found, cursors = every_page(studio, agent, limit)
        assert found == listed["threads"], limit
        assert len(cursors) == -(-5 // limit)
    page = threads(studio, agent, limit="2")
    last = page["threads"][-1]
    assert page["nextCursor"] == encode(f"{last['lastAt']}#{last['client']}#{last['threadKey']}")
    # One visitor's threads, in the same order and pages.
    mine = [t for t in listed["threads"] if t["client"] == VISITOR]
    assert threads(studio, agent, client=VISITOR)["threads"] == mine
    assert every_page(studio, agent, 1, client=VISITOR)[0] == mine
    assert threads(studio, agent, client="visitor-nobody-000000")["threads"] == []


def test_since_and_until_bound_the_last_turn(studio: Studio, agent: str) -> None:
    base = datetime(2026, 3, 1, tzinfo=UTC)
    for n in range(4):
        turn_at(studio, agent, f"thr_{n}", days_ago(-n, at=base))
    day = [days_ago(-n, at=base) for n in range(4)]
    assert [t["threadKey"] for t in threads(studio, agent, since=day[1])["threads"]] == ["thr_3", "thr_2", "thr_1"]
    assert [t["threadKey"] for t in threads(studio, agent, until=day[2])["threads"]] == ["thr_1", "thr_0"]
    between = threads(studio, agent, since=day[1], until=day[3], limit="1")
    assert [t["threadKey"] for t in between["threads"]] == ["thr_2"]
    rest = threads(studio, agent, since=day[1], until=day[3], limit="1", cursor=between["nextCursor"])
    assert [t["threadKey"] for t in rest["threads"]] == ["thr_1"] and rest["nextCursor"] is None
    # Any zone: the same instant.
    assert (
        threads(studio, agent, since="2026-03-02T02:00:00+02:00")["threads"]
        == threads(studio, agent, since=day[1])["threads"]
    )
    assert threads(studio, agent, client=VISITOR, since=day[2])["threads"][-1]["threadKey"] == "thr_2"


def test_a_thread_oldest_first_and_only_its_visitors(studio: Studio, agent: str) -> None:
    first = turn_at(studio, agent, "thr_x", "2026-03-01T10:00:00.000Z", prompt="Q1", reply="A1", credits=2)
    second = turn_at(studio, agent, "thr_x", "2026-03-01T10:05:00.000Z", prompt="Q2", reply="A2")
    turn_at(studio, agent, "thr_x", "2026-03-01T11:00:00.000Z", client=OTHER_VISITOR, prompt="theirs")
    turns = studio.ok(GET, agent_id=agent, thread_key="thr_x", query={"client": VISITOR})["turns"]
    assert turns == [
        {"turnId": first["turnId"], "prompt": "Q1", "reply": "A1", "credits": 2, "createdAt": first["createdAt"]},
        {"turnId": second["turnId"], "prompt": "Q2", "reply": "A2", "credits": 1, "createdAt": second["createdAt"]},
    ]
    assert_error(studio.call(GET, agent_id=agent, thread_key="thr_none", query={"client": VISITOR}), 404, "NOT_FOUND")
    assert_error(studio.call(GET, agent_id=agent, thread_key="thr_x", query={"client": "visitor-cccccccccccc03"}),
                 404, "NOT_FOUND")  # fmt: skip


def test_an_erasure_removes_every_turn_of_the_visitor_and_is_audited(studio: Studio, agent: str) -> None:
    other_agent = str(studio.agent("Other")["id"])
    for n in range(3):
        turn_at(studio, agent, f"thr_{n % 2}", f"2026-03-01T10:0{n}:00.000Z", prompt=f"private question {n}")
    turn_at(studio, agent, "thr_0", "2026-03-01T11:00:00.000Z", client=OTHER_VISITOR)
    turn_at(studio, other_agent, "thr_0", "2026-03-01T11:00:00.000Z")  # the same visitor with another agent
    answer = studio.call(ERASE, agent_id=agent, query={"client": VISITOR})
    assert (answer.status, answer.json()) == (200, {"deleted": 3})
    assert [t["client"] for t in threads(studio, agent)["threads"]] == [OTHER_VISITOR]
    assert not any(VISITOR in sk for sk in partition(studio.portal.aws.dynamodb, agent))
    assert threads(studio, other_agent)["threads"][0]["client"] == VISITOR  # another agent's: not asked
    (entry,) = [e for e in studio.audit() if e.action == "conversation.erase"]
    assert (entry.target, entry.count, entry.actor_id) == (f"conversations:{agent}/{VISITOR}", 3, studio.who.user_id)
    read = studio.ok("PortalAuditListFunction")["entries"][0]
    assert read["action"] == "conversation.erase" and read["count"] == 3
    assert "private question" not in json.dumps(read)
    # Again: nothing left, still answered and recorded.
    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}) == {"deleted": 0}
    assert [e.count for e in studio.audit() if e.action == "conversation.erase"] == [0, 3]


def test_an_erasure_reaches_what_the_visitors_turns_and_ratings_left(studio: Studio, agent: str) -> None:
    """Issue 40: the visitor's receipts, unanswered rows and feedback rows go with their turns; the question items
    they were the latest to ask lose the text and the asker and keep their counts; another visitor's are untouched,
    as is a question item whose latest asker is someone else; the audit still counts turns."""
    db = studio.portal.aws.dynamodb
    day = days_ago(2)[:10]
    prompts = ["Where is my ORDER?", "Do you ship to Oslo?", "where is my order"]
    mine = [turn_at(studio, agent, "thr_a", f"{day}T10:0{n}:00.000Z", prompt=p) for n, p in enumerate(prompts)]
    theirs = turn_at(studio, agent, "thr_b", f"{day}T09:00:00.000Z", client=OTHER_VISITOR, prompt="Do you ship to Oslo")
    for turn in [theirs, *mine]:  # in time order: the visitor is the latest asker of both questions
        privacy_seed.everything(db, studio.workspace_id, turn, rated_at=turn["createdAt"])
    late = turn_at(studio, agent, "thr_c", f"{day}T11:00:00.000Z", client=OTHER_VISITOR, prompt="Where's my order?")
    privacy_seed.asked(db, late)  # another visitor asked the first question last: its text is theirs now
    unstored = {**mine[0], "turnId": "turn_01UNSTORED0000000000000000", "createdAt": f"{day}T12:00:00.000Z"}
    privacy_seed.receipt(db, studio.workspace_id, unstored, stored=False)  # a receipt with no stored turn, rated
    privacy_seed.rate(db, unstored, "up", f"{day}T12:01:00.000Z", comment="thanks", stored=False)
    before = privacy_seed.trail(db, agent)

    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}) == {"deleted": 3}
    after = privacy_seed.trail(db, agent)
    assert [row["turnId"] for row in after["receipts"].values()] == [theirs["turnId"]]
    assert [row["turnId"] for row in after["unanswered"].values()] == [theirs["turnId"]]
    assert {sk.rsplit("#", 1)[1] for sk in after["feedback"]} == {theirs["turnId"]} and len(after["feedback"]) == 3
    assert not any(VISITOR in json.dumps(row) for rows in after.values() for row in rows.values())
    # Question items: the same two as before, with their counts; only the one the visitor asked last lost its text.
    assert {sk: row["gsi2sk"] for sk, row in after["questions"].items()} == {
        sk: row["gsi2sk"] for sk, row in before["questions"].items()}  # fmt: skip
    assert sorted(row["gsi2sk"] for row in after["questions"].values()) == [2, 3]
    by_count = {row["gsi2sk"]: row for row in after["questions"].values()}
    assert (by_count[3]["question"], by_count[3]["client"]) == ("Where's my order?", OTHER_VISITOR)  # not theirs
    assert not {"question", "client", "turnId"} & set(by_count[2])  # Oslo: asked last by the visitor
    assert by_count[2]["lastAt"] == mine[1]["createdAt"] and "answered" in by_count[2]
    (entry,) = [e for e in studio.audit() if e.action == "conversation.erase"]
    assert entry.count == 3
    # Again: nothing left of theirs, nothing else moved.
    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}) == {"deleted": 0}
    assert privacy_seed.trail(db, agent) == after


def test_retention_and_erasure_reach_what_real_chat_turns_and_ratings_left(
    studio: Studio, agent: str, chat_environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the chat and the feedback function themselves: the turn log's receipts, unanswered rows and question
    items and the rating's rows, as those write them, are what a retention change re-stamps and what the erasure
    finds and removes."""
    from core.platform import providers as platform_providers
    from tests.support.feedback import rate

    monkeypatch.setenv("RESTAMP_DELAY_SECONDS", "0")
    platform_providers.reset()
    db = studio.portal.aws.dynamodb
    studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True, "conversationRetentionDays": 30})
    key = Seeder(db).api_key(studio.workspace_id)
    ledger_repository(db).grant(studio.who.user_id, 20, "topup", "top_trail", "Top-up")

    def turn(client: str, prompt: str) -> str:
        lines, _ = streamed(chat(agent_id=agent, key=key, client=client, threadKey="thr_shop", prompt=prompt))
        return str(lines[0]["turnId"])

    mine = [turn(VISITOR, "Do you ship to Oslo?"), turn(VISITOR, "Is the shop open on Sunday?")]
    theirs = turn(OTHER_VISITOR, "Is the shop open on sunday")  # the same question, asked last by another visitor
    for turn_id, client, rating in ((mine[0], VISITOR, "down"), (theirs, OTHER_VISITOR, "up")):
        rated = rate(agent, turn_id, {"client": client, "rating": rating, "comment": "my address is 1 Main St"},
                     key=key)  # fmt: skip
        assert rated.status == 200, rated.body
    before = privacy_seed.trail(db, agent)
    assert {row["turnId"] for row in before["receipts"].values()} == {*mine, theirs}
    assert {row["turnId"] for row in before["unanswered"].values()} == {*mine, theirs}  # the agent knows nothing
    assert len(before["feedback"]) == 6 and sorted(row["gsi2sk"] for row in before["questions"].values()) == [1, 2]
    # A shorter retention: every one of them holds a visitor's text, so each now goes with it (3 days, not 30).
    studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": 3})
    restamp(studio)
    before = privacy_seed.trail(db, agent)
    for kind in ("receipts", "unanswered", "questions", "feedback"):
        for row in before[kind].values():
            assert row["expiresAt"] == expires_at(row.get("createdAt") or row["lastAt"], 3), (kind, row["sk"])

    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}) == {"deleted": 2}
    after = privacy_seed.trail(db, agent)
    assert not any(VISITOR in json.dumps(row) for rows in after.values() for row in rows.values())
    assert [row["turnId"] for row in after["receipts"].values()] == [theirs]
    assert [row["turnId"] for row in after["unanswered"].values()] == [theirs]
    assert {sk.rsplit("#", 1)[1] for sk in after["feedback"]} == {theirs} and len(after["feedback"]) == 3
    questions = {row["gsi2sk"]: row for row in after["questions"].values()}
    assert questions[2]["question"] == "Is the shop open on sunday" and questions[2]["client"] == OTHER_VISITOR
    assert not {"question", "client", "turnId"} & set(questions[1])  # Oslo: the count of nobody now
    assert after["insights"] == before["insights"]  # the day's counts stay


def test_an_erasure_without_stored_conversations_still_takes_the_ratings(studio: Studio, agent: str) -> None:
    """A workspace that does not store conversations keeps a visitor's ratings (their comments are the visitor's
    words) and the receipts they were made on: the erasure deletes both, answers 0 turns and is recorded."""
    db = studio.portal.aws.dynamodb
    at = days_ago(1)
    turns = [{"turnId": f"turn_01NOTSTORED00000000000000{n}", "threadKey": "thr_a", "agentId": agent, "client": who,
              "prompt": "unstored", "reply": "unstored", "createdAt": at} for n, who in enumerate([VISITOR, VISITOR,
              OTHER_VISITOR])]  # fmt: skip
    for n, turn in enumerate(turns):
        privacy_seed.receipt(db, studio.workspace_id, turn, stored=False)
        privacy_seed.rate(db, turn, "down", f"{at[:19]}.00{n}Z", comment="wrong about my address", stored=False)
    assert len(privacy_seed.trail(db, agent)["feedback"]) == 9
    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}) == {"deleted": 0}
    after = privacy_seed.trail(db, agent)
    assert {row["client"] for row in after["receipts"].values()} == {OTHER_VISITOR}
    assert len(after["feedback"]) == 3 and not any(VISITOR in sk for sk in after["feedback"])
    assert [e.count for e in studio.audit() if e.action == "conversation.erase"] == [0]


def test_a_large_erasure_takes_several_transactions_each_audited(
    studio: Studio, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2 threads + 9 turns, each turn with its receipt and unanswered row (never split from it): 29 items, 5
    # transactions of at most 7 (the threads and a turn, then two turns each)
    monkeypatch.setattr(erasure, "BATCH", 7)
    for n in range(9):
        turn_at(studio, agent, f"thr_{n % 2}", f"2026-03-01T10:{n:02d}:00.000Z")
    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}, headers={"Idempotency-Key": "erase-1"}) == {
        "deleted": 9}  # fmt: skip
    entries = [e for e in studio.audit() if e.action == "conversation.erase"]
    assert sorted(e.count or 0 for e in entries) == [1, 2, 2, 2, 2] and len({e.request_id for e in entries}) == 1
    assert partition(studio.portal.aws.dynamodb, agent) == {}
    # The Idempotency-Key's retry replays the answer; nothing more is recorded.
    assert studio.ok(ERASE, agent_id=agent, query={"client": VISITOR}, headers={"Idempotency-Key": "erase-1"}) == {
        "deleted": 9}  # fmt: skip
    assert len([e for e in studio.audit() if e.action == "conversation.erase"]) == 5


def test_owners_and_admins_only(studio: Studio, agent: str) -> None:
    turn_at(studio, agent, "thr_x", "2026-03-01T10:00:00.000Z")
    admin, member, stranger = studio.member("admin@example.com", "admin"), studio.member(), studio.stranger()
    assert len(admin.ok(LIST, agent_id=agent)["threads"]) == 1
    assert admin.ok(GET, agent_id=agent, thread_key="thr_x", query={"client": VISITOR})["turns"]
    calls: list[tuple[str, dict[str, Any]]] = [(LIST, {}), (GET, {"thread_key": "thr_x", "query": {"client": VISITOR}}),
             (ERASE, {"query": {"client": VISITOR}})]  # fmt: skip
    for function, request in calls:
        assert_error(member.call(function, agent_id=agent, **request), 403, "FORBIDDEN")
        assert_error(stranger.call(function, agent_id=agent, **request), 404, "NOT_FOUND")
        # Who before what: a bad query is still 403 / 404.
        assert_error(member.call(function, agent_id=agent, thread_key="thr_x", query={"limit": "0"}), 403, "FORBIDDEN")
        assert_error(stranger.call(function, agent_id=agent, thread_key="thr_x", query={"client": "x"}), 404,
                     "NOT_FOUND")  # fmt: skip
    # Another workspace's agent (its owner is the same person): as unknown.
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    for function, request in calls:
        assert_error(rival.call(function, agent_id=agent, **request), 404, "NOT_FOUND")
        assert_error(studio.call(function, agent_id="prj_01NOSUCHAGENT0000000000000", **request), 404, "NOT_FOUND")
    assert len(threads(studio, agent)["threads"]) == 1  # nothing erased


def cursor_of(text: str, *, padded: bool = False) -> str:
    raw = base64.urlsafe_b64encode(text.encode()).decode()
    return raw if padded else raw.rstrip("=")


@pytest.mark.parametrize(("function", "query", "field"), [
    (LIST, {"limit": "0"}, "limit"), (LIST, {"limit": "201"}, "limit"), (LIST, {"limit": "ten"}, "limit"),
    (LIST, {"cursor": "!!"}, "cursor"), (LIST, {"cursor": cursor_of("2026-01-01T00:00:00.000Z#aud_1")}, "cursor"),
    (LIST, {"cursor": cursor_of(f"2026-03-01T10:00:00.000Z#{VISITOR}#thr_1", padded=True)}, "cursor"),
    (LIST, {"since": "yesterday"}, "since"), (LIST, {"until": "2026-03-01"}, "until"),
    (LIST, {"since": "2026-03-01T10:00:00"}, "since"),  # no zone
    (LIST, {"client": "short"}, "client"), (LIST, {"client": "visitor#aaaaaaaaaaaa"}, "client"),
    (GET, {}, "client"), (GET, {"client": "a" * 129}, "client"),
    (ERASE, {}, "client"), (ERASE, {"client": "visitor aaaaaaaaaaaa"}, "client"),
])  # fmt: skip
def test_a_bad_query_is_a_400_naming_it(studio: Studio, agent: str, function: str, query: dict[str, str],
                                        field: str) -> None:  # fmt: skip
    refused = studio.call(function, agent_id=agent, thread_key="thr_1", query=query or None)
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].split(":")[0] == field


@pytest.mark.parametrize("thread_key", ["a" * 129, "thr 1", "thr;1", "thr\u00e91"])
def test_a_thread_key_the_chat_would_refuse_is_a_400(studio: Studio, agent: str, thread_key: str) -> None:
    refused = studio.call(GET, agent_id=agent, thread_key=thread_key, query={"client": VISITOR})
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith("threadKey: ")


@pytest.mark.parametrize("thread_key", ["thr#1", "thr/1"])
def test_a_thread_key_the_router_cannot_take_is_still_a_framed_4xx(studio: Studio, agent: str, thread_key: str) -> None:
    refused = studio.call(GET, agent_id=agent, thread_key=thread_key, query={"client": VISITOR})
    assert refused.status in (400, 404) and set(refused.json()) == {"error", "code"}, refused.body


def test_retention_hides_and_expires_turns_past_it(studio: Studio, agent: str) -> None:
    """Turns older than the workspace's days vanish from the listing and the thread at once (whatever their TTL
    says: they may have been stored before the setting), a thread with none left is not listed, and turns stored
    under the setting carry the TTL that removes them."""
    old, recent = days_ago(45), days_ago(1)
    turn_at(studio, agent, "thr_old", old)
    turn_at(studio, agent, "thr_both", days_ago(40), prompt="forgotten")
    turn_at(studio, agent, "thr_both", recent, prompt="kept")
    assert [t["turns"] for t in threads(studio, agent)["threads"]] == [2, 1]
    patched = studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": 30})
    assert patched["workspace"]["conversationRetentionDays"] == 30
    listed = threads(studio, agent)
    assert [(t["threadKey"], t["turns"], t["startedAt"]) for t in listed["threads"]] == [("thr_both", 1, recent)]
    assert listed["nextCursor"] is None
    assert threads(studio, agent, limit="1")["nextCursor"] is None  # the hidden thread is no next page
    kept = studio.ok(GET, agent_id=agent, thread_key="thr_both", query={"client": VISITOR})["turns"]
    assert [t["prompt"] for t in kept] == ["kept"]
    assert_error(studio.call(GET, agent_id=agent, thread_key="thr_old", query={"client": VISITOR}), 404, "NOT_FOUND")
    # Stored under the setting: the turn and its thread expire at the start of day D + 31 (UTC).
    turn_at(studio, agent, "thr_new", "2026-03-01T23:59:00.000Z", retention_days=30)
    stored = partition(studio.portal.aws.dynamodb, agent)
    expiry = int(datetime(2026, 4, 1, tzinfo=UTC).timestamp())
    assert {row["expiresAt"] for sk, row in stored.items() if "thr_new" in sk} == {expiry}
    assert sum(1 for sk in stored if is_turn(sk) and "thr_new" in sk) == 1
    # Cleared with null: turns are kept again (a later turn's thread item loses its TTL).
    assert studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": None})["workspace"][
        "conversationRetentionDays"] is None  # fmt: skip
    record = WorkspaceStore(studio.portal.aws.dynamodb, get_settings().main_table).get(studio.workspace_id)
    assert record is not None and record.conversation_retention_days is None
    turn_at(studio, agent, "thr_new", "2026-03-02T00:00:00.000Z")
    thread_row = partition(studio.portal.aws.dynamodb, agent)[f"VISITOR#{VISITOR}#THREAD#thr_new"]
    assert "expiresAt" not in thread_row


def restamp(studio: Studio) -> list[dict[str, Any]]:
    """Hand the purge queue's messages to its worker (re-stamping runs there); the messages it was given."""
    messages = take_purge_messages(studio.portal.aws.sqs)
    assert handler_module("WorkspacePurgeFunction").lambda_handler(sqs_event(messages), WorkerContext()) == {
        "batchItemFailures": []
    }
    return [json.loads(m["Body"]) for m in messages]


def ttls(studio: Studio, agent: str) -> dict[str, int | None]:
    return {sk: row.get("expiresAt") for sk, row in partition(studio.portal.aws.dynamodb, agent).items()}


def day_start(day: str, plus: int) -> int:
    start = datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(days=plus)
    return int(start.timestamp())


def test_a_retention_change_restamps_every_stored_turn_and_thread(
    studio: Studio, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turns stored before retention was set carry no TTL, and a changed retention leaves the TTLs of the old one:
    a change queues a pass of the workspace worker that sets each TTL the setting gives (a turn's from its day, a
    thread's from its last turn's), removes them when it is cleared, and a write that changes nothing queues none."""
    from core.platform import providers as platform_providers

    monkeypatch.setenv("RESTAMP_DELAY_SECONDS", "0")  # deployed: after the chat turns in flight (180 s)
    platform_providers.reset()
    first, last = "2026-03-01T10:00:00.000Z", "2026-03-05T23:00:00.000Z"
    turn_at(studio, agent, "thr_a", first)
    turn_at(studio, agent, "thr_a", last)
    turn_at(studio, agent, "thr_b", first, client=OTHER_VISITOR, retention_days=7)  # stored under an older setting
    thread_a, thread_b = f"VISITOR#{VISITOR}#THREAD#thr_a", f"VISITOR#{OTHER_VISITOR}#THREAD#thr_b"

    stored = partition(studio.portal.aws.dynamodb, agent)
    # A turn is kept through its day + days, a thread through its last turn's (core.platform.retention).
    day_of = {sk: (row["lastAt"] if "lastAt" in row else row["createdAt"])[:10] for sk, row in stored.items()}

    def wanted(days: int) -> dict[str, int | None]:
        return {sk: day_start(day, days + 1) for sk, day in day_of.items()}

    assert ttls(studio, agent)[thread_a] is None and ttls(studio, agent)[thread_b] == day_start(first[:10], 8)

    studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": 30})
    assert restamp(studio) == [{"workspaceId": studio.workspace_id, "job": "restamp"}]
    assert ttls(studio, agent) == wanted(30)  # set where there was none, moved where the old setting's was

    studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": 3650})  # lengthened: later
    restamp(studio)
    assert ttls(studio, agent) == wanted(3650)

    studio.ok("PortalWorkspaceUpdateFunction", body={"name": "Renamed"})  # retention unchanged: nothing queued
    assert take_purge_messages(studio.portal.aws.sqs) == []

    studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": None})  # cleared: kept for good
    restamp(studio)
    assert set(ttls(studio, agent).values()) == {None}
    assert restamp(studio) == []  # nothing queued again


def trail_ttls(studio: Studio, agent: str) -> dict[str, int | None]:
    found = privacy_seed.trail(studio.portal.aws.dynamodb, agent)
    return {sk: row.get("expiresAt") for kind, rows in found.items() if kind != "insights" for sk, row in rows.items()}


def test_a_retention_change_restamps_what_the_turns_left(
    studio: Studio, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 40: the same pass stamps each receipt (8 days, or the retention if sooner where it holds the turn's
    text), unanswered row (the retention), question item (its day's 100 days or the retention of its latest asking)
    and rating's rows (the retention of the rating, conversations being stored), and takes the retention's off when
    it is cleared; the day counters keep theirs."""
    from core.platform import providers as platform_providers

    monkeypatch.setenv("RESTAMP_DELAY_SECONDS", "0")
    platform_providers.reset()
    db = studio.portal.aws.dynamodb
    studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True})
    at, rated_at = "2026-03-01T10:00:00.000Z", "2026-03-03T08:00:00.000Z"
    turn = turn_at(studio, agent, "thr_a", at, prompt="Where is my order?")
    privacy_seed.everything(db, studio.workspace_id, turn, rated_at=rated_at)  # stored before any retention
    bare = {**turn, "turnId": "turn_01BARE000000000000000000000"}  # a receipt without the text
    privacy_seed.receipt(db, studio.workspace_id, bare, stored=False)
    privacy_seed.day_shard(db, agent, at[:10], turns=2)
    receipt, unstored = f"TURN#{turn['turnId']}", f"TURN#{bare['turnId']}"
    unanswered, (question,) = f"{at}#{turn['turnId']}", privacy_seed.trail(db, agent)["questions"]
    ratings = [f"{prefix}{rated_at}#{turn['turnId']}" for prefix in ("ALL#", "DOWN#", f"VISITOR#{VISITOR}#")]
    eight_days = receipt_expires_at(at, None)
    assert trail_ttls(studio, agent) == {receipt: eight_days, unstored: eight_days, unanswered: None,
                                         question: day_start(at[:10], 100)} | dict.fromkeys(ratings)  # fmt: skip

    studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": 3})
    restamp(studio)
    kept = day_start(at[:10], 4)  # through the turn's day + 3
    assert trail_ttls(studio, agent) == {receipt: kept, unstored: eight_days, unanswered: kept, question: kept} | (
        dict.fromkeys(ratings, day_start(rated_at[:10], 4)))  # fmt: skip

    studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": 30})  # longer than 8 days
    restamp(studio)
    assert trail_ttls(studio, agent) == {receipt: eight_days, unstored: eight_days, unanswered: day_start(at[:10], 31),
                                         question: day_start(at[:10], 31)} | (
        dict.fromkeys(ratings, day_start(rated_at[:10], 31)))  # fmt: skip

    studio.ok("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": None})
    restamp(studio)
    assert trail_ttls(studio, agent) == {receipt: eight_days, unstored: eight_days, unanswered: None,
                                         question: day_start(at[:10], 100)} | dict.fromkeys(ratings)  # fmt: skip
    (shard,) = privacy_seed.trail(db, agent)["insights"].values()
    assert shard["expiresAt"] == 0  # the counters are no visitor's text: left as they were


@pytest.mark.parametrize("days", [0, 3651, -1, "30", 1.5, True])
def test_retention_days_are_1_to_3650(studio: Studio, days: Any) -> None:
    refused = studio.call("PortalWorkspaceUpdateFunction", body={"conversationRetentionDays": days})
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith("conversationRetentionDays: ")


def test_a_deleted_agents_conversations_are_purged(studio: Studio, agent: str) -> None:
    """The agent's purge (what ``WorkspacePurgeFunction`` runs for it) drains its conversations partition and what its
    visitors left besides (issue 40): receipts, day counters, question items, unanswered rows, feedback rows."""
    db = studio.portal.aws.dynamodb
    turn = turn_at(studio, agent, "thr_x", "2026-03-01T10:00:00.000Z")
    privacy_seed.everything(db, studio.workspace_id, turn)
    privacy_seed.day_shard(db, agent, "2026-03-01", turns=1, unanswered=1, down=1)
    assert all(privacy_seed.trail(db, agent).values())  # one of each kind
    studio.ok("PortalAgentDeleteFunction", agent_id=agent)
    assert_error(studio.call(LIST, agent_id=agent), 404, "NOT_FOUND")
    # ... and the mark that its items' places are written (``ITEMS_ORDERED``, in its places partition: issue 43)
    deleted = PurgeStore(db, get_settings().main_table).delete_agent_records(agent, lambda: True)
    assert deleted == 2 + 1 + 1 + 1 + 1 + 3 + 1
    assert partition(db, agent) == {}
    assert not any(privacy_seed.trail(db, agent).values())
