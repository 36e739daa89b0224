"""The owner's answers (authoring.md, "The owner's answers"): written by owners and admins, read by members, a page
at a time newest first; each write audited, idempotent and queueing the agent's knowledge; at most 1,000 an agent;
``fromTurn`` takes a turn's prompt from its receipt (docs/data-model.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.answers.records import MAX_ANSWERS
from core.insights.records import ReceiptRecord
from core.platform import main_table
from core.platform.dynamo import to_item
from core.platform.ids import iso, new_id
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.portal import Portal, assert_error, take_messages

LIST, CREATE = "PortalAnswersListFunction", "PortalAnswerCreateFunction"
UPDATE, DELETE = "PortalAnswerUpdateFunction", "PortalAnswerDeleteFunction"
HOURS = {"question": "When are you open on Sunday?", "answer": "Sundays 9:00 to 14:00, the kitchen until 13:30."}


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def agent(studio: Studio) -> dict[str, Any]:
    return studio.agent("Barista")


def create(studio: Studio, agent_id: str, status: int = 201, **body: Any) -> dict[str, Any]:
    answer: dict[str, Any] = studio.ok(CREATE, status, agent_id=agent_id, body=body or HOURS)["answer"]
    return answer


def every_answer(studio: Studio, agent_id: str, limit: int) -> tuple[list[dict[str, Any]], int]:
    """Every answer through the listing's pages of ``limit``, and how many pages that took."""
    found, cursor, pages = [], None, 0
    while True:
        query = {"limit": str(limit)} | ({"cursor": cursor} if cursor else {})
        page = studio.ok(LIST, agent_id=agent_id, query=query)
        found += page["answers"]
        pages += 1
        if (cursor := page["nextCursor"]) is None:
            return found, pages


def queued(portal: Portal) -> list[str]:
    """The bodies of the knowledge queue's messages, taken off it."""
    return [m["Body"] for m in take_messages(portal.aws.sqs, get_settings().knowledge_queue_url)]


def put_receipt(portal: Portal, receipt: ReceiptRecord) -> None:
    """A turn's receipt as the chat writes it after ``done`` (docs/data-model.md, ``main_table.turn_receipt``)."""
    item = main_table.turn_receipt(receipt.agent_id, receipt.turn_id) | receipt.attributes()
    portal.aws.dynamodb.put_item(TableName=get_settings().main_table, Item=to_item(item))


def receipt(
    workspace_id: str, agent_id: str, *, prompt: str | None, age: timedelta = timedelta(hours=1)
) -> ReceiptRecord:
    created = datetime.now(UTC) - age
    return ReceiptRecord(
        workspace_id=workspace_id, agent_id=agent_id, turn_id=new_id("turn"), thread_key=new_id("thr"),
        client="visitor-1", created_at=iso(created), day=iso(created)[:10], prompt=prompt,
    )  # fmt: skip


def test_an_answer_is_created_listed_changed_and_deleted(studio: Studio, agent: dict[str, Any]) -> None:
    portal = studio.portal
    queued(portal)
    made = create(studio, agent["id"])
    assert made == {"id": made["id"], "question": HOURS["question"], "answer": HOURS["answer"],
                    "createdAt": made["createdAt"], "updatedAt": made["createdAt"]}  # fmt: skip
    assert made["id"].startswith("ans_")
    assert studio.ok(LIST, agent_id=agent["id"]) == {"answers": [made], "nextCursor": None}
    assert studio.partition(main_table.answers_partition(agent["id"])) == [f"ANSWER#{made['id']}"]

    changed = studio.ok(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"answer": "Sundays 10 to 14."})
    assert changed["answer"] | {"updatedAt": ""} == made | {"answer": "Sundays 10 to 14.", "updatedAt": ""}
    assert changed["answer"]["updatedAt"] >= made["updatedAt"]
    renamed = studio.ok(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"question": "Sunday hours?"})
    assert renamed["answer"]["question"] == "Sunday hours?" and renamed["answer"]["answer"] == "Sundays 10 to 14."
    assert studio.ok(LIST, agent_id=agent["id"])["answers"] == [renamed["answer"]]

    assert studio.ok(DELETE, agent_id=agent["id"], answer_id=made["id"]) == {}
    assert studio.ok(LIST, agent_id=agent["id"]) == {"answers": [], "nextCursor": None}
    assert studio.partition(main_table.answers_partition(agent["id"])) == []
    assert_error(studio.call(DELETE, agent_id=agent["id"], answer_id=made["id"]), 404, "NOT_FOUND")
    assert_error(studio.call(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"answer": "x"}), 404,
                 "NOT_FOUND")  # fmt: skip
    # Every write queued the agent for the knowledge worker, as an item's write does (the index holds answers).
    expected = f'{{"workspaceId": "{studio.workspace_id}", "agentId": "{agent["id"]}"}}'
    assert queued(portal) == [expected] * 4


