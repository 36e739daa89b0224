"""A newcomer's journey in the console, from sign-in to a published agent whose preview answers from a document
they uploaded, in the browser alone except where the service has no console page: the operator's command grants the
credits and the plan with keys (`python -m ops`, as README's `make ops` steps do).

Sign in through the mail link; create a workspace (Home) and an agent (Agents); drop a document on the Knowledge
page and see it indexed; write the agent's behaviour and save it; try the agent in the preview (refused without
credits, saying what to do; with credits it answers from the document, the passages and sources naming it); publish
a post; mint a key (Keys) and see the read plane serve the agent with it: its feed holds the post and a visitor's
chat is answered from the same document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from tests.browser.conftest import set_plan
from tests.browser.console.test_agents import ops
from tests.support import log_scan
from tests.support.console import Console

NEWCOMER = "newcomer-console@example.com"
GUIDE = (
    "Bakery guide\n\n"
    "Sourdough. Our sourdough loaves come out of the oven at seven every morning and are gone by noon.\n\n"
    "Orders. Cakes for birthdays are ordered three days ahead, at the counter or by phone.\n"
)
QUESTION = "When do the sourdough loaves come out of the oven?"
SITE = "https://bakery.example.com"


def test_a_newcomer_publishes_an_agent_that_answers_from_their_document(console: Console, tmp_path: Path) -> None:
    console.sign_in(NEWCOMER)
    console.wait_text("You have no workspace yet.")
    console.screenshot("journey-home")
    console.axe("journey-home")

    # A workspace, then an agent: each lands on the next step's page.
    console.fill("New workspace", "Corner bakery")
    console.click("button", "Create workspace")
    console.wait_text("This workspace has no agent yet.")
    (workspace,) = [w["id"] for w in console.api(NEWCOMER, "GET", "/api/workspaces").json()]
    console.fill("Agent name", "Bakery helper")
    console.click("button", "Create agent")
    console.wait_role("heading", "Bakery helper: behaviour and preview")
    (agent,) = [a["id"] for a in console.api(NEWCOMER, "GET", f"/api/workspaces/{workspace}/agents").json()["agents"]]

    item = uploaded(console, workspace, agent, tmp_path)
    answered_in_the_preview(console, workspace, agent, item)
    published(console, agent, item)


def uploaded(console: Console, workspace: str, agent: str, tmp_path: Path) -> dict[str, Any]:
    """The document, through the Knowledge page's file picker (its signed upload straight to storage), indexed."""
    console.click("link", "Knowledge", exact=True)
    console.wait_role("heading", "Knowledge", exact=True)
    guide = tmp_path / "bakery-guide.txt"
    guide.write_text(GUIDE)
    console.driver.find_element(By.CSS_SELECTOR, "[data-testid=dropzone] input[type=file]").send_keys(str(guide))
    console.until("the document indexed",
                  lambda: console.driver.find_elements(By.CSS_SELECTOR, "li.document [data-status=indexed]"),
                  timeout=90)  # fmt: skip
    (item,) = console.api(NEWCOMER, "GET", f"/api/workspaces/{workspace}/agents/{agent}/items").json()["items"]
    assert item["index"]["status"] == "indexed" and item["index"]["passages"] >= 1, item
    console.screenshot("journey-knowledge")
    return dict(item)


def answered_in_the_preview(console: Console, workspace: str, agent: str, item: dict[str, Any]) -> None:
    """The behaviour saved; the preview refused without credits (saying what to do), then answering from the
    document once the operator granted some, the passages and sources naming it."""
    # The behaviour, saved.
    console.click("link", "Behaviour and preview")
    console.wait_role("heading", "Bakery helper: behaviour and preview")
    console.fill("Instructions", "You are the bakery's cheerful helper.")
    console.click("button", "Save behaviour")
    console.wait_text("Saved: visitors' next turns answer this way.")
    behaviour = console.api(NEWCOMER, "GET", f"/api/workspaces/{workspace}/agents/{agent}").json()["agent"]["behaviour"]
    assert behaviour["instructions"] == "You are the bakery's cheerful helper."

    # The preview: a newcomer has no credits yet, and is told what to do; the operator grants some.
    console.fill("Your question", QUESTION)
    console.click("button", "Send")
    console.wait_text("add credits, then try again")
    granted = ops(console.service, "grant", "--email", NEWCOMER, "--credits", "100", "--ref-id", "journey")
    assert granted["applied"] is True
    console.click("button", "Start over")
    console.fill("Your question", QUESTION)
    console.click("button", "Send")
    console.until("the reply", lambda: console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=preview-credits]"))
    reply = console.driver.find_element(By.CSS_SELECTOR, "[data-testid=preview-reply]").text
    assert "seven every morning" in reply, reply
    passages = console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=preview-passage]")
    assert passages and item["name"] in passages[0].text and "Sourdough" in passages[0].text
    assert item["name"] in console.driver.find_element(By.CSS_SELECTOR, "[data-testid=preview-sources]").text
    console.screenshot("journey-preview")
    console.axe("journey-preview")


def published(console: Console, agent: str, item: dict[str, Any]) -> None:
    """A post published from the Posts tab, a key minted on the Keys page (a plan with keys, from the operator):
    the read plane serves the agent with that key, its feed holding the post, its chat answering from the document."""
    service = console.service
    console.click("link", "Posts", exact=True)
    console.fill("Title", "Sourdough every morning")
    console.fill("Caption", "Fresh at seven.")
    console.field("Publish now").click()
    console.click("button", "Publish post")
    console.wait_text("Post published.")

    # A key for the bakery's site (a plan with keys, from the operator), minted on the Keys page.
    set_plan(service, NEWCOMER, "pro")
    console.click("link", "Keys", exact=True)
    console.fill("Name", "bakery site")
    console.fill("Allowed origins", SITE)
    console.click("button", "Mint key")
    console.wait_text("you will not see it again")
    raw = console.driver.find_element(By.CSS_SELECTOR, "[data-testid=raw-key]").text.strip()
    log_scan.register_secret(raw)
    console.screenshot("journey-key")

    # Published: the read plane serves the agent with that key, its feed holding the post, its chat the document.
    feed = service.brain_get(f"/v1/agent/{agent}/feed", raw, Origin=SITE)
    assert feed.status == 200, feed.body
    assert [p["title"] for p in json.loads(feed.body)] == ["Sourdough every morning"]
    chat = service.request(
        "POST", f"{service.brain}/v1/agent/{agent}/chat",
        headers={"Authorization": f"Bearer {raw}", "Origin": SITE, "Content-Type": "application/json"},
        body=json.dumps({"prompt": QUESTION, "client": "journey-visitor-0001"}).encode(),
    )  # fmt: skip
    assert chat.status == 200, chat.body
    events = [json.loads(line) for line in chat.body.decode().splitlines() if line.strip()]
    said = "".join(e["text"] for e in events if e["type"] == "delta")
    assert "seven every morning" in said, events
    (sources,) = [e["sources"] for e in events if e["type"] == "sources"]
    assert item["name"] in [s["name"] for s in sources]
