"""The console's knowledge tab (issue 41): a document dropped on the page goes straight to storage with its progress
shown, becomes an item whose index status moves from pending to indexed on the page by itself (the page is never
reloaded), and the search box finds its passage as the API ranks it; a damaged PDF shows the knowledge worker's
reason in words and a replacement file fixes it (its old file deleted); a file the API refuses (a type, the plan's
object size) shows the API's message; deactivate and delete reach the API. A member sees the documents and searches,
with no write button."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.console import Console
from tests.support.runner import knowledge_settled
from tests.support.s3_post import post_form

pytestmark = pytest.mark.browser

# One owner a test: the free plan owns one workspace.
OWNER = "knowledge-owner@example.com"
FIXER = "knowledge-fixer@example.com"
LEAD = "knowledge-lead@example.com"
MEMBER = "knowledge-member@example.com"
QUESTION = "When does the marmalade workshop open?"
WORKSHOP = "The marmalade workshop opens at nine o'clock on Saturdays, in the old barn behind the shop."
# Enough text that its upload takes a while under the throttle below (progress is seen between 0 and 100%), all of
# it under the free plan's knowledge limit; none of its words are the question's.
FILLER = "Notes on the orchard's history, the valley's weather and the village fair, kept for visitors. " * 2400
DOCUMENT = f"# Shop guide\n\n## History\n\n{FILLER}\n\n## Workshop\n\n{WORKSHOP}\n"
POLL_SECONDS = 3  # the page's POLL_MS
UPLOAD_BYTES_PER_SECOND = 150_000  # the page's uploads throttled (CDP) so its progress has steps to show

# Every progress bar's value and every document's status the page ever showed, recorded as the DOM changes (a
# MutationObserver's records are delivered for every change, painted or not): what a person saw, step by step.
RECORD = """
window.__seen = {progress: [], statuses: []};
const record = () => {
  for (const bar of document.querySelectorAll('progress')) window.__seen.progress.push([bar.value, bar.max]);
  for (const badge of document.querySelectorAll('[data-status]')) {
    const entry = badge.closest('[data-item]').dataset.item + ' ' + badge.dataset.status;
    const all = window.__seen.statuses;
    if (all[all.length - 1] !== entry) all.push(entry);
  }
};
new MutationObserver(record).observe(document.body, {subtree: true, childList: true, attributes: true,
                                                     characterData: true});
"""
# A drop as a browser delivers it: dragenter, dragover and drop carrying a DataTransfer with the file.
DROP = """
const [name, type, text] = arguments;
const zone = document.querySelector('[data-testid=dropzone]');
const data = new DataTransfer();
data.items.add(new File([text], name, {type}));
for (const kind of ['dragenter', 'dragover', 'drop'])
  zone.dispatchEvent(new DragEvent(kind, {bubbles: true, cancelable: true, dataTransfer: data}));
"""


def workspace_of(console: Console, email: str, name: str) -> str:
    created = console.api(email, "POST", "/api/workspaces", {"name": name})
    assert created.status == 201, created.body
    return str(created.json()["workspace"]["id"])


def agent_of(console: Console, email: str, workspace: str, name: str) -> str:
    made = console.api(email, "POST", f"/api/workspaces/{workspace}/agents", {"name": name})
    assert made.status == 201, made.body
    return str(made.json()["agent"]["id"])


def items_of(console: Console, email: str, workspace: str, agent: str) -> list[dict[str, Any]]:
    answer = console.api(email, "GET", f"/api/workspaces/{workspace}/agents/{agent}/items")
    assert answer.status == 200, answer.body
    return list(answer.json()["items"])


def objects_of(console: Console, email: str, workspace: str, prefix: str) -> list[str]:
    answer = console.api(email, "GET", f"/api/workspaces/{workspace}/objects?prefix={prefix}")
    assert answer.status == 200, answer.body
    return [o["path"] for o in answer.json()["objects"]]


def document(console: Console, name: str) -> Any:
    """The document's entry on the page (its ``li``), by the item's name."""
    from selenium.webdriver.common.by import By

    def find() -> Any:
        for entry in console.driver.find_elements(By.CSS_SELECTOR, "ul.documents > li"):
            if entry.find_element(By.TAG_NAME, "h3").text == name:
                return entry
        return None

    return console.until(f"the document {name!r}", find)


def status_of(console: Console, name: str) -> str:
    from selenium.webdriver.common.by import By

    return str(document(console, name).find_element(By.CSS_SELECTOR, "[data-status]").get_attribute("data-status"))


def pick(console: Console, path: Path, selector: str = "[data-testid=dropzone] input[type=file]") -> None:
    """Choose ``path`` in a file input as the picker would (WebDriver types the path into it)."""
    from selenium.webdriver.common.by import By

    console.driver.find_element(By.CSS_SELECTOR, selector).send_keys(str(path))


def throttled(console: Console, bytes_per_second: int | None) -> None:
    """The page's uploads limited to ``bytes_per_second`` (None: no limit), as a slow connection is."""
    console.driver.execute_cdp_cmd("Network.enable", {})
    limit = bytes_per_second if bytes_per_second is not None else -1
    conditions = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": limit}
    console.driver.execute_cdp_cmd("Network.emulateNetworkConditions", conditions)