def test_question_and_answer_lengths_and_bodies(studio: Studio, agent: dict[str, Any]) -> None:
    longest = create(studio, agent["id"], question="q" * 500, answer="a" * 4000)
    assert (len(longest["question"]), len(longest["answer"])) == (500, 4000)
    refused = [
        {"question": "q" * 501, "answer": "a"},
        {"question": "q", "answer": "a" * 4001},
        {"question": "", "answer": "a"},
        {"question": "   ", "answer": "a"},
        {"question": "q", "answer": ""},
        {"question": "q"},
        {"answer": "a"},  # neither question nor fromTurn
        {"question": "q", "fromTurn": "turn_1", "answer": "a"},
        {"question": "q\x00", "answer": "a"},
        {"question": "q", "answer": "a\x1b[2J"},
        {"question": 5, "answer": "a"},
        {"question": "q", "answer": "a", "extra": 1},
        {"fromTurn": "../x", "answer": "a"},
    ]
    for body in refused:
        assert_error(studio.call(CREATE, agent_id=agent["id"], body=body), 400, "VALIDATION_ERROR")
    for body in ({"question": "q" * 501}, {"answer": "a" * 4001}, {"answer": ""}, {"fromTurn": "turn_1"}):
        result = studio.call(UPDATE, agent_id=agent["id"], answer_id=longest["id"], body=body)
        assert_error(result, 400, "VALIDATION_ERROR")
    message = studio.call(CREATE, agent_id=agent["id"], body={"question": "q" * 501, "answer": "a"}).json()["error"]
    assert "question" in message
    # Newlines and tabs are text.
    assert create(studio, agent["id"], question="Parking?", answer="Yes:\n\tbehind the shop")["answer"].count("\n") == 1
    assert [a["id"] for a in studio.ok(LIST, agent_id=agent["id"])["answers"]][1:] == [longest["id"]]


def test_owners_and_admins_write_members_read_strangers_and_other_workspaces_get_404(
    studio: Studio, agent: dict[str, Any]
) -> None:
    admin, member, stranger = studio.member("admin@example.com", "admin"), studio.member(), studio.stranger()
    made = create(studio, agent["id"])
    by_admin = create(admin, agent["id"], question="Do you have oat milk?", answer="Always.")
    admin.ok(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"answer": "Sundays 9 to 2."})
    assert [a["id"] for a in member.ok(LIST, agent_id=agent["id"])["answers"]] == [by_admin["id"], made["id"]]
    assert_error(member.call(CREATE, agent_id=agent["id"], body=HOURS), 403, "FORBIDDEN")
    assert_error(member.call(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"answer": "x"}), 403,
                 "FORBIDDEN")  # fmt: skip
    assert_error(member.call(DELETE, agent_id=agent["id"], answer_id=made["id"]), 403, "FORBIDDEN")
    assert_error(
        member.call(CREATE, agent_id=agent["id"], body={"question": "q" * 501, "answer": "a"}), 403, "FORBIDDEN"
    )  # a member's bad body: the role is refused first
    for call in (
        lambda who: who.call(LIST, agent_id=agent["id"]),
        lambda who: who.call(CREATE, agent_id=agent["id"], body=HOURS),
        lambda who: who.call(CREATE, agent_id=agent["id"], body={"answer": ""}),  # a stranger's bad body: 404 too
        lambda who: who.call(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"answer": "x"}),
        lambda who: who.call(DELETE, agent_id=agent["id"], answer_id=made["id"]),
    ):
        assert_error(call(stranger), 404, "NOT_FOUND")
    # Another workspace's agent, named under the caller's own workspace: the same 404 as an unknown agent.
    other = Studio.open(studio.portal, "other@example.com", name="Other")
    theirs = other.agent("Theirs")
    their_answer = create(other, theirs["id"])
    for who in (studio, admin):
        assert_error(who.call(LIST, agent_id=theirs["id"]), 404, "NOT_FOUND")
        assert_error(who.call(CREATE, agent_id=theirs["id"], body=HOURS), 404, "NOT_FOUND")
        assert_error(who.call(UPDATE, agent_id=theirs["id"], answer_id=their_answer["id"], body={"answer": "x"}),
                     404, "NOT_FOUND")  # fmt: skip
        assert_error(who.call(DELETE, agent_id=theirs["id"], answer_id=their_answer["id"]), 404, "NOT_FOUND")
        # Their answer's id under one of our agents: not found either.
        assert_error(who.call(DELETE, agent_id=agent["id"], answer_id=their_answer["id"]), 404, "NOT_FOUND")
    assert other.ok(LIST, agent_id=theirs["id"])["answers"] == [their_answer]


