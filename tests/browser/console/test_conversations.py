"""The console's conversations tab (issue 41): visitors chat through the read plane with the workspace's key; the
owner reads every visitor's threads, filters them to one visitor, reads a thread's turns with the rating and sources
the feedback list holds, exports them as JSON Lines (the same turns the API lists), and erases a visitor in two steps,
after which the API lists none of their threads. A workspace that stores no conversations says so, linking to its
settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.console import Console
from tests.support.console_visits import HOURS_QUESTION, ask, shop

pytestmark = pytest.mark.browser

OWNER = "console-conversations@example.com"
ELSEWHERE = "Do you sell qwyxz plorf?"


def rows(console: Console) -> list[dict[str, str]]:
    """The threads table as shown: each row's visitor and thread."""
    from selenium.webdriver.common.by import By

    found = console.driver.find_elements(By.CSS_SELECTOR, "table[data-testid=threads] tbody tr")
    return [{"client": r.get_attribute("data-client"), "thread": r.get_attribute("data-thread")} for r in found]


def listed(threads: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"client": t["client"], "thread": t["threadKey"]} for t in threads]


def test_threads_filtered_a_thread_read_exported_and_a_visitor_erased(console: Console, tmp_path: Path) -> None:
    scene = shop(console, OWNER)
    with scene.visitor("ava") as ava, scene.visitor("bo") as bo:
        first = ask(ava, scene, HOURS_QUESTION)
        again = ask(ava, scene, ELSEWHERE, thread_key=first.thread_key)
        ava.feedback(scene.agent, first.turn_id or "", rating="up")
        lost = ask(bo, scene, ELSEWHERE)
        bo.feedback(scene.agent, lost.turn_id or "", rating="down", comment="Nothing about plorf.")
        ava_client, bo_client = ava.client_id, bo.client_id
    assert any(s.name == HOURS_QUESTION for s in first.sources or [])  # the owner's answer was a passage

    console.sign_in(OWNER)
    console.open(f"/w/{scene.workspace}/agents/{scene.agent}/conversations")
    console.wait_role("heading", "Conversations")
    everyone = scene.api("GET", "~/conversations")["threads"]
    assert len(everyone) == 2
    console.until("both visitors' threads", lambda: rows(console) == listed(everyone))
    console.screenshot("conversations")
    console.axe("conversations")

    # One visitor's threads: the filter's answer is the API's with client=.
    console.fill("Visitor", ava_client)
    console.click("button", "Filter", exact=True)
    only_ava = scene.api("GET", f"~/conversations?client={ava_client}")["threads"]
    assert [t["client"] for t in only_ava] == [ava_client]
    console.until("only Ava's thread", lambda: rows(console) == listed(only_ava))

    # Her thread's turns, oldest first, with the rating and the sources the feedback list holds.
    console.click("button", f"Read the thread of {ava_client}")
    console.wait_role("heading", "Thread of visitor")
    turns = scene.api("GET", f"~/conversations/{first.thread_key}?client={ava_client}")["turns"]
    assert [t["turnId"] for t in turns] == [first.turn_id, again.turn_id]
    read = console.until("the thread's turns", lambda: shown_turns(console, len(turns)))
    assert [(t["turnId"], t["prompt"], t["credits"]) for t in read] == [
        (t["turnId"], t["prompt"], f"{t['credits']} credit{'s' if t['credits'] != 1 else ''}") for t in turns
    ]
    assert [" ".join(t["reply"].split()) for t in read] == [" ".join(t["reply"].split()) for t in turns]
    assert [t["rating"] for t in read] == ["up", None]
    assert read[0]["sources"] and read[0]["sources"][0].startswith(HOURS_QUESTION)
    console.screenshot("conversations-thread")
    console.axe("conversations-thread")

    # The export (filters cleared: every thread) holds the turns the API lists, one a line.
    console.click("button", "Clear filters")
    console.until("both threads again", lambda: rows(console) == listed(everyone))
    assert exported(console, tmp_path) == [
        {"agentId": scene.agent, "threadKey": thread["threadKey"], "client": thread["client"], **turn}
        for thread in everyone
        for turn in scene.api("GET", f"~/conversations/{thread['threadKey']}?client={thread['client']}")["turns"]
    ]
    assert "2 threads, 3 turns" in console.text()

    # Bo asks to be forgotten: two steps, the count erased shown, and the API lists none of his threads.
    console.click("button", f"Read the thread of {bo_client}")
    console.wait_text(f"Thread of visitor {bo_client}")
    console.click("button", "Erase this visitor")
    console.click("button", "Yes, erase this visitor")
    console.wait_text(f"Erased 1 turn of visitor {bo_client}")
    assert scene.api("GET", f"~/conversations?client={bo_client}")["threads"] == []
    remaining = scene.api("GET", "~/conversations")["threads"]
    assert [t["client"] for t in remaining] == [ava_client]
    console.until("only Ava's thread left", lambda: rows(console) == listed(remaining))


def shown_turns(console: Console, count: int) -> list[dict[str, Any]] | None:
    """The open thread's turns as shown, once there are ``count``: id, prompt, reply, credits, rating, sources."""
    from selenium.webdriver.common.by import By

    items = console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=thread] li[data-turn]")
    if len(items) != count:
        return None
    out = []
    for item in items:
        field = {f.get_attribute("data-field"): f for f in item.find_elements(By.CSS_SELECTOR, "[data-field]")}
        out.append({
            "turnId": item.get_attribute("data-turn"),
            "prompt": field["prompt"].text,
            "reply": field["reply"].text,
            "credits": field["credits"].text,
            "rating": field["rating"].get_attribute("data-rating") if "rating" in field else None,
            "sources": [s.text for s in item.find_elements(By.CSS_SELECTOR, "ul.sources li")],
        })  # fmt: skip
    return out


def exported(console: Console, folder: Path) -> list[dict[str, Any]]:
    """Export as JSON Lines, and the lines of the file the browser downloads (the page's CSP lets no script read a
    blob: URL back, nor should it)."""
    from selenium.webdriver.common.by import By

    console.click("button", "Export as JSON Lines")
    done = "[data-testid=export-done] a[download]"
    link = console.until("the export's link", lambda: console.driver.find_element(By.CSS_SELECTOR, done))
    console.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    link.click()
    saved = folder / link.get_attribute("download")
    text = console.until("the downloaded file", lambda: saved.is_file() and saved.read_text())
    return [json.loads(line) for line in text.splitlines()]


def test_a_workspace_that_stores_no_conversations_says_so_and_links_to_its_settings(console: Console) -> None:
    from selenium.webdriver.common.by import By

    scene = shop(console, "console-conversations-off@example.com", store=False, answered=False)
    console.sign_in(scene.email)
    console.open(f"/w/{scene.workspace}/agents/{scene.agent}/conversations")
    console.wait_text("This workspace does not store conversations.")
    link = console.role("link", "Store conversations")
    assert link.get_attribute("href") == f"{console.url}/w/{scene.workspace}/settings"
    console.wait_text("No conversations yet.")
    assert console.driver.find_elements(By.CSS_SELECTOR, "table[data-testid=threads]") == []
    console.axe("conversations-not-stored")
