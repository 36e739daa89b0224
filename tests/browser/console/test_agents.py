"""The console's agents and behaviour pages (console/src/pages/agents): agents created, renamed and deleted in the
browser and read back through the portal API; the behaviour saved and read back; the preview chat streaming the
reply of the editor's unsaved behaviour (its first words shown while the model is held after them: streaming shown
by order, not by timing), then the passages behind it with the scores the API sent, and the sources; a preview
without credits refused with what to do. A member sees the agents and may try one, with no write button."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

from selenium.webdriver.common.by import By

from stack.template import ROOT
from tests.browser.conftest import set_plan
from tests.support.console import Console
from tests.support.runner import LocalService, invitation_link
from tests.support.s3_post import post_form

OWNER = "agents-owner@example.com"
MEMBER = "agents-member@example.com"
NOTE = (
    "Opening hours. The studio opens at eight in the morning on weekdays and at ten on Saturdays.\n\n"
    "Parking. Visitors park free of charge in the courtyard behind the bakery."
)


def workspace_of(console: Console, email: str, name: str) -> str:
    created = console.api(email, "POST", "/api/workspaces", {"name": name})
    assert created.status == 201, created.body
    return str(created.json()["workspace"]["id"])


def agents_of(console: Console, email: str, workspace: str) -> list[dict[str, Any]]:
    listed = console.api(email, "GET", f"/api/workspaces/{workspace}/agents")
    assert listed.status == 200, listed.body
    return list(listed.json()["agents"])


def ops(service: LocalService, *args: str) -> dict[str, Any]:
    """``python -m ops ARGS`` against the runner (the operator's command: credits are granted there)."""
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "ops", "--state-dir", str(service.state_dir), *args]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def upload_note(console: Console, email: str, workspace: str, agent: str, *, name: str, text: str) -> dict[str, Any]:
    """A text document given to the agent through the portal API (presigned POST, then the item), once indexed."""
    body = text.encode()
    path = f"projects/{agent}/notes/{name.lower().replace(' ', '-')}.txt"
    signed = console.api(email, "POST", f"/api/workspaces/{workspace}/uploads",
                         {"path": path, "contentType": "text/plain", "size": len(body)})  # fmt: skip
    assert signed.status == 201, signed.body
    assert post_form(signed.json()["url"], signed.json()["fields"], body).status_code == 204
    item = {"name": name, "kind": "document", "r2Key": path}
    created = console.api(email, "POST", f"/api/workspaces/{workspace}/agents/{agent}/items", item)
    assert created.status == 201, created.body
    item_id = created.json()["item"]["id"]

    def indexed() -> dict[str, Any] | None:
        items = console.api(email, "GET", f"/api/workspaces/{workspace}/agents/{agent}/items").json()["items"]
        found = next(i for i in items if i["id"] == item_id)
        assert found["index"]["status"] in ("pending", "indexed"), found["index"]
        return found if found["index"]["status"] == "indexed" else None

    return console.until(f"{name} indexed", indexed, timeout=90)


def join_as_member(console: Console, workspace: str) -> None:
    invited = console.api(
        OWNER, "POST", f"/api/workspaces/{workspace}/invitations", {"email": MEMBER, "role": "member"}
    )
    assert invited.status == 201, invited.body
    token = parse_qs(urlsplit(invitation_link(console.service, MEMBER)).query)["token"][0]
    accepted = console.api(MEMBER, "POST", "/api/invitations/accept", {"token": token})
    assert accepted.status in (200, 201), accepted.body


def row_of(console: Console, attribute: str, value: str) -> Any:
    css = f'tr[{attribute}="{value}"]'
    return console.until(f"the row {css}", lambda: console.driver.find_element(By.CSS_SELECTOR, css))