def test_the_listing_pages_newest_first_with_a_cursor(studio: Studio, agent: dict[str, Any]) -> None:
    made = [create(studio, agent["id"], question=f"Question {n}?", answer=f"Answer {n}.") for n in range(5)]
    newest_first = list(reversed(made))
    assert every_answer(studio, agent["id"], 2) == (newest_first, 3)
    assert every_answer(studio, agent["id"], 5) == (newest_first, 1)
    assert every_answer(studio, agent["id"], 100) == (newest_first, 1)
    assert studio.ok(LIST, agent_id=agent["id"])["answers"] == newest_first  # default limit 20
    for query in (
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "two"},
        {"cursor": "!!"},
        {"cursor": "eA"},
        {"cursor": "QU5TV0VSI2Fuc18x"},
    ):  # the last: "ANSWER#ans_1", not an answer's key
        assert_error(studio.call(LIST, agent_id=agent["id"], query=query), 400, "VALIDATION_ERROR")


def test_each_write_is_audited_and_an_idempotency_key_replays_it(studio: Studio, agent: dict[str, Any]) -> None:
    first = studio.call(CREATE, agent_id=agent["id"], body=HOURS, key="k-1")
    create_request = studio.last_request_id
    again = studio.call(CREATE, agent_id=agent["id"], body=HOURS, key="k-1")
    assert (first.status, again.status) == (201, 201) and first.body == again.body
    made = first.json()["answer"]
    assert studio.partition(main_table.answers_partition(agent["id"])) == [f"ANSWER#{made['id']}"]
    assert_error(
        studio.call(CREATE, agent_id=agent["id"], body=HOURS | {"answer": "other"}, key="k-1"), 409, "CONFLICT"
    )  # the key of another body
    studio.ok(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"answer": "Sundays 10 to 14."}, key="k-2")
    update_request = studio.last_request_id
    studio.ok(UPDATE, agent_id=agent["id"], answer_id=made["id"], body={"answer": "Sundays 10 to 14."}, key="k-2")
    studio.ok(DELETE, agent_id=agent["id"], answer_id=made["id"], key="k-3")
    delete_request = studio.last_request_id
    assert studio.ok(DELETE, agent_id=agent["id"], answer_id=made["id"], key="k-3") == {}  # replayed, not 404
    entries = [(e.action, e.target, e.request_id, e.actor_id) for e in studio.audit() if e.action.startswith("answer")]
    target = f"answer:{made['id']}"
    assert entries == [
        ("answer.delete", target, delete_request, studio.who.user_id),
        ("answer.update", target, update_request, studio.who.user_id),
        ("answer.create", target, create_request, studio.who.user_id),
    ]