def search_shows_what_the_api_ranks(console: Console, workspace: str, agent: str, item_id: str) -> None:
    """The search box shows what the API ranks first: the workshop's passage, where it stands, its score, its
    source."""
    from selenium.webdriver.common.by import By

    console.fill("A visitor's message", QUESTION)
    console.click("button", "Search", exact=True)
    first = console.until("a passage", lambda: console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=passage]"))
    ranked = console.api(
        OWNER, "POST", f"/api/workspaces/{workspace}/agents/{agent}/knowledge/search", {"query": QUESTION}
    ).json()["passages"]
    assert WORKSHOP in ranked[0]["text"] and ranked[0]["source"]["itemId"] == item_id
    assert len(first) == len(ranked)
    top = first[0]
    assert top.find_element(By.TAG_NAME, "blockquote").text == ranked[0]["text"].strip()
    assert top.find_element(By.CSS_SELECTOR, "[data-testid=passage-source]").text == "Document: guide"
    assert top.find_element(By.CSS_SELECTOR, "[data-testid=passage-score]").text == f"{ranked[0]['score']:.2f}"
    if ranked[0]["where"]:
        assert ranked[0]["where"] in top.text


def deactivated_activated_then_deleted(console: Console, workspace: str, agent: str) -> None:
    """Deactivate and activate again, each reaching the API; then a two-step delete taking the item and its file."""
    from selenium.webdriver.common.by import By

    entry = document(console, "guide")
    entry.find_element(By.XPATH, ".//button[normalize-space()='Deactivate']").click()
    console.until("the guide inactive", lambda: "Inactive" in document(console, "guide").text)
    assert items_of(console, OWNER, workspace, agent)[0]["active"] is False
    document(console, "guide").find_element(By.XPATH, ".//button[normalize-space()='Activate']").click()
    console.until("the guide active", lambda: "Inactive" not in document(console, "guide").text)
    assert items_of(console, OWNER, workspace, agent)[0]["active"] is True

    # Delete, in two steps: the item and the console's file of it are gone from the API.
    document(console, "guide").find_element(By.XPATH, ".//button[normalize-space()='Delete']").click()
    console.wait_text("Delete guide and its file?")
    assert len(items_of(console, OWNER, workspace, agent)) == 1  # nothing happened at the first click
    console.click("button", "Yes, delete")
    console.wait_text("No documents yet.")
    assert items_of(console, OWNER, workspace, agent) == []
    assert objects_of(console, OWNER, workspace, f"projects/{agent}/") == []