def test_agents_are_created_renamed_and_deleted(console: Console) -> None:
    console.sign_in(OWNER)
    set_plan(console.service, OWNER, "pro")  # room for two agents and a member
    workspace = workspace_of(console, OWNER, "Agents studio")
    console.open(f"/w/{workspace}/")
    console.wait_role("heading", "Agents", exact=True)
    console.wait_text("This workspace has no agent yet.")
    console.screenshot("agents-empty")
    console.axe("agents-empty")

    console.fill("Agent name", "Front desk")
    console.click("button", "Create agent")
    console.wait_role("heading", "Front desk: behaviour and preview")
    (agent,) = agents_of(console, OWNER, workspace)
    assert agent["name"] == "Front desk"
    assert console.url_path() == f"/w/{workspace}/agents/{agent['id']}/"

    spare = console.api(OWNER, "POST", f"/api/workspaces/{workspace}/agents", {"name": "Spare"})
    assert spare.status == 201, spare.body
    console.open(f"/w/{workspace}/")
    console.wait_text("Spare")
    console.screenshot("agents")
    console.axe("agents")

    console.click("button", "Rename Front desk")
    console.fill("New name for Front desk", "Reception")
    console.click("button", "Save name")
    console.wait_text("Renamed to Reception.")
    names = {a["id"]: a["name"] for a in agents_of(console, OWNER, workspace)}
    assert names == {agent["id"]: "Reception", spare.json()["agent"]["id"]: "Spare"}

    spare_row = row_of(console, "data-agent", spare.json()["agent"]["id"])
    spare_row.find_element(By.XPATH, ".//button[normalize-space()='Delete']").click()
    console.click("button", "Yes, delete")
    console.wait_text("Spare deleted.")
    assert [a["name"] for a in agents_of(console, OWNER, workspace)] == ["Reception"]
    assert not console.driver.find_elements(By.CSS_SELECTOR, f'tr[data-agent="{spare.json()["agent"]["id"]}"]')

    # A member sees the agents, with no create, rename or delete control, and the API refuses them anyway.
    join_as_member(console, workspace)
    console.reset()
    console.sign_in(MEMBER)
    console.open(f"/w/{workspace}/")
    console.wait_text("Reception")
    assert not console.roles("button", "Rename") and not console.roles("button", "Delete")
    assert not console.roles("button", "Create agent") and not console.driver.find_elements(By.CSS_SELECTOR, "input")
    refused = console.api(MEMBER, "PATCH", f"/api/workspaces/{workspace}/agents/{agent['id']}", {"name": "Mine"})
    assert refused.status == 403, refused.body
    console.axe("agents-member")


def test_behaviour_is_saved_and_the_preview_streams_its_passages(console: Console) -> None:
    console.sign_in(OWNER)
    workspace = workspace_of(console, OWNER, "Behaviour studio")
    created = console.api(OWNER, "POST", f"/api/workspaces/{workspace}/agents", {"name": "Concierge"})
    assert created.status == 201, created.body
    agent = created.json()["agent"]["id"]
    upload_note(console, OWNER, workspace, agent, name="Studio guide", text=NOTE)
    models = console.api(OWNER, "GET", "/api/models").json()["models"]
    default = next(m for m in models if m["default"])

    console.open(f"/w/{workspace}/agents/{agent}/")
    console.wait_role("heading", "Concierge: behaviour and preview")
    price = console.driver.find_element(By.CSS_SELECTOR, "[data-testid=model-price]").text
    assert f"{default['creditsPerTurn']} credit" in price and default["name"] in price
    console.screenshot("behaviour")
    console.axe("behaviour")
    stored = saved_and_read_back(console, workspace, agent)

    # A preview is billed: without credits it is refused, saying what to do.
    before = console.api(OWNER, "GET", "/api/credits/balance").json()["balance"]["available"]
    assert before < default["creditsPerTurn"], before
    console.fill("Your question", "When does the studio open?")
    console.click("button", "Send")
    console.wait_text("INSUFFICIENT_CREDITS")
    console.wait_text("add credits, then try again")
    console.axe("behaviour-no-credits")
    ops(console.service, "grant", "--email", OWNER, "--credits", "50", "--ref-id", "agents-preview")

    # The unsaved behaviour is what the preview uses: knowledge-only again, a fallback of the editor's own.
    console.click("button", "Start over")
    console.field("Answer only from this agent's documents and posts").click()
    console.fill("Fallback", "Ask me about the studio, please.")
    reply = streamed(console, "When does the studio open on Saturdays?")
    assert "ten on Saturdays" in reply
    passages_are_the_apis(console, workspace, agent, "When does the studio open on Saturdays?")
    billed = console.driver.find_element(By.CSS_SELECTOR, "[data-testid=preview-credits]").text
    assert billed == f"Billed {default['creditsPerTurn']} credit{'s' if default['creditsPerTurn'] != 1 else ''}."
    after = console.api(OWNER, "GET", "/api/credits/balance").json()["balance"]["available"]
    assert after == before + 50 - default["creditsPerTurn"]
    # Nothing of the preview's behaviour was saved.
    again = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/agents/{agent}").json()["agent"]["behaviour"]
    assert again == stored

    # A question the material does not answer gets the editor's unsaved fallback, word for word (in a new
    # conversation: retrieval also reads the thread's recent turns, which are about the studio).
    console.click("button", "Start over")
    console.fill("Your question", "Which football team won the cup?")
    console.click("button", "Send")
    console.until("the fallback", lambda: "Ask me about the studio, please." in _reply(console))
    console.screenshot("behaviour-preview")
    console.axe("behaviour-preview")