def test_an_agent_holds_at_most_1000_answers(studio: Studio, agent: dict[str, Any]) -> None:
    """The cap is the agent's ``answerCount`` (on its counters item), moved in each answer's own transaction (so a
    race cannot pass it): set here to one short of it rather than writing 999 answers."""
    made = create(studio, agent["id"])
    key = main_table.agent_counts(studio.workspace_id, agent["id"])
    table = studio.portal.aws.dynamodb
    counted = table.get_item(TableName=get_settings().main_table, Key=to_item(key))["Item"]["answerCount"]
    assert counted == {"N": "1"}
    table.update_item(TableName=get_settings().main_table, Key=to_item(key), UpdateExpression="SET answerCount = :n",
                      ExpressionAttributeValues={":n": {"N": str(MAX_ANSWERS - 1)}})  # fmt: skip
    last = create(studio, agent["id"], question="The last one?", answer="Yes.")
    full = studio.call(CREATE, agent_id=agent["id"], body={"question": "One more?", "answer": "No."})
    assert_error(full, 409, "CONFLICT")
    assert "1,000" in full.json()["error"]
    assert len(studio.ok(LIST, agent_id=agent["id"])["answers"]) == 2  # nothing written by the refusal
    studio.ok(DELETE, agent_id=agent["id"], answer_id=last["id"])  # a deletion makes room again
    create(studio, agent["id"], question="One more?", answer="Now yes.")
    assert made["id"] in {a["id"] for a in studio.ok(LIST, agent_id=agent["id"])["answers"]}


def test_from_turn_takes_the_prompt_of_the_turns_receipt(studio: Studio, agent: dict[str, Any]) -> None:
    portal = studio.portal
    kept = receipt(studio.workspace_id, agent["id"], prompt="  Do you\tdeliver\nto the harbour?  ")
    put_receipt(portal, kept)
    made = create(studio, agent["id"], fromTurn=kept.turn_id, answer="Yes, every morning.")
    assert (made["question"], made["answer"]) == ("Do you deliver to the harbour?", "Yes, every morning.")
    long = receipt(studio.workspace_id, agent["id"], prompt="word " * 300)
    put_receipt(portal, long)
    cut = create(studio, agent["id"], fromTurn=long.turn_id, answer="Cut.")["question"]
    assert len(cut) <= 500 and cut.endswith("…") and cut.startswith("word word")

    other_agent = studio.agent("Other")
    gone = [
        receipt(studio.workspace_id, agent["id"], prompt=None),  # conversations not stored: no prompt kept
        receipt(studio.workspace_id, agent["id"], prompt="Old?", age=timedelta(days=8, hours=1)),  # TTL is late
        receipt(studio.workspace_id, other_agent["id"], prompt="Theirs?"),  # another agent's turn
    ]
    for turn in gone:
        put_receipt(portal, turn)
        result = studio.call(CREATE, agent_id=agent["id"], body={"fromTurn": turn.turn_id, "answer": "x"})
        assert_error(result, 404, "NOT_FOUND")
        assert result.json()["error"] == "Turn not found"
    unknown = studio.call(CREATE, agent_id=agent["id"], body={"fromTurn": new_id("turn"), "answer": "x"})
    assert_error(unknown, 404, "NOT_FOUND")
    recent = receipt(studio.workspace_id, agent["id"], prompt="Recent?", age=timedelta(days=7, hours=23))
    put_receipt(portal, recent)
    assert create(studio, agent["id"], fromTurn=recent.turn_id, answer="Yes.")["question"] == "Recent?"
    # A stranger learns nothing of the turn: 404 as for the agent.
    assert_error(studio.stranger().call(CREATE, agent_id=agent["id"], body={"fromTurn": kept.turn_id, "answer": "x"}),
                 404, "NOT_FOUND")  # fmt: skip


def test_deleting_the_agent_purges_its_answers(studio: Studio, agent: dict[str, Any]) -> None:
    create(studio, agent["id"])
    create(studio, agent["id"], question="Oat milk?", answer="Always.")
    assert len(studio.partition(main_table.answers_partition(agent["id"]))) == 2
    studio.ok("PortalAgentDeleteFunction", agent_id=agent["id"])
    assert studio.purge()
    assert studio.partition(main_table.answers_partition(agent["id"])) == []
