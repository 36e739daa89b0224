"""The owner's answers as knowledge (authoring.md, "The owner's answers"): the worker indexes each answer as a passage
named by its question; a visitor's message close to that question gets the answer as its best passage, ahead of any
document that matches the same words more often; ``sources`` names it (``answerId``), the knowledge search fills
``source.answerId``, the offline model quotes it; a changed or deleted answer is what the next turn sees.

The real handlers on moto: the answer routes queue the agent, ``index_queued`` hands the queue to the worker as the
SQS event source would, and the chat runs its turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.authoring import Studio
from tests.support.chat import CLIENT, chat, grant, streamed
from tests.support.knowledge import current_index, index_queued
from tests.support.portal import Portal

pytestmark = pytest.mark.usefixtures("chat_environment")

# A document that says "open" and "Sunday" more often than the answer does: by BM25 alone it ranks first.
HOURS = (b"Opening hours. We open Monday to Saturday, 7:00 to 18:00. Sunday: open for the Sunday market only, "
         b"Sunday market hours vary; Sunday opening is announced on the door. Open late on Fridays.")  # fmt: skip
QUESTION = "Are you open on Sunday?"
ANSWER = "Yes: every Sunday from 9:00 to 14:00, brunch until 13:00."


@dataclass
class Shop:
    studio: Studio
    agent_id: str
    key: str
    hours_item: str

    def ask(self, prompt: str) -> tuple[str, list[dict[str, Any]]]:
        lines, reply = streamed(chat({"prompt": prompt, "client": CLIENT}, agent_id=self.agent_id, key=self.key))
        return reply, lines[-2]["sources"]

    def search(self, query: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.studio.ok(
            "PortalKnowledgeSearchFunction", agent_id=self.agent_id, body={"query": query}
        )["passages"]
        return found

    def answer(self, question: str = QUESTION, answer: str = ANSWER) -> dict[str, Any]:
        body = {"question": question, "answer": answer}
        made: dict[str, Any] = self.studio.ok("PortalAnswerCreateFunction", 201, agent_id=self.agent_id, body=body)
        return made["answer"]


@pytest.fixture
def shop(portal: Portal, aws: Any) -> Shop:
    studio = Studio.open(portal)
    agent_id = studio.agent("Barista")["id"]
    studio.put_object(f"projects/{agent_id}/notes/hours.txt", HOURS, "text/plain")
    item = studio.item(agent_id, "Opening hours", r2Key=f"projects/{agent_id}/notes/hours.txt", kind="document")
    grant(aws, studio.who.user_id, 50)
    key = portal.mint_key(studio.who, studio.workspace_id)["key"]
    index_queued(portal)
    return Shop(studio, agent_id, key, item["id"])


def test_without_an_answer_the_document_answers(shop: Shop) -> None:
    reply, sources = shop.ask(QUESTION)
    assert sources[0]["itemId"] == shop.hours_item and "Sunday market" in reply


def test_an_answer_is_indexed_and_ranked_first_for_a_message_close_to_its_question(shop: Shop, aws: Any) -> None:
    made = shop.answer()
    shop.answer("Do you have oat milk?", "Always, at no extra cost.")
    assert index_queued(shop.studio.portal) >= 1
    indexed = current_index(aws, shop.studio.workspace_id, shop.agent_id)
    assert indexed is not None and QUESTION in indexed.names and ANSWER in indexed.texts

    for message in (QUESTION, "are you OPEN on sundays", "Sunday: open?"):
        reply, sources = shop.ask(message)
        assert sources[0] == {"itemId": None, "postId": None, "answerId": made["id"], "name": QUESTION,
                              "r2Key": None, "where": ""}, message  # fmt: skip
        assert sources[1]["itemId"] == shop.hours_item  # the document still comes, after the answer
        assert f"“{QUESTION}”" in reply and ANSWER in reply, reply  # the offline model quotes the answer whole
    found = shop.search("Are you open on Sunday?")
    assert found[0]["source"] == {"itemId": None, "postId": None, "answerId": made["id"], "name": QUESTION,
                                  "r2Key": None}  # fmt: skip
    assert found[0]["text"] == ANSWER and found[0]["score"] > found[1]["score"]


def test_an_answer_is_not_put_first_for_a_message_that_only_shares_a_word(shop: Shop) -> None:
    shop.answer()
    index_queued(shop.studio.portal)
    # "Sunday" alone among other words: the question is not close, BM25 decides (the document says it more).
    _, sources = shop.ask("What time does the Sunday market close in the evening on Fridays?")
    assert sources[0]["itemId"] == shop.hours_item
    # An unrelated message never draws on the answer.
    _, sources = shop.ask("Do you sell gift cards?")
    assert all(source["answerId"] is None for source in sources)


def test_a_changed_answer_is_quoted_and_a_deleted_one_is_gone_from_the_next_turn(shop: Shop) -> None:
    made = shop.answer()
    index_queued(shop.studio.portal)
    changed = "Not any more: we are closed on Sundays."
    shop.studio.ok("PortalAnswerUpdateFunction", agent_id=shop.agent_id, answer_id=made["id"], body={"answer": changed})
    index_queued(shop.studio.portal)
    reply, sources = shop.ask(QUESTION)
    assert sources[0]["answerId"] == made["id"] and changed in reply and ANSWER not in reply

    shop.studio.ok("PortalAnswerDeleteFunction", agent_id=shop.agent_id, answer_id=made["id"])
    assert index_queued(shop.studio.portal) == 1  # the deletion queued the agent
    reply, sources = shop.ask(QUESTION)
    assert all(source["answerId"] is None for source in sources) and changed not in reply
    assert sources[0]["itemId"] == shop.hours_item
    assert all(p["source"]["answerId"] is None for p in shop.search(QUESTION))
