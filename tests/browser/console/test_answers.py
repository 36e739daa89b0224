"""The console's answers tab (issue 41): the owner adds an answer, edits it and deletes it in two steps, each write
reaching the API; opened with ``?fromTurn=`` (the insights page's "write the answer"), a form answers a visitor's
unanswered turn ({fromTurn, answer}: the API takes the question from the turn) and the agent's knowledge then ranks
that answer first for the visitor's question."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.support.console import Console
from tests.support.console_visits import ask, shop
from tests.support.runner import knowledge_settled

pytestmark = pytest.mark.browser

OWNER = "answers-owner@example.com"
SHOPKEEPER = "answers-shopkeeper@example.com"  # on the pro plan (a key for the visitor), a workspace of their own
ISLANDS = "Do you deliver to the islands?"


def answer_entry(console: Console, question: str) -> Any:
    """The answer's entry on the page (its ``li``), by its question."""
    from selenium.webdriver.common.by import By

    def find() -> Any:
        for entry in console.driver.find_elements(By.CSS_SELECTOR, "ul.answers > li"):
            if entry.find_element(By.TAG_NAME, "h3").text == question:
                return entry
        return None

    return console.until(f"the answer to {question!r}", find)


def test_an_answer_is_added_edited_and_deleted(console: Console) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    console.sign_in(OWNER)
    made = console.api(OWNER, "POST", "/api/workspaces", {"name": "Answers shop"})
    assert made.status == 201, made.body
    workspace = made.json()["workspace"]["id"]
    agent = console.api(OWNER, "POST", f"/api/workspaces/{workspace}/agents", {"name": "Answerer"}).json()["agent"]
    answers = f"/api/workspaces/{workspace}/agents/{agent['id']}/answers"
    console.open(f"/w/{workspace}/agents/{agent['id']}/answers")
    console.wait_role("heading", "Answers", exact=True)
    console.wait_text("No answers yet.")
    console.screenshot("answers-empty")
    console.axe("answers-empty")

    # Add: the API lists it as typed.
    console.fill("Question", "Can I bring my dog?", exact=True)
    console.fill("Answer", "Dogs on a lead are welcome in the shop.", exact=True)
    console.click("button", "Add answer")
    console.wait_text("Added your answer to “Can I bring my dog?”.")
    (stored,) = console.api(OWNER, "GET", answers).json()["answers"]
    assert (stored["question"], stored["answer"]) == ("Can I bring my dog?", "Dogs on a lead are welcome in the shop.")
    entry = answer_entry(console, "Can I bring my dog?")
    assert "Dogs on a lead are welcome in the shop." in entry.text
    console.screenshot("answers-list")
    console.axe("answers-list")

    # Edit in place: only the answer changed, the API has the new text, the page shows it.
    entry.find_element(By.XPATH, ".//button[normalize-space()='Edit']").click()
    text = answer_entry(console, "Can I bring my dog?").find_element(By.TAG_NAME, "textarea")
    text.send_keys(Keys.CONTROL, "a")
    text.send_keys(Keys.DELETE)
    text.send_keys("Dogs on a lead are welcome, except in the bakery.")
    console.axe("answers-editing")
    answer_entry(console, "Can I bring my dog?").find_element(By.XPATH, ".//button[normalize-space()='Save']").click()
    console.wait_text("Saved your answer to “Can I bring my dog?”.")
    console.wait_text("Dogs on a lead are welcome, except in the bakery.")
    (edited,) = console.api(OWNER, "GET", answers).json()["answers"]
    assert (edited["id"], edited["question"]) == (stored["id"], "Can I bring my dog?")
    assert edited["answer"] == "Dogs on a lead are welcome, except in the bakery."

    # Delete, in two steps.
    answer_entry(console, "Can I bring my dog?").find_element(By.XPATH, ".//button[normalize-space()='Delete']").click()
    console.wait_text("Delete your answer to “Can I bring my dog?”?")
    assert len(console.api(OWNER, "GET", answers).json()["answers"]) == 1  # nothing happened at the first click
    console.click("button", "Yes, delete")
    console.wait_text("Deleted your answer to “Can I bring my dog?”.")
    console.wait_text("No answers yet.")
    assert console.api(OWNER, "GET", answers).json()["answers"] == []


def test_the_write_the_answer_link_answers_the_visitors_turn(console: Console) -> None:
    scene = shop(console, SHOPKEEPER, answered=False)
    with scene.visitor("cy") as visitor:
        turn = ask(visitor, scene, ISLANDS)
    assert turn.turn_id and not turn.sources  # nothing in the agent's knowledge answered it
    console.sign_in(SHOPKEEPER)
    base = f"/w/{scene.workspace}/agents/{scene.agent}/answers"
    console.open(f"{base}?fromTurn={quote(turn.turn_id)}&question={quote(ISLANDS)}")
    console.wait_role("heading", "Answer a visitor's question")
    console.wait_text(f"The visitor asked: “{ISLANDS}”")
    console.screenshot("answers-from-turn")
    console.axe("answers-from-turn")

    console.fill("Your answer", "Yes: the ferry takes our parcels every Tuesday.")
    console.click("button", "Save the answer")
    console.wait_text(f"Saved your answer to “{ISLANDS}”.")
    console.until("the plain list again", lambda: console.url_path() == base)
    assert not console.roles("heading", "Answer a visitor's question")
    # The question is the turn's own prompt, taken by the API from the turn (the page sent {fromTurn, answer}).
    (stored,) = scene.api("GET", "~/answers")["answers"]
    assert (stored["question"], stored["answer"]) == (ISLANDS, "Yes: the ferry takes our parcels every Tuesday.")
    answer_entry(console, ISLANDS)

    # The agent's knowledge now ranks it first for the visitor's question.
    knowledge_settled(console.service)
    (best, *_) = scene.api("POST", "~/knowledge/search", {"query": ISLANDS})["passages"]
    assert best["source"]["answerId"] == stored["id"], best