def test_a_dropped_document_is_uploaded_read_live_and_found(console: Console) -> None:
    from selenium.webdriver.common.by import By

    console.sign_in(OWNER)
    workspace = workspace_of(console, OWNER, "Orchard shop")
    agent = agent_of(console, OWNER, workspace, "Orchard helper")
    console.open(f"/w/{workspace}/agents/{agent}/knowledge")
    console.wait_role("heading", "Knowledge", exact=True)
    console.wait_text("No documents yet.")
    console.screenshot("knowledge-empty")
    console.axe("knowledge-empty")

    console.driver.execute_script(RECORD)
    throttled(console, UPLOAD_BYTES_PER_SECOND)
    try:
        console.driver.execute_script(DROP, "guide.md", "text/markdown", DOCUMENT)
        console.wait_text("Uploading guide.md")  # the progress bar, named
        console.wait_text("guide.md: added.", timeout=60)
    finally:
        throttled(console, None)
    seen = console.driver.execute_script("return window.__seen")
    steps = [value for value, top in seen["progress"] if 0 < value < top]
    assert steps, f"no progress between 0 and 100% was shown: {seen['progress'][:20]}"

    # The item, as the API has it: the console's folder, the file's name, read from the stored object.
    (item,) = items_of(console, OWNER, workspace, agent)
    assert (item["name"], item["kind"], item["r2Key"]) == ("guide", "document", f"projects/{agent}/documents/guide.md")
    assert (item["mimeType"], item["size"], item["active"]) == ("text/markdown", len(DOCUMENT.encode()), True)

    # Pending, then indexed, on the same page (the recorder installed before the drop is still there: no reload).
    console.until("the guide indexed", lambda: status_of(console, "guide") == "indexed", timeout=90)
    statuses = console.driver.execute_script("return window.__seen.statuses")
    assert statuses[:1] == [f"{item['id']} pending"] and statuses[-1] == f"{item['id']} indexed", statuses
    indexed = items_of(console, OWNER, workspace, agent)[0]["index"]
    passages = indexed["passages"]
    assert indexed["status"] == "indexed" and passages > 1
    words = document(console, "guide").find_element(By.CSS_SELECTOR, "[data-testid=index-words]").text
    assert words == f"{passages} passages the agent can answer from."
    console.wait_text("1 document · 1 indexed")
    # Nothing pending any more: the page stops reading the list (no read in twice the polling interval).
    reads = "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/items')).length"
    before = console.driver.execute_script(reads)
    time.sleep(2 * POLL_SECONDS + 1)
    assert console.driver.execute_script(reads) == before

    search_shows_what_the_api_ranks(console, workspace, agent, item["id"])
    console.screenshot("knowledge-indexed")
    console.axe("knowledge-indexed")

    deactivated_activated_then_deleted(console, workspace, agent)