def saved_and_read_back(console: Console, workspace: str, agent: str) -> dict[str, Any]:
    """The behaviour written in the form and saved is the API's, and the form shows it again after a reload."""
    console.fill("Instructions", "Speak like a friendly concierge. Keep to the studio.")
    console.fill("Longest reply (tokens)", "300")
    console.field("Answer only from this agent's documents and posts").click()
    console.fill("Fallback", "I can only help with the studio.")
    console.click("button", "Save behaviour")
    console.wait_text("Saved: visitors' next turns answer this way.")
    stored = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/agents/{agent}").json()["agent"]["behaviour"]
    assert stored == {
        "instructions": "Speak like a friendly concierge. Keep to the studio.", "model": None, "temperature": 0.3,
        "maxReplyTokens": 300, "knowledgeOnly": False, "fallback": "I can only help with the studio.",
    }  # fmt: skip
    console.driver.refresh()
    console.wait_role("heading", "Concierge: behaviour and preview")
    assert console.field("Longest reply (tokens)").get_attribute("value") == "300"
    assert not console.field("Answer only from this agent's documents and posts").is_selected()
    return dict(stored)


def streamed(console: Console, question: str) -> str:
    """Ask in the preview with the model held after its first words (the runner's OFFLINE_MODEL_GATE): the page
    shows them before the rest exists, as a page that waited for the whole body could not. The whole reply."""
    gate = console.service.state_dir / "offline-gate"
    gate.unlink(missing_ok=True)
    try:
        console.fill("Your question", f"{question} [[offline-gate]]")
        console.click("button", "Send")
        # (60 s: a hang detector for a loaded machine; the gate holds the rest of the reply whatever the wait.)
        first = console.until("the reply's first words", lambda: _reply(console).strip(), timeout=60)
        assert console.roles("button", "Answering…") and console.roles("button", "Stop")
        # The passages came first (the stream's `retrieval` line is before the first delta), still mid-turn.
        assert console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=preview-passage]")
        gate.touch()
        console.until("the end of the turn", lambda: console.roles("button", "Start over"))
    finally:
        gate.unlink(missing_ok=True)
    reply = _reply(console)
    assert reply.startswith(first) and len(reply) > len(first), (first, reply)
    return reply


def passages_are_the_apis(console: Console, workspace: str, agent: str, question: str) -> None:
    """The passages shown are those the API retrieves for the same message, with the same scores, best first; the
    sources name the document."""
    searched = console.api(OWNER, "POST", f"/api/workspaces/{workspace}/agents/{agent}/knowledge/search",
                           {"query": question, "limit": 20})  # fmt: skip
    assert searched.status == 200, searched.body
    expected = [f"score {p['score']:.2f}" for p in searched.json()["passages"]]
    shown = [e.text for e in console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=passage-score]")]
    assert shown and shown == expected[: len(shown)], (shown, expected)
    assert "Opening hours" in console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=preview-passage]")[0].text
    assert "Studio guide" in console.driver.find_element(By.CSS_SELECTOR, "[data-testid=preview-sources]").text


def _replies(console: Console) -> list[str]:
    return [e.text for e in console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=preview-reply]")]


def _reply(console: Console) -> str:
    replies = _replies(console)
    return replies[-1] if replies else ""
