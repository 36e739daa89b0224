"""core.events: a stream record -> its events (the PURE mapping), the ledger's routing to owned workspaces, the
delivered body's 20 kB, the deterministic ids. Every event type, and the records that must mean nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.events import catalogue as types
from core.events.changes import LEDGER, MAIN, events_of
from core.events.owners import Owned, route
from core.events.records import MAX_BODY, AccountChange, Event, event_id
from core.platform.dynamo import to_item
from core.webhooks.fanout import delivery_id

WS, AGENT, USER = "ws_1", "agt_1", "usr_1"
AT = 1_800_000_000  # the record's creation time, epoch seconds


def record(name: str, pk: str, sk: str, new: dict[str, Any] | None = None, old: dict[str, Any] | None = None, *,
           event_id: str = "e1") -> dict[str, Any]:  # fmt: skip
    """A stream record as Lambda hands it (DynamoDB JSON images)."""
    stream: dict[str, Any] = {"Keys": to_item({"pk": pk, "sk": sk}), "ApproximateCreationDateTime": AT,
                              "SequenceNumber": "1", "StreamViewType": "NEW_AND_OLD_IMAGES"}  # fmt: skip
    if new is not None:
        stream["NewImage"] = to_item({"pk": pk, "sk": sk} | new)
    if old is not None:
        stream["OldImage"] = to_item({"pk": pk, "sk": sk} | old)
    return {"eventID": event_id, "eventName": name, "eventSource": "aws:dynamodb", "dynamodb": stream}


def one(table: str, rec: dict[str, Any]) -> Event:
    [event] = events_of(table, rec)  # type: ignore[arg-type]
    assert isinstance(event, Event)
    return event


RECEIPT = {"workspaceId": WS, "agentId": AGENT, "turnId": "trn_1", "threadKey": "t1", "client": "c1", "credits": 2,
           "unanswered": False, "createdAt": "2027-01-15T08:00:00.000Z", "day": "2027-01-15"}  # fmt: skip


def test_a_turn_receipt_is_a_completed_turn_with_its_prompt_only_when_the_receipt_keeps_it() -> None:
    event = one(MAIN, record("INSERT", f"AGENT#{AGENT}#TURNS", "TURN#trn_1", RECEIPT))
    assert (event.type, event.workspace_id, event.timestamp) == (types.TURN_COMPLETED, WS, "2027-01-15T08:00:00.000Z")
    assert event.data == {"agentId": AGENT, "threadKey": "t1", "turnId": "trn_1", "client": "c1", "credits": 2,
                          "unanswered": False, "createdAt": "2027-01-15T08:00:00.000Z"}  # fmt: skip
    stored = one(MAIN, record("INSERT", f"AGENT#{AGENT}#TURNS", "TURN#trn_1", RECEIPT | {"prompt": "p", "reply": "r"}))
    assert (stored.data["prompt"], stored.data["reply"]) == ("p", "r")


def test_a_rating_of_a_receipt_is_no_second_turn() -> None:
    rated = record("MODIFY", f"AGENT#{AGENT}#TURNS", "TURN#trn_1", RECEIPT | {"rating": "up"}, RECEIPT)
    assert events_of(MAIN, rated) == []


def test_a_ratings_row_of_record_is_feedback_and_its_two_copies_are_not() -> None:
    row = {"workspaceId": WS, "turnId": "trn_1", "threadKey": "t1", "client": "c1", "rating": "down",
           "comment": "wrong", "createdAt": "2027-01-15T09:00:00.000Z"}  # fmt: skip
    event = one(MAIN, record("INSERT", f"AGENT#{AGENT}#FEEDBACK", "ALL#2027-01-15T09:00:00.000Z#trn_1", row))
    assert (event.type, event.workspace_id) == (types.FEEDBACK_CREATED, WS)
    assert event.data == {"agentId": AGENT, "turnId": "trn_1", "threadKey": "t1", "client": "c1", "rating": "down",
                          "comment": "wrong", "createdAt": "2027-01-15T09:00:00.000Z"}  # fmt: skip
    for copy in ("DOWN#2027-01-15T09:00:00.000Z#trn_1", "VISITOR#c1#2027-01-15T09:00:00.000Z#trn_1"):
        assert events_of(MAIN, record("INSERT", f"AGENT#{AGENT}#FEEDBACK", copy, row)) == []
    # a row written before rows carried their workspace: nothing to route it by
    assert events_of(MAIN, record("INSERT", f"AGENT#{AGENT}#FEEDBACK", "ALL#x#trn_1", row | {"workspaceId": ""})) == []


def item(status: str, **index: Any) -> dict[str, Any]:
    return {"id": "itm_1", "agentId": AGENT, "workspaceId": WS, "index": {"status": status, "updatedAt": "x"} | index}


@pytest.mark.parametrize(("before", "after", "wanted"), [
    ("pending", item("indexed", passages=7),
     (types.ITEM_INDEXED, {"itemId": "itm_1", "agentId": AGENT, "passages": 7})),
    ("pending", item("failed", error="unreadable PDF"),
     (types.ITEM_FAILED, {"itemId": "itm_1", "agentId": AGENT, "error": "unreadable PDF"})),
    ("failed", item("indexed", passages=1), (types.ITEM_INDEXED, {"itemId": "itm_1", "agentId": AGENT, "passages": 1})),
])  # fmt: skip
def test_an_items_index_state_becoming_indexed_or_failed_is_its_event(before: str, after: dict, wanted: tuple) -> None:
    event = one(MAIN, record("MODIFY", f"AGENT#{AGENT}#ITEMS", "ITEM#itm_1", after, item(before)))
    assert (event.type, event.data, event.workspace_id) == (*wanted, WS)


def test_a_modify_that_leaves_the_index_status_as_it_was_emits_nothing() -> None:
    again = item("indexed", passages=9)  # the worker read an unchanged document again: a new updatedAt
    assert events_of(MAIN, record("MODIFY", f"AGENT#{AGENT}#ITEMS", "ITEM#itm_1", again, item("indexed"))) == []
    renamed = item("indexed") | {"name": "new name"}  # an author's write that keeps the state
    assert events_of(MAIN, record("MODIFY", f"AGENT#{AGENT}#ITEMS", "ITEM#itm_1", renamed, item("indexed"))) == []
    assert (
        events_of(MAIN, record("MODIFY", f"AGENT#{AGENT}#ITEMS", "ITEM#itm_1", item("pending"), item("indexed"))) == []
    )
    assert events_of(MAIN, record("INSERT", f"AGENT#{AGENT}#ITEMS", "ITEM#itm_1", item("indexed"))) == []


def test_members_joining_and_leaving() -> None:
    joined = one(MAIN, record("INSERT", f"WS#{WS}", f"MEMBER#{USER}", {"role": "admin", "workspaceId": WS}))
    assert (joined.type, joined.workspace_id, joined.data) == (
        types.MEMBER_JOINED,
        WS,
        {"userId": USER, "role": "admin"},
    )
    mailed = one(MAIN, record("INSERT", f"WS#{WS}", f"MEMBER#{USER}", {"role": "member", "email": "a@b.c"}))
    assert mailed.data["email"] == "a@b.c"
    removed = one(MAIN, record("REMOVE", f"WS#{WS}", f"MEMBER#{USER}", old={"role": "member"}))
    assert (removed.type, removed.data) == (types.MEMBER_REMOVED, {"userId": USER, "role": "member"})
    role = record("MODIFY", f"WS#{WS}", f"MEMBER#{USER}", {"role": "admin"}, {"role": "member"})
    assert events_of(MAIN, role) == []


def test_an_agent_removed_is_deleted_and_one_written_is_nothing() -> None:
    agent = {"id": AGENT, "name": "Helper", "slug": "helper"}
    event = one(MAIN, record("REMOVE", f"WS#{WS}", f"AGENT#{AGENT}", old=agent))
    assert (event.type, event.data) == (types.AGENT_DELETED, {"agentId": AGENT, "name": "Helper", "slug": "helper"})
    assert events_of(MAIN, record("INSERT", f"WS#{WS}", f"AGENT#{AGENT}", agent)) == []
    assert events_of(MAIN, record("MODIFY", f"WS#{WS}", f"AGENT#{AGENT}", agent, agent)) == []


def test_an_erasures_audit_entry_is_conversation_erased_and_other_entries_are_not() -> None:
    entry = {"action": "conversation.erase", "target": f"conversations:{AGENT}/c1", "count": 4, "workspaceId": WS}
    event = one(MAIN, record("INSERT", f"AUDIT#{WS}", "2027-01-15T08:00:00.000Z#aud_1", entry))
    assert (event.type, event.workspace_id, event.data) == (
        types.CONVERSATION_ERASED, WS, {"agentId": AGENT, "client": "c1", "turns": 4})  # fmt: skip
    other = entry | {"action": "agent.update"}
    assert events_of(MAIN, record("INSERT", f"AUDIT#{WS}", "2027#aud_2", other)) == []


def test_the_retention_pass_finishing_is_its_event_once() -> None:
    before = {"conversationRetentionDays": 30}
    after = before | {"retentionAppliedAt": "2027-01-15T08:00:00.000Z", "retentionAppliedDays": 30}
    event = one(MAIN, record("MODIFY", f"WS#{WS}", "WS", after, before))
    assert (event.type, event.data) == (types.RETENTION_APPLIED, {"retentionDays": 30,
                                                                  "at": "2027-01-15T08:00:00.000Z"})  # fmt: skip
    renamed = after | {"name": "n"}
    assert events_of(MAIN, record("MODIFY", f"WS#{WS}", "WS", renamed, after)) == []  # the stamp did not move


def balance(available: int, held: int = 0, **more: Any) -> dict[str, Any]:
    return {"available": available, "held": held} | more


def ledger(name: str, new: dict[str, Any] | None, old: dict[str, Any] | None = None, sk: str = "BALANCE",
           eid: str = "e1") -> list:  # fmt: skip
    return events_of(LEDGER, record(name, f"ACCT#{USER}", sk, new, old, event_id=eid))


OWNED = [Owned("ws_a", 100), Owned("ws_b", None), Owned("ws_c", 10)]


def low(changes: list) -> list[Event]:
    return [e for c in changes if isinstance(c, AccountChange) for e in route(c, OWNED)]


def test_credits_low_fires_once_per_crossing_for_each_workspace_whose_threshold_was_crossed() -> None:
    crossed = low(ledger("MODIFY", balance(95), balance(120)))  # a settlement: 120 -> 95 crosses 100 only
    assert [(e.type, e.workspace_id, e.data) for e in crossed] == [
        (types.CREDITS_LOW, "ws_a", {"balance": 95, "threshold": 100})]  # fmt: skip
    assert low(ledger("MODIFY", balance(90), balance(95))) == []  # already under: no second event
    assert low(ledger("MODIFY", balance(100), balance(101))) == []  # at the threshold is not under it
    both = low(ledger("MODIFY", balance(5), balance(150)))
    assert sorted(e.workspace_id for e in both) == ["ws_a", "ws_c"]
    assert len({e.id for e in both}) == 2  # one record, an event (and id) per workspace


def test_a_hold_or_a_release_never_emits_credits_low() -> None:
    assert low(ledger("MODIFY", balance(90, held=10), balance(100))) == []  # reserve: available -> held
    assert low(ledger("MODIFY", balance(100), balance(90, held=10))) == []  # release: back
    assert low(ledger("MODIFY", balance(150), balance(50))) == []  # a grant: up


def test_credits_exhausted_when_the_marker_appears_for_its_workspace_only() -> None:
    marker = {"workspaceId": "ws_b", "agentId": AGENT, "at": "2027-01-15T08:00:00.000Z"}
    [event] = ledger("MODIFY", balance(0, exhausted=marker), balance(0))
    assert isinstance(event, Event)
    assert (event.type, event.workspace_id, event.data) == (types.CREDITS_EXHAUSTED, "ws_b",
                                                           {"agentId": AGENT, "balance": 0})  # fmt: skip
    [first] = ledger("INSERT", {"exhausted": marker})  # an account that never had a balance
    assert isinstance(first, Event) and first.type == types.CREDITS_EXHAUSTED
    assert ledger("MODIFY", balance(0, exhausted=marker, updatedAt="y"), balance(0, exhausted=marker)) == []
    assert ledger("MODIFY", balance(50), balance(0, exhausted=marker)) == []  # a grant re-arms it: no event


def test_a_grant_entry_is_credits_granted_to_every_owned_workspace_and_a_settlement_entry_is_not() -> None:
    entry = {"amountCredits": 500, "refType": "topup", "refId": "pi_1", "description": "Top-up"}
    [change] = ledger("INSERT", entry, sk="ENTRY#2027-01-15#ent_1")
    assert isinstance(change, AccountChange)
    events = route(change, OWNED)
    assert [e.workspace_id for e in events] == ["ws_a", "ws_b", "ws_c"]
    assert events[0].data == {"amount": 500, "refType": "topup", "refId": "pi_1", "description": "Top-up"}
    assert ledger("INSERT", entry | {"refType": "llm", "amountCredits": -2}, sk="ENTRY#x#ent_2") == []


def test_records_of_no_event_kind_mean_nothing() -> None:
    assert events_of(MAIN, record("INSERT", f"AGENT#{AGENT}#INSIGHTS", "DAY#2027-01-15#0", {"turns": 1})) == []
    assert events_of(MAIN, record("INSERT", "SESSION#s", "SESSION", {"userId": USER})) == []
    assert ledger("INSERT", {"refId": "trn_1"}, sk="HOLD#trn_1") == []


def test_ids_are_the_same_for_the_same_record_and_differ_between_records() -> None:
    rec = record("INSERT", f"WS#{WS}", f"MEMBER#{USER}", {"role": "member"})
    assert one(MAIN, rec).id == one(MAIN, rec).id
    assert one(MAIN, rec).id != one(MAIN, rec | {"eventID": "e2"}).id
    assert event_id("main:e1", "member.joined", WS) != event_id("ledger:e1", "member.joined", WS)
    assert event_id("main:e1", "credits.low", "ws_a") != event_id("main:e1", "credits.low", "ws_b")
    assert event_id("main:e1", "member.joined", WS).startswith("evt_") and len(event_id("x", "y", "z")) == 30


def test_a_delivery_id_is_deterministic_and_ordered_by_the_events_time() -> None:
    early = Event("evt_A", "member.joined", WS, "2027-01-15T08:00:00.000Z")
    late = Event("evt_B", "member.joined", WS, "2027-01-15T08:00:01.000Z")
    assert delivery_id(early, "whk_1") == delivery_id(early, "whk_1") != delivery_id(early, "whk_2")
    assert delivery_id(early, "whk_1") < delivery_id(late, "whk_1") and len(delivery_id(late, "whk_1")) == 30


def test_the_body_is_at_most_20_kB_its_prompt_and_reply_trimmed_and_said_so() -> None:
    event = Event("evt_1", types.TURN_COMPLETED, WS, "2027-01-15T08:00:00.000Z",
                  {"turnId": "t", "prompt": "é" * 15_000, "reply": "b" * 30_000})  # fmt: skip
    body = event.body()
    assert len(body.encode()) <= MAX_BODY
    sent = json.loads(body)
    assert sent["data"]["truncated"] is True and sent["data"]["workspaceId"] == WS and sent["data"]["turnId"] == "t"
    prompt, reply = sent["data"]["prompt"], sent["data"]["reply"]
    assert prompt == "é" * len(prompt) and reply == "b" * len(reply)
    assert abs(len(prompt) - len(reply)) <= 1  # the room left shared between the two
    assert len(body.encode()) > MAX_BODY - 100  # and nearly all of it used
    small = json.loads(Event("evt_2", types.TURN_COMPLETED, WS, "t", {"prompt": "p"}).body())
    assert small == {"type": types.TURN_COMPLETED, "timestamp": "t", "data": {"prompt": "p", "workspaceId": WS}}


def test_the_catalogue_has_the_contracts_types_and_the_wildcard_matches_every_type() -> None:
    assert set(types.CONTRACT_TYPES) <= set(types.EVENT_TYPES) and len(set(types.EVENT_TYPES)) == 13
    assert types.subscribed(["*"], types.CREDITS_LOW) and types.subscribed([types.CREDITS_LOW], types.CREDITS_LOW)
    assert not types.subscribed([types.MEMBER_JOINED], types.CREDITS_LOW)