def test_a_damaged_pdf_says_why_a_new_file_replaces_it_and_refusals_are_the_apis(
    console: Console, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    console.sign_in(FIXER)
    workspace = workspace_of(console, FIXER, "Leaflets")
    agent = agent_of(console, FIXER, workspace, "Leaflet helper")
    console.open(f"/w/{workspace}/agents/{agent}/knowledge")
    console.wait_text("No documents yet.")

    broken = tmp_path / "prices.pdf"
    broken.write_bytes(b"%PDF-1.7\n1 0 obj <<< this is not a PDF any reader can open\n%%EOF\n")
    pick(console, broken)
    console.wait_text("prices.pdf: added.")
    console.until("the prices failed", lambda: status_of(console, "prices") == "failed", timeout=90)
    (item,) = items_of(console, FIXER, workspace, agent)
    reason = item["index"]["error"]
    assert item["index"]["status"] == "failed" and "damaged" in reason, item
    shown = document(console, "prices")
    assert shown.find_element(By.CSS_SELECTOR, "[data-testid=index-words]").text == reason
    assert "Failed" in shown.text
    console.screenshot("knowledge-failed")
    console.axe("knowledge-failed")

    # Replace: a readable file under a new key, the item's r2Key moved to it, the damaged file deleted.
    fixed = tmp_path / "prices.txt"
    fixed.write_text("Jam costs four euros a jar; honey costs six euros a jar.\n")
    pick(console, fixed, 'input[aria-label="New file for prices"]')
    console.wait_text("prices.txt (replacing prices): added.")
    console.until("the prices indexed", lambda: status_of(console, "prices") == "indexed", timeout=90)
    (replaced,) = items_of(console, FIXER, workspace, agent)
    assert replaced["id"] == item["id"]
    assert (replaced["r2Key"], replaced["mimeType"]) == (f"projects/{agent}/documents/prices.txt", "text/plain")
    assert objects_of(console, FIXER, workspace, f"projects/{agent}/") == [replaced["r2Key"]]

    # A type the service refuses: the API's 400, naming contentType, shown as it said it.
    page = tmp_path / "page.html"
    page.write_text("<p>not a document</p>")
    pick(console, page)
    console.wait_text("page.html was not added.")
    refused = console.api(
        FIXER,
        "POST",
        f"/api/workspaces/{workspace}/uploads",
        {"path": f"projects/{agent}/documents/page.html", "contentType": "text/html", "size": 21},
    )
    assert refused.status == 400 and "contentType" in refused.json()["error"], refused.body
    console.wait_text(refused.json()["error"])
    console.wait_text("(VALIDATION_ERROR)")

    # Over the plan's object size: the API's 402 with its words and what to do (the bytes are never sent).
    big = tmp_path / "catalogue.pdf"
    with big.open("wb") as sparse:
        sparse.truncate(26 * 1024 * 1024)  # over the free plan's 25 MiB
    pick(console, big)
    console.wait_text("catalogue.pdf was not added.")
    over = console.api(
        FIXER,
        "POST",
        f"/api/workspaces/{workspace}/uploads",
        {
            "path": f"projects/{agent}/documents/catalogue.pdf",
            "contentType": "application/pdf",
            "size": big.stat().st_size,
        },
    )
    assert over.status == 402 and over.json()["code"] == "STORAGE_LIMIT_REACHED", over.body
    console.wait_text(over.json()["error"])
    console.wait_text("(STORAGE_LIMIT_REACHED)")
    console.wait_text("over the plan's limit")
    assert len(items_of(console, FIXER, workspace, agent)) == 1
    console.screenshot("knowledge-refused")
    console.axe("knowledge-refused")


def invited_member(console: Console, workspace: str) -> None:
    """``MEMBER`` joins ``workspace`` as a member: invited by the owner, the mailed link's token accepted."""
    made = console.api(LEAD, "POST", f"/api/workspaces/{workspace}/invitations", {"email": MEMBER, "role": "member"})
    assert made.status == 201, made.body
    outbox = sorted((console.service.state_dir / "outbox").glob("*.json"), key=lambda p: p.stat().st_mtime)
    mails = [json.loads(p.read_text()) for p in outbox]
    links = [m["link"] for m in mails if m["to"] == MEMBER and "/invitations" in m["link"]]
    token = parse_qs(urlsplit(links[-1]).query)["token"][0]
    accepted = console.api(MEMBER, "POST", "/api/invitations/accept", {"token": token})
    assert accepted.status == 200, accepted.body


def test_a_member_reads_and_searches_the_knowledge_with_no_write_button(console: Console) -> None:
    from selenium.webdriver.common.by import By

    workspace = workspace_of(console, LEAD, f"Team {uuid.uuid4().hex[:6]}")
    agent = agent_of(console, LEAD, workspace, "Team helper")
    hours = b"The counter opens at eight."
    ticket = console.api(
        LEAD,
        "POST",
        f"/api/workspaces/{workspace}/uploads",
        {"path": f"projects/{agent}/documents/hours.txt", "contentType": "text/plain", "size": len(hours)},
    ).json()
    sent = post_form(ticket["url"], ticket["fields"], hours, filename="hours.txt")
    assert sent.status_code in (200, 201, 204), sent.text
    made = console.api(
        LEAD,
        "POST",
        f"/api/workspaces/{workspace}/agents/{agent}/items",
        {"name": "hours", "kind": "document", "r2Key": f"projects/{agent}/documents/hours.txt"},
    )
    assert made.status == 201, made.body
    console.api(
        LEAD,
        "POST",
        f"/api/workspaces/{workspace}/agents/{agent}/answers",
        {"question": "Where do I park?", "answer": "Behind the barn."},
    )
    invited_member(console, workspace)
    knowledge_settled(console.service)

    console.sign_in(MEMBER)
    console.open(f"/w/{workspace}/agents/{agent}/knowledge")
    console.until("the hours indexed", lambda: status_of(console, "hours") == "indexed", timeout=90)
    assert not console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=dropzone], input[type=file]")
    for label in ("Replace file", "Deactivate", "Activate", "Delete"):
        assert not console.roles("button", label, exact=True), label
    console.fill("A visitor's message", "When does the counter open?")
    console.click("button", "Search", exact=True)
    console.until("the passage", lambda: console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=passage]"))
    console.wait_text("Document: hours")
    console.screenshot("knowledge-member")
    console.axe("knowledge-member")

    console.open(f"/w/{workspace}/agents/{agent}/answers")
    console.wait_text("Behind the barn.")
    for label in ("Add answer", "Edit", "Delete"):
        assert not console.roles("button", label, exact=True), label
    assert not console.driver.find_elements(By.CSS_SELECTOR, "form.answer-form")
    console.screenshot("answers-member")
    console.axe("answers-member")
